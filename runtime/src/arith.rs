//! The target's arithmetic, one operation per function: the single definition that the front
//! end's constant evaluation (`consteval`), the optimiser's constant folding and the IR
//! interpreter (both through `middle::ir::semantics`) share, so the three can never disagree.
//!
//! It is what ARMv7 with VFP computes: `int` wraps at 32 bits; `sdiv` truncates toward zero,
//! gives 0 for a zero divisor and wraps `INT_MIN / -1` to `INT_MIN`; the remainder takes the
//! dividend's sign (and is the dividend for a zero divisor, as `x - (x / 0) * 0`); every
//! `float` step rounds to single precision; float to int truncates toward zero and saturates,
//! NaN giving 0 (`vcvt`); NaN results follow `nan_result`.

pub fn add(x: i32, y: i32) -> i32 {
    x.wrapping_add(y)
}

pub fn sub(x: i32, y: i32) -> i32 {
    x.wrapping_sub(y)
}

pub fn mul(x: i32, y: i32) -> i32 {
    x.wrapping_mul(y)
}

pub fn neg(x: i32) -> i32 {
    x.wrapping_neg()
}

pub fn sdiv(x: i32, y: i32) -> i32 {
    if y == 0 {
        0
    } else {
        x.wrapping_div(y)
    }
}

pub fn srem(x: i32, y: i32) -> i32 {
    if y == 0 {
        x
    } else {
        x.wrapping_rem(y)
    }
}

pub fn and(x: i32, y: i32) -> i32 {
    x & y
}

/// Shifts right filling with zeros, as `lsr` by a register does: by the low byte of `y`, 32
/// or more giving 0.
pub fn lshr(x: i32, y: i32) -> i32 {
    (x as u32).checked_shr(y as u32 & 255).unwrap_or(0) as i32
}

/// Shifts right filling with copies of the sign bit, as `asr` by a register does: by the low
/// byte of `y`, 32 or more giving the sign in every bit.
pub fn ashr(x: i32, y: i32) -> i32 {
    x >> (y as u32 & 255).min(31)
}

/// The number of zero bits below the lowest set bit; 32 for 0.
pub fn ctz(x: i32) -> i32 {
    x.trailing_zeros() as i32
}

pub fn fadd(x: f32, y: f32) -> f32 {
    nan_result(x, y, x + y)
}

pub fn fsub(x: f32, y: f32) -> f32 {
    nan_result(x, y, x - y)
}

pub fn fmul(x: f32, y: f32) -> f32 {
    nan_result(x, y, x * y)
}

pub fn fdiv(x: f32, y: f32) -> f32 {
    nan_result(x, y, x / y)
}

/// Flips the sign bit, NaN or not (`vneg`).
pub fn fneg(x: f32) -> f32 {
    f32::from_bits(x.to_bits() ^ 0x8000_0000)
}

/// Rounds to the nearest single (ties to even), as `vcvt.f32.s32` does.
pub fn int_to_float(x: i32) -> f32 {
    x as f32
}

/// Truncates toward zero and saturates; NaN gives 0 (`vcvt.s32.f32`). Rust's `as` is
/// defined to do exactly this.
pub fn float_to_int(x: f32) -> i32 {
    x as i32
}

/// The result of a float operation on `a` and `b` that computed `r` on the host, made what
/// ARM's VFP gives: a NaN operand (the first, made quiet) propagates, and a NaN created by the
/// operation is the default NaN 0x7fc00000 (x86 would create a negative one).
pub fn nan_result(a: f32, b: f32, r: f32) -> f32 {
    const QUIET: u32 = 0x0040_0000;
    if !r.is_nan() {
        r
    } else if a.is_nan() {
        f32::from_bits(a.to_bits() | QUIET)
    } else if b.is_nan() {
        f32::from_bits(b.to_bits() | QUIET)
    } else {
        f32::from_bits(0x7fc0_0000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFAULT_NAN: u32 = 0x7fc0_0000;

    #[test]
    fn integer_edge_cases_match_arm() {
        assert_eq!(add(i32::MAX, 1), i32::MIN);
        assert_eq!(mul(65536, 65536), 0);
        assert_eq!(neg(i32::MIN), i32::MIN);
        assert_eq!(sdiv(7, 0), 0);
        assert_eq!(srem(7, 0), 7);
        assert_eq!(sdiv(i32::MIN, -1), i32::MIN);
        assert_eq!(srem(i32::MIN, -1), 0);
        assert_eq!(sdiv(-7, 2), -3);
        assert_eq!(srem(-7, 2), -1);
        assert_eq!(srem(7, -2), 1);
        assert_eq!(and(-8, 13), 8);
        assert_eq!(lshr(-1, 28), 15);
        assert_eq!(ashr(-16, 2), -4);
        assert_eq!(ashr(i32::MIN, 31), -1);
    }

    #[test]
    fn nans_follow_arm_rules() {
        assert_eq!(fdiv(0.0, 0.0).to_bits(), DEFAULT_NAN);
        assert_eq!(
            fadd(f32::INFINITY, f32::NEG_INFINITY).to_bits(),
            DEFAULT_NAN
        );
        let payload = f32::from_bits(0xffc0_0123);
        assert_eq!(fmul(payload, 1.0).to_bits(), 0xffc0_0123);
        assert_eq!(
            fsub(2.0, f32::from_bits(0x7f80_0001)).to_bits(),
            0x7fc0_0001
        );
        assert_eq!(fneg(f32::from_bits(DEFAULT_NAN)).to_bits(), 0xffc0_0000);
    }

    #[test]
    fn conversions_round_truncate_and_saturate() {
        assert_eq!(int_to_float(16_777_217), 16_777_216.0);
        assert_eq!(float_to_int(-2.75), -2);
        assert_eq!(float_to_int(3e9), i32::MAX);
        assert_eq!(float_to_int(-3e9), i32::MIN);
        assert_eq!(float_to_int(f32::NAN), 0);
    }
}
