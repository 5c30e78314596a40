//! Where a constant is required (array sizes, `const` and global initialisers): checks that
//! the folded expression is one, and otherwise explains which part of it is not.

use super::Checker;
use crate::ast::BinaryOp;
use crate::consteval::ConstValue;
use crate::diagnostic::Diagnostic;
use crate::hir::{Expr, ExprKind, Var};

impl Checker<'_> {
    /// The value of `e`, which must have folded to a constant; `what` names the context
    /// ("array size") for the message.
    pub(super) fn require_const(&mut self, e: &Expr, what: &str) -> Option<ConstValue> {
        if let Some(v) = e.as_const() {
            return Some(v);
        }
        let d = self.explain_non_const(e, what);
        self.error(d);
        None
    }

    fn explain_non_const(&self, e: &Expr, what: &str) -> Diagnostic {
        let not_const = |detail: String| {
            Diagnostic::error(
                e.span,
                format!("{what} is not a compile-time constant: {detail}"),
            )
        };
        match &e.kind {
            ExprKind::Load(place) => {
                if let Some(i) = place.indices.iter().find(|i| i.as_const().is_none()) {
                    return self.explain_non_const(i, what);
                }
                let text = self.file.slice(e.span);
                let name = text.split('[').next().unwrap_or(text).trim();
                match place.var {
                    Var::Global(g) if self.program.globals[g].is_const => Diagnostic::error(
                        e.span,
                        format!("array index out of bounds of const array '{name}'"),
                    ),
                    _ => not_const(format!("'{name}' is a variable")),
                }
            }
            ExprKind::Call(..) => not_const("it calls a function".into()),
            ExprKind::Binary(BinaryOp::Div | BinaryOp::Rem, a, b)
                if a.as_const().is_some() && b.as_const().is_some() =>
            {
                Diagnostic::error(e.span, "division by zero in constant expression")
            }
            ExprKind::Unary(_, x) | ExprKind::Convert(_, x) => self.explain_non_const(x, what),
            ExprKind::Binary(_, a, b) | ExprKind::Logical(_, a, b) => {
                let culprit = if a.as_const().is_none() { a } else { b };
                self.explain_non_const(culprit, what)
            }
            ExprKind::Const(_) | ExprKind::ArrayAddr(_) => not_const("it is not a number".into()),
        }
    }
}
