//! The driver shared by the lit-style file tests (`middle/tests/ir_files.rs` for IR,
//! `backend/tests/mir_files.rs` for machine IR and `backend/tests/isel_files.rs` for IR
//! selected to machine IR, which include this file by `#[path]` from `backend/tests/common`):
//! collecting the files of one extension under `tests/<extension>/` with their `.expected`
//! sidecars (and the sidecars without a file), reading the `; RUN:`, `; ERROR:` and
//! `; EXPECT:` directives, checking an expected error, comparing the output with the
//! expectation or blessing it (`BLESS=1`), and the `#[test]` loop that checks every file
//! (a panic fails only its file) and reports all failures together. What a file's input
//! is and what runs on it stay with each runner, in its per-file check.

use super::line_diff::line_diff;
use std::path::{Path, PathBuf};

/// The line that separates the input from the expected output.
pub const EXPECT: &str = "; EXPECT:";

/// The kind of file a runner checks.
pub struct Format {
    /// The files' extension, without the dot; they lie under `tests/<ext>/` in the crate.
    pub ext: &'static str,
    /// What the files hold, in messages: "IR files checked".
    pub noun: &'static str,
    /// The command that blesses the files, named when an expectation is missing.
    pub bless_command: &'static str,
}

/// One test file as read from disk.
pub struct Case {
    /// The path shown in reports, relative to the crate.
    pub name: String,
    pub text: String,
    /// The contents of `NAME.expected`, if it exists.
    pub sidecar: Option<String>,
}

/// The directives every file has; a runner reads its own others.
pub struct Directives {
    /// The text of the one `; RUN:` line.
    pub run: String,
    pub error: Option<String>,
}

/// Where a file's expected output is.
pub enum Expectation {
    /// After the `; EXPECT:` line, which ends at this byte offset.
    Inline(usize),
    Sidecar(String),
    Missing,
}

/// A file to write when blessing: the tested file itself or its `.expected` file.
#[derive(Debug, PartialEq)]
pub enum Blessed {
    File(String),
    Sidecar(String),
}

/// What checking a file found.
#[derive(Default)]
pub struct Outcome {
    pub problems: Vec<String>,
    pub blessed: Option<Blessed>,
}

/// Reads the directives of a file's input: `; RUN:` (exactly one), `; ERROR:` (at most
/// one), and those `other` accepts (given the word and the rest of the line, it says
/// whether it knows the word); any other `; WORD:` and `; XFAIL` are errors.
pub fn read_directives(
    input: &str,
    mut other: impl FnMut(&str, &str) -> bool,
) -> Result<Directives, String> {
    let mut run = Vec::new();
    let mut error = None;
    for line in input.lines() {
        let Some(comment) = line.trim().strip_prefix(';') else {
            continue;
        };
        let comment = comment.trim();
        if comment == "XFAIL" || comment.starts_with("XFAIL:") {
            return Err("XFAIL is not supported: every file must pass".to_string());
        }
        let Some((word, rest)) = comment.split_once(':') else {
            continue;
        };
        if word.len() < 2 || !word.chars().all(|c| c.is_ascii_uppercase()) {
            continue;
        }
        let rest = rest.trim();
        match word {
            "RUN" => run.push(rest.to_string()),
            "ERROR" if error.is_none() && !rest.is_empty() => error = Some(rest.to_string()),
            "ERROR" => return Err("one non-empty '; ERROR:' line at most".to_string()),
            "EXPECT" => return Err(format!("'{EXPECT}' stands alone on its line")),
            _ if other(word, rest) => {}
            _ => return Err(format!("unknown directive '; {word}:'")),
        }
    }
    let [run] = run.as_slice() else {
        return Err("a file needs exactly one '; RUN:' line".to_string());
    };
    Ok(Directives {
        run: run.clone(),
        error,
    })
}

/// Splits a file into its input and where its expectation is.
pub fn split(case: &Case) -> Result<(&str, Expectation), String> {
    let marker = std::iter::once(0)
        .chain(case.text.match_indices('\n').map(|(k, _)| k + 1))
        .find(|&start| {
            case.text[start..]
                .lines()
                .next()
                .is_some_and(|l| l.trim_end() == EXPECT)
        });
    match (marker, &case.sidecar) {
        (Some(_), Some(_)) => Err("both a '; EXPECT:' section and a .expected file".to_string()),
        (Some(start), None) => {
            let end = case.text[start..]
                .find('\n')
                .map_or(case.text.len(), |k| start + k + 1);
            Ok((&case.text[..start], Expectation::Inline(end)))
        }
        (None, Some(s)) => Ok((&case.text, Expectation::Sidecar(s.clone()))),
        (None, None) => Ok((&case.text, Expectation::Missing)),
    }
}

