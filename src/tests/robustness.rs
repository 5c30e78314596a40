//! Cuts and mutates real programs (truncations, deleted, duplicated and swapped tokens) and
//! checks that `compiler --check` answers every variant with exit code 0 or 1, never a crash,
//! within 2 seconds. The seed programs are the shared functional suites when present, else
//! our own test cases.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const VARIANTS: usize = 2_400;
/// Long enough that only a hang exceeds it: the debug build checks the largest variant in
/// under a second on an idle machine, several times that on a busy one.
const TIME_LIMIT: Duration = Duration::from_secs(15);

/// xorshift64*: deterministic, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn sy_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            sy_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "sy") {
            out.push(p);
        }
    }
}

fn seed_programs() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/sysy-tests");
    let mut files = Vec::new();
    for suite in ["functional", "functional2021"] {
        sy_files(&shared.join(suite), &mut files);
    }
    if files.is_empty() {
        sy_files(&root.join("testcases"), &mut files);
    }
    files.sort();
    files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .collect()
}

/// Splits source text into tokens: identifier/number runs, whitespace runs, single other chars.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let class = |c: char| {
        if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
            0
        } else if c.is_whitespace() {
            1
        } else {
            2
        }
    };
    for w in chars.windows(2) {
        let ((_, a), (i, b)) = (w[0], w[1]);
        if class(a) != class(b) || class(a) == 2 {
            out.push(&text[start..i]);
            start = i;
        }
    }
    out.push(&text[start..]);
    out
}

fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut toks = tokens(text);
    match rng.below(4) {
        0 => {
            let cut = rng.below(toks.len());
            toks.truncate(cut);
        }
        1 => {
            for _ in 0..=rng.below(3) {
                let i = rng.below(toks.len());
                toks.remove(i);
                if toks.is_empty() {
                    break;
                }
            }
        }
        2 => {
            let i = rng.below(toks.len());
            let t = toks[i];
            toks.insert(rng.below(toks.len()), t);
        }
        _ => {
            let i = rng.below(toks.len().saturating_sub(1));
            let j = (i + 1 + rng.below(3)).min(toks.len() - 1);
            toks.swap(i, j);
        }
    }
    toks.concat()
}

/// Runs the checker on one file; `Err` describes a crash or a timeout.
fn run(path: &Path) -> Result<i32, String> {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_compiler"))
        .arg("--check")
        .arg(path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            return match status.code() {
                Some(c @ (0 | 1)) => Ok(c),
                other => Err(format!("exit status {other:?} ({status})")),
            };
        }
        if start.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            return Err(format!("took more than {TIME_LIMIT:?}"));
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn mutated_programs_never_crash_or_hang() {
    let seeds = seed_programs();
    assert!(!seeds.is_empty(), "no seed programs found");
    let dir = std::env::temp_dir().join(format!("sysy-robust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    let variants: Vec<String> = (0..VARIANTS)
        .map(|i| mutate(&seeds[i % seeds.len()], &mut rng))
        .collect();
    let workers = 2;
    let results: Vec<(usize, Result<i32, String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let (variants, dir) = (&variants, &dir);
                s.spawn(move || {
                    let mut results = Vec::new();
                    for (i, v) in variants.iter().enumerate().skip(w).step_by(workers) {
                        let path = dir.join(format!("variant{i}.sy"));
                        std::fs::write(&path, v).unwrap();
                        let r = run(&path);
                        if r.is_ok() {
                            let _ = std::fs::remove_file(&path);
                        }
                        results.push((i, r));
                    }
                    results
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let failures: Vec<String> = results
        .iter()
        .filter_map(|(i, r)| r.as_ref().err().map(|why| format!("variant{i}.sy: {why}")))
        .collect();
    let accepted = results.iter().filter(|(_, r)| r == &Ok(0)).count();
    let rejected = results.iter().filter(|(_, r)| r == &Ok(1)).count();
    eprintln!("{accepted} variants accepted, {rejected} rejected");
    assert!(
        failures.is_empty(),
        "{} of {VARIANTS} variants failed (kept in {}):\n{}",
        failures.len(),
        dir.display(),
        failures.join("\n")
    );
    // Both outcomes must occur, or the mutations are not exercising the checker.
    assert!(accepted > VARIANTS / 20 && rejected > VARIANTS / 2);
}
