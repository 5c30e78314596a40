//! Selection of multiplications: by constants near powers of two as shifts and
//! shift-adds, and products added or subtracted once as `mla`, `mls` and `vmla.f32`.

use crate::isel::test_select::selected;

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
