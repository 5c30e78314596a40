//! Integer and float operations: additions and subtractions (with immediates that only
//! their negation encodes, and shifts folded in as the flexible second operand), masks,
//! right shifts, casts, and an offset of a counter taken from its next value.

use super::Selector;
use crate::const_division::{self, DivPlan};
use crate::imm::is_operand2;
use crate::mir::*;
use middle::ir::{BinaryOp, CastOp, Function, Inst, InstKind, Value};

impl Selector<'_> {
    /// `rd = a op b`; `op` is one instruction (after any constants it needs) when
    /// `cost_model::is_predicable` holds, the last one emitted.
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
            let InstKind::Binary { args: [x, y], .. } = *self.f.kind(m) else {
                unreachable!("a folded multiplication");
            };
            let (sn, sm, acc) = (self.reg(x), self.reg(y), self.reg(a));
            self.emit(MInst::Copy { dst: rd, src: acc });
            self.emit(MInst::VMla { sd: rd, sn, sm });
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
            let InstKind::Binary {
                args: [x, Value::Int(d)],
                ..
            } = *self.f.kind(div)
            else {
                unreachable!("a folded division by a constant");
            };
            let Some(DivPlan::Magic {
                magic, add, shift, ..
            }) = const_division::plan(d)
            else {
                unreachable!("a folded division by a magic number");
            };
            let nonnegative = d > 0 && self.never_negative(x);
            let x = self.reg(x);
            let t = self.magic_product(x, magic, add);
            let rn = self.reg(other);
            if nonnegative {
                // A quotient that is never negative needs no truncation correction.
                self.emit(MInst::Alu {
                    cond: None,
                    op: AluOp::Add,
                    rd,
                    rn,
                    src: Operand2::Shifted(t, Shift::Asr, shift),
                });
                return;
            }
            let partial = self.new_vreg(RegClass::Int);
            self.emit(MInst::Alu {
                cond: None,
                op: AluOp::Add,
                rd: partial,
                rn,
                src: Operand2::Shifted(t, Shift::Asr, shift),
            });
            self.emit(MInst::Alu {
                cond: None,
                op: AluOp::Add,
                rd,
                rn: partial,
                src: Operand2::Shifted(t, Shift::Lsr, 31),
            });
            return;
        }
        if let Some((acc, m)) = self.multiply_accumulate(op, a, b) {
            let InstKind::Binary { args: [x, y], .. } = *self.f.kind(m) else {
                unreachable!("a folded multiplication");
            };
            let (rn, rm, ra) = (self.reg(x), self.reg(y), self.reg(acc));
            self.emit(if op == BinaryOp::Add {
                MInst::Mla { rd, rn, rm, ra }
            } else {
                MInst::Mls { rd, rn, rm, ra }
            });
            return;
        }
        match op {
            BinaryOp::Add | BinaryOp::Sub => {
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
                            && (is_operand2(c.wrapping_neg() as u32)
                                || (c < 0 && c != i32::MIN)) =>
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
            BinaryOp::And => {
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
            BinaryOp::LShr | BinaryOp::AShr => {
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
            BinaryOp::Mul => self.mul(rd, a, b),
            BinaryOp::SDiv => match (a.is_constant(), b.as_int().and_then(const_division::plan)) {
                (false, Some(plan)) => {
                    let x = self.reg(a);
                    self.divide_by_constant(rd, x, plan);
                }
                _ => {
                    let (rn, rm) = (self.reg(a), self.reg(b));
                    self.emit(MInst::SDiv { rd, rn, rm });
                }
            },
            BinaryOp::SRem if !a.is_constant() && matches!(b, Value::Int(1 | -1)) => {
                self.emit(MInst::Mov {
                    cond: None,
                    rd,
                    src: Operand2::Imm(0),
                });
            }
            BinaryOp::SRem => {
                let (rn, rm) = (self.reg(a), self.reg(b));
                if let (false, Some(plan)) =
                    (a.is_constant(), b.as_int().and_then(const_division::plan))
                {
                    let q = self.new_vreg(RegClass::Int);
                    self.divide_by_constant(q, rn, plan);
                    self.emit(MInst::Mls {
                        rd,
                        rn: q,
                        rm,
                        ra: rn,
                    });
                    return;
                }
                let q = self.new_vreg(RegClass::Int);
                self.emit(MInst::SDiv { rd: q, rn, rm });
                self.emit(MInst::Mls {
                    rd,
                    rn: q,
                    rm,
                    ra: rn,
                });
            }
            _ => unreachable!("float operations handled above"),
        }
    }

    /// For `x + c`, `x` a phi, where `next = x + c2` (what the phi takes on an edge into its
    /// block) comes earlier in the same block: `next` and `c - c2`, so that `x` need not live
    /// beside `next` and the two coalesce (`j + 3` after `j + 2` in a loop stepping by 2
    /// is `(j + 2) + 1`).
    pub(super) fn offset_from_next_value(&self, i: Inst) -> Option<(Value, i32)> {
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
