//! What the back end's file tests share: `mir_files` (machine IR in, machine IR out) and
//! `isel_files` (IR in, machine IR out). Both name the passes to run on a RUN line
//! (`--passes=PASS,PASS`) and check machine IR that must read back to itself against the
//! expectation; what a file's input is and how the passes run on it stay with each runner.
//! The lit-style driver itself is the middle end's (`middle/tests/common/file_tests.rs`).

#[path = "../../../middle/tests/common/file_tests.rs"]
pub mod file_tests;
#[path = "../../../middle/tests/common/line_diff.rs"]
pub mod line_diff;

use backend::mir::parser::parse_functions;
use backend::mir::MFunction;
use file_tests::{read_directives, split, Case, Format, Outcome};

/// The optimisation level the passes run as.
pub const OPT_LEVEL: u8 = 2;

/// What a file asks for, read from its directives.
pub struct Spec {
    pub passes: Vec<String>,
    pub error: Option<String>,
}

fn read_spec(input: &str) -> Result<Spec, String> {
    let directives = read_directives(input, |_, _| false)?;
    let run = &directives.run;
    let Some(list) = run.strip_prefix("--passes=") else {
        return Err(format!("'; RUN: {run}' should be '--passes=PASS,PASS'"));
    };
    let passes: Vec<String> = list.split(',').map(|p| p.trim().to_string()).collect();
    if passes.iter().any(String::is_empty) {
        return Err(format!("'; RUN: {run}' names an empty pass"));
    }
    Ok(Spec {
        passes,
        error: directives.error,
    })
}

pub fn print(functions: &[MFunction]) -> String {
    functions.iter().map(|mf| mf.to_string()).collect()
}

/// Checks one file; with `bless`, a wrong or missing expectation is not a problem but gives
/// the file to write instead. `run` gives the machine IR after the file's passes from its
/// input, recording in the problems it is given what does not stop it.
pub fn check_machine_ir(
    case: &Case,
    bless: bool,
    format: &Format,
    run: impl FnOnce(&str, &Spec, &mut Vec<String>) -> Result<Vec<MFunction>, String>,
) -> Outcome {
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
    let result = run(input, &spec, &mut outcome.problems);
    let Some(after) = outcome.ran(result, spec.error.as_deref(), &expectation) else {
        return outcome;
    };
    let actual = print(&after);
    match parse_functions(&actual) {
        Ok(again) if print(&again) == actual => {}
        _ => outcome
            .problems
            .push("the printed output does not read back to itself".to_string()),
    }
    outcome.compare(case, input, expectation, &actual, bless, format);
    outcome
}
