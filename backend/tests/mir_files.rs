//! Machine IR file tests, in the manner of LLVM's lit and of the middle end's `ir_files`:
//! every `*.mir` file under `backend/tests/mir/` (one folder per pass, `pipelines/` for
//! several passes together and for inputs that must fail) is an input, the machine passes
//! to run on it, and the functions expected after them.
//!
//! A file holds, in this order:
//!
//! ```text
//! ; RUN: --passes=peephole,branches   machine passes by their names in `BACKEND_PASSES`
//! ; Free comments: what the case checks and why the expected output is right.
//! function f                          the input function(s), in the text form of
//! ...                                 `mir::printer`
//! ; EXPECT:
//! function f                          the functions after the passes, exactly as printed
//! ...
//! ```
//!
//! The passes run in the order given, each on every function, as at -O2. The expected
//! functions may instead sit in `NAME.expected` beside `NAME.mir` (then the `.mir` has no
//! `; EXPECT:` line). A file with `; ERROR: text` has no expectation: parsing or verifying
//! its input, or running the passes (with the verifier after every pass), must fail with a
//! message containing `text`. Other directives, `; XFAIL` among them, are rejected: every
//! file must pass.
//!
//! For each file the runner checks that the input parses (which verifies it), prints and
//! parses back to the same text; runs the passes, verifying every function after each;
//! compares the printed functions with the expectation (showing a line diff); and checks
//! that the printed output reads back to itself. All files are checked; the failures are
//! reported together, each under its file's path.
//!
//! To add a test, write the RUN line, comments and input, then run
//! `BLESS=1 cargo test -p backend --test mir_files`: the expectation is written (appended as
//! a `; EXPECT:` section when there is none, rewritten where it is, the rest of the file
//! kept as written). Review what was written: blessing records what the passes do, not what
//! they should do.

#[path = "../../middle/tests/common/line_diff.rs"]
mod line_diff;

use backend::mir::parser::parse_functions;
use backend::mir::verifier::verify;
use backend::mir::MFunction;
use backend::passes::run_machine_pass;
use line_diff::line_diff;
use std::path::{Path, PathBuf};

/// The optimisation level the passes run as.
const OPT_LEVEL: u8 = 2;

/// The line that separates the input from the expected output.
const EXPECT: &str = "; EXPECT:";

/// One test file as read from disk.
struct Case {
    /// The path shown in reports, relative to the crate.
    name: String,
    text: String,
    /// The contents of `NAME.expected`, if it exists.
    sidecar: Option<String>,
}

/// What a file asks for, read from its directives.
struct Spec {
    passes: Vec<String>,
    error: Option<String>,
}

/// Where a file's expected output is.
enum Expectation {
    /// After the `; EXPECT:` line, which ends at this byte offset.
    Inline(usize),
    Sidecar(String),
    Missing,
}

/// A file to write when blessing: the `.mir` file itself or its `.expected` file.
#[derive(Debug, PartialEq)]
enum Blessed {
    Mir(String),
    Sidecar(String),
}

/// What checking a file found.
#[derive(Default)]
struct Outcome {
    problems: Vec<String>,
    blessed: Option<Blessed>,
}

fn read_spec(input: &str) -> Result<Spec, String> {
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
            _ => return Err(format!("unknown directive '; {word}:'")),
        }
    }
    let [run] = run.as_slice() else {
        return Err("a file needs exactly one '; RUN:' line".to_string());
    };
    let Some(list) = run.strip_prefix("--passes=") else {
        return Err(format!("'; RUN: {run}' should be '--passes=PASS,PASS'"));
    };
    let passes: Vec<String> = list.split(',').map(|p| p.trim().to_string()).collect();
    if passes.iter().any(String::is_empty) {
        return Err(format!("'; RUN: {run}' names an empty pass"));
    }
    Ok(Spec { passes, error })
}

