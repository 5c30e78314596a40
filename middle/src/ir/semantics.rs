//! What each IR operation computes, on the bit patterns of its operands: the IR's opcodes
//! mapped onto `sysy_runtime::arith`, the one definition of the target's arithmetic that the
//! front end's constant evaluation uses too. The interpreter and constant folding call these,
//! so no two parts of the compiler can compute an operation differently.

use super::instructions::{BinaryOp, CastOp, FloatPred, IntPred, ReduceOp, VectorOp};
use sysy_runtime::arith;

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

/// One lane of a lane-wise vector operation. The float ones compute as Advanced SIMD
/// does on ARMv7, always: subnormal operands count as zeros of their sign, subnormal results
/// become zeros of their sign, and every NaN result is the default NaN. They may differ from
/// the scalar operations' bits, which is why the vectoriser leaves float arithmetic alone.
pub fn lane(op: VectorOp, a: u32, b: u32) -> u32 {
    let int = |g: fn(i32, i32) -> i32| g(a as i32, b as i32) as u32;
    let neon = |g: fn(f32, f32) -> f32| {
        let r = g(flushed(a), flushed(b));
        if r.is_nan() {
            DEFAULT_NAN
        } else {
            flushed(r.to_bits()).to_bits()
        }
    };
    match op {
        VectorOp::Add => int(arith::add),
        VectorOp::Sub => int(arith::sub),
        VectorOp::Mul => int(arith::mul),
        VectorOp::SMin => int(std::cmp::min),
        VectorOp::SMax => int(std::cmp::max),
        VectorOp::FAdd => neon(arith::fadd),
        VectorOp::FSub => neon(arith::fsub),
        VectorOp::FMul => neon(arith::fmul),
    }
}

/// The quiet NaN Advanced SIMD gives for every NaN result.
const DEFAULT_NAN: u32 = 0x7fc0_0000;

/// The float of `bits`, a subnormal taken as a zero of its sign.
fn flushed(bits: u32) -> f32 {
    let x = f32::from_bits(bits);
    if x.is_subnormal() {
        f32::from_bits(bits & 0x8000_0000)
    } else {
        x
    }
}

/// The four lanes of an integer vector combined into one.
pub fn reduce(op: ReduceOp, lanes: [u32; 4]) -> u32 {
    let combine = |a: u32, b: u32| match op {
        ReduceOp::Add => a.wrapping_add(b),
        ReduceOp::SMin => (a as i32).min(b as i32) as u32,
        ReduceOp::SMax => (a as i32).max(b as i32) as u32,
    };
    lanes[1..].iter().fold(lanes[0], |acc, &x| combine(acc, x))
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

    #[test]
    fn vector_lanes_compute_as_advanced_simd() {
        assert_eq!(lane(VectorOp::Add, i32::MAX as u32, 1), i32::MIN as u32);
        assert_eq!(lane(VectorOp::SMin, -3i32 as u32, 2), -3i32 as u32);
        assert_eq!(lane(VectorOp::SMax, -3i32 as u32, 2), 2);
        let tiny = f32::MIN_POSITIVE.to_bits();
        // The smallest normal halved is subnormal: flushed to +0.
        assert_eq!(lane(VectorOp::FMul, tiny, 0.5f32.to_bits()), 0);
        assert_eq!(binary(BinaryOp::FMul, tiny, 0.5f32.to_bits()), tiny / 2);
        // A subnormal operand counts as zero: 1 + it is exactly 1, and -it * 1 is -0.
        assert_eq!(lane(VectorOp::FAdd, 1f32.to_bits(), 1), 1f32.to_bits());
        assert_eq!(
            lane(VectorOp::FMul, 0x8000_0001, 1f32.to_bits()),
            0x8000_0000
        );
        let nan = 0xffc0_0001;
        assert_eq!(lane(VectorOp::FAdd, nan, 0), DEFAULT_NAN);
        assert_eq!(reduce(ReduceOp::Add, [u32::MAX, 2, 3, 4]), 8);
        assert_eq!(
            reduce(ReduceOp::SMin, [5, -1i32 as u32, 3, 0]),
            -1i32 as u32
        );
        assert_eq!(reduce(ReduceOp::SMax, [5, -1i32 as u32, 7, 0]), 7);
    }
}
