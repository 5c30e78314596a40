//! What each operation computes, on the bit patterns of its operands: the single definition
//! used by the interpreter and by constant folding. Integer arithmetic wraps; division by
//! zero gives 0 (and remainder the dividend), as ARM's `sdiv` does; float-to-int conversion
//! truncates and saturates, NaN giving 0, as `vcvt` does.

use super::instructions::{BinaryOp, CastOp, FloatPred, IntPred};

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
        BinaryOp::FAdd => (fx + fy).to_bits(),
        BinaryOp::FSub => (fx - fy).to_bits(),
        BinaryOp::FMul => (fx * fy).to_bits(),
        BinaryOp::FDiv => (fx / fy).to_bits(),
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