/// Splits a file into its input and where its expectation is.
fn split(case: &Case) -> Result<(&str, Expectation), String> {
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

fn print(functions: &[MFunction]) -> String {
    functions.iter().map(|mf| mf.to_string()).collect()
}

/// Parses the input and runs the passes on it, verifying after each, giving the functions
/// after them; the error says which step failed.
fn run_passes(
    input: &str,
    spec: &Spec,
    problems: &mut Vec<String>,
) -> Result<Vec<MFunction>, String> {
    let mut functions = parse_functions(input).map_err(|e| format!("the input: {e}"))?;
    if functions.is_empty() {
        return Err("the input has no function".to_string());
    }
    let printed = print(&functions);
    match parse_functions(&printed) {
        Ok(again) if print(&again) == printed => {}
        Ok(again) => problems.push(format!(
            "the input does not round-trip (parse, print, parse, print):\n{}",
            line_diff(&printed, &print(&again))
        )),
        Err(e) => problems.push(format!("the printed input does not parse: {e}")),
    }
    for pass in &spec.passes {
        for mf in &mut functions {
            run_machine_pass(pass, mf, OPT_LEVEL)?;
            verify(mf).map_err(|e| format!("invalid after '{pass}':\n{e}"))?;
        }
    }
    Ok(functions)
}

/// Checks one file; with `bless`, a wrong or missing expectation is not a problem but gives
/// the file to write instead.
fn check(case: &Case, bless: bool) -> Outcome {
    let mut outcome = Outcome::default();
    let (input, expectation) = match split(case) {
        Ok(parts) => parts,
        Err(e) => {
            outcome.problems.push(e);
            return outcome;
        }
    };
    let spec = match read_spec(input) {
        Ok(spec) => spec,
        Err(e) => {
            outcome.problems.push(e);
            return outcome;
        }
    };
    let problems = &mut outcome.problems;
    let result = run_passes(input, &spec, problems);
    if let Some(wanted) = &spec.error {
        if !matches!(expectation, Expectation::Missing) {
            problems.push("a file with '; ERROR:' has no expected output".to_string());
        }
        match result {
            Err(e) if e.contains(wanted.as_str()) => {}
            Err(e) => problems.push(format!(
                "expected an error containing {wanted:?}, got:\n{e}"
            )),
            Ok(_) => problems.push(format!(
                "expected an error containing {wanted:?}, but everything succeeded"
            )),
        }
        return outcome;
    }
    let after = match result {
        Ok(after) => after,
        Err(e) => {
            problems.push(e);
            return outcome;
        }
    };
    let actual = print(&after);
    match parse_functions(&actual) {
        Ok(again) if print(&again) == actual => {}
        _ => problems.push("the printed output does not read back to itself".to_string()),
    }
    let expected = match &expectation {
        Expectation::Inline(end) => Some(&case.text[*end..]),
        Expectation::Sidecar(s) => Some(s.as_str()),
        Expectation::Missing => None,
    };
    if expected != Some(actual.as_str()) {
        if bless {
            outcome.blessed = Some(match expectation {
                Expectation::Inline(end) => Blessed::Mir(format!("{}{actual}", &case.text[..end])),
                Expectation::Sidecar(_) => Blessed::Sidecar(actual.clone()),
                Expectation::Missing => {
                    let sep = if input.ends_with('\n') { "" } else { "\n" };
                    Blessed::Mir(format!("{input}{sep}{EXPECT}\n{actual}"))
                }
            });
        } else if let Some(expected) = expected {
            problems.push(format!(
                "the output differs from the expectation:\n{}",
                line_diff(expected, &actual)
            ));
        } else {
            problems.push(
                "no expected output: run `BLESS=1 cargo test -p backend --test mir_files`, then review it"
                    .to_string(),
            );
        }
    }
    outcome
}

/// Every `.mir` file under `dir`, sorted, and every `.expected` file without its `.mir`.
fn collect(dir: &Path, files: &mut Vec<PathBuf>, orphans: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, files, orphans);
        } else if path.extension().is_some_and(|x| x == "mir") {
            files.push(path);
        } else if path.extension().is_some_and(|x| x == "expected")
            && !path.with_extension("mir").exists()
        {
            orphans.push(path);
        }
    }
}

