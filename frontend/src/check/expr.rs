//! Expressions: name resolution, typing, implicit conversions and constant folding.

use super::scope::VarSym;
use super::Checker;
use crate::ast::{self, BinaryOp, UnaryOp};
use crate::consteval::{self, ConstValue};
use crate::diagnostic::Diagnostic;
use crate::hir::{Callee, Expr, ExprKind, Place, Var};
use crate::source::Span;
use crate::types::Type;
use sysy_runtime::{RuntimeFn, RuntimeParam, Scalar};

impl Expr {
    pub(super) fn constant(value: ConstValue, span: Span) -> Expr {
        let ty = Type::scalar(value.scalar());
        Expr {
            kind: ExprKind::Const(value),
            ty,
            span,
        }
    }

    /// This scalar expression converted to `to`, folded when constant.
    pub(super) fn convert_to(self, to: Scalar) -> Expr {
        if self.ty.as_scalar() == Some(to) {
            return self;
        }
        match self.as_const() {
            Some(v) => Expr::constant(v.convert(to), self.span),
            None => Expr {
                span: self.span,
                ty: Type::scalar(to),
                kind: ExprKind::Convert(to, Box::new(self)),
            },
        }
    }
}

/// A resolved left-hand value.
pub(super) enum Resolved {
    Const(ConstValue),
    Place {
        place: Place,
        /// The type after indexing.
        ty: Type,
        is_const: bool,
    },
}

