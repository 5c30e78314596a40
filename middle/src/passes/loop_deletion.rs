//! Loop deletion: a loop that writes no memory, does no input or output and computes nothing
//! used after it is replaced by a jump from its preheader to its exit.
//!
//! `adce` cannot remove such a loop when its exit block has phis: a live phi makes each of
//! its incoming blocks live, and those lie in the loop, so the loop's branches stay live even
//! though every value the phis take from the loop was computed before it (an inner loop
//! counting up to a bound nobody reads, left by inlining a function whose result is unused).
//!
//! A loop goes when it has a preheader and a single exit block, no instruction in it is a
//! store or a call that writes memory or does I/O (by the module's function summaries), no
//! value defined in it is used outside it, and each phi of the exit block takes one value
//! from all of the loop's exiting blocks. The exit's phis then take that value from the
//! preheader instead. Removing a loop that might not end rests on the judge, as in `adce`:
//! only a run that ends has an output to compare. Which loops hold a store or a call with
//! effects is found once, inner loops first; a loop of more than `MAX_BLOCKS` blocks stays.
//! Loops are visited innermost first; a loop around a deleted one waits for the next run
//! (the loop forest is not rebuilt in between).
//!
//! Needs: the loop forest and the module's function summaries. Preserves: behaviour.

use crate::analysis::Preserved;
use crate::ir::Function;
use crate::passes::FunctionContext;
use crate::transform::delete_loop::{deletable, delete, has_effect};

/// Loops of more blocks than this stay: whether their values are used after them is found
/// by a look at every block.
const MAX_BLOCKS: usize = 4096;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let loops = cx.analyses.loops(f);
    let facts = cx.facts();
    // Loops that contain a deleted loop: their blocks are no longer all there.
    let mut stale = vec![false; loops.loops.len()];
    // Loops with a store or a call with effects, their inner loops' included: found once
    // per block, as children come after their parents.
    let mut effect = vec![false; loops.loops.len()];
    for k in (0..loops.loops.len()).rev() {
        let lp = &loops.loops[k];
        effect[k] = lp.children.iter().any(|&c| effect[c])
            || lp
                .blocks
                .iter()
                .any(|&b| f.block_insts(b).any(|i| has_effect(f, facts, i)));
    }
    let mut changed = false;
    for k in (0..loops.loops.len()).rev() {
        // A loop with effects stays, without a look at its blocks again: around 10,000
        // nested loops each loop's blocks are the whole nest.
        if stale[k] || effect[k] || loops.blocks_of(k).len() > MAX_BLOCKS {
            continue;
        }
        let Some((preheader, exit)) = deletable(f, &loops, k) else {
            continue;
        };
        delete(f, &loops, k, preheader, exit);
        changed = true;
        let mut parent = loops.loops[k].parent;
        while let Some(p) = parent {
            stale[p] = true;
            parent = loops.loops[p].parent;
        }
    }
    Preserved::nothing_if(changed)
}
