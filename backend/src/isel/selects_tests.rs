//! Selection of selects: a copy and a conditional move, copying first the loop's value or
//! the operand that nothing reads after it, an operation only a select uses computed under
//! its condition (reading an earlier select that equals its operand there), float selects,
//! two selects clamping a value to `0..2^k-1` as one `usat`, and stores of a select as
//! stores under its condition.

use crate::isel::test_select::selected;

#[test]
fn selects_are_a_copy_and_a_conditional_move_after_one_fused_comparison() {
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = icmp slt %a0, %a1
  %1 = select i32 %0, %a0, 7
  %2 = select i32 %0, %a1, %a0
  ret %2
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    // The false value first, then the comparison, never materialised as 0 or 1, then the
    // true value under it; the second select reads the flags the first one left.
    assert_eq!(
        body.iter()
            .filter(|l| l.starts_with("cmp %v0, %v1"))
            .count(),
        1,
        "{body:#?}"
    );
    assert!(!body.iter().any(|l| l.contains("%v2")), "{body:#?}");
    for expected in [
        ["mov %v3, #7", "cmp %v0, %v1", "movlt %v3, %v0"],
        ["movlt %v3, %v0", "copy %v4, %v0", "movlt %v4, %v1"],
    ] {
        assert!(
            body.windows(3).any(|w| w == expected),
            "{expected:?} in {body:#?}"
        );
    }
}

#[test]
fn a_select_keeping_a_loop_value_copies_it_first_and_changes_it_under_the_condition() {
    // `x = s > t ? x : x + 1` and `y = s < t ? y : m` round a loop (the second through the
    // phi where paths join, its truth value from another block tested against 0): the
    // kept value is copied first (the copy coalesces with it), the other computed or moved
    // under the opposite condition.
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  br bb1
bb1:
  %0 = phi i32 [0, bb0], [%4, bb2]
  %1 = phi i32 [%a1, bb0], [%8, bb3]
  %2 = icmp sgt %0, %a0
  %3 = add %0, 1
  %4 = select i32 %2, %0, %3
  %5 = icmp slt %1, %a0
  condbr %5, bb2, bb3
bb2:
  %6 = select i32 %5, %1, %a1
  br bb3
bb3:
  %8 = phi i32 [%1, bb1], [%6, bb2]
  %9 = icmp slt %4, 100
  condbr %9, bb1, bb4
bb4:
  ret %8
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    for expected in [
        ["copy %v6, %v2", "cmp %v2, %v0", "addle %v6, %v2, #1"],
        ["copy %v8, %v3", "cmp %v7, #0", "moveq %v8, %v1"],
    ] {
        assert!(
            body.windows(3).any(|w| w == expected),
            "{expected:?} in {body:#?}"
        );
    }
}

#[test]
fn an_operation_under_a_condition_reads_what_an_earlier_select_made_of_its_operand() {
    // Euclid by subtraction: `x = x > y ? x - y : x; y = x > y ? y : y - x`. Where `y - x`
    // runs (x <= y) the first select is x, so it reads that select and x dies there.
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  br bb1
bb1:
  %0 = phi i32 [%a0, bb0], [%4, bb1]
  %1 = phi i32 [%a1, bb0], [%6, bb1]
  %2 = icmp sgt %0, %1
  %3 = sub %0, %1
  %4 = select i32 %2, %3, %0
  %5 = sub %1, %0
  %6 = select i32 %2, %1, %5
  %7 = icmp ne %4, %6
  condbr %7, bb1, bb2
bb2:
  ret %4
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    for expected in [
        ["copy %v6, %v2", "cmp %v2, %v3", "subgt %v6, %v2, %v3"],
        [
            "subgt %v6, %v2, %v3",
            "copy %v8, %v3",
            "suble %v8, %v3, %v6",
        ],
    ] {
        assert!(
            body.windows(3).any(|w| w == expected),
            "{expected:?} in {body:#?}"
        );
    }
}

#[test]
fn an_operation_used_only_by_a_select_is_computed_under_its_condition() {
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = icmp eq %a0, 93
  %1 = add %a1, -1
  %2 = select i32 %0, %1, %a1
  %3 = icmp slt %a0, %a1
  %4 = lshr %a0, 3
  %5 = sub %a1, 5
  %6 = select i32 %3, %4, %5
  %7 = add %2, %6
  ret %7
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    let expected = [
        "copy %v4, %v1",
        "cmp %v0, #93",
        "subeq %v4, %v1, #1",
        "sub %v8, %v1, #5",
        "cmp %v0, %v1",
        "movlt %v8, %v0, lsr #3",
    ];
    let start = body
        .iter()
        .position(|l| *l == expected[0])
        .expect("the select's false value");
    assert_eq!(body[start..start + expected.len()], expected, "{body:#?}");
    // Neither operation is computed on its own.
    assert!(
        !body
            .iter()
            .any(|l| l.contains("%v3") || l.contains("%v6") || l.contains("%v7")),
        "{body:#?}"
    );
}

