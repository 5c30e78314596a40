//! Where constants are built: used inside loops, once in the outermost preheader (at most
//! sixteen living through a loop, none through a sibling loop that does not use them);
//! outside loops, once per few instructions of a block; and float constants that VFP
//! encodes as `vmov.f32` immediates.

use crate::isel::select;
use crate::isel::test_select::selected;
use middle::ir::parser::parse_module;

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
