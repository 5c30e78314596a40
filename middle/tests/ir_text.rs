//! The IR text form and the verifier on handwritten IR.

use middle::ir::{parser::parse_module, printer::print_module, verifier::verify_module};

const EVERY_INSTRUCTION: &str = "\
@g = global i32 x 1
@t = const f32 x 4 {0: 1.5, 3: -0.0}
@nan = global f32 x 1 {0: nan:0x7fc00001}

func @callee(%a0: ptr, %a1: f32) -> f32 {
bb0:
  %0 = load f32 %a0
  %1 = fadd %0, %a1
  %2 = fsub %1, 1e-7
  %3 = fmul %2, inf
  %4 = fdiv %3, -2.5
  %5 = fneg %4
  ret %5
}

func @main() -> i32 {
bb0:
  %0 = alloca i32 x 10
  %1 = gep %0, 3, 4
  store 7, %1
  %2 = load i32 %1
  %3 = add %2, -1
  %4 = sub %3, 2
  %5 = mul %4, %4
  %6 = sdiv %5, 3
  %7 = srem %6, 5
  %8 = icmp sge %7, 0
  condbr %8, bb1, bb2
bb1:
  %9 = sitofp %7
  %10 = call f32 @callee(@t, %9)
  %11 = fcmp une %10, 0.0
  %12 = zext %11
  call void @memset(%0, 0, 40)
  call void @putf(\"%d %f\\012\\\"\\001\", %12, %10)
  br bb3
bb2:
  %13 = call i32 @getint()
  call void @_sysy_starttime(3)
  br bb3
bb3:
  %14 = phi i32 [%12, bb1], [%13, bb2]
  %15 = phi i1 [true, bb1], [false, bb2]
  %16 = phi i32 [undef:i32, bb1], [%13, bb2]
  %17 = fptosi 2.5
  store %17, @g
  ret %14
}
";

#[test]
fn every_instruction_round_trips() {
    let m = parse_module(EVERY_INSTRUCTION).unwrap();
    verify_module(&m).unwrap();
    assert_eq!(print_module(&m), EVERY_INSTRUCTION);
}

#[test]
fn comments_and_spacing_are_ignored() {
    let m =
        parse_module("; a comment\nfunc @main() -> i32 {\nbb0:   ; entry\n  ret   0 ; done\n}\n")
            .unwrap();
    assert_eq!(
        print_module(&m),
        "func @main() -> i32 {\nbb0:\n  ret 0\n}\n"
    );
}

fn verifier_error(text: &str) -> String {
    let m = parse_module(text).unwrap();
    verify_module(&m).expect_err("the verifier should reject this")
}

#[test]
fn rejects_use_before_definition() {
    let e = verifier_error(
        "func @f() -> i32 {\nbb0:\n  %0 = add %1, 1\n  %1 = add 2, 3\n  ret %0\n}\n",
    );
    assert!(e.contains("use is not dominated by its definition"), "{e}");
}

#[test]
fn rejects_a_use_in_a_block_the_definition_does_not_dominate() {
    let e = verifier_error(
        "func @f(%a0: i1) -> i32 {\nbb0:\n  condbr %a0, bb1, bb2\nbb1:\n  %0 = add 1, 2\n  br bb2\nbb2:\n  ret %0\n}\n",
    );
    assert!(e.contains("use is not dominated by its definition"), "{e}");
}

#[test]
fn rejects_a_missing_terminator() {
    let e = verifier_error("func @f() -> i32 {\nbb0:\n  %0 = add 1, 2\n}\n");
    assert!(e.contains("bb0 does not end in a terminator"), "{e}");
}

#[test]
fn rejects_a_terminator_in_the_middle() {
    let e = verifier_error("func @f() -> void {\nbb0:\n  ret\n  ret\n}\n");
    assert!(e.contains("terminator in the middle of a block"), "{e}");
}

#[test]
fn rejects_phis_that_do_not_match_the_predecessors() {
    let e = verifier_error(
        "func @f(%a0: i1) -> i32 {\nbb0:\n  condbr %a0, bb1, bb2\nbb1:\n  br bb2\nbb2:\n  %0 = phi i32 [1, bb0]\n  ret %0\n}\n",
    );
    assert!(e.contains("phi's incoming blocks differ"), "{e}");
}

#[test]
fn rejects_type_clashes() {
    let e = verifier_error("func @f() -> i32 {\nbb0:\n  %0 = add 1.5, 2\n  ret %0\n}\n");
    assert!(e.contains("type mismatch: add works on i32"), "{e}");
    let e = verifier_error("func @f() -> i32 {\nbb0:\n  ret 1.0\n}\n");
    assert!(
        e.contains("ret's value must have the function's return type"),
        "{e}"
    );
    let e = verifier_error(
        "func @g(%a0: i32) -> void {\nbb0:\n  ret\n}\nfunc @f() -> void {\nbb0:\n  call void @g(1.0)\n  ret\n}\n",
    );
    assert!(
        e.contains("call does not match the callee's signature"),
        "{e}"
    );
}

#[test]
fn rejects_an_entry_block_with_predecessors() {
    let e = verifier_error("func @f() -> void {\nbb0:\n  br bb0\n}\n");
    assert!(e.contains("the entry block has predecessors"), "{e}");
}

#[test]
fn parse_errors_name_the_line() {
    let e = parse_module("func @f() -> i32 {\nbb0:\n  %0 = frobnicate 1\n}\n").unwrap_err();
    assert_eq!(e, "line 3: unknown instruction 'frobnicate'");
    let e = parse_module("func @f() -> i32 {\nbb0:\n  ret %9\n}\n").unwrap_err();
    assert_eq!(e, "line 3: unknown value %9");
}
