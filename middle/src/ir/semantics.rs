//! What each operation computes, on the bit patterns of its operands: the single definition
//! used by the interpreter and by constant folding, matching the ARM target. Integer
//! arithmetic wraps; division by zero gives 0 (and remainder the dividend), as `sdiv` does;
//! float-to-int conversion truncates and saturates, NaN giving 0, as `vcvt` does. A float
//! operation with a NaN operand returns the first NaN operand made quiet; one that creates a
//! NaN returns the default NaN 0x7fc00000 (VFP with the default-NaN mode off, as on Linux).

use super::instructions::{BinaryOp, CastOp, FloatPred, IntPred};
use frontend::consteval::arm_float;

pub fn binary(op: BinaryOp, a: u32, b: u32) -> u32 {
    let (x, y) = (a as i32, b as i32);
    let (fx, fy) = (f32::from_bits(a), f32::from_bits(b));
    match op {
        BinaryOp::Add => x.wrapping_add(y) as u32,
        BinaryOp::Sub => x.wrapping_sub(y) as u32,
        BinaryOp::Mul => x.wrapping_mul(y) as u32,
        BinaryOp::SDiv => {
            if y == 0 {
                0
            } else {
                x.wrapping_div(y) as u32
            }
        }
        BinaryOp::SRem => {
            if y == 0 {
                a
            } else {
                x.wrapping_rem(y) as u32
            }
        }
        BinaryOp::FAdd => arm_float(fx, fy, fx + fy).to_bits(),
        BinaryOp::FSub => arm_float(fx, fy, fx - fy).to_bits(),
        BinaryOp::FMul => arm_float(fx, fy, fx * fy).to_bits(),
        BinaryOp::FDiv => arm_float(fx, fy, fx / fy).to_bits(),
    }
}

pub fn fneg(a: u32) -> u32 {
    a ^ 0x8000_0000
}

pub fn icmp(pred: IntPred, a: u32, b: u32) -> bool {
    let (x, y) = (a as i32, b as i32);
    match pred {
        IntPred::Eq => a == b,
        IntPred::Ne => a != b,
        IntPred::Slt => x < y,
        IntPred::Sle => x <= y,
        IntPred::Sgt => x > y,
        IntPred::Sge => x >= y,
        IntPred::Ult => a < b,
        IntPred::Ule => a <= b,
        IntPred::Ugt => a > b,
        IntPred::Uge => a >= b,
    }
}

pub fn fcmp(pred: FloatPred, a: u32, b: u32) -> bool {
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    let unordered = x.is_nan() || y.is_nan();
    match pred {
        FloatPred::Oeq => x == y,
        FloatPred::One => !unordered && x != y,
        FloatPred::Olt => x < y,
        FloatPred::Ole => x <= y,
        FloatPred::Ogt => x > y,
        FloatPred::Oge => x >= y,
        FloatPred::Ord => !unordered,
        FloatPred::Ueq => unordered || x == y,
        FloatPred::Une => x != y,
        FloatPred::Ult => unordered || x < y,
        FloatPred::Ule => unordered || x <= y,
        FloatPred::Ugt => unordered || x > y,
        FloatPred::Uge => unordered || x >= y,
        FloatPred::Uno => unordered,
    }
}

pub fn cast(op: CastOp, a: u32) -> u32 {
    match op {
        CastOp::Zext => a & 1,
        CastOp::SiToFp => (a as i32 as f32).to_bits(),
        CastOp::FpToSi => f32::from_bits(a) as i32 as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULT_NAN: u32 = 0x7fc0_0000;

    #[test]
    fn nans_follow_arm_rules() {
        let zero = 0f32.to_bits();
        assert_eq!(binary(BinaryOp::FDiv, zero, zero), DEFAULT_NAN);
        let inf = f32::INFINITY.to_bits();
        let neg_inf = f32::NEG_INFINITY.to_bits();
        assert_eq!(binary(BinaryOp::FAdd, inf, neg_inf), DEFAULT_NAN);
        let payload = 0xffc0_0123;
        assert_eq!(binary(BinaryOp::FMul, payload, 1f32.to_bits()), payload);
        assert_eq!(
            binary(BinaryOp::FSub, 2f32.to_bits(), 0x7f80_0001),
            0x7fc0_0001
        );
        assert_eq!(fneg(DEFAULT_NAN), 0xffc0_0000);
    }

    #[test]
    fn integer_edge_cases_match_arm() {
        assert_eq!(binary(BinaryOp::SDiv, 7, 0), 0);
        assert_eq!(binary(BinaryOp::SRem, 7, 0), 7);
        assert_eq!(
            binary(BinaryOp::SDiv, i32::MIN as u32, -1i32 as u32),
            i32::MIN as u32
        );
        assert_eq!(cast(CastOp::FpToSi, f32::NAN.to_bits()), 0);
        assert_eq!(cast(CastOp::FpToSi, 3e9f32.to_bits()), i32::MAX as u32);
    }
}
