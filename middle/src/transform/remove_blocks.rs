//! Removing blocks: those nothing reaches any more, with their edges taken out of the phis
//! of the blocks that stay.

use crate::analysis::Cfg;
use crate::ir::{Block, Function, Type, Value};
use crate::transform::phi_edits::{Edit, PhiEdits};

/// Removes the blocks the entry does not reach, first taking their edges out of the phis of
/// the blocks it reaches; returns whether there were any.
pub fn remove_unreachable(f: &mut Function, cfg: &Cfg) -> bool {
    let dead: Vec<Block> = f.blocks().filter(|&b| !cfg.is_reachable(b)).collect();
    if dead.is_empty() {
        return false;
    }
    let mut edits = PhiEdits::new(f.block_capacity());
    for &b in &dead {
        for &s in cfg.succs(b) {
            if cfg.is_reachable(s) {
                edits.queue(f, s, Edit::Remove(b));
            }
        }
    }
    edits.flush_all(f);
    remove_blocks(f, &dead);
    true
}

/// Removes `blocks`, which no block outside them reaches any more and whose edges out have
/// been taken from the phis they led to. Their values may still be used by each other, and
/// by nothing else: those uses become `undef` first.
pub fn remove_blocks(f: &mut Function, blocks: &[Block]) {
    for &b in blocks {
        for i in f.block_insts(b).collect::<Vec<_>>() {
            let ty = f.inst(i).ty;
            if ty != Type::Void {
                f.replace_all_uses(Value::Inst(i), Value::Undef(ty));
            }
        }
    }
    for &b in blocks {
        f.remove_block(b);
    }
}
