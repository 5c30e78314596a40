//! bypass-phi-blocks: a block that holds nothing but phis and a jump, and whose phis only
//! the phis of its target use, is bypassed: its predecessors jump to the target, whose phis
//! take from each of them what the bypassed block's phis took.
//!
//! An `if`/`else if` chain in a loop that changes several variables joins its arms level
//! by level, each join a block of phis, the last one jumping back to the loop header (an
//! interpreter's dispatch loop: `pc`, `sp` and a counter from every instruction's arm).
//! The back end turns phis into copies on the edges into their block, and the copies into
//! the header's phis then sit in that last join, which every arm goes through: one arm
//! whose new `pc` lives beside the old one keeps the allocator from joining the two, and
//! every round pays for the copy. Jumping straight to the header, each arm has copies of
//! its own, and only the arm that needs one keeps it.
//!
//! The target must not already be a successor of any of the block's predecessors (its
//! phis would need two values from one block), nor the block itself. A loop header is
//! reached this way only from inside its loop: preheaders stay. This undoes the single
//! latch that `loop-simplify` makes, so it runs after the loop passes, last. Removing a
//! block leaves the dominance of the others as it was, so one dominator tree serves.
//!
//! Needs: the CFG and the dominator tree. Preserves: behaviour (the CFG changes).

use crate::analysis::{DomTree, Preserved};
use crate::ir::{Block, Function, InstKind, Value};
use crate::passes::FunctionContext;
use crate::transform::remove_blocks::remove_blocks;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let cfg = cx.analyses.cfg(f);
    let dom = cx.analyses.dom(f);
    let mut preds: Vec<Vec<Block>> = (0..f.block_capacity())
        .map(|b| cfg.preds(Block(b as u32)).to_vec())
        .collect();
    let mut worklist: Vec<Block> = cfg.rpo().iter().rev().copied().collect();
    let mut changed = false;
    while let Some(j) = worklist.pop() {
        let Some(s) = bypassable(f, &dom, &preds, j) else {
            continue;
        };
        bypass(f, &preds[j.index()], j, s);
        let from = std::mem::take(&mut preds[j.index()]);
        preds[s.index()].retain(|&p| p != j);
        preds[s.index()].extend(&from);
        worklist.extend(from);
        changed = true;
    }
    Preserved::nothing_if(changed)
}

/// The target of `j` when `j` can be bypassed.
fn bypassable(f: &Function, dom: &DomTree, preds: &[Vec<Block>], j: Block) -> Option<Block> {
    if !f.is_in_layout(j) || f.entry() == Some(j) {
        return None;
    }
    let InstKind::Br { targets: [s] } = *f.kind(f.terminator(j)?) else {
        return None;
    };
    let from = &preds[j.index()];
    if s == j || from.is_empty() || from.iter().any(|p| preds[s.index()].contains(p)) {
        return None;
    }
    // Into a loop header, only from inside the loop: a preheader stays.
    let header = preds[s.index()].iter().any(|&p| dom.dominates(s, p));
    if header && !dom.dominates(s, j) {
        return None;
    }
    // Each predecessor names `j` once: its phis' values from `p` are then one each.
    let names_once = from
        .iter()
        .all(|&p| f.successors(p).iter().filter(|&&b| b == j).count() == 1);
    if !names_once {
        return None;
    }
    let only_phis = f.block_insts(j).all(|i| {
        let kind = f.kind(i);
        kind.is_terminator()
            || (kind.is_phi()
                && f.uses(Value::Inst(i)).iter().all(|u| {
                    f.inst_block(u.inst) == Some(s)
                        && matches!(f.kind(u.inst), InstKind::Phi { blocks, .. }
                            if blocks[u.index as usize] == j)
                }))
    });
    only_phis.then_some(s)
}

/// Sends each of `from`, the predecessors of `j`, to `s`, and removes `j`.
fn bypass(f: &mut Function, from: &[Block], j: Block, s: Block) {
    let phis: Vec<_> = f.phis(s).collect();
    for phi in phis {
        let InstKind::Phi { args, blocks } = f.kind(phi).clone() else {
            continue;
        };
        let mut new_args = Vec::with_capacity(args.len() + from.len());
        let mut new_blocks = Vec::with_capacity(args.len() + from.len());
        for (x, b) in args.into_iter().zip(blocks) {
            if b != j {
                new_args.push(x);
                new_blocks.push(b);
                continue;
            }
            for &p in from {
                let joined = x
                    .as_inst()
                    .filter(|&i| f.inst_block(i) == Some(j))
                    .map_or(x, |i| {
                        f.phi_incoming(i, p).expect(
                            "a phi of the bypassed block takes a value from each predecessor",
                        )
                    });
                new_args.push(joined);
                new_blocks.push(p);
            }
        }
        let ty = f.inst(phi).ty;
        f.replace_kind(
            phi,
            InstKind::Phi {
                args: new_args,
                blocks: new_blocks,
            },
            ty,
        );
    }
    for &p in from {
        let t = f.terminator(p).expect("a predecessor ends in a branch");
        for target in f.kind_mut_targets(t) {
            if *target == j {
                *target = s;
            }
        }
    }
    remove_blocks(f, &[j]);
}
