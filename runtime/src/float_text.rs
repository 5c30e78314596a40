//! Float text read as C reads it, into single precision: decimal (`1.5`, `.33E+5`) and
//! hexadecimal (`0x1.921fb6p+1`) forms, each rounded once, directly to the nearest single
//! (ties to even). The front end's float literals and the interpreter's `getfloat` (the
//! runtime's `scanf("%a")`) both read floats this way.

/// Reads unsigned float text (decimal or hexadecimal), rounding to nearest-even single precision.
pub fn parse_float(text: &str) -> f32 {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => parse_hex_float(hex),
        None => text.parse::<f32>().unwrap_or(f32::NAN),
    }
}

/// `hex` is what follows `0x`: hex digits with an optional point, then `p`, sign and exponent.
fn parse_hex_float(hex: &str) -> f32 {
    let (mantissa, exponent) = hex.split_once(['p', 'P']).unwrap_or((hex, "0"));
    let mut exp: i64 = exponent
        .parse::<i64>()
        .unwrap_or(0)
        .clamp(-100_000, 100_000);
    let mut m: u64 = 0;
    let mut sticky = false;
    let mut after_point = false;
    for c in mantissa.chars() {
        if c == '.' {
            after_point = true;
            continue;
        }
        let d = c.to_digit(16).unwrap_or(0) as u64;
        if m >> 56 == 0 {
            m = m << 4 | d;
            if after_point {
                exp -= 4;
            }
        } else {
            sticky |= d != 0;
            if !after_point {
                exp += 4;
            }
        }
    }
    round_to_f32(m, exp, sticky)
}

/// The single-precision value nearest to `(m + tiny) * 2^exp`, where `tiny` is a nonzero amount
/// below m's last bit when `sticky` is set. Ties go to even.
fn round_to_f32(m: u64, exp: i64, sticky: bool) -> f32 {
    if m == 0 {
        return 0.0;
    }
    let high = 63 - m.leading_zeros() as i64;
    // Position of the last kept bit: 24 significant bits, or fewer for subnormals.
    let lsb = (high + exp - 23).max(-149);
    let drop = lsb - exp;
    let mant = if drop <= 0 {
        m << (-drop).min(63)
    } else if drop > 64 {
        0
    } else {
        let kept = if drop == 64 { 0 } else { m >> drop };
        let rest_mask = if drop == 64 {
            u64::MAX
        } else {
            (1u64 << drop) - 1
        };
        let rest = m & rest_mask;
        let half = 1u64 << (drop - 1);
        let round_up = rest > half || (rest == half && (sticky || kept & 1 == 1));
        kept + round_up as u64
    };
    if lsb > 200 {
        return f32::INFINITY;
    }
    (mant as f64 * 2f64.powi(lsb as i32)) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_floats_round_directly_to_single() {
        assert_eq!(parse_float("1.5"), 1.5);
        assert_eq!(parse_float(".5"), 0.5);
        assert_eq!(parse_float("5."), 5.0);
        assert_eq!(parse_float("1e-6"), 1e-6f32);
        assert_eq!(parse_float("03.141592653589793"), std::f32::consts::PI);
        assert_eq!(parse_float(".33E+5"), 33000.0);
        assert_eq!(parse_float("1e39"), f32::INFINITY);
        // 16777217 lies halfway between two singles; ties go to even.
        assert_eq!(parse_float("16777217.0"), 16777216.0);
    }

    #[test]
    fn hex_floats() {
        assert_eq!(parse_float("0x1.921fb6p+1"), std::f32::consts::PI);
        assert_eq!(parse_float("0x.AP-3"), 0.078125);
        assert_eq!(parse_float("0x1p0"), 1.0);
        assert_eq!(parse_float("0X1P-149"), f32::from_bits(1));
        assert_eq!(parse_float("0x1p-150"), 0.0);
        assert_eq!(parse_float("0x1.8p-149"), f32::from_bits(2));
        assert_eq!(parse_float("0x1.fffffep127"), f32::MAX);
        assert_eq!(parse_float("0x1p128"), f32::INFINITY);
        // 2^24 + 1 ties to even, 2^24 + 3 ties up, a nonzero tail beyond the tie rounds up.
        assert_eq!(parse_float("0x1000001p0"), 16777216.0);
        assert_eq!(parse_float("0x1000003p0"), 16777220.0);
        assert_eq!(parse_float("0x1000001000000000001p-48"), 16777218.0);
    }
}
