//! Global addresses: the address of a global used more than once, taken once in the entry
//! block; the globals of a section reached from its anchor, elements at one index from one
//! address, a row as a multiply-add on the anchor, and in loops each global's own address.

use crate::isel::select;
use middle::ir::parser::parse_module;

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
