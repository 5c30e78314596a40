//! Addresses: an offset beyond the immediate added once for its accesses, a negated index
//! subtracted by the access (`ldr r, [b, -x, lsl #2]`) or by the address computed whole,
//! and a fixed place in a stack array as one stack address that allocation may repeat.

use crate::isel::test_select::selected;

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
