//! C `printf` formatting, as glibc does it, for `putf` and `putfloat` (`%a`). Conversions:
//! `d i u x X o c f F e E g G a A %` with flags `-+ #0`, width and precision (`*` too).

/// One argument as passed to a variadic C function: an int, or a float promoted to double.
#[derive(Clone, Copy, Debug)]
pub enum Arg {
    Int(i32),
    Double(f64),
}

impl Arg {
    fn as_int(self) -> i32 {
        match self {
            Arg::Int(v) => v,
            Arg::Double(v) => v as i32,
        }
    }

    fn as_double(self) -> f64 {
        match self {
            Arg::Int(v) => v as f64,
            Arg::Double(v) => v,
        }
    }
}

#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

/// Formats `format` with `args`; missing arguments count as zero.
pub fn sprintf(format: &[u8], args: &[Arg]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut args = args.iter().copied();
    let mut next_arg = || args.next().unwrap_or(Arg::Int(0));
    let mut i = 0;
    while i < format.len() {
        let c = format[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let mut spec = Spec::default();
        while let Some(&f) = format.get(i) {
            match f {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        if format.get(i) == Some(&b'*') {
            i += 1;
            let w = next_arg().as_int();
            if w < 0 {
                spec.left = true;
            }
            spec.width = w.unsigned_abs() as usize;
        } else {
            while let Some(d) = format.get(i).filter(|d| d.is_ascii_digit()) {
                spec.width = spec.width * 10 + (d - b'0') as usize;
                i += 1;
            }
        }
        if format.get(i) == Some(&b'.') {
            i += 1;
            if format.get(i) == Some(&b'*') {
                i += 1;
                let p = next_arg().as_int();
                spec.precision = (p >= 0).then_some(p as usize);
            } else {
                let mut p = 0;
                while let Some(d) = format.get(i).filter(|d| d.is_ascii_digit()) {
                    p = p * 10 + (d - b'0') as usize;
                    i += 1;
                }
                spec.precision = Some(p);
            }
        }
        while matches!(
            format.get(i),
            Some(b'l' | b'h' | b'L' | b'q' | b'j' | b'z' | b't')
        ) {
            i += 1;
        }
        let Some(&conv) = format.get(i) else {
            out.push(b'%');
            break;
        };
        i += 1;
        let piece = match conv {
            b'%' => {
                out.push(b'%');
                continue;
            }
            b'd' | b'i' => {
                let v = next_arg().as_int() as i64;
                integer(&spec, v < 0, v.unsigned_abs().to_string(), "")
            }
            b'u' => integer(&spec, false, (next_arg().as_int() as u32).to_string(), ""),
            b'x' | b'X' | b'o' => {
                let v = next_arg().as_int() as u32;
                let (digits, prefix) = match conv {
                    b'x' => (format!("{v:x}"), if spec.alt && v != 0 { "0x" } else { "" }),
                    b'X' => (format!("{v:X}"), if spec.alt && v != 0 { "0X" } else { "" }),
                    _ => (format!("{v:o}"), if spec.alt && v != 0 { "0" } else { "" }),
                };
                let spec = Spec {
                    plus: false,
                    space: false,
                    ..spec
                };
                integer(&spec, false, digits, prefix)
            }
            b'c' => {
                let byte = next_arg().as_int() as u8;
                pad(
                    &Spec {
                        zero: false,
                        ..spec
                    },
                    vec![byte],
                )
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                float(&spec, conv, next_arg().as_double())
            }
            other => vec![b'%', other],
        };
        out.extend(piece);
    }
    out
}

fn sign_prefix(spec: &Spec, negative: bool) -> &'static str {
    if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

fn integer(spec: &Spec, negative: bool, digits: String, prefix: &str) -> Vec<u8> {
    let mut digits = digits;
    if let Some(p) = spec.precision {
        if digits == "0" && p == 0 {
            digits.clear();
        }
        while digits.len() < p {
            digits.insert(0, '0');
        }
    }
    let sign = format!("{}{prefix}", sign_prefix(spec, negative));
    let zero = spec.zero && spec.precision.is_none();
    finish(spec, zero, &sign, &digits)
}

/// Pads `sign + body` to the width: with zeros between sign and body, or spaces.
fn finish(spec: &Spec, zero_pad: bool, sign: &str, body: &str) -> Vec<u8> {
    let len = sign.len() + body.len();
    let fill = spec.width.saturating_sub(len);
    let mut s = String::new();
    if spec.left {
        s.push_str(sign);
        s.push_str(body);
        s.extend(std::iter::repeat_n(' ', fill));
    } else if zero_pad {
        s.push_str(sign);
        s.extend(std::iter::repeat_n('0', fill));
        s.push_str(body);
    } else {
        s.extend(std::iter::repeat_n(' ', fill));
        s.push_str(sign);
        s.push_str(body);
    }
    s.into_bytes()
}

fn pad(spec: &Spec, body: Vec<u8>) -> Vec<u8> {
    let fill = spec.width.saturating_sub(body.len());
    let spaces = std::iter::repeat_n(b' ', fill);
    if spec.left {
        body.into_iter().chain(spaces).collect()
    } else {
        spaces.chain(body).collect()
    }
}

fn float(spec: &Spec, conv: u8, v: f64) -> Vec<u8> {
    let upper = conv.is_ascii_uppercase();
    let negative = v.is_sign_negative();
    let sign = sign_prefix(spec, negative);
    let a = v.abs();
    if !a.is_finite() {
        let body = match (a.is_nan(), upper) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        };
        return finish(spec, false, sign, body);
    }
    let body = match conv.to_ascii_lowercase() {
        b'f' => fixed(a, spec.precision.unwrap_or(6), spec.alt),
        b'e' => exponential(a, spec.precision.unwrap_or(6), spec.alt),
        b'g' => general(a, spec.precision.unwrap_or(6), spec.alt),
        _ => hex_float(a, spec.precision, spec.alt),
    };
    let body = if upper { body.to_uppercase() } else { body };
    if conv.eq_ignore_ascii_case(&b'a') {
        // The "0x" prefix goes before zero padding.
        let (prefix, rest) = body.split_at(2);
        return finish(
            spec,
            spec.zero && !spec.left,
            &format!("{sign}{prefix}"),
            rest,
        );
    }
    finish(spec, spec.zero && !spec.left, sign, &body)
}

fn fixed(a: f64, precision: usize, alt: bool) -> String {
    let mut s = format!("{a:.precision$}");
    if alt && precision == 0 {
        s.push('.');
    }
    s
}

/// `d.ddde+XX`, exactly rounded.
fn exponential(a: f64, precision: usize, alt: bool) -> String {
    let s = format!("{a:.precision$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut m = mantissa.to_string();
    if alt && precision == 0 {
        m.push('.');
    }
    format!("{m}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

fn general(a: f64, precision: usize, alt: bool) -> String {
    let p = precision.max(1);
    // The exponent after rounding to p significant digits decides the style.
    let e_form = format!("{a:.prec$e}", prec = p - 1);
    let exp: i32 = e_form
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let mut s = if exp < -4 || exp >= p as i32 {
        exponential(a, p - 1, alt)
    } else {
        fixed(a, (p as i32 - 1 - exp) as usize, alt)
    };
    if !alt {
        let (num, exp_part) = match s.find('e') {
            Some(pos) => (s[..pos].to_string(), s[pos..].to_string()),
            None => (s.clone(), String::new()),
        };
        let num = if num.contains('.') {
            num.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            num
        };
        s = num + &exp_part;
    }
    s
}

/// `0x1.hhhp+d`, glibc style: trailing zero digits dropped unless a precision is given.
fn hex_float(a: f64, precision: Option<usize>, alt: bool) -> String {
    let bits = a.to_bits();
    let mut exp = ((bits >> 52) & 0x7ff) as i64;
    let mut mantissa = bits & ((1u64 << 52) - 1);
    let lead;
    if exp == 0 {
        if mantissa == 0 {
            lead = 0;
            exp = 0;
        } else {
            lead = 0;
            exp = -1022;
        }
    } else {
        lead = 1;
        exp -= 1023;
    }
    let mut lead = lead;
    let digits = match precision {
        None => {
            let mut d = format!("{mantissa:013x}");
            while d.ends_with('0') {
                d.pop();
            }
            d
        }
        Some(p) if p >= 13 => format!("{mantissa:013x}{}", "0".repeat(p - 13)),
        Some(p) => {
            let drop = (13 - p) * 4;
            let kept = mantissa >> drop;
            let rest = mantissa & ((1u64 << drop) - 1);
            let half = 1u64 << (drop - 1);
            let up = rest > half || (rest == half && kept & 1 == 1);
            mantissa = kept + up as u64;
            if p == 0 {
                lead += mantissa as u32;
                String::new()
            } else if mantissa >> (p * 4) != 0 {
                lead += 1;
                format!("{:0width$x}", mantissa & ((1u64 << (p * 4)) - 1), width = p)
            } else {
                format!("{mantissa:0width$x}", width = p)
            }
        }
    };
    let point = if !digits.is_empty() || alt { "." } else { "" };
    format!(
        "0x{lead}{point}{digits}p{}{}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(format: &str, args: &[Arg]) -> String {
        String::from_utf8(sprintf(format.as_bytes(), args)).unwrap()
    }

    #[test]
    fn integers_and_chars() {
        assert_eq!(
            f(
                "%d|%5d|%-5d|%05d|%+d",
                &[
                    Arg::Int(-42),
                    Arg::Int(7),
                    Arg::Int(7),
                    Arg::Int(-7),
                    Arg::Int(3)
                ]
            ),
            "-42|    7|7    |-0007|+3"
        );
        assert_eq!(
            f(
                "%x %X %#x %o %u",
                &[
                    Arg::Int(255),
                    Arg::Int(255),
                    Arg::Int(255),
                    Arg::Int(8),
                    Arg::Int(-1)
                ]
            ),
            "ff FF 0xff 10 4294967295"
        );
        assert_eq!(f("%c%c 100%%", &[Arg::Int(72), Arg::Int(105)]), "Hi 100%");
        assert_eq!(
            f("%.3d %*d", &[Arg::Int(5), Arg::Int(4), Arg::Int(1)]),
            "005    1"
        );
    }

    #[test]
    fn floats_like_glibc() {
        let d = Arg::Double;
        assert_eq!(
            f("%f %.2f %.0f %.0f", &[d(1.5), d(1.23456), d(0.5), d(1.5)]),
            "1.500000 1.23 0 2"
        );
        assert_eq!(
            f("%e %.2E", &[d(1234.5), d(0.000123)]),
            "1.234500e+03 1.23E-04"
        );
        assert_eq!(
            f(
                "%g %g %g %g",
                &[d(0.0001), d(123456.0), d(1234567.0), d(1.0 / 3.0)]
            ),
            "0.0001 123456 1.23457e+06 0.333333"
        );
        assert_eq!(
            f("%8.3f|%-8.1f|%08.2f", &[d(-1.0), d(2.25), d(-3.5)]),
            "  -1.000|2.2     |-0003.50"
        );
        assert_eq!(f("%f %f", &[d(f64::INFINITY), d(-f64::NAN)]), "inf -nan");
    }

    #[test]
    fn hex_floats_like_glibc() {
        let d = Arg::Double;
        assert_eq!(f("%a", &[d(1.0)]), "0x1p+0");
        assert_eq!(f("%a", &[d(0.0)]), "0x0p+0");
        assert_eq!(f("%a", &[d(-0.0)]), "-0x0p+0");
        assert_eq!(f("%a", &[d(0.1f32 as f64)]), "0x1.99999ap-4");
        assert_eq!(f("%a", &[d(3.8125)]), "0x1.e8p+1");
        assert_eq!(f("%A", &[d(2.5)]), "0X1.4P+1");
        assert_eq!(f("%.1a", &[d(1.96875)]), "0x2.0p+0");
        assert_eq!(f("%a", &[d(f64::from_bits(1))]), "0x0.0000000000001p-1022");
        assert_eq!(
            f(
                "%010a|%+.3g|%#.0f|%.0e",
                &[d(1.5), d(100.0), d(3.0), d(12345.0)]
            ),
            "0x001.8p+0|+100|3.|1e+04"
        );
    }
}
