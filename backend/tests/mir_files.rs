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
//!
//! The driver (finding the files, the directives every file has, comparing and blessing,
//! reporting) is `middle/tests/common/file_tests.rs`, shared with the middle end's
//! `ir_files`; reading the RUN line and checking the machine IR printed after the passes
//! is `tests/common`, shared with `isel_files`; this file holds what is particular to
//! machine IR input.

mod common;

use backend::mir::parser::parse_functions;
use backend::mir::verifier::verify;
use backend::mir::MFunction;
use backend::passes::run_machine_pass;
use common::file_tests::{self, Case, Format, Outcome};
use common::line_diff::line_diff;
use common::{check_machine_ir, print, Spec, OPT_LEVEL};

/// The files this runner checks.
const FORMAT: Format = Format {
    ext: "mir",
    noun: "machine IR",
    bless_command: "BLESS=1 cargo test -p backend --test mir_files",
};

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
    check_machine_ir(case, bless, &FORMAT, run_passes)
}

#[test]
fn mir_files() {
    file_tests::check_files(&FORMAT, check);
}

/// The runner itself, on files held in strings.
mod runner {
    use super::*;
    use file_tests::{Blessed, EXPECT};

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
        assert_eq!(outcome.blessed, Some(Blessed::File(fresh)));
        let appended = check(&case(INPUT.to_string(), None), true);
        assert_eq!(
            appended.blessed,
            Some(Blessed::File(format!("{INPUT}{EXPECT}\n{OUTPUT}")))
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
