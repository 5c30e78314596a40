//! Multiplications: by constants near powers of two as shifts and shift-adds, and products
//! added or subtracted once as multiply-accumulates (`mla`, `mls`, `vmla.f32`).

use super::arithmetic::{shift_parts, PRODUCT};
use super::matcher::Match;
use super::Selector;
use crate::mir::*;
use middle::ir::pattern::{A, X, Y};
use middle::ir::{BinaryOp, Inst, InstKind, Value};

impl Selector<'_> {
    /// `rd = a * b`. By a constant 2^k, 2^k + 1 or 2^k - 1 (k >= 1): one shift, or an add
    /// or reverse subtract of a shifted operand (`add rd, a, a, lsl #k`), instead of a
    /// multiply and the constant's register.
    pub(super) fn mul(&mut self, rd: Reg, a: Value, b: Value) {
        let (a, b) = if a.is_constant() { (b, a) } else { (a, b) };
        if let (false, Value::Int(c)) = (a.is_constant(), b) {
            if let Some((op, power)) = shift_and_add(c as u32) {
                let rn = self.reg(a);
                let src = Operand2::Shifted(rn, Shift::Lsl, power.trailing_zeros() as u8);
                match op {
                    None => self.emit(MInst::Mov {
                        cond: None,
                        rd,
                        src,
                    }),
                    Some(op) => self.emit(MInst::Alu {
                        cond: None,
                        op,
                        rd,
                        rn,
                        src,
                    }),
                }
                return;
            }
        }
        let (rn, rm) = (self.reg(a), self.reg(b));
        self.emit(MInst::Mul { rd, rn, rm });
    }

    /// `rd = a + x * y`, the product `PRODUCT` of `x` and `y` folded
    /// (`accumulates_float_product`): `vmla.f32` on a copy of `a`.
    pub(super) fn float_multiply_accumulate(&mut self, m: &Match) {
        let (sn, sm, acc) = (
            self.reg(m.value(X)),
            self.reg(m.value(Y)),
            self.reg(m.value(A)),
        );
        let rd = m.dst();
        self.emit(MInst::Copy { dst: rd, src: acc });
        self.emit(MInst::VMla { sd: rd, sn, sm });
    }

    /// `rd = a + x * y`, or `a - x * y` when `subtract`, the product `PRODUCT` of `x` and
    /// `y` folded (`accumulates_product`): `mla` or `mls`.
    pub(super) fn multiply_accumulate(&mut self, m: &Match, subtract: bool) {
        let (rn, rm, ra) = (
            self.reg(m.value(X)),
            self.reg(m.value(Y)),
            self.reg(m.value(A)),
        );
        let rd = m.dst();
        self.emit(if subtract {
            MInst::Mls { rd, rn, rm, ra }
        } else {
            MInst::Mla { rd, rn, rm, ra }
        });
    }

    /// Whether the root, adding its product `PRODUCT` (used only there) to `A` or
    /// subtracting it from `A`, computes both as one multiply-accumulate: in the product's
    /// block, not when the product is a shift or shift-and-add anyway (cheaper than `mla`),
    /// when `A` folds as a shift, or when the root is computed under a select's condition.
    pub(super) fn accumulates_product(&self, m: &Match) -> bool {
        let f = self.f;
        let by_constant = |v: Value| {
            v.as_int()
                .is_some_and(|c| shift_and_add(c as u32).is_some())
        };
        !by_constant(m.value(X))
            && !by_constant(m.value(Y))
            && f.inst_block(m.inst(PRODUCT)) == f.inst_block(m.root)
            && shift_parts(f, m.value(A)).is_none()
            && !self.is_predicated(m.root)
    }

    /// Whether `w` is a multiplication used only by `user`, in its block: of two such
    /// operands of an addition, the right one is accumulated.
    pub(super) fn is_plain_product(&self, w: Value, user: Inst) -> bool {
        let f = self.f;
        w.as_inst().is_some_and(|j| {
            matches!(
                f.kind(j),
                InstKind::Binary {
                    op: BinaryOp::Mul,
                    ..
                }
            ) && f.uses(w).len() == 1
                && f.inst_block(j) == f.inst_block(user)
        })
    }

    /// Whether the root `a + x * y` adds its float product `PRODUCT` (used only there, and
    /// on the right) as `vmla.f32` on a copy of `a`: in the product's block, `a` an
    /// accumulator that `forwards_into` it. VFP's `vmla` rounds the product before adding
    /// it, so it computes exactly what `vmul` and `vadd a, p` do, the NaN an addition of two
    /// NaNs gives included (the accumulator's: the product must be the right operand).
    /// `a - x * y` stays two instructions: `vmls` adds the negated product, and a NaN
    /// product would come out with its sign flipped (`x - inf * 0` prints `-nan` where
    /// `vsub` gives `nan`).
    ///
    /// The A72 forwards only a multiply-accumulate's result into the accumulator of the
    /// next one (4 cycles); an accumulator that a `vadd`, `vsub` or `vmul` computes waits
    /// the whole 9 cycles, where `vadd` would take 5, so such an addition stays `vadd`.
    pub(super) fn accumulates_float_product(&self, m: &Match) -> bool {
        let f = self.f;
        f.inst_block(m.inst(PRODUCT)) == f.inst_block(m.root) && self.forwards_into(m.value(A))
    }

    /// Whether `acc` reaches a multiply-accumulate as its accumulator without waiting on
    /// float arithmetic other than another multiply-accumulate: a phi, a load, a constant,
    /// or an addition folded so itself.
    fn forwards_into(&self, acc: Value) -> bool {
        let f = self.f;
        let Some(a) = acc.as_inst() else {
            return true;
        };
        match *f.kind(a) {
            InstKind::Binary {
                op: BinaryOp::FAdd,
                args: [inner, m],
            } => {
                m.as_inst().is_some_and(|m| {
                    matches!(
                        f.kind(m),
                        InstKind::Binary {
                            op: BinaryOp::FMul,
                            ..
                        }
                    ) && f.uses(Value::Inst(m)).len() == 1
                        && f.inst_block(m) == f.inst_block(a)
                }) && self.forwards_into(inner)
            }
            InstKind::Binary {
                op: BinaryOp::FSub | BinaryOp::FMul | BinaryOp::FDiv,
                ..
            }
            | InstKind::FNeg { .. } => false,
            _ => true,
        }
    }
}

/// How a multiplication by `c` is one instruction on a shifted register: by 2^k as the
/// shift alone, by 2^k + 1 as an add and by 2^k - 1 as a reverse subtract of it (k >= 1).
fn shift_and_add(c: u32) -> Option<(Option<AluOp>, u32)> {
    if c > 1 && c.is_power_of_two() {
        Some((None, c))
    } else if c > 2 && (c - 1).is_power_of_two() {
        Some((Some(AluOp::Add), c - 1))
    } else if c > 2 && c < u32::MAX && (c + 1).is_power_of_two() {
        Some((Some(AluOp::Rsb), c + 1))
    } else {
        None
    }
}

#[cfg(test)]
#[path = "multiplication_tests.rs"]
mod tests;
