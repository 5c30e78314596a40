//! The shared contest programs through the middle end: the IR of each verifies, prints,
//! parses back and prints identically; the functional programs interpret to their expected
//! output.

mod common;

use common::*;
use middle::ir::{parser::parse_module, printer::print_module, verifier::verify_module};

#[test]
fn ir_verifies_and_round_trips_through_text() {
    let failures = with_big_stack(|| {
        let mut failures = Vec::new();
        for case in shared_cases(&["functional", "functional2021", "performance"]) {
            let m = compile(&case.path);
            if let Err(e) = verify_module(&m) {
                failures.push(format!("{}: verifier: {e}", case.path.display()));
                continue;
            }
            let text = print_module(&m);
            match parse_module(&text) {
                Ok(parsed) => {
                    if let Err(e) = verify_module(&parsed) {
                        failures.push(format!("{}: parsed IR: {e}", case.path.display()));
                    }
                    if print_module(&parsed) != text {
                        failures.push(format!(
                            "{}: print-parse-print differs",
                            case.path.display()
                        ));
                    }
                }
                Err(e) => failures.push(format!("{}: parse: {e}", case.path.display())),
            }
        }
        failures
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn functional_programs_interpret_to_their_expected_output() {
    let failures = with_big_stack(|| {
        let cases = shared_cases(&["functional", "functional2021"]);
        let mut failures = Vec::new();
        for case in &cases {
            let m = compile(&case.path);
            let got = interpret(&m, &case.input);
            if got != case.expected {
                failures.push(format!(
                    "{}:\n--- expected\n{}\n--- got\n{}",
                    case.path.display(),
                    String::from_utf8_lossy(&case.expected),
                    String::from_utf8_lossy(&got)
                ));
            }
        }
        eprintln!("{} programs interpreted", cases.len());
        failures
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