#[test]
fn mir_files() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var_os("BLESS").is_some_and(|v| v != "0" && !v.is_empty());
    let (mut files, mut orphans) = (Vec::new(), Vec::new());
    collect(&crate_dir.join("tests/mir"), &mut files, &mut orphans);
    assert!(!files.is_empty(), "no .mir files under tests/mir");
    let relative = |p: &Path| p.strip_prefix(crate_dir).unwrap_or(p).display().to_string();
    let mut failures: Vec<String> = orphans
        .iter()
        .map(|p| {
            format!(
                "FAIL {}: a .expected file without its .mir file",
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
                Blessed::Mir(text) => std::fs::write(path, text).unwrap(),
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
    eprintln!("{} machine IR files checked", files.len());
    assert!(
        failures.is_empty(),
        "\n{}\n\n{} of {} machine IR files failed",
        failures.join("\n\n"),
        failures.len(),
        files.len()
    );
}

/// The runner itself, on files held in strings.
mod runner {
    use super::*;

    const INPUT: &str = "\
; RUN: --passes=peephole
function t
  local0: 4 bytes
bb0:\t; loop depth 0; frequency 1
\tstr r4, [local0]
\tldr r5, [local0]
\tret ; uses r5
";

    const OUTPUT: &str = "\
function t
  local0: 4 bytes
bb0:\t; loop depth 0; frequency 1
\tcopy r5, r4
\tret ; uses r5
";

    fn case(text: String, sidecar: Option<&str>) -> Case {
        Case {
            name: "test.mir".to_string(),
            text,
            sidecar: sidecar.map(str::to_string),
        }
    }

    #[test]
    fn a_right_expectation_passes_inline_or_beside() {
        let inline = check(&case(format!("{INPUT}{EXPECT}\n{OUTPUT}"), None), false);
        assert!(inline.problems.is_empty(), "{:?}", inline.problems);
        let beside = check(&case(INPUT.to_string(), Some(OUTPUT)), false);
        assert!(beside.problems.is_empty(), "{:?}", beside.problems);
    }

    #[test]
    fn a_wrong_expectation_fails_with_a_diff() {
        let wrong = OUTPUT.replace("copy r5, r4", "ldr r5, [local0]");
        let outcome = check(&case(format!("{INPUT}{EXPECT}\n{wrong}"), None), false);
        let report = outcome.problems.join("\n");
        assert!(
            report.contains("-\tldr r5, [local0]\n+\tcopy r5, r4\n"),
            "{report}"
        );
        assert!(outcome.blessed.is_none());
    }

    #[test]
    fn a_missing_expectation_asks_for_bless() {
        let outcome = check(&case(INPUT.to_string(), None), false);
        assert!(
            outcome.problems.join("\n").contains("BLESS=1"),
            "{:?}",
            outcome.problems
        );
    }

    #[test]
    fn bless_rewrites_only_the_expectation() {
        let stale = format!("{INPUT}{EXPECT}\nfunction t\n");
        let outcome = check(&case(stale, None), true);
        assert!(outcome.problems.is_empty(), "{:?}", outcome.problems);
        let fresh = format!("{INPUT}{EXPECT}\n{OUTPUT}");
        assert_eq!(outcome.blessed, Some(Blessed::Mir(fresh)));
        let appended = check(&case(INPUT.to_string(), None), true);
        assert_eq!(
            appended.blessed,
            Some(Blessed::Mir(format!("{INPUT}{EXPECT}\n{OUTPUT}")))
        );
        let beside = check(&case(INPUT.to_string(), Some("stale\n")), true);
        assert_eq!(beside.blessed, Some(Blessed::Sidecar(OUTPUT.to_string())));
    }

    #[test]
    fn error_files_need_the_named_error() {
        let bad_pass = INPUT.replace(
            "peephole\n",
            "peephole,no-such-pass\n; ERROR: unknown back-end pass 'no-such-pass'\n",
        );
        assert!(check(&case(bad_pass.clone(), None), false)
            .problems
            .is_empty());
        let other = bad_pass.replace("'no-such-pass'", "'other-pass'");
        assert!(!check(&case(other, None), false).problems.is_empty());
        let fine = bad_pass.replace(",no-such-pass", "");
        let report = check(&case(fine, None), false).problems.join("\n");
        assert!(report.contains("everything succeeded"), "{report}");
        let bad_input = INPUT.replace("[local0]", "[local1]")
            + "; ERROR: line 5: local1 is not a stack object\n";
        assert!(check(&case(bad_input, None), false).problems.is_empty());
    }

    #[test]
    fn a_pass_that_is_not_a_machine_pass_is_refused() {
        let selection = INPUT.replace("peephole", "isel");
        let report = check(&case(selection, None), false).problems.join("\n");
        assert!(
            report.contains("'isel' is not a pass over machine IR"),
            "{report}"
        );
    }

    #[test]
    fn directives_are_checked() {
        let xfail = format!("; XFAIL\n{INPUT}{EXPECT}\n{OUTPUT}");
        assert!(check(&case(xfail, None), false).problems[0].contains("XFAIL"));
        let typo = format!("; CHECK: x\n{INPUT}{EXPECT}\n{OUTPUT}");
        assert!(check(&case(typo, None), false).problems[0].contains("unknown directive"));
        let no_run = format!("{}{EXPECT}\n{OUTPUT}", INPUT.replace("; RUN", "; run"));
        assert!(check(&case(no_run, None), false).problems[0].contains("RUN"));
        let level = format!(
            "{}{EXPECT}\n{OUTPUT}",
            INPUT.replace("--passes=peephole", "-O2")
        );
        assert!(check(&case(level, None), false).problems[0].contains("--passes="));
    }
}
