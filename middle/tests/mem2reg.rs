//! mem2reg on handwritten IR: the expected output of each case, printed.

use middle::ir::{parser::parse_module, printer::print_module, verifier::verify_module};
use middle::passes::PassManager;

fn promote(input: &str) -> String {
    let mut m = parse_module(input).unwrap();
    verify_module(&m).unwrap();
    let mut pm = PassManager::parse("mem2reg").unwrap();
    pm.verify_each = true;
    pm.run(&mut m, &mut std::io::sink()).unwrap();
    verify_module(&m).unwrap_or_else(|e| panic!("{e}\n{}", print_module(&m)));
    print_module(&m)
}

/// The seed document's example: `r` is assigned on both branches of an if.
#[test]
fn if_else_assignment_gets_a_phi() {
    let input = "\
func @foo(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = alloca i32 x 1
  %1 = alloca i32 x 1
  %2 = alloca i32 x 1
  store %a0, %0
  store %a1, %1
  %3 = load i32 %0
  %4 = load i32 %1
  %5 = icmp sgt %3, %4
  condbr %5, bb1, bb2
bb1:
  %6 = load i32 %0
  store %6, %2
  br bb3
bb2:
  %7 = load i32 %1
  store %7, %2
  br bb3
bb3:
  %8 = load i32 %2
  ret %8
}
";
    assert_eq!(
        promote(input),
        "\
func @foo(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = icmp sgt %a0, %a1
  condbr %0, bb1, bb2
bb1:
  br bb3
bb2:
  br bb3
bb3:
  %1 = phi i32 [%a0, bb1], [%a1, bb2]
  ret %1
}
"
    );
}

#[test]
fn loop_counter_gets_a_header_phi() {
    let input = "\
func @sum(%a0: i32) -> i32 {
bb0:
  %0 = alloca i32 x 1
  %1 = alloca i32 x 1
  store 0, %0
  store 0, %1
  br bb1
bb1:
  %2 = load i32 %0
  %3 = icmp slt %2, %a0
  condbr %3, bb2, bb3
bb2:
  %4 = load i32 %1
  %5 = load i32 %0
  %6 = add %4, %5
  store %6, %1
  %7 = add %5, 1
  store %7, %0
  br bb1
bb3:
  %8 = load i32 %1
  ret %8
}
";
    assert_eq!(
        promote(input),
        "\
func @sum(%a0: i32) -> i32 {
bb0:
  br bb1
bb1:
  %0 = phi i32 [0, bb0], [%4, bb2]
  %1 = phi i32 [0, bb0], [%3, bb2]
  %2 = icmp slt %0, %a0
  condbr %2, bb2, bb3
bb2:
  %3 = add %1, %0
  %4 = add %0, 1
  br bb1
bb3:
  ret %1
}
"
    );
}

#[test]
fn nested_ifs_place_phis_only_where_needed() {
    // x is set on some paths of an inner if; y is never changed after its store, so it
    // needs no phi at all.
    let input = "\
func @f(%a0: i1, %a1: i1) -> i32 {
bb0:
  %0 = alloca i32 x 1
  %1 = alloca i32 x 1
  store 1, %0
  store 7, %1
  condbr %a0, bb1, bb4
bb1:
  condbr %a1, bb2, bb3
bb2:
  store 2, %0
  br bb3
bb3:
  br bb4
bb4:
  %2 = load i32 %0
  %3 = load i32 %1
  %4 = add %2, %3
  ret %4
}
";
    assert_eq!(
        promote(input),
        "\
func @f(%a0: i1, %a1: i1) -> i32 {
bb0:
  condbr %a0, bb1, bb4
bb1:
  condbr %a1, bb2, bb3
bb2:
  br bb3
bb3:
  %0 = phi i32 [1, bb1], [2, bb2]
  br bb4
bb4:
  %1 = phi i32 [1, bb0], [%0, bb3]
  %2 = add %1, 7
  ret %2
}
"
    );
}

#[test]
fn a_variable_defined_on_some_paths_reads_undef_on_the_others() {
    let input = "\
func @f(%a0: i1, %a1: i32) -> i32 {
bb0:
  %0 = alloca i32 x 1
  condbr %a0, bb1, bb2
bb1:
  %1 = mul %a1, 3
  store %1, %0
  br bb2
bb2:
  %2 = load i32 %0
  ret %2
}
";
    assert_eq!(
        promote(input),
        "\
func @f(%a0: i1, %a1: i32) -> i32 {
bb0:
  condbr %a0, bb1, bb2
bb1:
  %0 = mul %a1, 3
  br bb2
bb2:
  %1 = phi i32 [undef:i32, bb0], [%0, bb1]
  ret %1
}
"
    );
}

