//! Selection of the bit operations that division by powers of two produces: right shifts as
//! `mov` with a shifted operand, a shift used once by an add or sub folded into it as its
//! flexible second operand, `and` with a mask that only its complement encodes as `bic`, and
//! an addition of a constant that only its negation encodes as a subtraction; and the
//! address of a global used more than once, taken once in the entry block; and selects as
//! conditional moves, with an operation only they use computed under their condition; and
//! multiplications by constants near powers of two as shifts and shift-adds, and products
//! added or subtracted once as `mla` and `mls`; and constants used inside loops, materialised
//! once in the outermost preheader, but in place for phi copies; and two selects clamping a
//! value to `0..2^k-1` as one `usat`; and a quotient by a constant added once, folded into
//! the addition; selects keeping a loop's value copy it first, and an operation under a
//! select's condition reads an earlier select that equals its operand there; and masks
//! compared with zero tested in place; and shifts by a value and `ctz` (`rbit` then `clz`);
//! and float constants that VFP encodes as `vmov.f32` immediates; and a comparison with a
//! constant tested in several blocks, compared again in each; and a select copying first
//! the operand that nothing reads after it; and a negated index subtracted by the access
//! (`ldr r, [b, -x, lsl #2]`) or by the address computed whole; and a fixed place in a stack
//! array as one stack address that allocation may repeat.

use super::select;
use middle::ir::parser::parse_module;

/// The machine IR of the first function of an IR module, one trimmed line per instruction.
fn selected(ir: &str) -> Vec<String> {
    let m = parse_module(ir).expect("the test IR parses");
    let mf = select(&m, &m.functions[0]);
    mf.to_string()
        .lines()
        .filter(|l| l.starts_with('\t'))
        .map(|l| l.trim().to_string())
        .collect()
}

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
fn a_global_used_twice_has_its_address_taken_once_in_the_entry() {
    let m = parse_module(
        "@a = global i32 x 8

func @f(%a0: i32) -> i32 {
bb0:
  br bb1
bb1:
  %1 = phi i32 [0, bb0], [%4, bb1]
  %2 = gep @a, %1, 4
  %3 = load i32 %2
  store %3, %2
  %4 = add %1, 1
  %5 = icmp slt %4, %a0
  condbr %5, bb1, bb2
bb2:
  %6 = gep @a, 0, 4
  %7 = load i32 %6
  ret %7
}
",
    )
    .expect("the test IR parses");
    let text = select(&m, &m.functions[0]).to_string();
    let loop_start = text.find("bb1:").expect("the loop block");
    let taken: Vec<usize> = text.match_indices("movsym").map(|(at, _)| at).collect();
    assert_eq!(taken.len(), 1, "{text}");
    assert!(taken[0] < loop_start, "{text}");
}

#[test]
fn constants_used_in_nested_loops_are_materialised_once_in_the_outer_preheader() {
    let m = parse_module(
        "func @f(%a0: i32) -> i32 {
bb0:
  br bb1
bb1:
  %1 = phi i32 [0, bb0], [%7, bb3]
  br bb2
bb2:
  %2 = phi i32 [7, bb1], [%4, bb2]
  %3 = mul %2, 100000
  %4 = add %3, 123456
  %5 = icmp slt %4, %a0
  condbr %5, bb2, bb3
bb3:
  %6 = mul %4, 100000
  %7 = add %1, %6
  %8 = icmp slt %7, %a0
  condbr %8, bb1, bb4
bb4:
  ret %7
}
",
    )
    .expect("the test IR parses");
    let text = select(&m, &m.functions[0]).to_string();
    let outer = text.find("bb1:").expect("the outer loop");
    let movw: Vec<usize> = text.match_indices("movw").map(|(at, _)| at).collect();
    // 100000 (used twice, in both loops) and 123456, each once, before the outer loop.
    assert_eq!(movw.len(), 2, "{text}");
    assert!(movw.iter().all(|&at| at < outer), "{text}");
    // The phi's 7 is moved into its register where the inner loop starts.
    let inner = text.find("bb2:").expect("the inner loop");
    let seven = text.find("#7").expect("the phi's constant");
    assert!(outer < seven && seven < inner, "{text}");
}

