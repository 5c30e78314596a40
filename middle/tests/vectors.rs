//! Vector values in the IR: the text form of every vector instruction, what the verifier
//! refuses, and what the interpreter computes lane by lane.

use middle::ir::{parser::parse_module, printer::print_module, verifier::verify_module};

/// Sums and products of two arrays four elements at a time, a lane inserted and read back,
/// the extremes of a vector, and float lanes with a subnormal product, printed by `main`.
const LANES: &str = "\
@a = global i32 x 8 {0: 1, 1: -2, 2: 3, 3: 2147483647, 4: 5, 5: 6, 6: -7, 7: 8}
@f = global f32 x 4 {0: 1.5, 1: 1.1754944e-38, 2: -0.0, 3: nan:0x7fc00001}

func @main() -> i32 {
bb0:
  %0 = vload v4i32 @a
  %1 = gep @a, 4, 4
  %2 = vload v4i32 %1
  %3 = vadd %0, %2
  %4 = vmul %3, %0
  %5 = splat v4i32 10
  %6 = vsub %4, %5
  %7 = vsmin %6, %2
  %8 = vsmax %6, %2
  vstore %8, @a
  %9 = insertlane v4i32 %7, 100, 2
  %10 = extractlane i32 %9, 2
  %11 = reduce add %9
  %12 = reduce smin %9
  %13 = reduce smax %8
  call void @putint(%10)
  call void @putch(32)
  call void @putint(%11)
  call void @putch(32)
  call void @putint(%12)
  call void @putch(32)
  call void @putint(%13)
  call void @putch(10)
  call void @putarray(8, @a)
  %14 = vload v4f32 @f
  %15 = splat v4f32 0.5
  %16 = vfmul %14, %15
  %17 = vfadd %16, %14
  %18 = vfsub %17, %15
  vstore %18, @f
  call void @putfarray(4, @f)
  br bb1
bb1:
  %19 = phi v4i32 [%9, bb0]
  %20 = extractlane i32 %19, 0
  ret %20
}
";

#[test]
fn every_vector_instruction_round_trips() {
    let m = parse_module(LANES).unwrap();
    verify_module(&m).unwrap();
    assert_eq!(print_module(&m), LANES);
}

#[test]
fn the_interpreter_computes_lane_by_lane() {
    let m = parse_module(LANES).unwrap();
    let mut out = Vec::new();
    let code = middle::interp::run(&m, b"", &mut out, &mut Vec::new(), 1000).unwrap();
    // %0 = 1, -2, 3, 2147483647 and %2 = 5, 6, -7, 8. %3 = %0 + %2 = 6, 4, -4, -2147483641
    // (wrapped); %4 = %3 * %0 = 6, -8, -12, -7 (wrapped); %6 = %4 - 10 = -4, -18, -22, -17.
    // %7 = min(%6, %2) = %6; with lane 2 set to 100: sum 61, least -18.
    // %8 = max(%6, %2) = %2, the greatest lane 8, stored over the first four elements.
    // Floats: 1.5 * 0.5 + 1.5 - 0.5 = 1.75; the product of the smallest normal and 0.5 is
    // subnormal, flushed to 0, then 0 + 1.1754944e-38 - 0.5 = -0.5; -0.0 gives -0.5; a NaN
    // operand gives the default NaN.
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "100 61 -18 8\n\
         8: 5 6 -7 8 5 6 -7 8\n\
         4: 0x1.cp+0 -0x1p-1 -0x1p-1 nan\n"
    );
    assert_eq!(code, -4);
}

fn verifier_error(text: &str) -> String {
    let m = parse_module(text).unwrap();
    verify_module(&m).expect_err("the verifier should reject this")
}

#[test]
fn the_verifier_checks_lane_types() {
    let e = verifier_error("func @f(%a0: ptr) -> void {\nbb0:\n  %0 = vload i32 %a0\n  ret\n}\n");
    assert!(e.contains("vload gives a vector"), "{e}");
    let e = verifier_error(
        "func @f(%a0: ptr) -> void {\nbb0:\n  %0 = vload v4f32 %a0\n  %1 = vadd %0, %0\n  ret\n}\n",
    );
    assert!(e.contains("vadd works on v4i32"), "{e}");
    let e = verifier_error("func @f() -> void {\nbb0:\n  %0 = splat v4f32 1\n  ret\n}\n");
    assert!(
        e.contains("splat makes a vector of its operand's type"),
        "{e}"
    );
    let e = verifier_error(
        "func @f(%a0: ptr) -> void {\nbb0:\n  %0 = vload v4i32 %a0\n  %1 = extractlane f32 %0, 1\n  ret\n}\n",
    );
    assert!(e.contains("extractlane gives a lane of a vector"), "{e}");
    let e = verifier_error(
        "func @f(%a0: ptr) -> void {\nbb0:\n  %0 = vload v4f32 %a0\n  %1 = reduce add %0\n  ret\n}\n",
    );
    assert!(e.contains("reduce add makes a v4i32 an i32"), "{e}");
    let e = verifier_error("func @f(%a0: v4i32) -> void {\nbb0:\n  ret\n}\n");
    assert!(
        e.contains("functions take and return scalars, not vectors"),
        "{e}"
    );
    let e = verifier_error("func @f(%a0: ptr) -> void {\nbb0:\n  vstore 1, %a0\n  ret\n}\n");
    assert!(e.contains("vstore writes a vector"), "{e}");
}

#[test]
fn a_lane_beyond_the_fourth_is_a_parse_error() {
    let e = parse_module(
        "func @f(%a0: ptr) -> void {\nbb0:\n  %0 = vload v4i32 %a0\n  %1 = extractlane i32 %0, 4\n  ret\n}\n",
    )
    .expect_err("lane 4 does not exist");
    assert!(e.contains("lane 4 of a vector of 4 lanes"), "{e}");
}
