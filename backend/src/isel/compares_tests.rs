//! Selection of comparisons: with constants only their negation encodes, masks compared
//! with zero tested in place, a truth value from elsewhere compared with zero, the flags of
//! one comparison read again by selects on the same pair until an instruction sets them,
//! floats compared with zero, chains of comparisons, and a comparison with a constant
//! tested in several blocks, compared again in each.

use crate::isel::test_select::selected;

#[test]
fn comparisons_with_negative_constants_add_and_large_negatives_build_the_magnitude() {
    let lines = selected(
        "func @f(%a0: i32) -> i32 {
bb0:
  %0 = icmp slt %a0, -998244352
  %1 = add %a0, -998244353
  %2 = select i32 %0, %1, %a0
  ret %2
}
",
    );
    assert!(
        lines.iter().any(|l| l == "cmn %v0, #998244352"),
        "{lines:#?}"
    );
    // -998244353 encodes neither way: 998244353 is built (0x3b80_0001) and subtracted.
    assert!(lines.iter().any(|l| l == "movt %v4, #15232"), "{lines:#?}");
    assert!(
        lines.iter().any(|l| l == "sublt %v3, %v0, %v4"),
        "{lines:#?}"
    );
}

#[test]
fn a_mask_compared_with_zero_is_tested_in_place() {
    // `u % 2 == 0` as `(u & 1) == 0`, and `(u & v) != 0`: `tst`, no register for the `and`;
    // a mask used again keeps its `and`.
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = and %a0, 1
  %1 = icmp eq %0, 0
  %2 = and %a0, %a1
  %3 = icmp ne 0, %2
  %4 = select i32 %1, %a0, %a1
  %5 = select i32 %3, %4, 7
  %6 = and %a1, 6
  %7 = icmp eq %6, 0
  %8 = select i32 %7, %5, %6
  ret %8
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert!(body.contains(&"tst %v0, #1"), "{body:#?}");
    assert!(body.contains(&"tst %v0, %v1"), "{body:#?}");
    assert!(body.contains(&"and %v8, %v1, #6"), "{body:#?}");
    assert!(body.contains(&"cmp %v8, #0"), "{body:#?}");
    assert_eq!(
        body.iter().filter(|l| l.starts_with("and ")).count(),
        1,
        "{body:#?}"
    );
}

#[test]
fn a_select_on_a_truth_value_from_elsewhere_compares_it_with_zero() {
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = icmp eq %a0, %a1
  condbr %0, bb1, bb2
bb1:
  %1 = select i32 %0, %a0, %a1
  ret %1
bb2:
  ret 0
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert!(body.contains(&"moveq %v2, #1"), "{body:#?}");
    let expected = ["copy %v3, %v1", "cmp %v2, #0", "movne %v3, %v0"];
    assert!(body.windows(3).any(|w| w == expected), "{body:#?}");
}

#[test]
fn a_flag_setting_instruction_between_selects_compares_again() {
    // A call (or another comparison) between two selects on one condition leaves other
    // flags: the second compares again.
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = icmp slt %a0, %a1
  %1 = select i32 %0, %a0, 7
  %2 = call i32 @getint()
  %3 = select i32 %0, %2, %1
  ret %3
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert_eq!(
        body.iter()
            .filter(|l| l.starts_with("cmp %v0, %v1"))
            .count(),
        2,
        "{body:#?}"
    );
}

#[test]
fn min_and_max_of_one_pair_compare_once() {
    // `a < b`, `a > b` and `b <= a` compare the same two values: the flags of one `cmp`
    // serve all three selects, each under its own condition.
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = icmp slt %a0, %a1
  %1 = select i32 %0, %a0, %a1
  %2 = icmp sgt %a0, %a1
  %3 = select i32 %2, %a0, %a1
  %4 = icmp sle %a1, %a0
  %5 = select i32 %4, 7, %a1
  %6 = add %1, %3
  %7 = add %6, %5
  ret %7
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert_eq!(
        body.iter().filter(|l| l.starts_with("cmp ")).count(),
        1,
        "{body:#?}"
    );
    assert!(body.iter().any(|l| l.starts_with("movlt")), "{body:#?}");
    assert!(body.iter().any(|l| l.starts_with("movgt")), "{body:#?}");
    // a1 <= a0 read off `cmp a0, a1` is `ge`.
    assert!(
        body.iter()
            .any(|l| l.starts_with("movge") && l.ends_with("#7")),
        "{body:#?}"
    );
}

