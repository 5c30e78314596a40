//! const-fold, dce and simplify-cfg on handwritten IR.

use middle::ir::{parser::parse_module, printer::print_module, verifier::verify_module};
use middle::passes::PassManager;

fn run_pass(name: &str, input: &str) -> String {
    let mut m = parse_module(input).unwrap();
    verify_module(&m).unwrap();
    let mut pm = PassManager::parse(name).unwrap();
    pm.verify_each = true;
    pm.run(&mut m, &mut std::io::sink()).unwrap();
    verify_module(&m).unwrap_or_else(|e| panic!("{e}\n{}", print_module(&m)));
    print_module(&m)
}

#[test]
fn const_fold_evaluates_and_simplifies() {
    let input = "\
func @f(%a0: i32, %a1: f32) -> i32 {
bb0:
  %0 = add 2, 3
  %1 = mul %0, %a0
  %2 = mul %1, 1
  %3 = sub %2, %2
  %4 = add %a0, %3
  %5 = sdiv 7, -2
  %6 = srem -7, 2
  %7 = sdiv %a0, 0
  %8 = fadd %a1, -0.0
  %9 = fmul 1.5, 2.0
  %10 = fcmp olt %9, %8
  %11 = icmp slt %5, %6
  %12 = zext %11
  %13 = fptosi 1e10
  %14 = sdiv 5, 0
  %15 = add %4, %12
  %16 = add %15, %13
  %17 = add %16, %14
  %18 = zext %10
  %19 = add %17, %18
  ret %19
}
";
    assert_eq!(
        run_pass("const-fold", input),
        "\
func @f(%a0: i32, %a1: f32) -> i32 {
bb0:
  %0 = mul 5, %a0
  %1 = sdiv %a0, 0
  %2 = fcmp olt 3.0, %a1
  %3 = add %a0, 1
  %4 = add %3, 2147483647
  %5 = zext %2
  %6 = add %4, %5
  ret %6
}
"
    );
}

#[test]
fn const_fold_removes_trivial_phis() {
    let input = "\
func @f(%a0: i1, %a1: i32) -> i32 {
bb0:
  condbr %a0, bb1, bb2
bb1:
  br bb2
bb2:
  %0 = phi i32 [%a1, bb0], [%a1, bb1]
  %1 = add %0, 0
  ret %1
}
";
    assert!(run_pass("const-fold", input).contains("ret %a1"));
}

#[test]
fn dce_removes_unused_chains_but_keeps_effects() {
    let input = "\
func @f(%a0: ptr, %a1: i32) -> void {
bb0:
  %0 = add %a1, 1
  %1 = mul %0, %0
  %2 = load i32 %a0
  %3 = sdiv %2, %1
  store %a1, %a0
  %4 = call i32 @getint()
  ret
}
";
    assert_eq!(
        run_pass("dce", input),
        "\
func @f(%a0: ptr, %a1: i32) -> void {
bb0:
  store %a1, %a0
  %0 = call i32 @getint()
  ret
}
"
    );
}

#[test]
fn simplify_cfg_folds_branches_and_merges_blocks() {
    let input = "\
func @f(%a0: i32) -> i32 {
bb0:
  condbr true, bb1, bb2
bb1:
  %0 = add %a0, 1
  br bb3
bb2:
  %1 = add %a0, 2
  br bb3
bb3:
  %2 = phi i32 [%0, bb1], [%1, bb2]
  br bb4
bb4:
  ret %2
}
";
    assert_eq!(
        run_pass("simplify-cfg", input),
        "\
func @f(%a0: i32) -> i32 {
bb0:
  %0 = add %a0, 1
  ret %0
}
"
    );
}

#[test]
fn simplify_cfg_bypasses_empty_blocks_and_keeps_phis_right() {
    let input = "\
func @f(%a0: i1, %a1: i32) -> i32 {
bb0:
  condbr %a0, bb1, bb2
bb1:
  br bb3
bb2:
  %0 = mul %a1, 2
  br bb3
bb3:
  %1 = phi i32 [%a1, bb1], [%0, bb2]
  ret %1
}
";
    assert_eq!(
        run_pass("simplify-cfg", input),
        "\
func @f(%a0: i1, %a1: i32) -> i32 {
bb0:
  condbr %a0, bb2, bb1
bb1:
  %0 = mul %a1, 2
  br bb2
bb2:
  %1 = phi i32 [%0, bb1], [%a1, bb0]
  ret %1
}
"
    );
}

#[test]
fn simplify_cfg_keeps_a_forwarding_block_a_phi_needs() {
    // bb0 reaches bb2 both directly and through bb1 with different values.
    let input = "\
func @f(%a0: i1) -> i32 {
bb0:
  condbr %a0, bb1, bb2
bb1:
  br bb2
bb2:
  %0 = phi i32 [1, bb0], [2, bb1]
  ret %0
}
";
    assert_eq!(run_pass("simplify-cfg", input), input);
}

#[test]
fn simplify_cfg_deletes_unreachable_loops() {
    let input = "\
func @f() -> i32 {
bb0:
  ret 0
bb1:
  %0 = phi i32 [%1, bb2]
  br bb2
bb2:
  %1 = add %0, 1
  br bb1
}
";
    assert_eq!(
        run_pass("simplify-cfg", input),
        "func @f() -> i32 {\nbb0:\n  ret 0\n}\n"
    );
}
