//! Selection of integer operations: right shifts as `mov` with a shifted operand, a shift
//! used once by an add or sub folded into it as its flexible second operand, `and` with a
//! mask that only its complement encodes as `bic`, an addition of a constant that only its
//! negation encodes as a subtraction, shifts by a value and `ctz` (`rbit` then `clz`), and
//! an offset of a counter after its next value taken from that.

use crate::isel::test_select::selected;

#[test]
fn a_shift_used_once_by_an_add_folds_into_it() {
    let lines = selected(
        "func @f(%a0: i32) -> i32 {
bb0:
  %0 = ashr %a0, 31
  %1 = lshr %0, 29
  %2 = add %a0, %1
  %3 = ashr %2, 3
  ret %3
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert!(body.contains(&"mov %v1, %v0, asr #31"), "{body:#?}");
    assert!(body.contains(&"add %v3, %v0, %v1, lsr #29"), "{body:#?}");
    assert!(body.contains(&"mov %v4, %v3, asr #3"), "{body:#?}");
    assert!(!body.iter().any(|l| l.contains("%v2")), "{body:#?}");
}

#[test]
fn shifts_by_a_value_use_a_register_and_count_trailing_zeros_reverses_then_counts() {
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = ctz %a1
  %1 = lshr %a0, %0
  %2 = ashr %1, %a1
  %3 = add %2, %1
  %4 = lshr %3, 32
  ret %4
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert!(body.contains(&"rbit %v7, %v1"), "{body:#?}");
    assert!(body.contains(&"clz %v2, %v7"), "{body:#?}");
    assert!(body.contains(&"mov %v3, %v0, lsr %v2"), "{body:#?}");
    assert!(body.contains(&"mov %v4, %v3, asr %v1"), "{body:#?}");
    // Not folded into the add as a shifted operand; 32, out of an immediate shift's range,
    // from a register.
    assert!(body.contains(&"add %v5, %v4, %v3"), "{body:#?}");
    assert!(body.contains(&"mov %v8, #32"), "{body:#?}");
    assert!(body.contains(&"mov %v6, %v5, lsr %v8"), "{body:#?}");
}

#[test]
fn a_shift_on_the_left_of_a_sub_becomes_a_reverse_subtract() {
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = lshr %a0, 31
  %1 = sub %0, %a1
  ret %1
}
",
    );
    assert!(
        lines.iter().any(|l| l == "rsb %v3, %v1, %v0, lsr #31"),
        "{lines:#?}"
    );
}

#[test]
fn two_shifted_operands_do_not_fold_and_shared_shifts_stay() {
    let lines = selected(
        "func @f(%a0: i32) -> i32 {
bb0:
  %0 = lshr %a0, 1
  %1 = ashr %a0, 2
  %2 = add %0, %1
  %3 = ashr %a0, 3
  %4 = add %3, %3
  ret %4
}
",
    );
    let shifts = lines.iter().filter(|l| l.starts_with("mov ")).count();
    assert_eq!(shifts, 3, "{lines:#?}");
}

#[test]
fn masks_use_and_or_bic_whichever_encodes() {
    let lines = selected(
        "func @f(%a0: i32) -> i32 {
bb0:
  %0 = and %a0, -8
  %1 = and 255, %0
  ret %1
}
",
    );
    assert!(lines.iter().any(|l| l == "bic %v1, %v0, #7"), "{lines:#?}");
    assert!(
        lines.iter().any(|l| l == "and %v2, %v1, #255"),
        "{lines:#?}"
    );
}

#[test]
fn adding_a_negative_constant_subtracts_its_magnitude() {
    let lines = selected(
        "func @f(%a0: i32) -> i32 {
bb0:
  %0 = add %a0, -1
  %1 = sub %0, -256
  %2 = add %1, -257
  ret %2
}
",
    );
    assert!(lines.iter().any(|l| l == "sub %v1, %v0, #1"), "{lines:#?}");
    assert!(
        lines.iter().any(|l| l == "add %v2, %v1, #256"),
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|l| l.contains("#-")), "{lines:#?}");
}

#[test]
fn an_offset_of_a_counter_after_its_next_value_is_taken_from_that() {
    // `j + 3` after `j + 2`, the value `j`'s phi takes round the loop: `(j + 2) + 1`, so
    // that `j` dies where `j + 2` is born and the two can share a register.
    let lines = selected(
        "func @f(%a0: i32) -> i32 {
bb0:
  br bb1
bb1:
  %0 = phi i32 [0, bb0], [%1, bb2]
  %1 = add %0, 2
  %2 = add %0, 3
  %3 = icmp slt %2, %a0
  condbr %3, bb2, bb3
bb2:
  br bb1
bb3:
  ret %1
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert!(body.contains(&"add %v2, %v1, #2"), "{body:#?}");
    assert!(body.contains(&"add %v3, %v2, #1"), "{body:#?}");
}
