//! Integer and float operations: additions and subtractions (with immediates that only
//! their negation encodes, and shifts folded in as the flexible second operand), masks,
//! right shifts, casts, and an offset of a counter taken from its next value.

use super::Selector;
use crate::imm::is_operand2;
use crate::mir::*;
use middle::ir::{BinaryOp, CastOp, Function, Inst, InstKind, Value};

impl Selector<'_> {
    /// Binary operation `i`, `a op b`, into its register. A division by a constant knows
    /// whether it is on a recurrence and whether its dividend is never negative; an offset
    /// of a counter after its next value is taken from that (`offset_from_next_value`).
    pub(super) fn binary_inst(&mut self, i: Inst, op: BinaryOp, a: Value, b: Value) {
        let rd = self.def(i);
        let by_constant = matches!(op, BinaryOp::SDiv | BinaryOp::SRem) && b.is_constant();
        self.recurrent = by_constant && self.is_on_recurrence(i);
        self.nonnegative = by_constant && self.never_negative(a);
        match self.offset_from_next_value(i) {
            Some((next, c)) => self.binary(rd, BinaryOp::Add, next, Value::Int(c)),
            None => self.binary(rd, op, a, b),
        }
        self.recurrent = false;
        self.nonnegative = false;
    }

    /// `rd = a op b`; `op` is one instruction (after any constants it needs) when
    /// `ir_costs::is_predicable` holds, the last one emitted.
    pub(super) fn binary(&mut self, rd: Reg, op: BinaryOp, a: Value, b: Value) {
        let vop = match op {
            BinaryOp::FAdd => Some(VOp::Add),
            BinaryOp::FSub => Some(VOp::Sub),
            BinaryOp::FMul => Some(VOp::Mul),
            BinaryOp::FDiv => Some(VOp::Div),
            _ => None,
        };
        if let Some(m) = b.as_inst().filter(|&m| {
            op == BinaryOp::FAdd && self.skipped[m.index()] && self.is_folded_float_mul(m)
        }) {
            self.float_multiply_accumulate(rd, a, m);
            return;
        }
        if let Some(vop) = vop {
            let (sn, sm) = (self.reg(a), self.reg(b));
            self.emit(MInst::VBin {
                op: vop,
                sd: rd,
                sn,
                sm,
            });
            return;
        }
        if let Some((other, div)) = self.division_added(op, a, b) {
            self.quotient_added(rd, other, div);
            return;
        }
        if let Some((acc, m)) = self.multiply_accumulate(op, a, b) {
            self.multiply_accumulate_into(rd, op, acc, m);
            return;
        }
        match op {
            BinaryOp::Add | BinaryOp::Sub => self.add_or_sub(rd, op, a, b),
            BinaryOp::And => self.and(rd, a, b),
            BinaryOp::LShr | BinaryOp::AShr => self.shift_right(rd, op, a, b),
            BinaryOp::Mul => self.mul(rd, a, b),
            BinaryOp::SDiv => self.sdiv(rd, a, b),
            BinaryOp::SRem => self.srem(rd, a, b),
            _ => unreachable!("float operations handled above"),
        }
    }

    /// `rd = a + b` or `a - b`.
    fn add_or_sub(&mut self, rd: Reg, op: BinaryOp, a: Value, b: Value) {
        // The operand that can be the flexible second one goes right: a shift folded
        // into this instruction, else a constant.
        let swap = self.shift_of(a).is_some()
            || (a.is_constant() && !b.is_constant() && self.shift_of(b).is_none());
        let (alu, a, b) = match (op, swap) {
            (BinaryOp::Add, true) => (AluOp::Add, b, a),
            (BinaryOp::Sub, true) => (AluOp::Rsb, b, a),
            (BinaryOp::Add, false) => (AluOp::Add, a, b),
            _ => (AluOp::Sub, a, b),
        };
        // `x + -1` is `sub x, #1`: a constant whose negation encodes where it does not.
        // When neither encodes, the positive one is built, which the function more
        // likely builds for other uses too (`x - m` next to `x % m`).
        let (alu, b) = match (alu, b) {
            (AluOp::Add | AluOp::Sub, Value::Int(c))
                if !is_operand2(c as u32)
                    && (is_operand2(c.wrapping_neg() as u32) || (c < 0 && c != i32::MIN)) =>
            {
                let flipped = if alu == AluOp::Add {
                    AluOp::Sub
                } else {
                    AluOp::Add
                };
                (flipped, Value::Int(c.wrapping_neg()))
            }
            _ => (alu, b),
        };
        let rn = self.reg(a);
        let src = match self.shift_of(b) {
            Some((x, shift, amount)) => Operand2::Shifted(self.reg(x), shift, amount),
            None => self.op2(b),
        };
        self.emit(MInst::Alu {
            cond: None,
            op: alu,
            rd,
            rn,
            src,
        });
    }

    /// `rd = a & b`: `bic` with a mask that only its complement encodes.
    fn and(&mut self, rd: Reg, a: Value, b: Value) {
        let (a, b) = if a.is_constant() { (b, a) } else { (a, b) };
        let rn = self.reg(a);
        let (alu, src) = match b {
            Value::Int(c) if !is_operand2(c as u32) && is_operand2(!c as u32) => {
                (AluOp::Bic, Operand2::Imm(!c as u32))
            }
            _ => (AluOp::And, self.op2(b)),
        };
        self.emit(MInst::Alu {
            cond: None,
            op: alu,
            rd,
            rn,
            src,
        });
    }

    /// `rd = a >> b`, `op` a logical or arithmetic right shift: `mov` with a shifted operand.
    fn shift_right(&mut self, rd: Reg, op: BinaryOp, a: Value, b: Value) {
        let rn = self.reg(a);
        let src = match shift_operand(op, b) {
            (shift, Some(amount)) => Operand2::Shifted(rn, shift, amount),
            (shift, None) => Operand2::ShiftedBy(rn, shift, self.reg(b)),
        };
        self.emit(MInst::Mov {
            cond: None,
            rd,
            src,
        });
    }

    /// For `x + c`, `x` a phi, where `next = x + c2` (what the phi takes on an edge into its
    /// block) comes earlier in the same block: `next` and `c - c2`, so that `x` need not live
    /// beside `next` and the two coalesce (`j + 3` after `j + 2` in a loop stepping by 2
    /// is `(j + 2) + 1`).
    fn offset_from_next_value(&self, i: Inst) -> Option<(Value, i32)> {
        let f = self.f;
        let InstKind::Binary {
            op: BinaryOp::Add,
            args: [x, Value::Int(c)],
        } = *f.kind(i)
        else {
            return None;
        };
        let InstKind::Phi { args, .. } = f.kind(x.as_inst()?) else {
            return None;
        };
        let block = f.inst_block(i)?;
        args.iter().find_map(|&next| {
            let n = next
                .as_inst()
                .filter(|&n| n != i && !self.skipped[n.index()])?;
            let InstKind::Binary {
                op: BinaryOp::Add,
                args: [y, Value::Int(c2)],
            } = *f.kind(n)
            else {
                return None;
            };
            let before = f.inst_block(n) == Some(block)
                && f.block_insts(block).take_while(|&k| k != i).any(|k| k == n);
            (y == x && before).then(|| (next, c.wrapping_sub(c2)))
        })
    }

    /// A shift (a right shift by a constant, or a multiplication by a power of two) whose
    /// only user is an addition or subtraction, which takes it as its shifted-register
    /// operand (`add rd, rn, rm, lsr #k`, `sub rd, rn, rm, lsl #k`).
    pub(super) fn is_folded_shift(&self, i: Inst) -> bool {
        let f = self.f;
        let v = Value::Inst(i);
        if shift_parts(f, v).is_none() {
            return false;
        }
        // Of two shifted operands only one can fold: neither does.
        match f.uses(v) {
            [u] => match *f.kind(u.inst) {
                InstKind::Binary {
                    op: BinaryOp::Add | BinaryOp::Sub,
                    args: [a, b],
                } => shift_parts(f, if a == v { b } else { a }).is_none(),
                _ => false,
            },
            _ => false,
        }
    }

    /// The source and shift of `v` when it is a shift folded into its user.
    fn shift_of(&self, v: Value) -> Option<(Value, Shift, u8)> {
        v.as_inst().filter(|i| self.skipped[i.index()])?;
        shift_parts(self.f, v)
    }

    pub(super) fn cast(&mut self, i: Inst, op: CastOp, a: Value) {
        let rd = self.def(i);
        let src = self.reg(a);
        match op {
            CastOp::Zext => self.emit(MInst::Copy { dst: rd, src }),
            CastOp::SiToFp => {
                let t = self.new_vreg(RegClass::Float);
                self.emit(MInst::VMovFromCore { sd: t, rn: src });
                self.emit(MInst::VCvtToFloat { sd: rd, sm: t });
            }
            CastOp::FpToSi => {
                let t = self.new_vreg(RegClass::Float);
                self.emit(MInst::VCvtToInt { sd: t, sm: src });
                self.emit(MInst::VMovToCore { rd, sn: t });
            }
            CastOp::FloatBits => self.emit(MInst::VMovToCore { rd, sn: src }),
        }
    }
}

