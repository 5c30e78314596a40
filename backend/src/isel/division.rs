//! Division and remainder: by constants as multiplications by a reciprocal or shifts
//! (`const_division`), a quotient added once folded into its addition, and what value
//! ranges and recurrences tell about the sign correction.

use super::arithmetic::QUOTIENT;
use super::matcher::Match;
use super::Selector;
use crate::const_division::{self, DivPlan};
use crate::mir::*;
use middle::ir::pattern::{A, B, C1, X};
use middle::ir::{BinaryOp, Inst, InstKind, Value};

/// How many operations may stand between a value and the phi it comes back to round its
/// loop (`is_on_recurrence`), each way; how many uses it follows forward, and how many
/// operations it looks at backward, in all.
const MAX_RECURRENCE_STEPS: usize = 12;

const MAX_RECURRENCE_USES: usize = 64;

const MAX_RECURRENCE_OPERANDS: usize = 1024;

impl Selector<'_> {
    /// `rd = a / b`: by a constant as `const_division` plans it, else `sdiv`.
    fn sdiv(&mut self, rd: Reg, a: Value, b: Value) {
        match (a.is_constant(), b.as_int().and_then(const_division::plan)) {
            (false, Some(plan)) => {
                let x = self.reg(a);
                self.divide_by_constant(rd, x, plan);
            }
            _ => {
                let (rn, rm) = (self.reg(a), self.reg(b));
                self.emit(MInst::SDiv { rd, rn, rm });
            }
        }
    }

    /// `rd = a % b`: 0 by 1 or -1, else `a - (a / b) * b` as `mls` after the quotient.
    fn srem(&mut self, rd: Reg, a: Value, b: Value) {
        if !a.is_constant() && matches!(b, Value::Int(1 | -1)) {
            self.emit(MInst::Mov {
                cond: None,
                rd,
                src: Operand2::Imm(0),
            });
            return;
        }
        let (rn, rm) = (self.reg(a), self.reg(b));
        if let (false, Some(plan)) = (a.is_constant(), b.as_int().and_then(const_division::plan)) {
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

    /// `a / b` or, when `remainder`, `a % b` into the match's register. By a constant, the
    /// division knows whether it is on a recurrence and whether its dividend is never
    /// negative.
    pub(super) fn division(&mut self, m: &Match, remainder: bool) {
        let (a, b) = (m.value(A), m.value(B));
        let by_constant = b.is_constant();
        self.recurrent = by_constant && self.is_on_recurrence(m.root);
        self.nonnegative = by_constant && self.never_negative(a);
        if remainder {
            self.srem(m.dst(), a, b);
        } else {
            self.sdiv(m.dst(), a, b);
        }
        self.recurrent = false;
        self.nonnegative = false;
    }

    /// `rd = a + x / d`, the quotient `QUOTIENT` of `x` by the constant `d` folded
    /// (`adds_quotient`): the product's two shifted operands added in turn.
    pub(super) fn quotient_added(&mut self, m: &Match) {
        let (other, x, d) = (m.value(A), m.value(X), m.int(C1));
        let Some(DivPlan::Magic {
            magic, add, shift, ..
        }) = const_division::plan(d)
        else {
            unreachable!("a folded division by a magic number");
        };
        let rd = m.dst();
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
    }

    /// `rd = x / d` for the constant `d` that `plan` is for (see `const_division`).
    fn divide_by_constant(&mut self, rd: Reg, x: Reg, plan: DivPlan) {
        match plan {
            DivPlan::Copy => self.emit(MInst::Copy { dst: rd, src: x }),
            DivPlan::Negate => self.emit(MInst::Alu {
                cond: None,
                op: AluOp::Rsb,
                rd,
                rn: x,
                src: Operand2::Imm(0),
            }),
            DivPlan::IntMin => {
                self.emit(MInst::Cmp {
                    cond: None,
                    rn: x,
                    src: Operand2::Imm(1 << 31),
                });
                self.emit(MInst::Mov {
                    cond: None,
                    rd,
                    src: Operand2::Imm(0),
                });
                self.emit(MInst::Mov {
                    cond: Some(Cond::Eq),
                    rd,
                    src: Operand2::Imm(1),
                });
            }
            DivPlan::Shift { k, negate } => self.divide_by_power_of_two(rd, x, k, negate),
            DivPlan::Magic {
                magic,
                add,
                shift,
                positive,
            } => self.divide_by_magic(rd, x, magic, add, shift, positive),
        }
    }

    /// `rd = x / 2^k`, or `-(x / 2^k)` when `negate` (`DivPlan::Shift`).
    fn divide_by_power_of_two(&mut self, rd: Reg, x: Reg, k: u8, negate: bool) {
        let shifted = |r: Reg, shift: Shift, k: u8| Operand2::Shifted(r, shift, k);
        // Negative dividends round towards zero: add 2^k - 1 first.
        let sign = if k == 1 {
            x
        } else {
            let s = self.new_vreg(RegClass::Int);
            self.emit(MInst::Mov {
                cond: None,
                rd: s,
                src: shifted(x, Shift::Asr, 31),
            });
            s
        };
        let biased = self.new_vreg(RegClass::Int);
        self.emit(MInst::Alu {
            cond: None,
            op: AluOp::Add,
            rd: biased,
            rn: x,
            src: shifted(sign, Shift::Lsr, 32 - k),
        });
        let q = if negate {
            self.new_vreg(RegClass::Int)
        } else {
            rd
        };
        self.emit(MInst::Mov {
            cond: None,
            rd: q,
            src: shifted(biased, Shift::Asr, k),
        });
        if negate {
            self.emit(MInst::Alu {
                cond: None,
                op: AluOp::Rsb,
                rd,
                rn: q,
                src: Operand2::Imm(0),
            });
        }
    }

    /// `rd = x / d` by the magic multiplier, addend and shift of `d` (`DivPlan::Magic`),
    /// `positive` when `d` is.
    fn divide_by_magic(&mut self, rd: Reg, x: Reg, magic: i32, add: i8, shift: u8, positive: bool) {
        let shifted = |r: Reg, shift: Shift, k: u8| Operand2::Shifted(r, shift, k);
        let q = self.magic_product(x, magic, add);
        if positive && self.nonnegative {
            // A quotient that is never negative needs no truncation correction
            // (a shift by 0 is the register itself).
            self.emit(MInst::Mov {
                cond: None,
                rd,
                src: shifted(q, Shift::Asr, shift),
            });
            return;
        }
        if positive && shift > 0 && self.recurrent {
            // `(q >> shift) - (x >> 31)`: the sign is ready before the product, so
            // the quotient is one instruction after the multiply, not two, which
            // the next round of a recurrence waits for. Elsewhere the sign comes
            // from the shifted product, in its register, holding one fewer.
            let sign = self.new_vreg(RegClass::Int);
            self.emit(MInst::Mov {
                cond: None,
                rd: sign,
                src: shifted(x, Shift::Asr, 31),
            });
            self.emit(MInst::Alu {
                cond: None,
                op: AluOp::Rsb,
                rd,
                rn: sign,
                src: shifted(q, Shift::Asr, shift),
            });
            return;
        }
        let mut q = q;
        if shift > 0 {
            let t = self.new_vreg(RegClass::Int);
            self.emit(MInst::Mov {
                cond: None,
                rd: t,
                src: shifted(q, Shift::Asr, shift),
            });
            q = t;
        }
        // Truncation: negative quotients are one too small until their sign is added.
        self.emit(MInst::Alu {
            cond: None,
            op: AluOp::Add,
            rd,
            rn: q,
            src: shifted(q, Shift::Lsr, 31),
        });
    }

    /// `mulhs(x, magic)`, plus `x` when `add` is 1 or minus `x` when -1: a magic division's
    /// quotient before its shift and sign correction.
    fn magic_product(&mut self, x: Reg, magic: i32, add: i8) -> Reg {
        let m = self.int_const(magic as u32);
        let q = self.new_vreg(RegClass::Int);
        self.emit(MInst::Smmul {
            rd: q,
            rn: x,
            rm: m,
        });
        if add == 0 {
            return q;
        }
        let t = self.new_vreg(RegClass::Int);
        self.emit(MInst::Alu {
            cond: None,
            op: if add > 0 { AluOp::Add } else { AluOp::Sub },
            rd: t,
            rn: q,
            src: Operand2::Reg(x),
        });
        t
    }

    /// Whether the root `a + x / d` adds its quotient `QUOTIENT` (used only there, `d` a
    /// constant with a magic multiplier) as two shifted operands of the product `t`,
    /// `a + (t asr s) + (t lsr 31)`, which saves the quotient's own instruction (the shift
    /// keeps `t`'s sign, the bit the correction adds): in the division's block, not under a
    /// select's condition, `a` a plain value (no multiplication or shift of its own to fold).
    pub(super) fn adds_quotient(&self, m: &Match) -> bool {
        let f = self.f;
        let magic = matches!(
            const_division::plan(m.int(C1)),
            Some(DivPlan::Magic { shift: 1.., .. })
        );
        let other = m.value(A);
        let plain = match other {
            Value::Inst(j) => !matches!(
                f.kind(j),
                InstKind::Binary {
                    op: BinaryOp::Mul | BinaryOp::SDiv | BinaryOp::LShr | BinaryOp::AShr,
                    ..
                }
            ),
            _ => !other.is_constant(),
        };
        magic
            && !m.value(X).is_constant()
            && plain
            && other != m.value(QUOTIENT)
            && f.inst_block(m.root) == f.inst_block(m.inst(QUOTIENT))
            && !self.is_predicated(m.root)
    }

    /// Whether value ranges show that `v` is never negative.
    fn never_negative(&self, v: Value) -> bool {
        self.ranges.is_some_and(|r| r.of(v).lo >= 0)
    }

    /// Whether the value of `i` comes back to one of its operands round a loop: through at
    /// most `MAX_RECURRENCE_STEPS` operations and phis to a phi, and from that phi through as
    /// many operations to `i` (`carry = (x[k] * f + carry) / base`, `h = (h * 31 + c) % m`).
    fn is_on_recurrence(&self, i: Inst) -> bool {
        let f = self.f;
        if f.inst_block(i).is_none_or(|b| self.loops.depth(b) == 0) {
            return false;
        }
        let mut phis = Vec::new();
        let mut level = vec![i];
        let mut uses = 0;
        for _ in 0..MAX_RECURRENCE_STEPS {
            let mut next = Vec::new();
            for &v in &level {
                for u in f.uses(Value::Inst(v)) {
                    uses += 1;
                    if uses > MAX_RECURRENCE_USES {
                        break;
                    }
                    match f.kind(u.inst) {
                        // A phi where the arms of an `if` join passes the value on to the
                        // header's (`f[j] = c ? 0 : (f[j] + f[j - 1]) % m`).
                        InstKind::Phi { .. } => {
                            phis.push(u.inst);
                            next.push(u.inst);
                        }
                        InstKind::Binary { .. } | InstKind::Select { .. } => next.push(u.inst),
                        _ => {}
                    }
                }
            }
            level = next;
        }
        // Backward, each operation once: what a second path reaches, the first reached at
        // least as soon.
        let mut seen: Vec<Inst> = Vec::new();
        let mut level: Vec<Value> = f.kind(i).operands().to_vec();
        for _ in 0..MAX_RECURRENCE_STEPS {
            let mut next = Vec::new();
            for d in level.iter().filter_map(|v| v.as_inst()) {
                if seen.contains(&d) || seen.len() == MAX_RECURRENCE_OPERANDS {
                    continue;
                }
                seen.push(d);
                match f.kind(d) {
                    InstKind::Phi { .. } if phis.contains(&d) => return true,
                    InstKind::Binary { args, .. } => next.extend_from_slice(args),
                    InstKind::Select { args } => next.extend_from_slice(args),
                    _ => {}
                }
            }
            level = next;
        }
        false
    }
}

#[cfg(test)]
#[path = "division_tests.rs"]
mod tests;