#[test]
fn at_most_sixteen_hoisted_constants_live_through_a_loop() {
    // Forty distinct constants in one loop: sixteen come out, the rest stay at their uses
    // (a deep nest hoisting every level's constants to the outermost preheader made the
    // interference graph quadratic).
    let mut ir = String::from("func @f(%a0: i32) -> i32 {\nbb0:\n  br bb1\nbb1:\n");
    ir.push_str("  %0 = phi i32 [0, bb0], [%40, bb1]\n");
    for k in 1..=40 {
        ir.push_str(&format!("  %{k} = mul %{}, {}\n", k - 1, 100_001 + k));
    }
    ir.push_str("  %41 = icmp slt %40, %a0\n  condbr %41, bb1, bb2\nbb2:\n  ret %40\n}\n");
    let m = parse_module(&ir).expect("the test IR parses");
    let text = select(&m, &m.functions[0]).to_string();
    let loop_start = text.find("bb1:").expect("the loop");
    let before = text[..loop_start].matches("movw").count();
    let inside = text[loop_start..].matches("movw").count();
    assert_eq!((before, inside), (16, 24), "{text}");
}

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
fn multiplications_by_near_powers_of_two_are_shifts() {
    let lines = selected(
        "func @f(%a0: i32) -> i32 {
bb0:
  %0 = mul %a0, 8
  %1 = mul %0, 9
  %2 = mul %1, 7
  %3 = mul %2, 6
  %4 = mul %3, -8
  ret %4
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert!(body.contains(&"mov %v1, %v0, lsl #3"), "{body:#?}");
    assert!(body.contains(&"add %v2, %v1, %v1, lsl #3"), "{body:#?}");
    assert!(body.contains(&"rsb %v3, %v2, %v2, lsl #3"), "{body:#?}");
    // 6 and -8 are none of the forms: a multiply.
    assert_eq!(
        body.iter().filter(|l| l.starts_with("mul ")).count(),
        2,
        "{body:#?}"
    );
}

#[test]
fn a_multiplication_by_a_power_of_two_folds_into_its_add() {
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = mul %a1, 512
  %1 = add %a0, %0
  ret %1
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert!(body.contains(&"add %v3, %v0, %v1, lsl #9"), "{body:#?}");
    assert!(!body.iter().any(|l| l.starts_with("mul ")), "{body:#?}");
}

#[test]
fn a_product_added_or_subtracted_once_is_a_multiply_accumulate() {
    let lines = selected(
        "func @f(%a0: i32, %a1: i32, %a2: i32) -> i32 {
bb0:
  %0 = mul %a0, %a1
  %1 = add %a2, %0
  %2 = mul %a1, %a2
  %3 = sub %1, %2
  %4 = mul %a0, %a2
  %5 = sub %4, %a1
  %6 = mul %a0, 9
  %7 = add %5, %6
  ret %7
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert!(body.contains(&"mla %v4, %v0, %v1, %v2"), "{body:#?}");
    assert!(body.contains(&"mls %v6, %v1, %v2, %v4"), "{body:#?}");
    // a*b - x has no single instruction; a multiplication by 9 is cheaper as a shift-add.
    assert!(body.contains(&"mul %v7, %v0, %v2"), "{body:#?}");
    assert!(body.contains(&"add %v9, %v0, %v0, lsl #3"), "{body:#?}");
}

#[test]
fn division_by_a_constant_multiplies_by_its_reciprocal() {
    let lines = selected(
        "func @f(%a0: i32) -> i32 {
bb0:
  %0 = sdiv %a0, 7
  %1 = srem %a0, 3
  %2 = sub %0, %1
  ret %2
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert!(!body.iter().any(|l| l.starts_with("sdiv")), "{body:#?}");
    // By 7: the magic 0x92492493, plus the dividend, shifted by 2, plus the sign.
    assert!(body.contains(&"movw %v4, #9363"), "{body:#?}");
    assert!(body.contains(&"movt %v4, #37449"), "{body:#?}");
    assert!(body.contains(&"smmul %v5, %v0, %v4"), "{body:#?}");
    assert!(body.contains(&"add %v6, %v5, %v0"), "{body:#?}");
    assert!(body.contains(&"mov %v7, %v6, asr #2"), "{body:#?}");
    assert!(body.contains(&"add %v1, %v7, %v7, lsr #31"), "{body:#?}");
    // Modulo 3: the quotient by 0x55555556 and no shift, then x - q * 3.
    assert!(body.contains(&"smmul %v11, %v0, %v10"), "{body:#?}");
    assert!(body.contains(&"add %v9, %v11, %v11, lsr #31"), "{body:#?}");
    assert!(body.contains(&"mls %v2, %v9, %v8, %v0"), "{body:#?}");
}

#[test]
fn a_quotient_added_once_folds_its_shift_and_sign_into_the_addition() {
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = sdiv %a0, 60
  %1 = add %a1, %0
  %2 = sdiv %a1, 3
  %3 = add %2, %1
  ret %3
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    // By 60: t = mulhs(x, 0x88888889) + x, then a1 + (t asr 5) + (t lsr 31).
    assert!(body.contains(&"add %v8, %v7, %v0"), "{body:#?}");
    assert!(body.contains(&"add %v9, %v1, %v8, asr #5"), "{body:#?}");
    assert!(body.contains(&"add %v3, %v9, %v8, lsr #31"), "{body:#?}");
    // By 3 the magic needs no shift: the quotient is computed, then added.
    assert!(body.contains(&"add %v4, %v11, %v11, lsr #31"), "{body:#?}");
    assert!(body.contains(&"add %v5, %v4, %v3"), "{body:#?}");
}

#[test]
fn division_by_special_constants() {
    let lines = selected(
        "func @f(%a0: i32) -> i32 {
bb0:
  %0 = sdiv %a0, -8
  %1 = sdiv %a0, -2147483648
  %2 = sdiv %a0, 0
  %3 = sdiv %a0, -1
  %4 = add %0, %1
  %5 = add %4, %2
  %6 = add %5, %3
  ret %6
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    // By -8: bias negative dividends by 7, shift by 3, negate.
    assert!(body.contains(&"mov %v8, %v0, asr #31"), "{body:#?}");
    assert!(body.contains(&"add %v9, %v0, %v8, lsr #29"), "{body:#?}");
    assert!(body.contains(&"mov %v10, %v9, asr #3"), "{body:#?}");
    assert!(body.contains(&"rsb %v1, %v10, #0"), "{body:#?}");
    // By INT_MIN: 1 for INT_MIN itself, else 0.
    assert!(body.contains(&"cmp %v0, #2147483648"), "{body:#?}");
    assert!(body.contains(&"moveq %v2, #1"), "{body:#?}");
    // By 0 stays a division (the IR defines its result); by -1 is a negation.
    assert_eq!(
        body.iter().filter(|l| l.starts_with("sdiv")).count(),
        1,
        "{body:#?}"
    );
    assert!(body.contains(&"rsb %v4, %v0, #0"), "{body:#?}");
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
fn a_product_added_on_the_right_is_a_vmla_and_only_that() {
    // `a + x * y` accumulates into a copy of `a`; `x * y + a` (a NaN sum takes its left
    // operand's NaN), `a - x * y` (`vmls` flips a NaN product's sign) and a product used
    // twice keep their `vmul`.
    let lines = selected(
        "func @f(%a0: f32, %a1: f32, %a2: f32) -> f32 {
bb0:
  %0 = fmul %a1, %a2
  %1 = fadd %a0, %0
  %2 = fmul %a1, %a0
  %3 = fadd %2, %1
  %4 = fmul %a2, %a2
  %5 = fsub %3, %4
  %6 = fmul %a0, %a0
  %7 = fadd %5, %6
  %8 = fadd %7, %6
  ret %8
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    let vmla: Vec<&&str> = body.iter().filter(|l| l.starts_with("vmla.f32")).collect();
    assert_eq!(vmla.len(), 1, "{body:#?}");
    assert_eq!(*vmla[0], "vmla.f32 %v4, %v1, %v2", "{body:#?}");
    assert!(body.contains(&"copy %v4, %v0"), "{body:#?}");
    assert_eq!(
        body.iter().filter(|l| l.starts_with("vmul.f32")).count(),
        3,
        "{body:#?}"
    );
}

#[test]
fn a_vmla_takes_an_accumulator_only_a_vmla_or_no_float_arithmetic_computes() {
    // (a + b) + x * y: the sum waits for `vadd`'s result, which the A72 does not forward
    // into an accumulator, so it stays `vmul` and `vadd`; (a + x * y) + z * w chains two
    // `vmla`s, the second's accumulator the first's forwarded result.
    let lines = selected(
        "func @f(%a0: f32, %a1: f32, %a2: f32) -> f32 {
bb0:
  %0 = fadd %a0, %a1
  %1 = fmul %a1, %a2
  %2 = fadd %0, %1
  %3 = fmul %a0, %a2
  %4 = fadd %a1, %3
  %5 = fmul %a2, %a2
  %6 = fadd %4, %5
  %7 = fadd %2, %6
  ret %7
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert_eq!(
        body.iter().filter(|l| l.starts_with("vmla.f32")).count(),
        2,
        "{body:#?}"
    );
    assert_eq!(
        body.iter().filter(|l| l.starts_with("vmul.f32")).count(),
        1,
        "{body:#?}"
    );
    assert!(body.contains(&"vmul.f32 %v4, %v1, %v2"), "{body:#?}");
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

#[test]
fn a_constant_stays_out_of_loops_beside_its_own() {
    // The outer loop holds two inner loops; 100000 serves only the second. Hoisted before
    // the outer loop it would live through the first inner loop too: it goes to the second
    // inner loop's preheader instead, inside the outer loop.
    let m = parse_module(
        "func @f(%a0: i32) -> i32 {
bb0:
  br bb1
bb1:
  %1 = phi i32 [0, bb0], [%9, bb5]
  br bb2
bb2:
  %2 = phi i32 [0, bb1], [%3, bb2]
  %3 = add %2, 1
  %4 = icmp slt %3, %a0
  condbr %4, bb2, bb3
bb3:
  br bb4
bb4:
  %5 = phi i32 [%3, bb3], [%7, bb4]
  %6 = mul %5, 100000
  %7 = add %6, 1
  %8 = icmp slt %7, %a0
  condbr %8, bb4, bb5
bb5:
  %9 = add %1, %7
  %10 = icmp slt %9, %a0
  condbr %10, bb1, bb6
bb6:
  ret %9
}
",
    )
    .expect("the test IR parses");
    let text = select(&m, &m.functions[0]).to_string();
    let between = text.find("bb3:").expect("the second loop's preheader");
    let second = text.find("bb4:").expect("the second inner loop");
    let movw: Vec<usize> = text.match_indices("movw").map(|(at, _)| at).collect();
    assert_eq!(movw.len(), 1, "{text}");
    assert!(between < movw[0] && movw[0] < second, "{text}");
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

#[test]
fn a_negative_divisor_takes_the_sign_of_its_quotient() {
    let lines = selected(
        "func @f(%a0: i32) -> i32 {
bb0:
  %0 = sdiv %a0, -5
  ret %0
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    // By -5: the quotient's sign is the opposite of the dividend's, so it is read from the
    // shifted product.
    assert!(body.contains(&"smmul %v3, %v0, %v2"), "{body:#?}");
    assert!(body.contains(&"mov %v4, %v3, asr #1"), "{body:#?}");
    assert!(body.contains(&"add %v1, %v4, %v4, lsr #31"), "{body:#?}");
}

#[test]
fn an_offset_beyond_the_immediate_is_added_once_for_its_accesses() {
    let lines = selected(
        "func @f(%a0: ptr) -> i32 {
bb0:
  %0 = gep %a0, 5120, 1
  %1 = load i32 %0
  %2 = add %1, 1
  store %2, %0
  %3 = gep %a0, 5004, 1
  %4 = load i32 %3
  %5 = gep %a0, 200, 4
  %6 = load i32 %5
  %7 = add %4, %6
  ret %7
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    // 5120 is an immediate of `add`, read and written: one add for both accesses.
    assert!(body.contains(&"add %v1, %v0, #5120"), "{body:#?}");
    assert!(body.contains(&"ldr %v2, [%v1]"), "{body:#?}");
    assert!(body.contains(&"str %v3, [%v1]"), "{body:#?}");
    // 5004 is no immediate and read once: the access takes it from a register of its own
    // (not ip, which allocation may use).
    assert!(body.contains(&"movw %v9, #5004"), "{body:#?}");
    assert!(body.contains(&"ldr %v5, [%v0, %v9]"), "{body:#?}");
    // 800 is within reach.
    assert!(body.contains(&"ldr %v7, [%v0, #800]"), "{body:#?}");
}

#[test]
fn a_division_on_a_recurrence_reads_the_sign_beside_the_multiply() {
    // The carry comes back to the dividend round the loop: its quotient by 10000 subtracts
    // the dividend's sign (`asr #31`, ready before the product) from the shifted product,
    // one instruction after the multiply; the remainder, on no recurrence, keeps the
    // quotient's own sign.
    let lines = selected(
        "func @f(%a0: ptr, %a1: i32) -> i32 {
bb0:
  br bb1
bb1:
  %0 = phi i32 [0, bb0], [%6, bb1]
  %1 = phi i32 [0, bb0], [%5, bb1]
  %2 = gep %a0, %0, 4
  %3 = load i32 %2
  %4 = add %3, %1
  %5 = sdiv %4, 10000
  %7 = srem %3, 10000
  store %7, %2
  %6 = add %0, 1
  %8 = icmp slt %6, %a1
  condbr %8, bb1, bb2
bb2:
  ret %5
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    let smmuls: Vec<usize> = (0..body.len())
        .filter(|&k| body[k].starts_with("smmul"))
        .collect();
    assert_eq!(smmuls.len(), 2, "{body:#?}");
    // After the carry's product: the dividend's sign, then the corrected quotient.
    let carry = smmuls[0];
    assert!(body[carry + 1].ends_with(", asr #31"), "{body:#?}");
    assert!(
        body[carry + 2].starts_with("rsb ") && body[carry + 2].ends_with(", asr #12"),
        "{body:#?}"
    );
    // After the remainder's: the shift, then its own sign.
    let rem = smmuls[1];
    assert!(body[rem + 1].ends_with(", asr #12"), "{body:#?}");
    assert!(body[rem + 2].ends_with(", lsr #31"), "{body:#?}");
}

#[test]
fn a_division_of_a_value_never_negative_has_no_sign_correction() {
    // %2 is a counter from 0 below 1000 (value ranges): its quotient by 7 is the shifted
    // product alone, and the quotient added to the sum takes it as the shifted operand of
    // the addition, with no `lsr #31` of its sign. %4 may be negative and keeps it.
    let lines = selected(
        "func @f(%a0: i32) -> i32 {
bb0:
  br bb1
bb1:
  %0 = phi i32 [0, bb0], [%5, bb1]
  %2 = phi i32 [0, bb0], [%6, bb1]
  %3 = sdiv %2, 7
  %4 = sub %a0, %2
  %7 = sdiv %4, 7
  %8 = add %3, %7
  %5 = add %0, %8
  %6 = add %2, 1
  %9 = icmp slt %6, 1000
  condbr %9, bb1, bb2
bb2:
  ret %5
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    let signs = body.iter().filter(|l| l.ends_with(", lsr #31")).count();
    assert_eq!(signs, 1, "{body:#?}");
    assert_eq!(
        body.iter().filter(|l| l.starts_with("smmul")).count(),
        2,
        "{body:#?}"
    );
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
fn float_constants_that_vfp_encodes_are_immediates() {
    // 2.0 and -0.375 fit `vmov.f32`'s immediate; 0.1 and 0.0 are built in a core register.
    let lines = selected(
        "func @f(%a0: f32) -> f32 {
bb0:
  %0 = fmul %a0, 2.0
  %1 = fadd %0, -0.375
  %2 = fmul %1, 0.1
  %3 = fadd %2, 0.0
  ret %3
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    for line in [
        "vmov.f32 %v5, #2.0",
        "vmov.f32 %v6, #-0.375",
        "movw %v8, #52429",
        "mov %v10, #0",
    ] {
        assert!(body.contains(&line), "{line} in {body:#?}");
    }
    assert_eq!(body.iter().filter(|l| l.starts_with("vmov %")).count(), 2);
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
fn a_constant_is_built_once_per_block_outside_loops() {
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = sdiv %a0, 3
  %1 = sdiv %a1, 3
  %2 = add %0, %1
  %3 = mul %2, 1000
  %4 = mul %a0, 1000
  %5 = add %3, %4
  ret %5
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    // Both divisions by 3 multiply by the one magic number 0x55555556, both products by
    // one 1000.
    let built = |text: &str| body.iter().filter(|l| l.contains(text)).count();
    assert_eq!(built("movw %v"), 1, "{body:#?}");
    assert_eq!(built("#21846"), 1, "{body:#?}");
    assert_eq!(built("mov %v"), 1, "{body:#?}");
}

#[test]
fn a_constant_far_down_the_block_is_built_again() {
    // 74565 (0x12345) is no immediate: two adds of it 30 instructions apart each build it,
    // rather than hold it live through the block.
    let lines = selected(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %1 = add %a0, 74565
  %2 = add %1, %a1
  %3 = add %2, %a1
  %4 = add %3, %a1
  %5 = add %4, %a1
  %6 = add %5, %a1
  %7 = add %6, %a1
  %8 = add %7, %a1
  %9 = add %8, %a1
  %10 = add %9, %a1
  %11 = add %10, %a1
  %12 = add %11, %a1
  %13 = add %12, %a1
  %14 = add %13, %a1
  %15 = add %14, %a1
  %16 = add %15, %a1
  %17 = add %16, %a1
  %18 = add %17, %a1
  %19 = add %18, %a1
  %20 = add %19, %a1
  %21 = add %20, %a1
  %22 = add %21, %a1
  %23 = add %22, %a1
  %24 = add %23, %a1
  %25 = add %24, %a1
  %26 = add %25, %a1
  %27 = add %26, %a1
  %28 = add %27, %a1
  %29 = add %28, %a1
  %30 = add %29, %a1
  %31 = add %30, %a1
  %32 = add %31, 74565
  ret %32
}
",
    );
    let built = lines.iter().filter(|l| l.contains("#9029")).count();
    assert_eq!(built, 2, "{lines:#?}");
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
fn scalars_of_one_section_are_reached_from_its_anchor() {
    let m = parse_module(
        "@count = global i32 x 1
@limit = global i32 x 1
@table = global i32 x 4 {0: 5}

func @f() -> i32 {
bb0:
  %1 = load i32 @count
  %2 = add %1, 1
  store %2, @count
  %3 = load i32 @limit
  %4 = gep @table, 2, 4
  %5 = load i32 %4
  %6 = add %3, %5
  ret %6
}
",
    )
    .expect("the test IR parses");
    let text = select(&m, &m.functions[0]).to_string();
    // One address for the two zero-initialised scalars (`count` is .bss's anchor, `limit`
    // lies 8 bytes after it) and one for the initialised table, the anchor of .data.
    let register_of = |sym: &str| {
        let line = text
            .lines()
            .find(|l| l.contains("movsym") && l.ends_with(&format!(", {sym}")))
            .unwrap_or_else(|| panic!("no address of {sym}: {text}"));
        line.trim()["movsym ".len()..line.trim().len() - sym.len() - 2].to_string()
    };
    let (bss, data) = (register_of("count"), register_of("table"));
    assert_eq!(text.matches("movsym").count(), 2, "{text}");
    assert!(text.contains(&format!("str %v1, [{bss}]")), "{text}");
    assert!(text.contains(&format!("[{bss}, #8]")), "{text}");
    assert!(text.contains(&format!("[{data}, #8]")), "{text}");
}

/// The selected code of `@f`, whose body (from its entry block on) is given, in a module of
/// two arrays `@row` and `@col` of 9 words and a function `@g` that `@f` may call.
fn select_caller_of_row_and_col(body: &str) -> String {
    let text = format!(
        "@row = global i32 x 9
@col = global i32 x 9

func @g() -> void {{
bb0:
  ret
}}

func @f(%a0: i32) -> i32 {{
{body}}}
"
    );
    let m = parse_module(&text).expect("the test IR parses");
    select(&m, &m.functions[1]).to_string()
}

#[test]
fn elements_at_one_index_outside_loops_of_a_caller_are_reached_from_one_address() {
    let text = select_caller_of_row_and_col(
        "bb0:
  call void @g()
  %1 = gep @row, %a0, 4
  %2 = load i32 %1
  %3 = gep @col, %a0, 4
  %4 = load i32 %3
  %5 = add %2, %4
  ret %5
",
    );
    // `row` is the anchor and `col` lies 40 bytes after it: one address for the pair, the
    // anchor's element `[anchor, x, lsl #2]`, `col`'s from `add t, anchor, x, lsl #2`.
    assert_eq!(text.matches("movsym").count(), 1, "{text}");
    assert_eq!(text.matches(", lsl #2]").count(), 1, "{text}");
    assert_eq!(text.matches(", lsl #2\n").count(), 1, "{text}");
    assert!(text.contains(", #40]"), "{text}");
}

#[test]
fn elements_in_a_loop_are_read_from_each_global_s_own_address() {
    let text = select_caller_of_row_and_col(
        "bb0:
  br bb1
bb1:
  %1 = phi i32 [0, bb0], [%7, bb1]
  %2 = phi i32 [0, bb0], [%6, bb1]
  call void @g()
  %3 = gep @row, %1, 4
  %4 = load i32 %3
  %5 = gep @col, %1, 4
  %8 = load i32 %5
  %9 = add %4, %8
  %6 = add %2, %9
  %7 = add %1, 1
  %10 = icmp slt %7, %a0
  condbr %10, bb1, bb2
bb2:
  ret %6
",
    );
    // In a loop the registers likely hold each address: `ldr r, [a, i, lsl #2]`, no add.
    assert_eq!(text.matches("movsym").count(), 2, "{text}");
    assert_eq!(text.matches(", lsl #2]").count(), 2, "{text}");
    assert!(!text.contains(", #40]"), "{text}");
}

#[test]
fn a_row_outside_loops_of_a_caller_is_a_multiply_add_on_the_anchor() {
    // `@row` is the anchor (indexed twice); `@grid`'s row `x` is `mla` on the anchor's
    // register and an add of the 40 bytes between them, with no address of its own.
    let m = parse_module(
        "@row = global i32 x 10
@grid = global i32 x 30

func @g() -> void {
bb0:
  ret
}

func @f(%a0: i32) -> i32 {
bb0:
  call void @g()
  %1 = gep @row, %a0, 4
  %2 = load i32 %1
  %3 = gep @row, %2, 4
  %4 = load i32 %3
  %5 = gep @grid, %a0, 12
  %6 = gep %5, 2, 4
  %7 = load i32 %6
  %8 = add %4, %7
  ret %8
}
",
    )
    .expect("the test IR parses");
    let text = select(&m, &m.functions[1]).to_string();
    assert_eq!(text.matches("movsym").count(), 1, "{text}");
    assert!(text.contains("mla "), "{text}");
    assert!(text.contains(", #40\n"), "{text}");
    assert!(!text.contains("grid"), "{text}");
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
fn a_negated_index_is_subtracted_by_the_access_or_by_the_address() {
    let lines = selected(
        "func @f(%a0: ptr, %a1: i32, %a2: f32) -> i32 {
bb0:
  %0 = sub 0, %a1
  %1 = gep %a0, %0, 4
  %2 = load i32 %1
  store %2, %1
  store %a2, %1
  ret %2
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    for expected in [
        "ldr %v5, [%v0, -%v1, lsl #2]",
        "str %v5, [%v0, -%v1, lsl #2]",
        "sub %v4, %v0, %v1, lsl #2",
        "vstr %v2, [%v4]",
    ] {
        assert!(body.contains(&expected), "{expected} in {body:#?}");
    }
    assert!(!body.iter().any(|l| l.starts_with("rsb")), "{body:#?}");
}

#[test]
fn a_fixed_place_in_a_stack_array_is_one_stack_address() {
    let lines = selected(
        "func @f(%a0: ptr) -> i1 {
bb0:
  %0 = alloca i32 x 80
  %1 = gep %0, 20, 4
  %2 = icmp ne %a0, %1
  ret %2
}
",
    );
    let body: Vec<&str> = lines.iter().map(String::as_str).collect();
    // One instruction that allocation may repeat at each use instead of keeping it live.
    let address: Vec<&&str> = body.iter().filter(|l| l.starts_with("slotaddr")).collect();
    assert_eq!(address.len(), 1, "{body:#?}");
    assert_eq!(*address[0], "slotaddr %v1, [local0, #80]", "{body:#?}");
    assert!(!body.iter().any(|l| l.starts_with("add")), "{body:#?}");
}
