//! What code motion (`gcm`, `licm`, `lcm`) must leave where it is.

use crate::ir::{Function, Inst};

/// Whether code motion must leave `i` in its block and in its place among the memory
/// accesses and calls around it.
pub fn is_pinned(f: &Function, i: Inst) -> bool {
    let op = f.kind(i).opcode();
    op.is_pinned() || op.has_side_effects() || op.reads_memory()
}
