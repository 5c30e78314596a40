//! Decoding of numeric and string literals, with C's rules: decimal, octal and hexadecimal
//! integers; decimal and hexadecimal floats rounded once, directly to single precision.

/// Whether a numeric literal, as the grammar's `float_lit` or `int_lit` matched it, is a float:
/// a hexadecimal float has a point or a binary exponent (`e` is a hex digit), a decimal one a
/// point or an exponent.
pub fn is_float(literal: &str) -> bool {
    let hex = literal.starts_with("0x") || literal.starts_with("0X");
    if hex {
        literal.contains(['.', 'p', 'P'])
    } else {
        literal.contains(['.', 'e', 'E'])
    }
}

/// Decodes an integer literal. Values up to `u32::MAX` are accepted and wrap to `i32`, so that
/// `-2147483648` (unary minus applied to `2147483648`) means `i32::MIN`.
pub fn parse_int(text: &str) -> Result<i32, String> {
    let (digits, radix) =
        if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
            (hex, 16)
        } else if text.len() > 1 && text.starts_with('0') {
            (&text[1..], 8)
        } else {
            (text, 10)
        };
    if radix == 8 {
        if let Some(bad) = digits.chars().find(|c| !c.is_digit(8)) {
            return Err(format!("invalid digit '{bad}' in octal constant"));
        }
    }
    match u32::from_str_radix(digits, radix) {
        Ok(v) => Ok(v as i32),
        Err(_) => Err(format!(
            "integer literal '{text}' is too large for a 32-bit int"
        )),
    }
}

/// Decodes a float literal (decimal or hexadecimal), rounding to nearest-even single precision.
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

/// Decodes the body of a string literal (without its quotes) into bytes, resolving C escapes.
/// Other characters stand for their UTF-8 bytes.
pub fn parse_string(body: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let Some(e) = chars.next() else {
            return Err("incomplete escape sequence".into());
        };
        let byte = match e {
            'n' => b'\n',
            't' => b'\t',
            'r' => b'\r',
            'a' => 0x07,
            'b' => 0x08,
            'f' => 0x0c,
            'v' => 0x0b,
            '\\' | '"' | '\'' | '?' => e as u8,
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                v as u8
            }
            'x' => {
                let mut v = 0u32;
                let mut any = false;
                while let Some(d) = chars.peek().and_then(|c| c.to_digit(16)) {
                    v = (v * 16 + d) & 0xff;
                    any = true;
                    chars.next();
                }
                if !any {
                    return Err("\\x used with no following hex digits".into());
                }
                v as u8
            }
            other => return Err(format!("unknown escape sequence '\\{other}'")),
        };
        out.push(byte);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_in_every_base() {
        assert_eq!(parse_int("0"), Ok(0));
        assert_eq!(parse_int("017"), Ok(15));
        assert_eq!(parse_int("0x1F"), Ok(31));
        assert_eq!(parse_int("0XfF"), Ok(255));
        assert_eq!(parse_int("2147483647"), Ok(i32::MAX));
        assert_eq!(parse_int("2147483648"), Ok(i32::MIN));
        assert_eq!(parse_int("0xffffffff"), Ok(-1));
        assert!(parse_int("4294967296").is_err());
        assert_eq!(
            parse_int("09"),
            Err("invalid digit '9' in octal constant".into())
        );
    }

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

    #[test]
    fn string_escapes() {
        assert_eq!(
            parse_string(r"a\n\t\\\x41\101\0\xff"),
            Ok(b"a\n\t\\AA\0\xff".to_vec())
        );
        assert_eq!(parse_string("é"), Ok("é".as_bytes().to_vec()));
        assert!(parse_string(r"\q").is_err());
    }
}
