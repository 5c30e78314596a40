//! Multiplications: by constants near powers of two as shifts and shift-adds, and products
//! added or subtracted once as multiply-accumulates (`mla`, `mls`, `vmla.f32`).

use super::arithmetic::shift_parts;
use super::Selector;
use crate::mir::*;
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

    /// `rd = a + x * y` for the folded float multiplication `m` of `x` and `y`
    /// (`is_folded_float_mul`): `vmla.f32` on a copy of `a`.
    pub(super) fn float_multiply_accumulate(&mut self, rd: Reg, a: Value, m: Inst) {
        let InstKind::Binary { args: [x, y], .. } = *self.f.kind(m) else {
            unreachable!("a folded multiplication");
        };
        let (sn, sm, acc) = (self.reg(x), self.reg(y), self.reg(a));
        self.emit(MInst::Copy { dst: rd, src: acc });
        self.emit(MInst::VMla { sd: rd, sn, sm });
    }

    /// `rd = acc op x * y` for the folded multiplication `m` of `x` and `y`
    /// (`multiply_accumulate`), `op` an addition or subtraction: `mla` or `mls`.
    pub(super) fn multiply_accumulate_into(&mut self, rd: Reg, op: BinaryOp, acc: Value, m: Inst) {
        let InstKind::Binary { args: [x, y], .. } = *self.f.kind(m) else {
            unreachable!("a folded multiplication");
        };
        let (rn, rm, ra) = (self.reg(x), self.reg(y), self.reg(acc));
        self.emit(if op == BinaryOp::Add {
            MInst::Mla { rd, rn, rm, ra }
        } else {
            MInst::Mls { rd, rn, rm, ra }
        });
    }

    /// A multiplication whose only user is an addition or subtraction in its block, which
    /// computes both as one multiply-accumulate (`mla`, or `mls` for `x - a*b`). Not when the
    /// multiplication is a shift or shift-and-add anyway (cheaper than `mla`), when the other
    /// operand folds as a shift, or when the user is computed under a select's condition.
    pub(super) fn is_folded_mul(&self, i: Inst) -> bool {
        let f = self.f;
        let InstKind::Binary {
            op: BinaryOp::Mul,
            args: [x, y],
        } = *f.kind(i)
        else {
            return false;
        };
        let by_constant = |v: Value| {
            v.as_int()
                .is_some_and(|c| shift_and_add(c as u32).is_some())
        };
        if by_constant(x) || by_constant(y) {
            return false;
        }
        let v = Value::Inst(i);
        let [u] = f.uses(v) else {
            return false;
        };
        let InstKind::Binary { op, args: [a, b] } = *f.kind(u.inst) else {
            return false;
        };
        let other = if u.index == 0 { b } else { a };
        let is_plain_mul = |w: Value| {
            w.as_inst().is_some_and(|j| {
                matches!(
                    f.kind(j),
                    InstKind::Binary {
                        op: BinaryOp::Mul,
                        ..
                    }
                ) && f.uses(w).len() == 1
                    && f.inst_block(j) == f.inst_block(u.inst)
            })
        };
        let position_ok = match op {
            BinaryOp::Add => u.index == 1 || !is_plain_mul(other),
            BinaryOp::Sub => u.index == 1,
            _ => false,
        };
        position_ok
            && f.inst_block(u.inst) == f.inst_block(i)
            && shift_parts(f, other).is_none()
            && !self.is_predicated(u.inst)
    }

    /// For `a op b` with a folded multiplication as one operand: the other operand (the
    /// accumulator) and the multiplication.
    pub(super) fn multiply_accumulate(
        &self,
        op: BinaryOp,
        a: Value,
        b: Value,
    ) -> Option<(Value, Inst)> {
        if !matches!(op, BinaryOp::Add | BinaryOp::Sub) {
            return None;
        }
        let folded = |v: Value| {
            v.as_inst()
                .filter(|i| self.skipped[i.index()] && self.is_folded_mul(*i))
        };
        if let Some(m) = folded(b) {
            return Some((a, m));
        }
        match (op, folded(a)) {
            (BinaryOp::Add, Some(m)) => Some((b, m)),
            _ => None,
        }
    }

    /// A float multiplication whose only use is the right operand of an addition in its
    /// block, `a + x * y`: the addition is `vmla.f32` on a copy of `a`. VFP's `vmla` rounds
    /// the product before adding it, so it computes exactly what `vmul` and `vadd a, p` do,
    /// the NaN an addition of two NaNs gives included (the accumulator's: the product must
    /// be the right operand). `a - x * y` stays two instructions: `vmls` adds the negated
    /// product, and a NaN product would come out with its sign flipped (`x - inf * 0`
    /// prints `-nan` where `vsub` gives `nan`).
    ///
    /// The A72 forwards only a multiply-accumulate's result into the accumulator of the
    /// next one (4 cycles); an accumulator that a `vadd`, `vsub` or `vmul` computes waits
    /// the whole 9 cycles, where `vadd` would take 5, so such an addition stays `vadd`.
    pub(super) fn is_folded_float_mul(&self, i: Inst) -> bool {
        let f = self.f;
        let is_fmul = |i: Inst| {
            matches!(
                f.kind(i),
                InstKind::Binary {
                    op: BinaryOp::FMul,
                    ..
                }
            )
        };
        if !is_fmul(i) {
            return false;
        }
        let [u] = f.uses(Value::Inst(i)) else {
            return false;
        };
        let InstKind::Binary {
            op: BinaryOp::FAdd,
            args: [acc, _],
        } = *f.kind(u.inst)
        else {
            return false;
        };
        u.index == 1 && f.inst_block(u.inst) == f.inst_block(i) && self.forwards_into(acc)
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
