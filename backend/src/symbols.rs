//! Assembly symbol names for the program's functions and globals.
//!
//! Every symbol but `main` is local to the object file, so a SysY function named like a libc
//! function (`write`, `abs`) cannot capture libc's own calls. Names the generated code
//! refers to (the runtime, `memset`, `memcpy`) or that the assembler reads as registers (`r0`, `sp`,
//! `s3`, ...) get a `.sy` suffix, which no SysY identifier can have.

use sysy_runtime::RuntimeFn;

/// The symbol for a SysY-level name.
pub fn symbol(name: &str) -> String {
    if is_reserved(name) {
        format!("{name}.sy")
    } else {
        name.to_string()
    }
}

fn is_reserved(name: &str) -> bool {
    if name == "memset" || name == "memcpy" || RuntimeFn::ALL.iter().any(|r| r.symbol() == name) {
        return true;
    }
    const NAMED: [&str; 14] = [
        "sp", "lr", "pc", "ip", "fp", "sl", "sb", "tr", "apsr", "cpsr", "spsr", "fpscr", "fpsid",
        "fpexc",
    ];
    if NAMED.contains(&name.to_ascii_lowercase().as_str()) {
        return true;
    }
    // r0-r15, a1-a4, v1-v8, s0-s31, d0-d31, q0-q15, c0-c15, p0-p15 (any case).
    let lower = name.to_ascii_lowercase();
    let mut chars = lower.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let digits = chars.as_str();
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) || digits.len() > 2 {
        return false;
    }
    "rasvdqcp".contains(first)
}

#[cfg(test)]
mod tests {
    use super::symbol;

    #[test]
    fn register_and_runtime_names_are_renamed() {
        for reserved in [
            "r0",
            "R12",
            "sp",
            "s31",
            "d7",
            "a1",
            "memset",
            "memcpy",
            "putint",
            "_sysy_starttime",
        ] {
            assert_eq!(symbol(reserved), format!("{reserved}.sy"));
        }
        for plain in ["main", "r", "sum", "r0x", "d", "s1a", "write"] {
            assert_eq!(symbol(plain), plain);
        }
    }
}
