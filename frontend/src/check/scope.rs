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
    /// A name whose declaration was rejected: it is declared all the same, so that its uses
    /// add no "use of undeclared identifier" errors, and an expression using it is invalid
    /// without a further error.
    Invalid,
}

#[derive(Clone, Debug)]
pub struct Entry {
    pub sym: VarSym,
    pub defined_at: Span,
}

/// A stack of scopes; the first is file scope. Each distinct name gets a number the first
/// time it is defined, and each number the stack of its visible definitions, so that a
/// lookup costs one hash however deeply scopes nest and closing a scope costs no hashing.
pub struct Scopes {
    /// The number of every name ever defined.
    ids: HashMap<String, usize>,
    /// For each name's number, its definitions in the open scopes with each scope's depth
    /// (0 is file scope), innermost last.
    visible: Vec<Vec<(usize, Entry)>>,
    /// The numbers of the names defined in each open scope, innermost last.
    defined: Vec<Vec<usize>>,
}

impl Scopes {
    pub fn new() -> Scopes {
        Scopes {
            ids: HashMap::new(),
            visible: Vec::new(),
            defined: vec![Vec::new()],
        }
    }

    fn depth(&self) -> usize {
        self.defined.len() - 1
    }

    fn definitions(&self, name: &str) -> Option<&Vec<(usize, Entry)>> {
        self.ids.get(name).map(|&id| &self.visible[id])
    }

    pub fn push(&mut self) {
        self.defined.push(Vec::new());
    }

    pub fn pop(&mut self) {
        for id in self.defined.pop().unwrap_or_default() {
            self.visible[id].pop();
        }
    }

    pub fn at_file_scope(&self) -> bool {
        self.defined.len() == 1
    }

    /// The entry of `name` in the innermost scope only.
    pub fn in_current(&self, name: &str) -> Option<&Entry> {
        let depth = self.depth();
        match self.definitions(name)?.last()? {
            (d, entry) if *d == depth => Some(entry),
            _ => None,
        }
    }

    /// Defines `name` in the innermost scope, replacing a definition there.
    pub fn define(&mut self, name: &str, entry: Entry) {
        let depth = self.depth();
        let id = match self.ids.get(name) {
            Some(&id) => id,
            None => {
                self.ids.insert(name.to_string(), self.visible.len());
                self.visible.push(Vec::new());
                self.visible.len() - 1
            }
        };
        let defs = &mut self.visible[id];
        match defs.last_mut() {
            Some((d, old)) if *d == depth => *old = entry,
            _ => {
                defs.push((depth, entry));
                if let Some(scope) = self.defined.last_mut() {
                    scope.push(id);
                }
            }
        }
    }

    pub fn lookup(&self, name: &str) -> Option<&Entry> {
        self.definitions(name)?.last().map(|(_, entry)| entry)
    }
}
