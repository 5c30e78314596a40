//! Function definitions and statements.

use super::decl::scalar_of;
use super::expr::Resolved;
use super::scope::{Entry, VarSym};
use super::{Checker, FuncCtx, FuncSym, MAX_ERRORS};
use crate::ast::{self, BlockItem, ReturnType};
use crate::diagnostic::Diagnostic;
use crate::hir::{Function, Stmt, Var};
use crate::source::Span;
use crate::types::Type;
use sysy_runtime::RuntimeFn;

impl Checker<'_> {
    pub(super) fn func_def(&mut self, f: &ast::FuncDef) {
        let ret = match f.ret {
            ReturnType::Int => Type::Int,
            ReturnType::Float => Type::Float,
            ReturnType::Void => Type::Void,
        };
        let param_types: Vec<Type> = f
            .params
            .iter()
            .map(|p| {
                let elem = scalar_of(p.ty);
                match &p.dims {
                    None => Type::scalar(elem),
                    Some(dims) => {
                        let dims = self.array_dims(dims, &p.name).unwrap_or_default();
                        Type::Pointer(elem, dims)
                    }
                }
            })
            .collect();
        let id = self.program.functions.len();
        if RuntimeFn::lookup(&f.name.name).is_some() {
            self.error(Diagnostic::error(
                f.name.span,
                format!("redefinition of runtime library function '{}'", f.name.name),
            ));
        } else if self.claim_name(&f.name) {
            let sym = FuncSym {
                id,
                ret: ret.clone(),
                params: param_types.clone(),
                defined_at: f.name.span,
            };
            self.functions.insert(f.name.name.clone(), sym);
        }

        self.func = Some(FuncCtx {
            name: f.name.name.clone(),
            ret: ret.clone(),
            locals: Vec::new(),
            loop_depth: 0,
        });
        // Parameters share a scope with the outermost block of the body, as in C.
        self.scopes.push();
        let mut params = Vec::with_capacity(f.params.len());
        for (p, ty) in f.params.iter().zip(param_types) {
            let local = self.add_local(&p.name.name, ty.clone());
            params.push(local);
            if self.claim_name(&p.name) {
                let entry = Entry {
                    sym: VarSym::Var {
                        var: Var::Local(local),
                        ty,
                        is_const: false,
                    },
                    defined_at: p.name.span,
                };
                self.scopes.define(&p.name.name, entry);
            }
        }
        let body = self.block_items(&f.body.items);
        self.scopes.pop();
        let ctx = self.func.take().expect("set above");
        self.program.functions.push(Function {
            name: f.name.name.clone(),
            ret,
            params,
            locals: ctx.locals,
            body,
        });
    }

    fn block_items(&mut self, items: &[BlockItem]) -> Vec<Stmt> {
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match item {
                BlockItem::Decl(d) => out.extend(self.decl(d)),
                BlockItem::Stmt(s) => out.extend(self.stmt(s)),
            }
            if self.errors.len() >= MAX_ERRORS {
                break;
            }
        }
        out
    }

    fn block(&mut self, b: &ast::Block) -> Vec<Stmt> {
        self.scopes.push();
        let stmts = self.block_items(&b.items);
        self.scopes.pop();
        stmts
    }

    /// The body of an `if` branch or a loop.
    fn sub_statement(&mut self, s: &ast::Stmt) -> Vec<Stmt> {
        match s {
            ast::Stmt::Block(b) => self.block(b),
            other => self.stmt(other).into_iter().collect(),
        }
    }

    fn stmt(&mut self, s: &ast::Stmt) -> Option<Stmt> {
        match s {
            ast::Stmt::Assign(lv, e) => self.assign(lv, e),
            ast::Stmt::Expr(None) => None,
            ast::Stmt::Expr(Some(e)) => self.expr(e).map(Stmt::Expr),
            ast::Stmt::Block(b) => Some(Stmt::Block(self.block(b))),
            ast::Stmt::If(cond, then, otherwise) => {
                let cond = self.value(cond);
                let then = self.sub_statement(then);
                let otherwise = otherwise
                    .as_ref()
                    .map(|s| self.sub_statement(s))
                    .unwrap_or_default();
                Some(Stmt::If(cond?, then, otherwise))
            }
            ast::Stmt::While(cond, body) => {
                let cond = self.value(cond);
                self.ctx().loop_depth += 1;
                let body = self.sub_statement(body);
                self.ctx().loop_depth -= 1;
                Some(Stmt::While(cond?, body))
            }
            ast::Stmt::Break(span) | ast::Stmt::Continue(span) => {
                let is_break = matches!(s, ast::Stmt::Break(_));
                if self.ctx().loop_depth == 0 {
                    let word = if is_break { "break" } else { "continue" };
                    self.error(Diagnostic::error(
                        *span,
                        format!("'{word}' statement not in loop"),
                    ));
                    return None;
                }
                Some(if is_break {
                    Stmt::Break
                } else {
                    Stmt::Continue
                })
            }
            ast::Stmt::Return(value, span) => self.return_stmt(value.as_ref(), *span),
        }
    }

    fn ctx(&mut self) -> &mut FuncCtx {
        self.func
            .as_mut()
            .expect("statements exist only inside functions")
    }

    fn assign(&mut self, lv: &ast::LVal, e: &ast::Expr) -> Option<Stmt> {
        let target = self.resolve_lval(lv).and_then(|target| {
            let message = match target {
                Resolved::Const(_) | Resolved::Place { is_const: true, .. } => {
                    format!("cannot assign to const variable '{}'", lv.name.name)
                }
                Resolved::Place { place, ty, .. } => match ty.as_scalar() {
                    Some(s) => return Some((place, s)),
                    None => format!("array type '{ty}' is not assignable"),
                },
            };
            self.error(Diagnostic::error(lv.span, message));
            None
        });
        let value = self.value(e);
        let ((place, ty), value) = (target?, value?);
        Some(Stmt::Assign(place, value.convert_to(ty)))
    }

    fn return_stmt(&mut self, value: Option<&ast::Expr>, span: Span) -> Option<Stmt> {
        let ret = self.ctx().ret.clone();
        let name = self.ctx().name.clone();
        match (ret.as_scalar(), value) {
            (None, None) => Some(Stmt::Return(None)),
            (Some(s), Some(e)) => Some(Stmt::Return(Some(self.value(e)?.convert_to(s)))),
            (None, Some(e)) => {
                self.expr(e);
                self.error(Diagnostic::error(
                    e.span,
                    format!("void function '{name}' should not return a value"),
                ));
                None
            }
            (Some(_), None) => {
                self.error(Diagnostic::error(
                    span,
                    format!("non-void function '{name}' should return a value"),
                ));
                None
            }
        }
    }
}