#[test]
fn an_operation_with_another_user_is_not_predicated() {
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = icmp eq %a0, 93
  %1 = add %a1, -1
  %2 = select i32 %0, %1, %a1
  %3 = add %2, %1
  ret %3
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert!(body.contains(&"sub %v3, %v1, #1"), "{body:#?}");
    assert!(body.contains(&"moveq %v4, %v3"), "{body:#?}");
}

#[test]
fn two_selects_clamping_to_a_power_of_two_range_are_one_usat() {
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = icmp slt %a0, 0
  %1 = icmp sgt %a0, 255
  %2 = select i32 %1, 255, %a0
  %3 = select i32 %0, 0, %2
  %4 = icmp sle %a1, 1023
  %5 = icmp sge %a1, 0
  %6 = select i32 %5, %a1, 0
  %7 = select i32 %4, %6, 1023
  %8 = icmp sgt %a1, 99
  %9 = select i32 %8, 99, %a1
  %10 = select i32 %5, %9, 0
  %11 = add %3, %7
  %12 = add %11, %10
  ret %12
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    // Both tests written either way round; the inner selects and comparisons go.
    assert!(body.contains(&"usat %v5, #8, %v0"), "{body:#?}");
    assert!(body.contains(&"usat %v9, #10, %v1"), "{body:#?}");
    assert!(!body.iter().any(|l| l.contains("%v4")), "{body:#?}");
    assert!(!body.iter().any(|l| l.contains("%v8")), "{body:#?}");
    // A clamp to 0..99 is two conditional moves.
    assert_eq!(
        body.iter().filter(|l| l.starts_with("usat")).count(),
        2,
        "{body:#?}"
    );
    assert!(body.contains(&"movgt %v11, #99"), "{body:#?}");
}

