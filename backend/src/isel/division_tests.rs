//! Selection of divisions by constants: a multiplication by the reciprocal, special
//! divisors, a quotient added once folded into the addition, and the sign correction read
//! beside the multiply on a recurrence, or left out for a dividend never negative.

use crate::isel::test_select::selected;

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
