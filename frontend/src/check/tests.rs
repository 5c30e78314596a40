//! Checker unit tests on small programs: initialiser flattening, folding, conversions.

use crate::consteval::ConstValue::{self, Float as F, Int as I};
use crate::hir::{ExprKind, Program, Stmt};
use crate::source::SourceFile;
use crate::types::Type;
use sysy_runtime::Scalar;

fn checked(text: &str) -> Program {
    let file = SourceFile::new("t.sy", text);
    match crate::compile(&file) {
        Ok(p) => p,
        Err(ds) => panic!("{}", ds[0].render(&file)),
    }
}

fn global_init(decl: &str) -> Vec<(u32, ConstValue)> {
    let p = checked(&format!("{decl}\nint main() {{ return 0; }}"));
    p.globals[0].init.clone()
}

#[test]
fn nested_braces_align_to_sub_array_boundaries() {
    // {3} starts where no row starts, so it initialises the single element a[0][2].
    assert_eq!(
        global_init("int a[2][3] = {1, 2, {3}, 4, 5};"),
        [(0, I(1)), (1, I(2)), (2, I(3)), (3, I(4)), (4, I(5))]
    );
    // After four scalars, the braces take the whole next 2x2 block a[1].
    assert_eq!(
        global_init("int a[2][2][2] = {1, 2, 3, 4, {5}};"),
        [(0, I(1)), (1, I(2)), (2, I(3)), (3, I(4)), (4, I(5))]
    );
    assert_eq!(
        global_init("int a[3][2] = {{1}, {}, {5, 6}};"),
        [(0, I(1)), (4, I(5)), (5, I(6))]
    );
    assert_eq!(
        global_init("int a[2][2][2] = {{1, {2}}, 3};"),
        [(0, I(1)), (1, I(2)), (4, I(3))]
    );
}

#[test]
fn braces_that_take_a_whole_block_leave_no_room_after_it() {
    let file = SourceFile::new(
        "t.sy",
        "int a[2][2][2] = {1, 2, 3, 4, {5}, 6};\nint main() { return 0; }",
    );
    let errors = crate::compile(&file).unwrap_err();
    assert_eq!(
        errors[0].headline(&file),
        "t.sy:1:36: error: excess elements in array initializer"
    );
}

#[test]
fn zero_elements_are_dropped_from_global_data() {
    assert_eq!(global_init("int a[4] = {0, 7, 0};"), [(1, I(7))]);
    assert_eq!(global_init("float f[2] = {-0.0, 0};"), [(0, F(-0.0))]);
}

#[test]
fn initialisers_convert_to_the_element_type() {
    assert_eq!(
        global_init("float f[2] = {1, 2.5};"),
        [(0, F(1.0)), (1, F(2.5))]
    );
    assert_eq!(
        global_init("int a[2] = {1.9, -1.9};"),
        [(0, I(1)), (1, I(-1))]
    );
    assert_eq!(global_init("int x = 7 / 2 + 0x10 + 010;"), [(0, I(27))]);
}

#[test]
fn constants_fold_through_const_scalars_and_arrays() {
    let p = checked(
        "const int N = 2 + 3, T[3] = {N, N * 2};\nconst float H = 0x1p-1;\n\
         int a[T[1] - N];\nfloat g = H * N;\nint main() { return 0; }",
    );
    // T is a global constant array; `a` has T[1] - N = 5 elements.
    assert_eq!(p.globals[1].ty, Type::Array(Scalar::Int, vec![5]));
    assert_eq!(p.globals[2].init, [(0, F(2.5))]);
}

#[test]
fn local_const_arrays_become_globals() {
    let p = checked("int main() { const int t[2] = {4, 5}; int i = 1; return t[i]; }");
    assert_eq!(p.globals.len(), 1);
    assert!(p.globals[0].is_const);
    assert_eq!(p.globals[0].name, "main.t.0");
}

#[test]
fn starttime_gets_its_line_number() {
    let p = checked("int main() {\n\n  starttime();\n  return 0;\n}");
    let Stmt::Expr(call) = &p.functions[0].body[0] else {
        panic!("expected a call")
    };
    let ExprKind::Call(_, args) = &call.kind else {
        panic!("expected a call")
    };
    assert_eq!(args[0].as_const(), Some(I(3)));
}

#[test]
fn mixed_arithmetic_converts_the_int_operand() {
    let p = checked("int main() { int i = 2; float f = i * 1.5; return f; }");
    let Stmt::Init(_, crate::hir::LocalInit::Scalar(e)) = &p.functions[0].body[1] else {
        panic!("expected an initialiser")
    };
    let ExprKind::Binary(_, l, _) = &e.kind else {
        panic!("expected a multiplication")
    };
    assert!(matches!(l.kind, ExprKind::Convert(Scalar::Float, _)));
    assert_eq!(e.ty, Type::Float);
}

#[test]
fn an_array_with_a_rejected_size_is_still_declared() {
    let text = "int n = 3;\nint main() {\n  int a[n];\n  a[0] = 1;\n  int b[0][2];\n  b[0][1] = a[0];\n  return b[0][1];\n}\n";
    let file = SourceFile::new("t.sy", text);
    let Err(ds) = crate::compile(&file) else {
        panic!("accepted");
    };
    let shown: Vec<String> = ds.iter().map(|d| d.render(&file)).collect();
    assert_eq!(ds.len(), 2, "{shown:#?}");
    assert!(
        shown.iter().all(|d| !d.contains("undeclared")),
        "{shown:#?}"
    );
}
