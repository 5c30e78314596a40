//! Split critical edges: an edge from a block with several successors to a block with
//! several predecessors gets a block of its own holding just a branch, so that code for that
//! edge alone (phi copies, when leaving SSA) has a place. A conditional branch with both
//! targets equal becomes an unconditional one.
//!
//! Needs: a verified function. Preserves: behaviour; phis name the new blocks as their
//! incoming blocks.

use crate::analysis::{Cfg, Preserved};
use crate::ir::{Block, Function, InstKind, Type};
use crate::passes::FunctionContext;

pub fn run(f: &mut Function, _: &mut FunctionContext) -> Preserved {
    Preserved::nothing_if(split(f))
}

/// Splits every critical edge of `f`; returns whether anything changed. The back end calls
/// this directly before instruction selection.
pub fn split(f: &mut Function) -> bool {
    let mut changed = false;
    let blocks: Vec<Block> = f.blocks().collect();
    for &b in &blocks {
        if let Some(t) = f.terminator(b) {
            if let InstKind::CondBr {
                targets: [x, y], ..
            } = f.kind(t).clone()
            {
                if x == y {
                    f.replace_kind(t, InstKind::Br { targets: [x] }, Type::Void);
                    changed = true;
                }
            }
        }
    }
    let cfg = Cfg::new(f);
    // (successor, predecessor, new block) for each split edge.
    let mut splits = Vec::new();
    for &b in &blocks {
        let Some(term) = f.terminator(b) else {
            continue;
        };
        let succs = f.kind(term).targets().to_vec();
        if succs.len() < 2 {
            continue;
        }
        for (k, s) in succs.into_iter().enumerate() {
            if cfg.preds(s).len() < 2 {
                continue;
            }
            let mid = f.create_block();
            f.insert_block_after(mid, b);
            f.append_inst(mid, InstKind::Br { targets: [s] }, Type::Void);
            f.kind_mut_targets(term)[k] = mid;
            splits.push((s, b, mid));
            changed = true;
        }
    }
    // One pass over each successor's phis renames all its split edges.
    splits.sort_by_key(|&(s, _, _)| s);
    let mut renamed: Vec<Option<Block>> = vec![None; f.block_capacity()];
    for group in splits.chunk_by(|x, y| x.0 == y.0) {
        let s = group[0].0;
        for &(_, b, mid) in group {
            renamed[b.index()] = Some(mid);
        }
        let phis: Vec<_> = f.phis(s).collect();
        for phi in phis {
            for incoming in f.kind_mut_targets(phi) {
                if let Some(mid) = renamed[incoming.index()] {
                    *incoming = mid;
                }
            }
        }
        for &(_, b, _) in group {
            renamed[b.index()] = None;
        }
    }
    changed
}
