//! Expressions, conditions and addresses.

use super::{const_value, value_type, FnLower};
use crate::ir::{BinaryOp, Block, Callee, CastOp, FloatPred, InstKind, IntPred, Type, Value};
use frontend::ast::{BinaryOp as Op, UnaryOp};
use frontend::hir::{self, Expr, ExprKind, Place, Var};
use frontend::types::Type as HirType;
use sysy_runtime::Scalar;

impl FnLower<'_> {
    /// The value of an expression (for a call to a `void` function, an unusable placeholder).
    pub(super) fn expr(&mut self, e: &Expr) -> Value {
        match &e.kind {
            ExprKind::Const(v) => const_value(*v),
            ExprKind::Load(place) => {
                let addr = self.place_addr(place);
                self.emit(InstKind::Load { args: [addr] }, value_type(&e.ty))
            }
            ExprKind::ArrayAddr(place) => self.place_addr(place),
            ExprKind::Unary(UnaryOp::Neg, x) => {
                let v = self.expr(x);
                match x.ty {
                    HirType::Float => self.emit(InstKind::FNeg { args: [v] }, Type::F32),
                    _ => self.binary(BinaryOp::Sub, Value::Int(0), v),
                }
            }
            ExprKind::Unary(_, x) => {
                let v = self.expr(x);
                let is_zero = self.compare(Op::Eq, &x.ty, v, zero_of(&x.ty));
                self.zext(is_zero)
            }
            ExprKind::Binary(op, a, b) => {
                let (l, r) = (self.expr(a), self.expr(b));
                match arithmetic(*op, &a.ty) {
                    Some(bop) => self.binary(bop, l, r),
                    None => {
                        let c = self.compare(*op, &a.ty, l, r);
                        self.zext(c)
                    }
                }
            }
            ExprKind::Logical(..) => self.logical_value(e),
            ExprKind::Call(callee, args) => {
                let args: Vec<Value> = args.iter().map(|a| self.expr(a)).collect();
                let callee = match callee {
                    hir::Callee::Function(id) => Callee::Function(self.func_id(*id)),
                    hir::Callee::Runtime(r) => Callee::Runtime(*r),
                    hir::Callee::Putf(format) => Callee::Putf(self.module.intern_string(format)),
                };
                self.emit(InstKind::Call { callee, args }, value_type(&e.ty))
            }
            ExprKind::Convert(to, x) => {
                let v = self.expr(x);
                let op = match to {
                    Scalar::Float => CastOp::SiToFp,
                    Scalar::Int => CastOp::FpToSi,
                };
                self.emit(InstKind::Cast { op, args: [v] }, Type::scalar(*to))
            }
        }
    }

    fn binary(&mut self, op: BinaryOp, l: Value, r: Value) -> Value {
        self.emit(InstKind::Binary { op, args: [l, r] }, op.ty())
    }

    fn zext(&mut self, b: Value) -> Value {
        self.emit(
            InstKind::Cast {
                op: CastOp::Zext,
                args: [b],
            },
            Type::I32,
        )
    }

    /// An `i1` comparison of two operands of type `ty`.
    fn compare(&mut self, op: Op, ty: &HirType, l: Value, r: Value) -> Value {
        let kind = if *ty == HirType::Float {
            let pred = match op {
                Op::Lt => FloatPred::Olt,
                Op::Gt => FloatPred::Ogt,
                Op::Le => FloatPred::Ole,
                Op::Ge => FloatPred::Oge,
                Op::Eq => FloatPred::Oeq,
                _ => FloatPred::Une,
            };
            InstKind::Fcmp { pred, args: [l, r] }
        } else {
            let pred = match op {
                Op::Lt => IntPred::Slt,
                Op::Gt => IntPred::Sgt,
                Op::Le => IntPred::Sle,
                Op::Ge => IntPred::Sge,
                Op::Eq => IntPred::Eq,
                _ => IntPred::Ne,
            };
            InstKind::Icmp { pred, args: [l, r] }
        };
        self.emit(kind, Type::I1)
    }

    /// `a && b` or `a || b` as an int: branches to a block per outcome, joined by a phi.
    fn logical_value(&mut self, e: &Expr) -> Value {
        let t = self.f.create_block();
        let fb = self.f.create_block();
        let join = self.f.create_block();
        self.cond_branch(e, t, fb);
        let mut incoming = Vec::new();
        for (b, v) in [(t, 1), (fb, 0)] {
            if self.switch_to(b) {
                self.br(join);
                incoming.push((Value::Int(v), b));
            }
        }
        self.switch_to(join);
        match incoming.as_slice() {
            [(v, _)] => *v,
            _ => {
                let (args, blocks) = incoming.into_iter().unzip();
                self.emit(InstKind::Phi { args, blocks }, Type::I32)
            }
        }
    }

    /// Branches to `t` if the scalar expression `e` is nonzero, else to `f`, evaluating `&&`
    /// and `||` lazily.
    pub(super) fn cond_branch(&mut self, e: &Expr, t: Block, f: Block) {
        match &e.kind {
            ExprKind::Const(v) => self.br(if v.is_true() { t } else { f }),
            ExprKind::Logical(is_and, a, b) => {
                let mid = self.f.create_block();
                if *is_and {
                    self.cond_branch(a, mid, f);
                } else {
                    self.cond_branch(a, t, mid);
                }
                if self.switch_to(mid) {
                    self.cond_branch(b, t, f);
                }
            }
            ExprKind::Unary(UnaryOp::Not, x) => self.cond_branch(x, f, t),
            ExprKind::Binary(op, a, b) if arithmetic(*op, &a.ty).is_none() => {
                let (l, r) = (self.expr(a), self.expr(b));
                let c = self.compare(*op, &a.ty, l, r);
                self.condbr(c, t, f);
            }
            _ => {
                let v = self.expr(e);
                let c = self.compare(Op::Ne, &e.ty, v, zero_of(&e.ty));
                self.condbr(c, t, f);
            }
        }
    }

    fn condbr(&mut self, c: Value, t: Block, f: Block) {
        self.terminate(InstKind::CondBr {
            args: [c],
            targets: [t, f],
        });
    }

    /// The address of a variable, array element or array row.
    pub(super) fn place_addr(&mut self, place: &Place) -> Value {
        let (slot, ty) = match place.var {
            Var::Local(l) => (self.slots[l], &self.hir.locals[l].ty),
            Var::Global(g) => (self.global_id(g), &self.prog.globals[g].ty),
        };
        // The dimensions after each index determine its stride.
        let (mut addr, dims): (Value, Vec<u32>) = match ty {
            HirType::Pointer(_, rows) => {
                let base = self.emit(InstKind::Load { args: [slot] }, Type::Ptr);
                (
                    base,
                    std::iter::once(0).chain(rows.iter().copied()).collect(),
                )
            }
            HirType::Array(_, dims) => (slot, dims.clone()),
            _ => (slot, Vec::new()),
        };
        for (k, index) in place.indices.iter().enumerate() {
            let stride = 4 * dims[k + 1..].iter().product::<u32>();
            let i = self.expr(index);
            addr = self.emit(
                InstKind::Gep {
                    args: [addr, i],
                    stride,
                },
                Type::Ptr,
            );
        }
        addr
    }
}

/// The IR operation for an arithmetic operator on operands of type `ty`; `None` for
/// comparisons.
fn arithmetic(op: Op, ty: &HirType) -> Option<BinaryOp> {
    let float = *ty == HirType::Float;
    Some(match (op, float) {
        (Op::Add, false) => BinaryOp::Add,
        (Op::Sub, false) => BinaryOp::Sub,
        (Op::Mul, false) => BinaryOp::Mul,
        (Op::Div, false) => BinaryOp::SDiv,
        (Op::Rem, false) => BinaryOp::SRem,
        (Op::Add, true) => BinaryOp::FAdd,
        (Op::Sub, true) => BinaryOp::FSub,
        (Op::Mul, true) => BinaryOp::FMul,
        (Op::Div, true) => BinaryOp::FDiv,
        _ => return None,
    })
}

fn zero_of(ty: &HirType) -> Value {
    match ty {
        HirType::Float => Value::float(0.0),
        _ => Value::Int(0),
    }
}
