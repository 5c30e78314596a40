//! Lowering of large local initialisers: a long constant initialiser becomes a copy loop
//! from a constant table, so the code does not grow with it, and the array still holds
//! every element (constant or computed) when the program reads it.

mod common;

use frontend::SourceFile;
use middle::ir::Module;

fn lower(text: &str) -> Module {
    let file = SourceFile::new("t.sy", text);
    match frontend::compile(&file) {
        Ok(p) => middle::lower::lower_program(&p),
        Err(ds) => panic!("{}", ds[0].render(&file)),
    }
}

/// A program whose `main` initialises `int a[len]` with `elems` (source text of each
/// element) and prints the weighted sum of the whole array.
fn program(len: usize, elems: &[String]) -> String {
    format!(
        "int main() {{\n  int x = getint();\n  int a[{len}] = {{{}}};\n  int i = 0, s = 0;\n  \
         while (i < {len}) {{ s = (s + a[i] * (i % 5 + 1)) % 100003; i = i + 1; }}\n  \
         putint(s);\n  return 0;\n}}\n",
        elems.join(", ")
    )
}

fn weighted_sum(values: &[i64]) -> i64 {
    values
        .iter()
        .enumerate()
        .fold(0, |s, (i, v)| (s + v * (i as i64 % 5 + 1)) % 100003)
}

#[test]
fn a_long_constant_initialiser_is_copied_from_a_table_by_a_loop() {
    let len = 1000;
    // 600 elements given: constants (some zero, some negative) and, every 50th, `x + k`.
    let mut values = vec![0i64; len];
    let mut elems = Vec::new();
    for (i, value) in values.iter_mut().enumerate().take(600) {
        if i % 50 == 7 {
            elems.push(format!("x + {i}"));
            *value = 4 + i as i64;
        } else {
            let v = (i as i64 * 37) % 201 - 100;
            elems.push(v.to_string());
            *value = v;
        }
    }
    let m = lower(&program(len, &elems));
    let table = m
        .globals
        .iter()
        .find(|g| g.name.starts_with("main.init."))
        .expect("a constant table");
    assert!(table.is_const);
    assert_eq!(table.len, len as u32);
    let nonzero_constants = (0..600).filter(|i| i % 50 != 7 && values[*i] != 0).count();
    assert_eq!(table.init.len(), nonzero_constants);
    let insts = m.functions[0].all_insts().count();
    assert!(
        insts < 120,
        "{insts} instructions for a 1000-element initialiser"
    );
    let out = common::interpret(&m, b"4\n");
    assert_eq!(out, format!("{}\n0\n", weighted_sum(&values)).into_bytes());
}

#[test]
fn a_short_initialiser_keeps_its_element_stores() {
    let elems: Vec<String> = (1..=100).map(|i| i.to_string()).collect();
    let m = lower(&program(200, &elems));
    assert!(m.globals.is_empty(), "{:?}", m.globals);
    let values: Vec<i64> = (1..=100).chain(std::iter::repeat_n(0, 100)).collect();
    let out = common::interpret(&m, b"0\n");
    assert_eq!(out, format!("{}\n0\n", weighted_sum(&values)).into_bytes());
}
