//! Lexical scopes for variables. Functions live in their own table (see `Checker`), because
//! a call finds a function even where a variable of the same name is in scope.

use crate::consteval::ConstValue;
use crate::hir::Var;
use crate::source::Span;
use crate::types::Type;
use std::collections::HashMap;

#[derive(Clone, Debug)]
pub enum VarSym {
    /// A `const` scalar, replaced by its value wherever it is used.
    Const(ConstValue),
    /// A variable with storage; `is_const` for `const` arrays.
    Var { var: Var, ty: Type, is_const: bool },
}

#[derive(Clone, Debug)]
pub struct Entry {
    pub sym: VarSym,
    pub defined_at: Span,
}

/// A stack of scopes; the first is file scope. Each name maps to its visible definitions,
/// innermost last, so that a lookup costs the same however deeply scopes nest.
pub struct Scopes {
    /// For every name, its definitions in the open scopes with each scope's depth (0 is file
    /// scope), innermost last.
    names: HashMap<String, Vec<(usize, Entry)>>,
    /// The names defined in each open scope, innermost last.
    defined: Vec<Vec<String>>,
}

impl Scopes {
    pub fn new() -> Scopes {
        Scopes {
            names: HashMap::new(),
            defined: vec![Vec::new()],
        }
    }

    fn depth(&self) -> usize {
        self.defined.len() - 1
    }

    pub fn push(&mut self) {
        self.defined.push(Vec::new());
    }

    pub fn pop(&mut self) {
        for name in self.defined.pop().unwrap_or_default() {
            if let Some(defs) = self.names.get_mut(&name) {
                defs.pop();
            }
        }
    }

    pub fn at_file_scope(&self) -> bool {
        self.defined.len() == 1
    }

    /// The entry of `name` in the innermost scope only.
    pub fn in_current(&self, name: &str) -> Option<&Entry> {
        let depth = self.depth();
        match self.names.get(name)?.last()? {
            (d, entry) if *d == depth => Some(entry),
            _ => None,
        }
    }

    /// Defines `name` in the innermost scope, replacing a definition there.
    pub fn define(&mut self, name: &str, entry: Entry) {
        let depth = self.depth();
        let defs = self.names.entry(name.to_string()).or_default();
        match defs.last_mut() {
            Some((d, old)) if *d == depth => *old = entry,
            _ => {
                defs.push((depth, entry));
                if let Some(scope) = self.defined.last_mut() {
                    scope.push(name.to_string());
                }
            }
        }
    }

    pub fn lookup(&self, name: &str) -> Option<&Entry> {
        self.names.get(name)?.last().map(|(_, entry)| entry)
    }
}
