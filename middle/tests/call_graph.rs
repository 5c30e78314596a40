//! The call graph on handwritten modules and on long generated call chains.

use middle::analysis::CallGraph;
use middle::ir::parser::parse_module;
use middle::ir::{FuncId, Module};

/// `name` calls each of `callees` in turn.
fn caller(name: &str, callees: &[&str]) -> String {
    let calls: String = callees
        .iter()
        .map(|c| format!("  call void @{c}()\n"))
        .collect();
    format!("func @{name}() -> void {{\nbb0:\n{calls}  ret\n}}\n")
}

fn module(functions: &[(&str, &[&str])]) -> Module {
    let text: String = functions.iter().map(|(n, c)| caller(n, c)).collect();
    parse_module(&text).unwrap()
}

fn ids(m: &Module, names: &[&str]) -> Vec<FuncId> {
    names.iter().map(|n| m.find_function(n).unwrap()).collect()
}

#[test]
fn callees_callers_and_components() {
    let m = module(&[
        ("main", &["f", "g", "f", "h", "a"]),
        ("f", &["g"]),
        ("g", &[]),
        ("h", &["h", "g"]),
        ("a", &["b"]),
        ("b", &["a", "g"]),
    ]);
    let cg = CallGraph::new(&m);
    let id = |n: &str| m.find_function(n).unwrap();
    assert_eq!(cg.callees(id("main")), ids(&m, &["f", "g", "h", "a"]));
    assert_eq!(cg.callers(id("g")), ids(&m, &["main", "f", "h", "b"]));
    assert_eq!(cg.callers(id("main")), []);
    assert_eq!(cg.callers(id("h")), ids(&m, &["main", "h"]));

    let sccs = cg.sccs();
    assert_eq!(sccs.len(), 5);
    assert_eq!(sccs[cg.scc_of(id("a"))], ids(&m, &["a", "b"]));
    assert_eq!(cg.scc_of(id("a")), cg.scc_of(id("b")));
    // Bottom-up: every callee's component comes no later than its caller's.
    for f in m.function_ids() {
        for &g in cg.callees(f) {
            assert!(cg.scc_of(g) <= cg.scc_of(f));
        }
    }
    assert_eq!(sccs[0], ids(&m, &["g"]));
    assert_eq!(sccs[4], ids(&m, &["main"]));

    assert!(cg.is_recursive(id("h")));
    assert!(cg.is_recursive(id("a")));
    assert!(cg.is_recursive(id("b")));
    assert!(!cg.is_recursive(id("main")));
    assert!(!cg.is_recursive(id("g")));
    assert_eq!(cg, CallGraph::new(&m));
}

fn chain(count: usize, closed: bool) -> Module {
    let names: Vec<String> = (0..count).map(|i| format!("f{i}")).collect();
    let text: String = (0..count)
        .map(|i| match names.get(i + 1) {
            Some(next) => caller(&names[i], &[next]),
            None if closed => caller(&names[i], &[&names[0]]),
            None => caller(&names[i], &[]),
        })
        .collect();
    parse_module(&text).unwrap()
}

#[test]
fn a_chain_of_five_thousand_calls_needs_no_recursion() {
    let m = chain(5000, false);
    let cg = CallGraph::new(&m);
    assert_eq!(cg.sccs().len(), 5000);
    assert_eq!(cg.sccs()[0], [FuncId(4999)]);
    assert_eq!(cg.sccs()[4999], [FuncId(0)]);
    assert!(!cg.is_recursive(FuncId(2500)));
}

#[test]
fn a_cycle_of_five_thousand_functions_is_one_component() {
    let m = chain(5000, true);
    let cg = CallGraph::new(&m);
    assert_eq!(cg.sccs().len(), 1);
    assert_eq!(cg.sccs()[0].len(), 5000);
    assert!(cg.is_recursive(FuncId(1234)));
}