impl Outcome {
    /// The value of what ran on the input, or `None` with its error recorded. With
    /// `error` (the file's `; ERROR:` text) the run must instead have failed with it, the
    /// file must have no expectation, and the answer is `None`.
    pub fn ran<T>(
        &mut self,
        result: Result<T, String>,
        error: Option<&str>,
        expectation: &Expectation,
    ) -> Option<T> {
        let problems = &mut self.problems;
        if let Some(wanted) = error {
            if !matches!(expectation, Expectation::Missing) {
                problems.push("a file with '; ERROR:' has no expected output".to_string());
            }
            match result {
                Err(e) if e.contains(wanted) => {}
                Err(e) => problems.push(format!(
                    "expected an error containing {wanted:?}, got:\n{e}"
                )),
                Ok(_) => problems.push(format!(
                    "expected an error containing {wanted:?}, but everything succeeded"
                )),
            }
            return None;
        }
        result.map_err(|e| problems.push(e)).ok()
    }

    /// Compares the printed output with the expectation; with `bless`, a wrong or missing
    /// expectation is not a problem but gives the file to write instead.
    pub fn compare(
        &mut self,
        case: &Case,
        input: &str,
        expectation: Expectation,
        actual: &str,
        bless: bool,
        format: &Format,
    ) {
        let expected = match &expectation {
            Expectation::Inline(end) => Some(&case.text[*end..]),
            Expectation::Sidecar(s) => Some(s.as_str()),
            Expectation::Missing => None,
        };
        if expected == Some(actual) {
            return;
        }
        if bless {
            self.blessed = Some(match expectation {
                Expectation::Inline(end) => Blessed::File(format!("{}{actual}", &case.text[..end])),
                Expectation::Sidecar(_) => Blessed::Sidecar(actual.to_string()),
                Expectation::Missing => {
                    let sep = if input.ends_with('\n') { "" } else { "\n" };
                    Blessed::File(format!("{input}{sep}{EXPECT}\n{actual}"))
                }
            });
        } else if let Some(expected) = expected {
            self.problems.push(format!(
                "the output differs from the expectation:\n{}",
                line_diff(expected, actual)
            ));
        } else {
            self.problems.push(format!(
                "no expected output: run `{}`, then review it",
                format.bless_command
            ));
        }
    }
}

/// Every file with extension `ext` under `dir`, sorted, and every `.expected` file without
/// its file.
fn collect(dir: &Path, ext: &str, files: &mut Vec<PathBuf>, orphans: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, ext, files, orphans);
        } else if path.extension().is_some_and(|x| x == ext) {
            files.push(path);
        } else if path.extension().is_some_and(|x| x == "expected")
            && !path.with_extension(ext).exists()
        {
            orphans.push(path);
        }
    }
}

/// The body of a runner's `#[test]`: checks every file of `format` under `tests/<ext>/`
/// of the crate being tested with `check` (given the case and whether `BLESS` is set),
/// writes what it blesses, and fails with every file's problems.
pub fn check_files<F>(format: &Format, check: F)
where
    F: Fn(&Case, bool) -> Outcome + std::panic::RefUnwindSafe,
{
    let Format { ext, noun, .. } = format;
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var_os("BLESS").is_some_and(|v| v != "0" && !v.is_empty());
    let (mut files, mut orphans) = (Vec::new(), Vec::new());
    collect(
        &crate_dir.join("tests").join(ext),
        ext,
        &mut files,
        &mut orphans,
    );
    assert!(!files.is_empty(), "no .{ext} files under tests/{ext}");
    let relative = |p: &Path| p.strip_prefix(crate_dir).unwrap_or(p).display().to_string();
    let mut failures: Vec<String> = orphans
        .iter()
        .map(|p| {
            format!(
                "FAIL {}: a .expected file without its .{ext} file",
                relative(p)
            )
        })
        .collect();
    for path in &files {
        let sidecar_path = path.with_extension("expected");
        let case = Case {
            name: relative(path),
            text: std::fs::read_to_string(path).unwrap(),
            sidecar: std::fs::read_to_string(&sidecar_path).ok(),
        };
        // A pass that panics fails its file, not the whole run.
        let outcome = std::panic::catch_unwind(|| check(&case, bless)).unwrap_or_else(|payload| {
            let message = payload
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            Outcome {
                problems: vec![format!("panicked: {message}")],
                blessed: None,
            }
        });
        if let Some(blessed) = outcome.blessed {
            match blessed {
                Blessed::File(text) => std::fs::write(path, text).unwrap(),
                Blessed::Sidecar(text) => std::fs::write(&sidecar_path, text).unwrap(),
            }
            eprintln!("blessed {}", case.name);
        }
        if !outcome.problems.is_empty() {
            failures.push(format!(
                "FAIL {}:\n{}",
                case.name,
                outcome.problems.join("\n")
            ));
        }
    }
    eprintln!("{} {noun} files checked", files.len());
    assert!(
        failures.is_empty(),
        "\n{}\n\n{} of {} {noun} files failed",
        failures.join("\n\n"),
        failures.len(),
        files.len()
    );
}
