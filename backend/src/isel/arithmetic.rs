//! Integer and float operations: the rules for every binary operation (those that fold an
//! operand first: a product into `vmla.f32`, `mla` or `mls`, a quotient into its addition,
//! a shift into an add or sub as its flexible second operand), additions and subtractions
//! (with immediates that only their negation encodes), masks, right shifts, casts, and an
//! offset of a counter taken from its next value.

use super::matcher::{Match, Rule};
use super::Selector;
use crate::imm::is_operand2;
use crate::mir::*;
use middle::ir::pattern::*;
use middle::ir::{BinaryOp, CastOp, Function, Inst, InstKind, Opcode, Value};

/// The product a multiply-accumulate folds.
pub(super) const PRODUCT: Var = Var::new(10);

/// The quotient an addition folds.
pub(super) const QUOTIENT: Var = Var::new(11);

/// The shift an add or sub folds as its shifted register.
const SHIFT: Var = Var::new(12);

/// The rules of the binary operations, in the order they are tried: the forms that fold an
/// operand before the plain operations.
pub(super) fn rules() -> Vec<Rule> {
    [folding_rules(), plain_rules(), unary_rules()].concat()
}

/// The operations that fold a product, a quotient or a shift.
fn folding_rules() -> Vec<Rule> {
    let product = || one_use(bind(PRODUCT, mul(var(X), var(Y))));
    let shift = || one_use(bind(SHIFT, binary(OP, var(X), int_const(C1))));
    vec![
        Rule::new(
            "vmla.f32",
            fadd(var(A), one_use(bind(PRODUCT, fmul(var(X), var(Y))))),
        )
        .when(|s, m| s.accumulates_float_product(m))
        .folding(PRODUCT)
        .emits(|s, m| s.float_multiply_accumulate(m)),
        Rule::new(
            "add-quotient",
            add(var(A), one_use(bind(QUOTIENT, sdiv(var(X), int_const(C1))))).commute(),
        )
        .when(|s, m| s.adds_quotient(m))
        .folding(QUOTIENT)
        .emits(|s, m| s.quotient_added(m)),
        Rule::new("mla", add(var(A), product()))
            .when(|s, m| s.accumulates_product(m))
            .folding(PRODUCT)
            .emits(|s, m| s.multiply_accumulate(m, false)),
        Rule::new("mla-left", add(product(), var(A)))
            .when(|s, m| s.accumulates_product(m) && !s.is_plain_product(m.value(A), m.root))
            .folding(PRODUCT)
            .emits(|s, m| s.multiply_accumulate(m, false)),
        Rule::new("mls", sub(var(A), product()))
            .when(|s, m| s.accumulates_product(m))
            .folding(PRODUCT)
            .emits(|s, m| s.multiply_accumulate(m, true)),
        Rule::new("add-shifted", add(var(A), shift()).commute())
            .when(shifts_once)
            .folding(SHIFT)
            .emits(|s, m| s.with_shifted(m, AluOp::Add)),
        Rule::new("sub-shifted", sub(var(A), shift()))
            .when(shifts_once)
            .folding(SHIFT)
            .emits(|s, m| s.with_shifted(m, AluOp::Sub)),
        Rule::new("rsb-shifted", sub(shift(), var(A)))
            .when(shifts_once)
            .folding(SHIFT)
            .emits(|s, m| s.with_shifted(m, AluOp::Rsb)),
    ]
}

/// Each operation on its operands' registers (or immediates).
fn plain_rules() -> Vec<Rule> {
    vec![
        Rule::new("vadd.f32", fadd(var(A), var(B))).emits(|s, m| s.vfp(m, VOp::Add)),
        Rule::new("vsub.f32", fsub(var(A), var(B))).emits(|s, m| s.vfp(m, VOp::Sub)),
        Rule::new("vmul.f32", fmul(var(A), var(B))).emits(|s, m| s.vfp(m, VOp::Mul)),
        Rule::new("vdiv.f32", fdiv(var(A), var(B))).emits(|s, m| s.vfp(m, VOp::Div)),
        Rule::new("add-after-next", add(var(X), int_const(C1)))
            .when(|s, m| s.offset_from_next_value(m.root).is_some() && !s.is_predicated(m.root))
            .emits(|s, m| s.add_after_next(m)),
        Rule::new("add", add(var(A), var(B)))
            .emits(|s, m| s.add_or_sub(m.dst(), BinaryOp::Add, m.value(A), m.value(B))),
        Rule::new("sub", sub(var(A), var(B)))
            .emits(|s, m| s.add_or_sub(m.dst(), BinaryOp::Sub, m.value(A), m.value(B))),
        Rule::new("and", and(var(A), var(B))).emits(|s, m| s.and(m.dst(), m.value(A), m.value(B))),
        Rule::new("lsr", lshr(var(A), var(B)))
            .emits(|s, m| s.shift_right(m.dst(), BinaryOp::LShr, m.value(A), m.value(B))),
        Rule::new("asr", ashr(var(A), var(B)))
            .emits(|s, m| s.shift_right(m.dst(), BinaryOp::AShr, m.value(A), m.value(B))),
        Rule::new("mul", mul(var(A), var(B))).emits(|s, m| s.mul(m.dst(), m.value(A), m.value(B))),
        Rule::new("sdiv", sdiv(var(A), var(B))).emits(|s, m| s.division(m, false)),
        Rule::new("srem", srem(var(A), var(B))).emits(|s, m| s.division(m, true)),
    ]
}