#[test]
fn a_float_compared_with_zero_uses_vcmps_zero_form() {
    // `x > 0.0` and `-0.0 > x` (swapped: `x < -0.0`) test against #0; `x > 1.0` needs 1.0.
    let lines = selected(
        "func @f(%a0: f32) -> i32 {
bb0:
  %0 = fcmp ogt %a0, 0.0
  %1 = fcmp ogt -0.0, %a0
  %2 = fcmp ogt %a0, 1.0
  %3 = select i32 %0, 1, 0
  %4 = select i32 %1, 2, %3
  %5 = select i32 %2, 4, %4
  ret %5
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    let compares: Vec<&&str> = body.iter().filter(|l| l.starts_with("vcmp")).collect();
    assert_eq!(compares.len(), 3, "{body:#?}");
    assert_eq!(*compares[0], "vcmp.f32 %v0, #0", "{body:#?}");
    assert_eq!(*compares[1], "vcmp.f32 %v0, #0", "{body:#?}");
    assert!(compares[2].starts_with("vcmp.f32 %v0, %v"), "{body:#?}");
    assert!(
        body.iter()
            .any(|l| l.starts_with("movlt") || l.starts_with("movmi")),
        "{body:#?}"
    );
}

#[test]
fn a_chain_of_comparisons_is_compares_under_conditions_and_one_branch() {
    // x < 0 || x >= n: the second compare swapped (lt implies le), under ge.
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = icmp slt %a0, 0
  %1 = icmp sge %a0, %a1
  %2 = select i1 %0, true, %1
  condbr %2, bb1, bb2
bb1:
  ret 1
bb2:
  ret 0
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    let at = body
        .iter()
        .position(|l| *l == "cmp %v0, #0")
        .expect("the first compare");
    assert_eq!(
        body[at + 1..at + 3],
        ["cmpge %v1, %v0", "ble bb1"],
        "{body:#?}"
    );
}

#[test]
fn a_chain_with_an_and_after_an_or_compares_under_the_condition_the_or_leaves() {
    // (a == 4 || b < 7) && a < 10: eq implies le, so b < 7 is tested as b <= 6; a < 10
    // (lt implies le) runs where that holds, and the select reads lt.
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = icmp eq %a0, 4
  %1 = icmp slt %a1, 7
  %2 = select i1 %0, true, %1
  %3 = icmp slt %a0, 10
  %4 = select i1 %2, %3, false
  %5 = select i32 %4, 10, 20
  ret %5
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    let at = body
        .iter()
        .position(|l| *l == "cmp %v0, #4")
        .expect("the first compare");
    assert_eq!(
        body[at + 1..at + 3],
        ["cmpne %v1, #6", "cmple %v0, #10"],
        "{body:#?}"
    );
    assert!(body.contains(&"movlt %v7, #10"), "{body:#?}");
}

#[test]
fn a_float_comparison_in_a_chain_is_made_at_its_select() {
    // fcmp || (x != 1): the float comparison does not chain (its flags come through
    // vmrs), so the truth value is made in full, never read from a register left unset.
    let lines = selected(
        "func @f(%a0: i32, %a1: f32) -> i32 {
bb0:
  %0 = fcmp ogt %a1, 2.5
  %1 = icmp ne %a0, 1
  %2 = select i1 %0, true, %1
  condbr %2, bb1, bb2
bb1:
  ret 7
bb2:
  ret 3
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert!(body.iter().any(|l| l.starts_with("vcmp.f32")), "{body:#?}");
    assert!(
        !body
            .iter()
            .any(|l| l.starts_with("cmpeq") || l.starts_with("cmpne")),
        "{body:#?}"
    );
}

#[test]
fn a_comparison_with_a_constant_tested_in_two_blocks_is_compared_again_in_each() {
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = icmp sgt %a0, -1
  condbr %0, bb1, bb2
bb1:
  %1 = add %a1, 1
  br bb2
bb2:
  %2 = phi i32 [%1, bb1], [%a1, bb0]
  condbr %0, bb3, bb4
bb3:
  ret %2
bb4:
  ret 0
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert_eq!(
        body.iter().filter(|l| l.starts_with("cmn %v0, #1")).count(),
        2,
        "{body:#?}"
    );
    assert!(!body.iter().any(|l| l.starts_with("cmp")), "{body:#?}");
}
