//! IR file tests, in the manner of LLVM's lit: every `*.ir` file under `middle/tests/ir/`
//! (one folder per pass, `pipelines/` for several passes together) is an input module, a
//! pipeline, and the module expected after running it.
//!
//! A file holds, in this order:
//!
//! ```text
//! ; RUN: --passes=mem2reg,fixpoint(const-fold,dce)    (or `; RUN: -O2`: that level's pipeline)
//! ; STDIN: 3 4                   optional, repeatable: one line of the interpreter's input
//! ; Free comments: what the case checks and why the expected output is right.
//! func @main() -> i32 {          the input module, in the text form of `ir::printer`
//! ...
//! }
//! ; EXPECT:
//! func @main() -> i32 {          the module after the pipeline, exactly as printed
//! ...
//! }
//! ```
//!
//! The expected module may instead sit in `NAME.expected` beside `NAME.ir` (then the `.ir`
//! has no `; EXPECT:` line). A file with `; ERROR: text` has no expectation: parsing or
//! verifying its input, parsing its pipeline or running it (with the verifier after every
//! pass) must fail with a message containing `text`. Other directives, `; XFAIL` among them,
//! are rejected: every file must pass.
//!
//! For each file the runner checks that the input parses, prints and parses back to the
//! same text, and verifies; runs the pipeline with `verify_each`; compares the printed
//! module with the expectation (showing a line diff); and checks that the printed output
//! reads back to itself. When the input has a function `main`, it also runs the module in
//! the interpreter before and after the pipeline (with the `STDIN` lines as input, at most
//! `MAX_STEPS` instructions) and requires the same output and exit code; the run before
//! must succeed, so keep undefined paths out of `main`. All files are checked; the failures
//! are reported together, each under its file's path.
//!
//! To add a test, write the RUN line, comments and input, then run
//! `BLESS=1 cargo test -p middle --test ir_files`: the expectation is written (appended as a
//! `; EXPECT:` section when there is none, rewritten where it is, the rest of the file kept
//! as written). Review what was written: blessing records what the passes do, not what they
//! should do.
//!
//! The driver (finding the files, the directives every file has, comparing and blessing,
//! reporting) is `tests/common/file_tests.rs`, shared with the back end's `mir_files`; this
//! file holds what is particular to IR.

mod common;

use backend::ir_costs::CortexA72;
use common::file_tests::{read_directives, split, Case, Format, Outcome};
use common::line_diff::line_diff;
use middle::ir::{parser::parse_module, printer::print_module, verifier::verify_module, Module};
use middle::pass_manager::{pipeline, PassManager};

/// The most IR instructions one interpreter run may execute.
const MAX_STEPS: u64 = 10_000_000;

/// The files this runner checks.
const FORMAT: Format = Format {
    ext: "ir",
    noun: "IR",
    bless_command: "BLESS=1 cargo test -p middle --test ir_files",
};

/// What a file asks for, read from its directives.
struct Spec {
    pipeline: String,
    stdin: String,
    error: Option<String>,
}

fn read_spec(input: &str) -> Result<Spec, String> {
    let mut stdin = String::new();
    let directives = read_directives(input, |word, rest| {
        if word != "STDIN" {
            return false;
        }
        stdin.push_str(rest);
        stdin.push('\n');
        true
    })?;
    let run = &directives.run;
    let pipeline = if let Some(spec) = run.strip_prefix("--passes=") {
        spec.to_string()
    } else if let Some(level) = run.strip_prefix("-O").and_then(|l| l.parse::<u8>().ok()) {
        pipeline(level)
    } else {
        return Err(format!(
            "'; RUN: {run}' should be '--passes=PIPELINE' or '-ON'"
        ));
    };
    Ok(Spec {
        pipeline,
        stdin,
        error: directives.error,
    })
}

/// The judge's view of a run: stdout and the exit code, or the run-time error.
fn interpret(m: &Module, stdin: &str) -> (String, Result<i32, middle::interp::RunError>) {
    let mut out = Vec::new();
    let result = middle::interp::run(m, stdin.as_bytes(), &mut out, &mut Vec::new(), MAX_STEPS);
    (String::from_utf8_lossy(&out).into_owned(), result)
}

/// Requires `after` to behave as `before` does, which must run to completion.
fn same_behaviour(before: &Module, after: &Module, stdin: &str) -> Result<(), String> {
    let (out_before, code_before) = interpret(before, stdin);
    if let Err(e) = &code_before {
        return Err(format!(
            "main fails before the pipeline: {e}\n  stdout: {out_before:?}"
        ));
    }
    let (out_after, code_after) = interpret(after, stdin);
    if (&out_before, &code_before) == (&out_after, &code_after) {
        return Ok(());
    }
    Err(format!(
        "the pipeline changed what main does:\n  before: stdout {out_before:?}, exit {code_before:?}\n  after:  stdout {out_after:?}, exit {code_after:?}"
    ))
}

