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

/// A stack of scopes; the first is file scope.
pub struct Scopes {
    stack: Vec<HashMap<String, Entry>>,
}

impl Scopes {
    pub fn new() -> Scopes {
        Scopes {
            stack: vec![HashMap::new()],
        }
    }

    pub fn push(&mut self) {
        self.stack.push(HashMap::new());
    }

    pub fn pop(&mut self) {
        self.stack.pop();
    }

    pub fn at_file_scope(&self) -> bool {
        self.stack.len() == 1
    }

    /// The entry of `name` in the innermost scope only.
    pub fn in_current(&self, name: &str) -> Option<&Entry> {
        self.stack.last().and_then(|s| s.get(name))
    }

    pub fn define(&mut self, name: &str, entry: Entry) {
        if let Some(scope) = self.stack.last_mut() {
            scope.insert(name.to_string(), entry);
        }
    }

    pub fn lookup(&self, name: &str) -> Option<&Entry> {
        self.stack.iter().rev().find_map(|s| s.get(name))
    }
}
