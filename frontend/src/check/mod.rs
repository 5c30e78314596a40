//! Semantic checking: resolves names, types every expression, folds constants and flattens
//! initialisers, turning the AST into the checked tree of `hir`. Independent errors are all
//! reported, up to `MAX_ERRORS`.

mod constant;
mod decl;
mod expr;
mod init;
mod scope;
mod stmt;
#[cfg(test)]
mod tests;

use crate::ast;
use crate::diagnostic::Diagnostic;
use crate::hir::{FuncId, Local, LocalId, Program};
use crate::source::{SourceFile, Span};
use crate::types::Type;
use scope::Scopes;
use std::collections::HashMap;

/// At most this many errors are reported for one file.
pub const MAX_ERRORS: usize = 20;

pub fn check(file: &SourceFile, unit: &ast::CompUnit) -> Result<Program, Vec<Diagnostic>> {
    let mut checker = Checker {
        file,
        program: Program {
            globals: Vec::new(),
            functions: Vec::new(),
        },
        errors: Vec::new(),
        scopes: Scopes::new(),
        functions: HashMap::new(),
        func: None,
    };
    for item in &unit.items {
        match item {
            ast::Item::Decl(d) => {
                checker.decl(d);
            }
            ast::Item::Func(f) => checker.func_def(f),
        }
        if checker.errors.len() >= MAX_ERRORS {
            break;
        }
    }
    checker.check_main();
    if checker.errors.is_empty() {
        Ok(checker.program)
    } else {
        checker.errors.truncate(MAX_ERRORS);
        Err(checker.errors)
    }
}

/// A user function's signature.
struct FuncSym {
    id: FuncId,
    ret: Type,
    params: Vec<Type>,
    defined_at: Span,
}

/// The function being checked.
struct FuncCtx {
    name: String,
    ret: Type,
    locals: Vec<Local>,
    loop_depth: u32,
}

struct Checker<'f> {
    file: &'f SourceFile,
    program: Program,
    errors: Vec<Diagnostic>,
    scopes: Scopes,
    functions: HashMap<String, FuncSym>,
    func: Option<FuncCtx>,
}

impl Checker<'_> {
    fn error(&mut self, d: Diagnostic) {
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(d);
        }
    }

    fn add_local(&mut self, name: &str, ty: Type) -> LocalId {
        let ctx = self
            .func
            .as_mut()
            .expect("locals exist only inside functions");
        ctx.locals.push(Local {
            name: name.to_string(),
            ty,
        });
        ctx.locals.len() - 1
    }

    /// Reports a redefinition of `name` in the current scope (and, at file scope, among
    /// functions); returns whether the name is free.
    fn claim_name(&mut self, name: &ast::Ident) -> bool {
        let previous = self
            .scopes
            .in_current(&name.name)
            .map(|e| e.defined_at)
            .or_else(|| {
                self.scopes
                    .at_file_scope()
                    .then(|| self.functions.get(&name.name).map(|f| f.defined_at))
                    .flatten()
            });
        match previous {
            Some(prev) => {
                self.error(
                    Diagnostic::error(name.span, format!("redefinition of '{}'", name.name))
                        .with_note(prev, "previous definition is here"),
                );
                false
            }
            None => true,
        }
    }

    fn check_main(&mut self) {
        match self.functions.get("main") {
            None => {
                self.error(Diagnostic::error(
                    Span::new(0, 0),
                    "no 'main' function defined",
                ));
            }
            Some(main) if main.ret != Type::Int || !main.params.is_empty() => {
                let at = main.defined_at;
                self.error(Diagnostic::error(
                    at,
                    "'main' must be defined as 'int main()'",
                ));
            }
            Some(_) => {}
        }
    }
}