#[test]
fn a_float_select_moves_under_the_condition() {
    let lines = selected(
        "func @f(%a0: f32) -> f32 {
bb0:
  %0 = fcmp olt %a0, 0.0
  %1 = fneg %a0
  %2 = select f32 %0, %1, %a0
  ret %2
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    // The false value copied, the compare, and the true value moved under `mi`.
    let copy = body.iter().position(|l| l.starts_with("copy %v3, %v0"));
    let cmp = body.iter().position(|l| l.starts_with("vcmp"));
    let mov = body.iter().position(|l| *l == "vmovmi.f32 %v3, %v2");
    assert!(
        copy.is_some() && cmp.is_some() && mov.is_some(),
        "{body:#?}"
    );
    assert!(cmp < mov, "{body:#?}");
}

#[test]
fn a_select_whose_true_value_dies_there_copies_it_first() {
    // `min(a0 + a1, a2)` with a2 read again after it: nothing reads the sum after the
    // select, so it is copied first (the copy coalesces with it) and a2 moved in under the
    // opposite condition, where copying a2 first would keep both and move the sum under
    // `lt`. A value the select alone computes under its condition (`abs`'s negation) is
    // still computed under it.
    let lines = selected(
        "func @f(%a0: i32, %a1: i32, %a2: i32) -> i32 {
bb0:
  %0 = add %a0, %a1
  %1 = icmp slt %0, %a2
  %2 = select i32 %1, %0, %a2
  %3 = add %2, %a2
  %4 = sub %a0, %3
  %5 = icmp slt %4, 0
  %6 = sub 0, %4
  %7 = select i32 %5, %6, %4
  %8 = add %7, %4
  ret %8
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    for expected in [
        ["copy %v5, %v3", "cmp %v3, %v2", "movge %v5, %v2"],
        ["copy %v10, %v7", "cmp %v7, #0", "rsblt %v10, %v7, #0"],
    ] {
        assert!(
            body.windows(3).any(|w| w == expected),
            "{expected:?} in {body:#?}"
        );
    }
}

#[test]
fn a_select_keeps_its_false_value_first_where_that_is_not_read_after_it() {
    // `best = x > best ? x : best` where the old best was stored before the select and is
    // the join's value on the other path: nothing reads it after the select, so it is
    // copied first and the loaded x moved in under the condition, though x dies there too.
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = alloca i32 x 4
  store %a1, %0
  %1 = icmp slt %a0, 10
  condbr %1, bb1, bb2
bb1:
  %2 = load i32 %0
  %3 = icmp sgt %2, %a1
  %4 = select i32 %3, %2, %a1
  br bb2
bb2:
  %5 = phi i32 [%a1, bb0], [%4, bb1]
  ret %5
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert!(
        body.windows(2).any(|w| w[0].starts_with("copy ")
            && w[0].ends_with(", %v1")
            && w[1].starts_with("cmp ")),
        "{body:#?}"
    );
    assert!(body.iter().any(|l| l.starts_with("movgt ")), "{body:#?}");
}

#[test]
fn a_select_copies_first_a_sum_of_the_loop_value_it_replaces() {
    // `d = min(d + 2, x + i)` round a loop, where nothing reads either value after the
    // select: the sum of the phi is copied first (it can take the phi's register, and the
    // select the sum's) and x + i moved in under the opposite condition; copying x + i
    // first would keep the sum and the phi's value apart.
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  br bb1
bb1:
  %0 = phi i32 [0, bb0], [%3, bb1]
  %i = phi i32 [0, bb0], [%i1, bb1]
  %1 = add %0, 2
  %5 = add %a0, %i
  %2 = icmp slt %1, %5
  %3 = select i32 %2, %1, %5
  %i1 = add %i, 1
  %4 = icmp slt %i1, %a1
  condbr %4, bb1, bb2
bb2:
  ret %3
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    let expected = ["copy %v7, %v4", "cmp %v4, %v5", "movge %v7, %v5"];
    assert!(
        body.windows(3).any(|w| w == expected),
        "{expected:?} in {body:#?}"
    );
}

#[test]
fn a_swap_stores_each_value_under_the_comparison() {
    // The two stores of `if (a[j] > a[j + 1]) swap` after if-to-select: each writes back
    // what its location holds unless the condition holds, so each is a `strgt` of the
    // other value; the first store is apart from the second's location (one step further
    // from the same pointer) and does not spoil what the second's load read.
    let lines = selected(
        "func @f(%a0: ptr) -> void {
bb0:
  %0 = load i32 %a0
  %1 = gep %a0, 4, 1
  %2 = load i32 %1
  %3 = icmp sgt %0, %2
  %4 = select i32 %3, %2, %0
  store %4, %a0
  %5 = select i32 %3, %0, %2
  store %5, %1
  ret
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert_eq!(
        body.iter().filter(|l| l.starts_with("cmp ")).count(),
        1,
        "{body:#?}"
    );
    assert!(body.contains(&"strgt %v3, [%v0]"), "{body:#?}");
    assert!(body.contains(&"strgt %v1, [%v0, #4]"), "{body:#?}");
    assert!(!body.iter().any(|l| l.starts_with("mov")), "{body:#?}");
}

#[test]
fn a_store_of_the_old_value_on_true_is_under_the_opposite_condition() {
    // `t[i] = c ? t[i] : x - 1` stores under `le`, the subtraction with it.
    let lines = selected(
        "func @f(%a0: ptr, %a1: i32, %a2: i32) -> void {
bb0:
  %0 = gep %a0, %a1, 4
  %1 = load i32 %0
  %2 = icmp sgt %1, %a2
  %3 = sub %a2, 1
  %4 = select i32 %2, %1, %3
  store %4, %0
  ret
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert!(body.iter().any(|l| l.starts_with("suble ")), "{body:#?}");
    assert!(body.iter().any(|l| l.starts_with("strle ")), "{body:#?}");
}

#[test]
fn a_store_whose_location_may_have_changed_since_its_load_keeps_the_select() {
    // Between the load of `a0[0]` and its store, a store through another parameter may
    // have written there: the select's old value is no longer what memory holds.
    let lines = selected(
        "func @f(%a0: ptr, %a1: ptr, %a2: i32) -> void {
bb0:
  %0 = load i32 %a0
  store 3, %a1
  %1 = icmp slt %0, %a2
  %2 = select i32 %1, %a2, %0
  store %2, %a0
  ret
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert!(body.iter().any(|l| l.starts_with("movlt ")), "{body:#?}");
    assert!(!body.iter().any(|l| l.starts_with("strlt")), "{body:#?}");
}

#[test]
fn a_store_after_a_store_of_the_old_value_is_under_the_condition() {
    // The block stored `x` to `a0[0]` last: a select of `y` and `x` stored there again
    // writes `y` under the condition and nothing otherwise.
    let lines = selected(
        "func @f(%a0: ptr, %a1: i32, %a2: i32) -> void {
bb0:
  %0 = add %a1, 1
  store %0, %a0
  %1 = icmp slt %a2, %a1
  %2 = select i32 %1, %a2, %0
  store %2, %a0
  ret
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert!(body.iter().any(|l| l.starts_with("strlt ")), "{body:#?}");
    assert!(!body.iter().any(|l| l.starts_with("movlt")), "{body:#?}");
}