impl Checker<'_> {
    /// Checks any expression: its value may be void (a call) or a pointer (an array).
    pub(super) fn expr(&mut self, e: &ast::Expr) -> Option<Expr> {
        match &e.kind {
            ast::ExprKind::Int(v) => Some(Expr::constant(ConstValue::Int(*v), e.span)),
            ast::ExprKind::Float(v) => Some(Expr::constant(ConstValue::Float(*v), e.span)),
            ast::ExprKind::Str(_) => {
                self.error(Diagnostic::error(
                    e.span,
                    "a string literal is only allowed as the format of putf",
                ));
                None
            }
            ast::ExprKind::LVal(lv) => self.lval_expr(lv, e.span),
            ast::ExprKind::Call(name, args) => self.call(name, args, e.span),
            ast::ExprKind::Unary(op, x) => self.unary(*op, x, e.span),
            ast::ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e.span),
        }
    }

    /// Checks an expression that must give an int or a float.
    pub(super) fn value(&mut self, e: &ast::Expr) -> Option<Expr> {
        let x = self.expr(e)?;
        if x.ty.as_scalar().is_some() {
            return Some(x);
        }
        let message = match (&x.ty, &e.kind) {
            (Type::Void, ast::ExprKind::Call(name, _)) => {
                format!("void function '{}' used as a value", name.name)
            }
            (Type::Void, _) => "void value used as a value".to_string(),
            _ => format!(
                "array '{}' used where a scalar value is required",
                self.file.slice(e.span)
            ),
        };
        self.error(Diagnostic::error(e.span, message));
        None
    }

    pub(super) fn resolve_lval(&mut self, lv: &ast::LVal) -> Option<Resolved> {
        let indices: Vec<Option<Expr>> = lv.indices.iter().map(|i| self.index(i)).collect();
        let Some(entry) = self.scopes.lookup(&lv.name.name) else {
            let mut d = Diagnostic::error(
                lv.name.span,
                format!("use of undeclared identifier '{}'", lv.name.name),
            );
            if let Some(f) = self.functions.get(&lv.name.name) {
                d = d.with_note(
                    f.defined_at,
                    "a function of this name is defined here, but functions are not values",
                );
            }
            self.error(d);
            return None;
        };
        let sym = entry.sym.clone();
        let indices: Vec<Expr> = indices.into_iter().collect::<Option<_>>()?;
        let not_array = |lv: &ast::LVal, n: usize, ty: &Type| {
            let message = if n == 0 {
                format!("subscripted value '{}' is not an array", lv.name.name)
            } else {
                format!("too many subscripts for '{}' of type '{ty}'", lv.name.name)
            };
            Diagnostic::error(lv.indices[n].span, message)
        };
        match sym {
            VarSym::Const(v) => {
                if !indices.is_empty() {
                    self.error(not_array(lv, 0, &Type::scalar(v.scalar())));
                    return None;
                }
                Some(Resolved::Const(v))
            }
            VarSym::Var { var, ty, is_const } => {
                let mut t = ty.clone();
                for n in 0..indices.len() {
                    match t.index() {
                        Some(next) => t = next,
                        None => {
                            self.error(not_array(lv, n, &ty));
                            return None;
                        }
                    }
                }
                if let Some(v) = self.fold_const_element(var, &ty, is_const, &indices) {
                    return Some(Resolved::Const(v));
                }
                Some(Resolved::Place {
                    place: Place { var, indices },
                    ty: t,
                    is_const,
                })
            }
            VarSym::Invalid => None,
        }
    }

    /// An array subscript: an int.
    fn index(&mut self, e: &ast::Expr) -> Option<Expr> {
        let x = self.value(e)?;
        if x.ty != Type::Int {
            self.error(Diagnostic::error(
                e.span,
                "array subscript is not an integer",
            ));
            return None;
        }
        Some(x)
    }

    /// The value of a `const` array's element at constant, in-bounds indices.
    fn fold_const_element(
        &self,
        var: Var,
        ty: &Type,
        is_const: bool,
        indices: &[Expr],
    ) -> Option<ConstValue> {
        let (Var::Global(g), Type::Array(elem, dims), true) = (var, ty, is_const) else {
            return None;
        };
        if indices.len() != dims.len() {
            return None;
        }
        let mut flat: u32 = 0;
        for (i, d) in indices.iter().zip(dims) {
            match i.as_const()? {
                ConstValue::Int(k) if k >= 0 && (k as u32) < *d => flat = flat * d + k as u32,
                _ => return None,
            }
        }
        let init = &self.program.globals[g].init;
        Some(match init.binary_search_by_key(&flat, |(i, _)| *i) {
            Ok(pos) => init[pos].1,
            Err(_) => ConstValue::zero(*elem),
        })
    }

    fn lval_expr(&mut self, lv: &ast::LVal, span: Span) -> Option<Expr> {
        match self.resolve_lval(lv)? {
            Resolved::Const(v) => Some(Expr::constant(v, span)),
            Resolved::Place { place, ty, .. } => Some(match ty {
                Type::Int | Type::Float => Expr {
                    kind: ExprKind::Load(place),
                    ty,
                    span,
                },
                _ => Expr {
                    kind: ExprKind::ArrayAddr(place),
                    ty: ty.decay(),
                    span,
                },
            }),
        }
    }

    fn unary(&mut self, op: UnaryOp, x: &ast::Expr, span: Span) -> Option<Expr> {
        let x = self.value(x)?;
        if op == UnaryOp::Pos {
            return Some(Expr { span, ..x });
        }
        if let Some(v) = x.as_const() {
            return Some(Expr::constant(consteval::unary(op, v), span));
        }
        let ty = if op == UnaryOp::Not {
            Type::Int
        } else {
            x.ty.clone()
        };
        Some(Expr {
            kind: ExprKind::Unary(op, Box::new(x)),
            ty,
            span,
        })
    }

    fn binary(&mut self, op: BinaryOp, a: &ast::Expr, b: &ast::Expr, span: Span) -> Option<Expr> {
        let (l, r) = (self.value(a), self.value(b));
        let (l, r) = (l?, r?);
        if matches!(op, BinaryOp::And | BinaryOp::Or) {
            return Some(logical(op == BinaryOp::And, l, r, span));
        }
        let operand = if l.ty == Type::Float || r.ty == Type::Float {
            Scalar::Float
        } else {
            Scalar::Int
        };
        if op == BinaryOp::Rem && operand == Scalar::Float {
            self.error(Diagnostic::error(
                span,
                format!(
                    "invalid operands to '%' ('{}' and '{}'): both must be int",
                    l.ty, r.ty
                ),
            ));
            return None;
        }
        let (l, r) = (l.convert_to(operand), r.convert_to(operand));
        if let (Some(x), Some(y)) = (l.as_const(), r.as_const()) {
            if let Some(v) = consteval::binary(op, x, y) {
                return Some(Expr::constant(v, span));
            }
        }
        let comparison = matches!(
            op,
            BinaryOp::Lt | BinaryOp::Gt | BinaryOp::Le | BinaryOp::Ge | BinaryOp::Eq | BinaryOp::Ne
        );
        let ty = if comparison {
            Type::Int
        } else {
            Type::scalar(operand)
        };
        Some(Expr {
            kind: ExprKind::Binary(op, Box::new(l), Box::new(r)),
            ty,
            span,
        })
    }

    fn call(&mut self, name: &ast::Ident, args: &[ast::Expr], span: Span) -> Option<Expr> {
        if let Some(f) = self.functions.get(&name.name) {
            let (id, ret, params) = (f.id, f.ret.clone(), f.params.clone());
            let args = self.arguments(name, args, &params, false, span)?;
            return Some(Expr {
                kind: ExprKind::Call(Callee::Function(id), args),
                ty: ret,
                span,
            });
        }
        let Some(rt) = RuntimeFn::lookup(&name.name) else {
            for a in args {
                self.expr(a);
            }
            self.error(Diagnostic::error(
                name.span,
                format!("call to undeclared function '{}'", name.name),
            ));
            return None;
        };
        let (callee, args) = match rt {
            RuntimeFn::Putf => self.putf_arguments(name, args, span)?,
            RuntimeFn::StartTime | RuntimeFn::StopTime => {
                self.arguments(name, args, &[], false, span)?;
                let line = self.file.line_col(span.start).line as i32;
                (
                    Callee::Runtime(rt),
                    vec![Expr::constant(ConstValue::Int(line), span)],
                )
            }
            _ => {
                let params: Vec<Type> = rt
                    .params()
                    .iter()
                    .map(|p| match p {
                        RuntimeParam::Scalar(s) => Type::scalar(*s),
                        RuntimeParam::AnyArray(s) => Type::Pointer(*s, Vec::new()),
                    })
                    .collect();
                (
                    Callee::Runtime(rt),
                    self.arguments(name, args, &params, true, span)?,
                )
            }
        };
        Some(Expr {
            kind: ExprKind::Call(callee, args),
            ty: rt.ret().map_or(Type::Void, Type::scalar),
            span,
        })
    }

    /// Checks arguments against parameter types. With `any_rank` (the runtime's array
    /// functions), a pointer-to-scalar parameter accepts an array of any rank.
    fn arguments(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        params: &[Type],
        any_rank: bool,
        span: Span,
    ) -> Option<Vec<Expr>> {
        let mut checked = Vec::with_capacity(args.len());
        for (n, a) in args.iter().enumerate() {
            match params.get(n) {
                Some(p) => checked.push(self.argument(a, p, any_rank)),
                None => {
                    self.expr(a);
                }
            }
        }
        if args.len() != params.len() {
            let which = if args.len() > params.len() {
                "many"
            } else {
                "few"
            };
            let at = args.get(params.len()).map_or(span, |a| a.span);
            self.error(Diagnostic::error(
                at,
                format!(
                    "too {which} arguments in call to '{}': expected {}, have {}",
                    name.name,
                    params.len(),
                    args.len()
                ),
            ));
            return None;
        }
        checked.into_iter().collect()
    }

    fn argument(&mut self, a: &ast::Expr, param: &Type, any_rank: bool) -> Option<Expr> {
        if let Some(s) = param.as_scalar() {
            return Some(self.value(a)?.convert_to(s));
        }
        let x = self.expr(a)?;
        let fits = match (&x.ty, param) {
            (Type::Pointer(e, _), Type::Pointer(pe, _)) if any_rank => e == pe,
            (t, p) => t == p,
        };
        if !fits {
            self.error(Diagnostic::error(
                a.span,
                format!("passing '{}' to parameter of type '{}'", x.ty, param),
            ));
            return None;
        }
        Some(Expr {
            ty: param.clone(),
            ..x
        })
    }

    /// `putf("format", values...)`: the format must be a string literal; the values are
    /// ints or floats, passed without conversion.
    fn putf_arguments(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<(Callee, Vec<Expr>)> {
        let Some((first, rest)) = args.split_first() else {
            self.error(Diagnostic::error(
                span,
                format!(
                    "too few arguments in call to '{}': expected at least 1, have 0",
                    name.name
                ),
            ));
            return None;
        };
        let values: Vec<Option<Expr>> = rest.iter().map(|a| self.value(a)).collect();
        let ast::ExprKind::Str(format) = &first.kind else {
            self.error(Diagnostic::error(
                first.span,
                "the format of putf must be a string literal",
            ));
            return None;
        };
        let values = values.into_iter().collect::<Option<Vec<_>>>()?;
        Some((Callee::Putf(format.clone()), values))
    }
}

/// `l && r` (`and`) or `l || r`, folded when the left side decides it or both are constant.
fn logical(and: bool, l: Expr, r: Expr, span: Span) -> Expr {
    let fold = |v: bool| Expr::constant(ConstValue::Int(v as i32), span);
    match (l.as_const(), r.as_const()) {
        (Some(x), _) if x.is_true() != and => fold(!and),
        (Some(_), Some(y)) => fold(y.is_true()),
        _ => Expr {
            kind: ExprKind::Logical(and, Box::new(l), Box::new(r)),
            ty: Type::Int,
            span,
        },
    }
}
