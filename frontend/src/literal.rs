//! Decoding of numeric and string literals, with C's rules: decimal, octal and hexadecimal
//! integers, and strings' escapes. Float literals read as the runtime reads float text
//! (`sysy_runtime::float_text`).

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
    fn string_escapes() {
        assert_eq!(
            parse_string(r"a\n\t\\\x41\101\0\xff"),
            Ok(b"a\n\t\\AA\0\xff".to_vec())
        );
        assert_eq!(parse_string("é"), Ok("é".as_bytes().to_vec()));
        assert!(parse_string(r"\q").is_err());
    }
}