/// Parses, checks and runs the pipeline on the input, giving the module before and after;
/// the error says which step failed.
fn run_pipeline(
    input: &str,
    spec: &Spec,
    problems: &mut Vec<String>,
) -> Result<(Module, Module), String> {
    let m = parse_module(input).map_err(|e| format!("the input does not parse: {e}"))?;
    let printed = print_module(&m);
    match parse_module(&printed) {
        Ok(again) if print_module(&again) == printed => {}
        Ok(again) => problems.push(format!(
            "the input does not round-trip (parse, print, parse, print):\n{}",
            line_diff(&printed, &print_module(&again))
        )),
        Err(e) => problems.push(format!("the printed input does not parse: {e}")),
    }
    verify_module(&m).map_err(|e| format!("the input does not verify:\n{e}"))?;
    let mut pm = PassManager::parse(&spec.pipeline, &CortexA72)?;
    pm.verify_each = true;
    let mut out = m.clone();
    pm.run(&mut out, &mut std::io::sink())?;
    verify_module(&out).map_err(|e| format!("the output does not verify:\n{e}"))?;
    Ok((m, out))
}

/// Checks one file; with `bless`, a wrong or missing expectation is not a problem but gives
/// the file to write instead.
fn check(case: &Case, bless: bool) -> Outcome {
    let mut outcome = Outcome::default();
    let parts = split(case)
        .and_then(|(input, expectation)| read_spec(input).map(|spec| (input, expectation, spec)));
    let (input, expectation, spec) = match parts {
        Ok(parts) => parts,
        Err(e) => {
            outcome.problems.push(e);
            return outcome;
        }
    };
    let result = run_pipeline(input, &spec, &mut outcome.problems);
    let Some((before, after)) = outcome.ran(result, spec.error.as_deref(), &expectation) else {
        return outcome;
    };
    let actual = print_module(&after);
    match parse_module(&actual) {
        Ok(again) if print_module(&again) == actual => {}
        _ => outcome
            .problems
            .push("the printed output does not read back to itself".to_string()),
    }
    outcome.compare(case, input, expectation, &actual, bless, &FORMAT);
    if before.functions.iter().any(|f| f.name == "main") {
        if let Err(e) = same_behaviour(&before, &after, &spec.stdin) {
            outcome.problems.push(e);
        }
    }
    outcome
}

#[test]
fn ir_files() {
    common::file_tests::check_files(&FORMAT, check);
}

/// The runner itself, on files held in strings.
mod runner {
    use super::*;
    use common::file_tests::{Blessed, EXPECT};

    const INPUT: &str = "\
; RUN: --passes=const-fold
func @main() -> i32 {
bb0:
  %0 = add 40, 2
  ret %0
}
";

    const OUTPUT: &str = "func @main() -> i32 {\nbb0:\n  ret 42\n}\n";

    fn case(text: String, sidecar: Option<&str>) -> Case {
        Case {
            name: "test.ir".to_string(),
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
        let wrong = OUTPUT.replace("42", "41");
        let outcome = check(&case(format!("{INPUT}{EXPECT}\n{wrong}"), None), false);
        let report = outcome.problems.join("\n");
        assert!(report.contains("-  ret 41\n+  ret 42\n"), "{report}");
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
        let stale = format!("{INPUT}{EXPECT}\nfunc @main() -> i32 {{\nbb0:\n  ret 0\n}}\n");
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
    fn a_behaviour_change_is_reported_with_both_runs() {
        let before =
            parse_module("func @main() -> i32 {\nbb0:\n  call void @putint(1)\n  ret 3\n}\n")
                .unwrap();
        let after =
            parse_module("func @main() -> i32 {\nbb0:\n  call void @putint(2)\n  ret 3\n}\n")
                .unwrap();
        let e = same_behaviour(&before, &after, "").unwrap_err();
        assert!(e.contains("stdout \"1\", exit Ok(3)"), "{e}");
        assert!(e.contains("stdout \"2\", exit Ok(3)"), "{e}");
        assert!(same_behaviour(&before, &before, "").is_ok());
    }

    #[test]
    fn error_files_need_the_named_error() {
        let bad_pass = "; RUN: --passes=dce,no-such-pass\n; ERROR: unknown pass 'no-such-pass'\nfunc @f() -> void {\nbb0:\n  ret\n}\n";
        assert!(check(&case(bad_pass.to_string(), None), false)
            .problems
            .is_empty());
        let other = bad_pass.replace("'no-such-pass'", "'other-pass'");
        assert!(!check(&case(other, None), false).problems.is_empty());
        let fine = bad_pass.replace(",no-such-pass", "");
        let report = check(&case(fine, None), false).problems.join("\n");
        assert!(report.contains("everything succeeded"), "{report}");
    }

    #[test]
    fn directives_are_checked() {
        let xfail = format!("; XFAIL\n{INPUT}{EXPECT}\n{OUTPUT}");
        assert!(check(&case(xfail, None), false).problems[0].contains("XFAIL"));
        let typo = format!("; CHECK: x\n{INPUT}{EXPECT}\n{OUTPUT}");
        assert!(check(&case(typo, None), false).problems[0].contains("unknown directive"));
        let no_run = format!("{}{EXPECT}\n{OUTPUT}", INPUT.replace("; RUN", "; run"));
        assert!(check(&case(no_run, None), false).problems[0].contains("RUN"));
    }
}