/// The operations of one operand: float negation, counting trailing zeros, casts.
fn unary_rules() -> Vec<Rule> {
    vec![
        Rule::new("vneg.f32", fneg(var(A))).emits(|s, m| {
            let sm = s.reg(m.value(A));
            s.emit(MInst::VNeg { sd: m.dst(), sm });
        }),
        Rule::new("rbit-clz", inst(Opcode::Ctz, vec![var(A)])).emits(|s, m| s.ctz(m)),
        Rule::new("zext", cast(CastOp::Zext, var(A))).emits(|s, m| s.cast(m, CastOp::Zext)),
        Rule::new("vcvt.f32.s32", cast(CastOp::SiToFp, var(A)))
            .emits(|s, m| s.cast(m, CastOp::SiToFp)),
        Rule::new("vcvt.s32.f32", cast(CastOp::FpToSi, var(A)))
            .emits(|s, m| s.cast(m, CastOp::FpToSi)),
        Rule::new("vmov-bits", cast(CastOp::FloatBits, var(A)))
            .emits(|s, m| s.cast(m, CastOp::FloatBits)),
    ]
}

/// Whether the shift `SHIFT` of the match is one the add or sub takes as its shifted
/// register: a right shift by a constant or a multiplication by a power of two, when the
/// other operand `A` is none (of two shifted operands only one can fold: neither does).
fn shifts_once(s: &Selector, m: &Match) -> bool {
    shift_parts(s.f, m.value(SHIFT)).is_some() && shift_parts(s.f, m.value(A)).is_none()
}

impl Selector<'_> {
    /// `a vop b`, a float operation, into the match's register.
    fn vfp(&mut self, m: &Match, op: VOp) {
        let (sn, sm) = (self.reg(m.value(A)), self.reg(m.value(B)));
        self.emit(MInst::VBin {
            op,
            sd: m.dst(),
            sn,
            sm,
        });
    }

    /// `rd = a alu (x shift #k)`, the shift `SHIFT` of `x` folded as the shifted register.
    fn with_shifted(&mut self, m: &Match, op: AluOp) {
        let rn = self.reg(m.value(A));
        let (x, shift, amount) = shift_parts(self.f, m.value(SHIFT)).expect("a folded shift");
        let src = Operand2::Shifted(self.reg(x), shift, amount);
        self.emit(MInst::Alu {
            cond: None,
            op,
            rd: m.dst(),
            rn,
            src,
        });
    }

    /// `x + c` as an offset of the next value of the phi `x` (`offset_from_next_value`).
    fn add_after_next(&mut self, m: &Match) {
        let (next, c) = self
            .offset_from_next_value(m.root)
            .expect("an addition after the next value");
        self.add_or_sub(m.dst(), BinaryOp::Add, next, Value::Int(c));
    }

    /// `rd = a + b` or `a - b`.
    fn add_or_sub(&mut self, rd: Reg, op: BinaryOp, a: Value, b: Value) {
        // A constant goes right, as the flexible second operand.
        let swap = a.is_constant() && !b.is_constant();
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
        let src = self.op2(b);
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
        // `next` is the phi's, so in a register of its own.
        args.iter().find_map(|&next| {
            let n = next.as_inst().filter(|&n| n != i)?;
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

    /// The trailing zeros of `A`: its bits reversed, then the leading zeros counted.
    fn ctz(&mut self, m: &Match) {
        let rm = self.reg(m.value(A));
        let reversed = self.new_vreg(RegClass::Int);
        self.emit(MInst::Rbit { rd: reversed, rm });
        self.emit(MInst::Clz {
            rd: m.dst(),
            rm: reversed,
        });
    }

    /// The cast `op` of `A`.
    fn cast(&mut self, m: &Match, op: CastOp) {
        let rd = m.dst();
        let src = self.reg(m.value(A));
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
