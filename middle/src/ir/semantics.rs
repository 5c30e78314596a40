//! What each IR operation computes, on the bit patterns of its operands: the IR's opcodes
//! mapped onto `frontend::arith`, the one definition of the target's arithmetic that the
//! front end's constant evaluation uses too. The interpreter and constant folding call these,
//! so no two parts of the compiler can compute an operation differently.

use super::instructions::{BinaryOp, CastOp, FloatPred, IntPred};
use frontend::arith;

pub fn binary(op: BinaryOp, a: u32, b: u32) -> u32 {
    let int = |g: fn(i32, i32) -> i32| g(a as i32, b as i32) as u32;
    let float = |g: fn(f32, f32) -> f32| g(f32::from_bits(a), f32::from_bits(b)).to_bits();
    match op {
        BinaryOp::Add => int(arith::add),
        BinaryOp::Sub => int(arith::sub),
        BinaryOp::Mul => int(arith::mul),
        BinaryOp::SDiv => int(arith::sdiv),
        BinaryOp::SRem => int(arith::srem),
        BinaryOp::And => int(arith::and),
        BinaryOp::LShr => int(arith::lshr),
        BinaryOp::AShr => int(arith::ashr),
        BinaryOp::FAdd => float(arith::fadd),
        BinaryOp::FSub => float(arith::fsub),
        BinaryOp::FMul => float(arith::fmul),
        BinaryOp::FDiv => float(arith::fdiv),
    }
}

pub fn fneg(a: u32) -> u32 {
    arith::fneg(f32::from_bits(a)).to_bits()
}

pub fn ctz(a: u32) -> u32 {
    arith::ctz(a as i32) as u32
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
        CastOp::SiToFp => arith::int_to_float(a as i32).to_bits(),
        CastOp::FpToSi => arith::float_to_int(f32::from_bits(a)) as u32,
        CastOp::FloatBits => a,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes_reach_the_matching_arithmetic() {
        let (seven, two) = (7u32, 2u32);
        let expect = [
            (BinaryOp::Add, 9),
            (BinaryOp::Sub, 5),
            (BinaryOp::Mul, 14),
            (BinaryOp::SDiv, 3),
            (BinaryOp::SRem, 1),
            (BinaryOp::And, 2),
            (BinaryOp::LShr, 1),
            (BinaryOp::AShr, 1),
        ];
        for (op, r) in expect {
            assert_eq!(binary(op, seven, two), r, "{op:?}");
        }
        let (x, y) = (7f32.to_bits(), 2f32.to_bits());
        let expect = [
            (BinaryOp::FAdd, 9.0),
            (BinaryOp::FSub, 5.0),
            (BinaryOp::FMul, 14.0),
            (BinaryOp::FDiv, 3.5),
        ];
        for (op, r) in expect {
            assert_eq!(f32::from_bits(binary(op, x, y)), r, "{op:?}");
        }
        assert_eq!(cast(CastOp::FpToSi, (-2.75f32).to_bits()), -2i32 as u32);
        assert_eq!(cast(CastOp::SiToFp, 3), 3f32.to_bits());
        assert_eq!(cast(CastOp::Zext, 1), 1);
        assert_eq!(fneg(0), 0x8000_0000);
    }
}
