//! For the unit tests of instruction selection: the machine IR that it makes of IR text.

use super::select;
use middle::ir::parser::parse_module;

/// The machine IR of the first function of an IR module, one trimmed line per instruction.
pub fn selected(ir: &str) -> Vec<String> {
    let m = parse_module(ir).expect("the test IR parses");
    let mf = select(&m, &m.functions[0]);
    mf.to_string()
        .lines()
        .filter(|l| l.starts_with('\t'))
        .map(|l| l.trim().to_string())
        .collect()
}
