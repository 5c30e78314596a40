//! Helpers shared by the middle end's integration tests: the shared contest programs and
//! compiling them to IR, a line diff for reports, and the driver of the lit-style file tests.

#![allow(dead_code)]

pub mod file_tests;
pub mod line_diff;

use frontend::SourceFile;
use middle::ir::Module;
use std::path::{Path, PathBuf};

/// One program of the shared suites, with its input and expected output.
pub struct Case {
    pub path: PathBuf,
    pub input: Vec<u8>,
    pub expected: Vec<u8>,
}

pub fn shared_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/sysy-tests")
}

/// The programs of the given shared suites, sorted; empty (with a note) when the shared
/// folder is missing.
pub fn shared_cases(suites: &[&str]) -> Vec<Case> {
    let root = shared_root();
    let mut files: Vec<PathBuf> = suites
        .iter()
        .filter_map(|s| std::fs::read_dir(root.join(s)).ok())
        .flat_map(|d| d.flatten().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sy"))
        .collect();
    if files.is_empty() {
        eprintln!("note: {} not found; shared suites skipped", root.display());
    }
    files.sort();
    files
        .into_iter()
        .map(|path| {
            // Some expected files lack the newline after the exit code.
            let mut expected = std::fs::read(path.with_extension("out")).unwrap_or_default();
            if expected.last() != Some(&b'\n') {
                expected.push(b'\n');
            }
            Case {
                input: std::fs::read(path.with_extension("in")).unwrap_or_default(),
                expected,
                path,
            }
        })
        .collect()
}

pub fn compile(path: &Path) -> Module {
    let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
    let file = SourceFile::new(path.display().to_string(), text);
    match frontend::compile(&file) {
        Ok(p) => middle::lower::lower_program(&p),
        Err(ds) => panic!("{}", ds[0].render(&file)),
    }
}

/// What the judge compares: stdout, a newline if it is non-empty and lacks one, then the
/// exit code (0-255) and a newline.
pub fn judge_output(stdout: &[u8], code: i32) -> Vec<u8> {
    let mut out = stdout.to_vec();
    if !out.is_empty() && out.last() != Some(&b'\n') {
        out.push(b'\n');
    }
    out.extend(format!("{}\n", code & 0xff).bytes());
    out
}

/// Runs a module in the interpreter and returns the judge's view of the run.
pub fn interpret(m: &Module, input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut err = Vec::new();
    match middle::interp::run(m, input, &mut out, &mut err, u64::MAX) {
        Ok(code) => judge_output(&out, code),
        Err(e) => format!("run-time error: {e}").into_bytes(),
    }
}

/// Runs `f` on a thread with a large stack, as the compiler does.
pub fn with_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

/// A small deterministic generator (a linear congruential one).
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// The IR text of a function of `n` blocks, each ending in `ret` (about one in
/// `ret_one_in`), `br` or `condbr` to random blocks other than the entry.
pub fn random_cfg(rng: &mut Rng, n: usize, ret_one_in: usize) -> String {
    let mut text = String::from("func @f(%a0: i1) -> void {\n");
    for b in 0..n {
        text += &format!("bb{b}:\n");
        let target = |rng: &mut Rng| 1 + rng.below(n - 1);
        match rng.below(ret_one_in) {
            0 => text += "  ret\n",
            1 | 2 => text += &format!("  br bb{}\n", target(rng)),
            _ => {
                let (t, e) = (target(rng), target(rng));
                text += &format!("  condbr %a0, bb{t}, bb{e}\n");
            }
        }
    }
    text += "}\n";
    text
}