#[test]
fn an_undef_incoming_value_gives_way_to_a_constant() {
    // Undefined on one path, so the phi may take the constant on every path.
    let input = "\
func @f(%a0: i1) -> i32 {
bb0:
  %0 = alloca i32 x 1
  condbr %a0, bb1, bb2
bb1:
  store 5, %0
  br bb2
bb2:
  %1 = load i32 %0
  ret %1
}
";
    assert_eq!(
        promote(input),
        "func @f(%a0: i1) -> i32 {\nbb0:\n  condbr %a0, bb1, bb2\nbb1:\n  br bb2\nbb2:\n  ret 5\n}\n"
    );
}

#[test]
fn a_never_stored_variable_is_undef_and_unused_ones_vanish() {
    let input = "\
func @f() -> f32 {
bb0:
  %0 = alloca f32 x 1
  %1 = alloca i32 x 1
  %2 = load f32 %0
  ret %2
}
";
    assert_eq!(
        promote(input),
        "func @f() -> f32 {\nbb0:\n  ret undef:f32\n}\n"
    );
}

#[test]
fn single_block_rewrites_in_order_and_keeps_other_memory() {
    let input = "\
func @f(%a0: ptr) -> i32 {
bb0:
  %0 = alloca i32 x 1
  %1 = alloca i32 x 4
  store 1, %0
  %2 = load i32 %0
  store %2, %1
  %3 = add %2, 1
  store %3, %0
  %4 = load i32 %0
  store %4, %a0
  ret %4
}
";
    assert_eq!(
        promote(input),
        "\
func @f(%a0: ptr) -> i32 {
bb0:
  %0 = alloca i32 x 4
  store 1, %0
  %1 = add 1, 1
  store %1, %a0
  ret %1
}
"
    );
}

#[test]
fn a_load_before_the_store_in_a_loop_sees_the_previous_iteration() {
    // Used in one block only, but read before written: the value flows around the loop.
    let input = "\
func @f(%a0: i32) -> i32 {
bb0:
  %0 = alloca i32 x 1
  br bb1
bb1:
  %1 = load i32 %0
  %2 = add %1, 1
  store %2, %0
  %3 = icmp slt %2, %a0
  condbr %3, bb1, bb2
bb2:
  ret %2
}
";
    assert_eq!(
        promote(input),
        "\
func @f(%a0: i32) -> i32 {
bb0:
  br bb1
bb1:
  %0 = phi i32 [undef:i32, bb0], [%1, bb1]
  %1 = add %0, 1
  %2 = icmp slt %1, %a0
  condbr %2, bb1, bb2
bb2:
  ret %1
}
"
    );
}

#[test]
fn arrays_and_escaping_allocas_stay_in_memory() {
    let input = "\
func @g(%a0: ptr) -> void {
bb0:
  ret
}
func @f() -> i32 {
bb0:
  %0 = alloca i32 x 1
  %1 = alloca i32 x 2
  store 3, %0
  call void @g(%0)
  store 4, %1
  %2 = load i32 %0
  ret %2
}
";
    let out = promote(input);
    assert!(
        out.contains("alloca i32 x 1") && out.contains("alloca i32 x 2"),
        "{out}"
    );
}

#[test]
fn deep_cfg_renames_without_native_recursion() {
    // 20,000 blocks in a chain, each storing and loading the variable.
    let mut text =
        String::from("func @f() -> i32 {\nbb0:\n  %v = alloca i32 x 1\n  store 0, %v\n  br bb1\n");
    for b in 1..20_000 {
        text.push_str(&format!(
            "bb{b}:\n  %l{b} = load i32 %v\n  %s{b} = add %l{b}, 1\n  store %s{b}, %v\n  %c{b} = icmp slt %s{b}, 5\n  condbr %c{b}, bb{b}, bb{}\n",
            b + 1
        ));
    }
    text.push_str("bb20000:\n  %r = load i32 %v\n  ret %r\n}\n");
    let out = promote(&text);
    assert!(!out.contains("alloca"));
    assert_eq!(out.matches("phi").count(), 19_999);
}
