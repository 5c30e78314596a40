//! The shared contest programs through the middle end: the IR of each verifies, prints,
//! parses back and prints identically; the functional programs interpret to their expected
//! output.

mod common;

use backend::ir_costs::CortexA72;
use common::*;
use middle::ir::{parser::parse_module, printer::print_module, verifier::verify_module};
use middle::ir::{InstKind, Module, Value};
use middle::pass_manager::{PassManager, REGISTRY};

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

/// Allocas of scalar variables left in a module: one element, used only directly by loads
/// and stores. (SysY scalars never escape; arrays are always indexed or passed on.)
fn scalar_allocas(m: &Module) -> usize {
    let mut n = 0;
    for f in &m.functions {
        for i in f.all_insts() {
            if !matches!(f.kind(i), InstKind::Alloca { count: 1, .. }) {
                continue;
            }
            let direct = f.uses(Value::Inst(i)).iter().all(|u| {
                matches!(f.kind(u.inst), InstKind::Load { .. })
                    || matches!(f.kind(u.inst), InstKind::Store { .. } if u.index == 1)
            });
            n += direct as usize;
        }
    }
    n
}

/// At -O1 (mem2reg) and at -O2, where passes that run after mem2reg (inlining, tail
/// recursion, memoisation) must not leave a variable in memory: every scalar of every
/// shared program lives in registers (a stack slot only for what the register allocator
/// spills).
#[test]
fn no_scalar_alloca_survives_o1_or_o2() {
    let failures = with_big_stack(|| {
        let mut failures = Vec::new();
        let mut checked = 0;
        for case in shared_cases(&["functional", "functional2021", "performance"]) {
            for level in [1, 2] {
                let mut m = compile(&case.path);
                let before = scalar_allocas(&m);
                PassManager::for_level(level, &CortexA72)
                    .run(&mut m, &mut std::io::sink())
                    .unwrap();
                let after = scalar_allocas(&m);
                if after != 0 {
                    failures.push(format!(
                        "{} -O{level}: {after} of {before} scalar allocas left",
                        case.path.display()
                    ));
                }
            }
            checked += 1;
        }
        eprintln!("{checked} programs checked");
        failures
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Each registered pass on its own, after mem2reg (which all but the first pass of a
/// pipeline see), with the verifier and the analysis checks after it: every functional
/// program must print what it printed before and what the suite expects.
#[test]
fn every_pass_keeps_every_functional_program_behaving_the_same() {
    let failures = with_big_stack(|| {
        let mut failures = Vec::new();
        for case in shared_cases(&["functional", "functional2021"]) {
            let mut promoted = compile(&case.path);
            let mut pm = PassManager::parse("mem2reg", &CortexA72).unwrap();
            pm.verify_each = true;
            if let Err(e) = pm.run(&mut promoted, &mut std::io::sink()) {
                failures.push(format!("{} mem2reg: {e}", case.path.display()));
                continue;
            }
            if interpret(&promoted, &case.input) != case.expected {
                failures.push(format!("{} mem2reg: output changed", case.path.display()));
                continue;
            }
            for pass in REGISTRY.iter().filter(|p| p.name != "mem2reg") {
                let mut m = promoted.clone();
                let mut pm = PassManager::parse(pass.name, &CortexA72).unwrap();
                pm.verify_each = true;
                if let Err(e) = pm.run(&mut m, &mut std::io::sink()) {
                    failures.push(format!("{} {}: {e}", case.path.display(), pass.name));
                } else if interpret(&m, &case.input) != case.expected {
                    failures.push(format!(
                        "{} {}: output changed",
                        case.path.display(),
                        pass.name
                    ));
                }
            }
        }
        failures
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_level_keeps_functional_programs_correct_in_the_interpreter() {
    let failures = with_big_stack(|| {
        let mut failures = Vec::new();
        for case in shared_cases(&["functional", "functional2021"]) {
            for level in [1, 2] {
                let mut m = compile(&case.path);
                let mut pm = PassManager::for_level(level, &CortexA72);
                pm.verify_each = true;
                if let Err(e) = pm.run(&mut m, &mut std::io::sink()) {
                    failures.push(format!("{} -O{level}: {e}", case.path.display()));
                    continue;
                }
                if interpret(&m, &case.input) != case.expected {
                    failures.push(format!("{} -O{level}: wrong output", case.path.display()));
                }
            }
        }
        failures
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
