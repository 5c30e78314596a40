//! Copies of instructions inside one function, for the passes that duplicate code (loop
//! rotation and unrolling): a map from original instructions to the values that stand for
//! them in the copy, and an instruction's kind with its operands renamed through it.

use crate::fast_hash::FastHashMap;
use crate::ir::{Function, Inst, InstKind, Value};

/// What stands for each original instruction in a copy.
pub type ValueMap = FastHashMap<Inst, Value>;

/// `x`, or what stands for it in the copy.
pub fn mapped(x: Value, at: &ValueMap) -> Value {
    match x.as_inst().and_then(|i| at.get(&i)) {
        Some(&y) => y,
        None => x,
    }
}

/// The kind of instruction `i` with its operands renamed through `at`.
pub fn mapped_kind(f: &Function, i: Inst, at: &ValueMap) -> InstKind {
    let mut kind = f.kind(i).clone();
    for x in kind.operands_mut() {
        *x = mapped(*x, at);
    }
    kind
}
