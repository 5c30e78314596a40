//! The SysY runtime library, as the interpreter provides it: `scanf`-style input from a byte
//! buffer, `printf`-style output, and the timers of `starttime`/`stoptime`.

use super::printf::{sprintf, Arg};
use std::io::Write;
use std::time::{Duration, Instant};
use sysy_runtime::float_text;

pub struct Io<'a> {
    input: &'a [u8],
    pos: usize,
    pub out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    timer_start: Option<(Instant, i32)>,
    /// (start line, stop line, elapsed) per timed region.
    timers: Vec<(i32, i32, Duration)>,
}

impl<'a> Io<'a> {
    pub fn new(input: &'a [u8], out: &'a mut dyn Write, err: &'a mut dyn Write) -> Io<'a> {
        Io {
            input,
            pos: 0,
            out,
            err,
            timer_start: None,
            timers: Vec::new(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    /// `scanf("%d")`; 0 when no number can be read. Out-of-range values saturate, as glibc's
    /// conversion to a 32-bit `long` does.
    pub fn get_int(&mut self) -> i32 {
        self.skip_space();
        let start = self.pos;
        if matches!(self.peek(), Some(b'+' | b'-')) {
            self.pos += 1;
        }
        let digits_start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.pos == digits_start {
            self.pos = start;
            return 0;
        }
        let text = std::str::from_utf8(&self.input[start..self.pos]).unwrap_or("0");
        match text.parse::<i64>() {
            Ok(v) => v.clamp(i32::MIN as i64, i32::MAX as i64) as i32,
            Err(_) if text.starts_with('-') => i32::MIN,
            Err(_) => i32::MAX,
        }
    }

    /// `scanf("%c")`: the next byte, 0-255; -1 at the end of the input.
    pub fn get_ch(&mut self) -> i32 {
        match self.peek() {
            Some(c) => {
                self.pos += 1;
                c as i32
            }
            None => -1,
        }
    }

    /// `scanf("%a")`: a decimal or hexadecimal float (or inf/nan), rounded to single.
    pub fn get_float(&mut self) -> f32 {
        self.skip_space();
        let rest = &self.input[self.pos..];
        let len = float_prefix(rest);
        let text = std::str::from_utf8(&rest[..len]).unwrap_or("");
        self.pos += len;
        let (negative, body) = match text.as_bytes().first() {
            Some(b'-') => (true, &text[1..]),
            Some(b'+') => (false, &text[1..]),
            _ => (false, text),
        };
        let lower = body.to_ascii_lowercase();
        let magnitude = if lower.starts_with("inf") {
            f32::INFINITY
        } else if lower.starts_with("nan") {
            f32::NAN
        } else if lower.starts_with("0x") {
            float_text::parse_float(&lower)
        } else {
            lower.parse::<f32>().unwrap_or(0.0)
        };
        if negative {
            -magnitude
        } else {
            magnitude
        }
    }

    pub fn put_int(&mut self, v: i32) {
        let _ = write!(self.out, "{v}");
    }

    pub fn put_ch(&mut self, v: i32) {
        let _ = self.out.write_all(&[v as u8]);
    }

    pub fn put_float(&mut self, v: f32) {
        let _ = self
            .out
            .write_all(&sprintf(b"%a", &[Arg::Double(v as f64)]));
    }

    pub fn putf(&mut self, format: &[u8], args: &[Arg]) {
        let _ = self.out.write_all(&sprintf(format, args));
    }

    pub fn start_timer(&mut self, line: i32) {
        self.timer_start = Some((Instant::now(), line));
    }

    pub fn stop_timer(&mut self, line: i32) {
        if let Some((start, start_line)) = self.timer_start.take() {
            self.timers.push((start_line, line, start.elapsed()));
        }
    }

    /// What the runtime does at exit: flush stdout and report the timers on stderr.
    pub fn finish(&mut self) {
        let _ = self.out.flush();
        let hms = |d: Duration| {
            let us = d.as_micros();
            let s = us / 1_000_000;
            format!(
                "{}H-{}M-{}S-{}us",
                s / 3600,
                s / 60 % 60,
                s % 60,
                us % 1_000_000
            )
        };
        let mut total = Duration::ZERO;
        for &(l1, l2, d) in &self.timers {
            let _ = writeln!(self.err, "Timer@{l1:04}-{l2:04}: {}", hms(d));
            total += d;
        }
        let _ = writeln!(self.err, "TOTAL: {}", hms(total));
    }
}

/// The length of the longest prefix of `s` that `scanf("%a")` would take as a float.
fn float_prefix(s: &[u8]) -> usize {
    let mut i = 0;
    if matches!(s.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let rest = &s[i..];
    let lower: Vec<u8> = rest
        .iter()
        .take(8)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if lower.starts_with(b"infinity") {
        return i + 8;
    }
    if lower.starts_with(b"inf") || lower.starts_with(b"nan") {
        return i + 3;
    }
    let hex = lower.starts_with(b"0x");
    let is_digit = |c: u8| {
        if hex {
            c.is_ascii_hexdigit()
        } else {
            c.is_ascii_digit()
        }
    };
    if hex {
        i += 2;
    }
    let mantissa_start = i;
    while s.get(i).is_some_and(|&c| is_digit(c)) {
        i += 1;
    }
    if s.get(i) == Some(&b'.') {
        i += 1;
        while s.get(i).is_some_and(|&c| is_digit(c)) {
            i += 1;
        }
    }
    if i == mantissa_start || (i == mantissa_start + 1 && s[mantissa_start] == b'.') {
        // No digits: at most the "0" of a lone "0x" is a number.
        return if hex { mantissa_start - 1 } else { 0 };
    }
    let exp_chars: &[u8] = if hex { b"pP" } else { b"eE" };
    if s.get(i).is_some_and(|c| exp_chars.contains(c)) {
        let mut j = i + 1;
        if matches!(s.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if s.get(j).is_some_and(|c| c.is_ascii_digit()) {
            while s.get(j).is_some_and(|c| c.is_ascii_digit()) {
                j += 1;
            }
            i = j;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(input: &[u8]) -> (Vec<u8>, Vec<u8>) {
        (input.to_vec(), Vec::new())
    }

    #[test]
    fn reads_like_scanf() {
        let (input, mut out) = reader(b"  42 -7\n+3 x 0x1.8p1 -2.5e1 .5 9999999999 inf");
        let mut err = Vec::new();
        let mut io = Io::new(&input, &mut out, &mut err);
        assert_eq!(io.get_int(), 42);
        assert_eq!(io.get_int(), -7);
        assert_eq!(io.get_int(), 3);
        assert_eq!(io.get_ch(), b' ' as i32);
        assert_eq!(io.get_ch(), b'x' as i32);
        assert_eq!(io.get_float(), 3.0);
        assert_eq!(io.get_float(), -25.0);
        assert_eq!(io.get_float(), 0.5);
        assert_eq!(io.get_int(), i32::MAX);
        assert_eq!(io.get_float(), f32::INFINITY);
        assert_eq!(io.get_ch(), -1);
    }

    #[test]
    fn writes_like_printf() {
        let mut out = Vec::new();
        let mut err = Vec::new();
        let mut io = Io::new(b"", &mut out, &mut err);
        io.put_int(-5);
        io.put_ch(10);
        io.put_float(1.0);
        io.put_ch(32);
        io.put_float(-0.1);
        io.finish();
        assert_eq!(out, b"-5\n0x1p+0 -0x1.99999ap-4");
    }
}
