//! Instruction selection file tests, in the manner of `mir_files`: every `*.ir` file under
//! `backend/tests/ir/` (one folder per pass, `pipelines/` for inputs that must fail) is an
//! input module in IR, the back-end passes to run on it, from the IR passes before
//! selection through `isel` to any machine passes after it, and the machine IR expected
//! after them.
//!
//! A file holds, in this order:
//!
//! ```text
//! ; RUN: --passes=split-critical-edges,isel   back-end passes by their names in
//!                                             `BACKEND_PASSES`: IR passes, `isel`,
//!                                             then machine passes
//! ; Free comments: what the case checks and why the expected output is right.
//! func @f(%a0: i32) -> i32 {                  the input module, in the text form of
//! ...                                         `middle::ir::printer`
//! }
//! ; EXPECT:
//! function f                                  the machine functions after the passes,
//! ...                                         exactly as `mir::printer` prints them
//! ```
//!
//! The passes run in the order given, each on every function, as at -O2; one of them must
//! select (`isel`), since the output is machine IR (IR passes alone are tested by the
//! middle end's `ir_files`). The expectation may sit in `NAME.expected` beside `NAME.ir`,
//! and a file with `; ERROR: text` must fail with a message containing `text`, as in
//! `mir_files`; other directives are rejected.
//!
//! For each file the runner parses the input with the IR parser and verifies it; runs the
//! passes, verifying the IR after each IR pass and the machine IR after selection and each
//! machine pass; compares the printed functions with the expectation (showing a line diff);
//! and checks that the printed output reads back to itself. All files are checked; the
//! failures are reported together, each under its file's path.
//!
//! To add a test, write the RUN line, comments and input, then run
//! `BLESS=1 cargo test -p backend --test isel_files`, and review what was written:
//! blessing records what the passes do, not what they should do. Realistic input comes
//! from `compiler -S -O2 prog.sy -o /dev/null --print-after split-critical-edges`.
//!
//! The driver is `middle/tests/common/file_tests.rs`; reading the RUN line and checking
//! the machine IR printed after the passes is `tests/common`, shared with `mir_files`;
//! this file holds what is particular to IR input.

mod common;

use backend::mir::MFunction;
use backend::passes::run_named_passes;
use common::file_tests::{self, Case, Format, Outcome};
use common::{check_machine_ir, Spec, OPT_LEVEL};
use middle::ir::parser::parse_module;
use middle::ir::verifier::verify_module;

/// The files this runner checks.
const FORMAT: Format = Format {
    ext: "ir",
    noun: "IR to machine IR",
    bless_command: "BLESS=1 cargo test -p backend --test isel_files",
};

/// Parses and verifies the input and runs the passes on it, verifying after each, giving
/// the machine functions after them; the error says which step failed.
fn select(input: &str, spec: &Spec, _: &mut Vec<String>) -> Result<Vec<MFunction>, String> {
    let m = parse_module(input).map_err(|e| format!("the input does not parse: {e}"))?;
    if m.functions.is_empty() {
        return Err("the input has no function".to_string());
    }
    verify_module(&m).map_err(|e| format!("the input does not verify:\n{e}"))?;
    run_named_passes(m, &spec.passes, OPT_LEVEL)
}

/// Checks one file; with `bless`, a wrong or missing expectation is not a problem but gives
/// the file to write instead.
fn check(case: &Case, bless: bool) -> Outcome {
    check_machine_ir(case, bless, &FORMAT, select)
}

#[test]
fn isel_files() {
    file_tests::check_files(&FORMAT, check);
}

/// The runner itself, on files held in strings (the driver's own checks, blessing among
/// them, are `mir_files`' tests).
mod runner {
    use super::*;
    use file_tests::EXPECT;

    const INPUT: &str = "\
; RUN: --passes=split-critical-edges,isel
func @f(%a0: i32) -> i32 {
bb0:
  %0 = add %a0, 1
  ret %0
}
";

    const OUTPUT: &str = "\
function f
  virtual registers: 2
bb0:\t; loop depth 0; frequency 1
\tcopy %v0, r0
\tadd %v1, %v0, #1
\tcopy r0, %v1
\tret ; uses r0
";

    fn case(text: String) -> Case {
        Case {
            name: "test.ir".to_string(),
            text,
            sidecar: None,
        }
    }

    fn problems(text: String) -> String {
        check(&case(text), false).problems.join("\n")
    }

    #[test]
    fn a_right_expectation_passes_and_a_wrong_one_fails_with_a_diff() {
        assert_eq!(problems(format!("{INPUT}{EXPECT}\n{OUTPUT}")), "");
        let wrong = OUTPUT.replace("#1", "#2");
        let report = problems(format!("{INPUT}{EXPECT}\n{wrong}"));
        assert!(
            report.contains("-\tadd %v1, %v0, #2\n+\tadd %v1, %v0, #1\n"),
            "{report}"
        );
    }

    #[test]
    fn machine_passes_run_after_selection() {
        let input = INPUT.replace("isel", "isel,dead-definitions");
        assert_eq!(problems(format!("{input}{EXPECT}\n{OUTPUT}")), "");
    }

    #[test]
    fn the_passes_must_run_in_pipeline_order_and_select() {
        let cases = [
            (
                "isel,split-critical-edges",
                "'split-critical-edges' runs on the IR",
            ),
            ("isel,isel", "'isel' runs on the IR"),
            (
                "peephole,isel",
                "'peephole' runs on machine IR: select it first",
            ),
            ("isel,emit", "'emit' writes assembly"),
            ("split-critical-edges", "no pass selects machine IR"),
            ("isel,no-such-pass", "unknown back-end pass 'no-such-pass'"),
        ];
        for (passes, error) in cases {
            let input = INPUT.replace("split-critical-edges,isel", passes);
            let report = problems(format!("{input}{EXPECT}\n{OUTPUT}"));
            assert!(report.contains(error), "{passes}: {report}");
        }
    }

    #[test]
    fn the_input_must_parse_and_verify() {
        let undefined = INPUT.replace("add %a0, 1", "add %a1, 1");
        assert!(problems(undefined).contains("the input does not parse"));
        let mistyped = INPUT.replace("ret %0", "ret 1.0");
        assert!(problems(mistyped).contains("the input does not verify"));
    }
}