/// `v` as a shifted register: a right shift by a constant, or a multiplication by 2^k
/// (k in 1..=31) as a left shift.
pub(super) fn shift_parts(f: &Function, v: Value) -> Option<(Value, Shift, u8)> {
    match *f.kind(v.as_inst()?) {
        InstKind::Binary {
            op: op @ (BinaryOp::LShr | BinaryOp::AShr),
            args: [x, amount],
        } => match shift_operand(op, amount) {
            (shift, Some(amount)) => Some((x, shift, amount)),
            (_, None) => None,
        },
        InstKind::Binary {
            op: BinaryOp::Mul,
            args: [x, Value::Int(c)],
        } if !x.is_constant() && c > 1 && (c as u32).is_power_of_two() => {
            Some((x, Shift::Lsl, c.trailing_zeros() as u8))
        }
        _ => None,
    }
}

/// The shift of `op` (`lshr` or `ashr`) and its amount when that is a constant in 0..=31
/// (an immediate shift), `None` for an amount in a register.
fn shift_operand(op: BinaryOp, amount: Value) -> (Shift, Option<u8>) {
    let shift = if op == BinaryOp::LShr {
        Shift::Lsr
    } else {
        Shift::Asr
    };
    match amount {
        Value::Int(k @ 0..=31) => (shift, Some(k as u8)),
        _ => (shift, None),
    }
}

#[cfg(test)]
#[path = "arithmetic_tests.rs"]
mod tests;
