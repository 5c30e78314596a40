//! The inliner's size limits on large callees: a function called from one place is inlined
//! into a caller well past the cap for other callees (the original then goes, so nothing
//! grows), while the same function called from two places stays a call.

use backend::ir_costs::CortexA72;
use middle::ir::parser::parse_module;
use middle::ir::{Callee, InstKind, Module};
use middle::pass_manager::PassManager;

/// A module whose `@big` adds its argument to itself `adds` times and returns the sum, called
/// `calls` times by `main`.
fn module(adds: usize, calls: usize) -> Module {
    let mut text = String::from("func @big(%a0: i32) -> i32 {\nbb0:\n  %0 = add %a0, 1\n");
    for k in 1..adds {
        text.push_str(&format!("  %{k} = add %{}, %a0\n", k - 1));
    }
    text.push_str(&format!(
        "  ret %{}\n}}\n\nfunc @main() -> i32 {{\nbb0:\n",
        adds - 1
    ));
    text.push_str("  %0 = call i32 @getint()\n");
    for k in 1..=calls {
        text.push_str(&format!("  %{k} = call i32 @big(%{})\n", k - 1));
    }
    text.push_str(&format!("  ret %{calls}\n}}\n"));
    parse_module(&text).expect("the generated module parses")
}

fn calls_of_big(m: &Module) -> usize {
    let main = m.find_function("main").expect("main");
    let f = m.function(main);
    f.all_insts()
        .filter(|&i| match f.kind(i) {
            InstKind::Call { callee, .. } => matches!(callee, Callee::Function(_)),
            _ => false,
        })
        .count()
}

fn inline(m: &mut Module) {
    let pm = PassManager::parse("inline", &CortexA72).expect("the pipeline parses");
    pm.run(m, &mut std::io::sink()).expect("inlining runs");
}

#[test]
fn an_only_call_is_inlined_past_the_usual_caller_cap() {
    let mut m = module(6000, 1);
    inline(&mut m);
    assert_eq!(calls_of_big(&m), 0);
}

#[test]
fn a_large_callee_with_two_calls_stays_called() {
    let mut m = module(6000, 2);
    inline(&mut m);
    assert_eq!(calls_of_big(&m), 2);
}
