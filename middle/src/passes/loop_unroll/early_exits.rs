//! loop-unroll for a loop of a few rounds known at compile time that can also leave early
//! (a `break`, a `return` in its body, or a test at its top that rotation left there):
//! every round is peeled off in front of it, and folding the now constant counter removes
//! the loop.
//!
//! ```text
//!   P: br H                      P:  br H0
//!   H .. L: the body, with       H0 .. L0: round 0, its exits as the body's; L0: br H1
//!     exits to X, Y, ...         ...
//!   L: br H (or condbr)          Hn .. Ln: round n = the count; Ln: br H
//!                                H .. L: unchanged, entered from Ln
//! ```
//!
//! The count `n` is how many times one of the loop's exiting blocks that dominates its
//! latch lets it go on (`analysis::scev`), a constant: round `n` leaves there, so once the
//! copies' counters are constants the branch of round `n` folds and the loop behind it is
//! unreachable. (Peeling is right whatever the count: the loop finishes what the copies
//! leave.) Each exit's phis take from each copy what they took from the loop block it
//! copies; a value of the loop used after an exit that only the loop enters (`return
//! count;` inside the body) is read through a new phi there, of the value in each copy.
//! Other uses after the loop would need phis at joins of several exits: such loops stay.
//!
//! Needs: the CFG, dominators and the loop forest. Preserves: behaviour (the CFG changes).

use super::copies::{blocks_size, copy_round, entry_values, latch_values};
use super::exit_values::{extend_exit_phis, read_through_exit_phis, reads_after_exits};
use super::MAX_FULLY_UNROLLED;
use crate::analysis::scev::LoopEvolution;
use crate::analysis::{Cfg, DomTree, LoopInfo};
use crate::cost_model::CostModel;
use crate::ir::{Block, Function, Inst, InstKind, Value};
use crate::transform::phi_edits::incoming_index;
use crate::transform::unroll_limit::MAX_FULL_TRIPS;
use crate::transform::value_map::{copied_block, mapped, ValueMap};

/// A loop of several exits to peel round by round: its preheader, header and latch, its
/// blocks, the rounds to peel (the count plus the round that leaves), the size of one
/// round, and the uses of its values after it that need a phi in an exit: (value, user,
/// operand index, exit).
pub(super) struct EarlyExits {
    p: Block,
    h: Block,
    l: Block,
    blocks: Vec<Block>,
    exits: Vec<Block>,
    pub(super) rounds: u32,
    pub(super) size: u32,
    read_after: Vec<(Inst, Inst, usize, Block)>,
}

pub(super) fn early_exits_shape(
    f: &Function,
    costs: &dyn CostModel,
    cfg: &Cfg,
    dom: &DomTree,
    loops: &LoopInfo,
    k: usize,
) -> Option<EarlyExits> {
    let lp = &loops.loops[k];
    if !lp.children.is_empty() || lp.exiting.len() < 2 {
        return None;
    }
    let p = lp.preheader?;
    let &[l] = lp.latches.as_slice() else {
        return None;
    };
    if !matches!(f.kind(f.terminator(p)?), InstKind::Br { .. }) {
        return None;
    }
    let mut evolution = LoopEvolution::new(f, loops, k)?;
    let count = lp.exiting.iter().find_map(|&x| {
        let c = evolution.exit_count(dom, x)?;
        c.guard.is_none().then(|| c.count.as_constant()).flatten()
    })?;
    let count = u32::try_from(count).ok().filter(|&n| n <= MAX_FULL_TRIPS)?;
    let size = blocks_size(f, costs, &lp.blocks, true)?;
    if size.max(1) * (count + 1) > MAX_FULLY_UNROLLED {
        return None;
    }
    let read_after = reads_after_exits(f, cfg, dom, loops, k)?;
    Some(EarlyExits {
        p,
        h: lp.header,
        l,
        blocks: lp.blocks.clone(),
        exits: lp.exits.clone(),
        rounds: count + 1,
        size,
        read_after,
    })
}

pub(super) fn peel_every_round(f: &mut Function, s: &EarlyExits) {
    let phis: Vec<Inst> = f.phis(s.h).collect();
    let mut carried = entry_values(f, &phis, s.p);
    let mut after = s.p;
    // The branch into the next copy and the block it names now: the preheader's jump to
    // the header, then each copy's latch's branch back to its own copy of the header.
    let mut jump = f.terminator(s.p).expect("a preheader ends in a jump");
    let mut named = s.h;
    let mut copies: Vec<(Vec<(Block, Block)>, ValueMap)> = Vec::new();
    for _ in 0..s.rounds {
        let (copy_of, map) = copy_round(f, &s.blocks, after, &phis, Some(&carried));
        after = copy_of.last().map_or(after, |&(_, c)| c);
        let header = copied_block(&copy_of, s.h);
        f.replace_target(jump, named, header);
        carried = latch_values(f, &phis, s.l, &map);
        jump = f
            .terminator(copied_block(&copy_of, s.l))
            .expect("a latch ends in a branch");
        named = header;
        copies.push((copy_of, map));
    }
    // The loop itself runs on from the last copy (and is gone once its tests fold).
    f.replace_target(jump, named, s.h);
    let last_latch = f.inst_block(jump).expect("in a block");
    for (&phi, &v) in phis.iter().zip(&carried) {
        let index = incoming_index(f, phi, s.p);
        f.set_operand(phi, index, v);
        f.kind_mut_targets(phi)[index] = last_latch;
    }
    // Each exit's phis take from each copy of a loop block what they take from the block,
    // and a use after an exit only the loop enters reads a phi there of each copy's value.
    let in_copies = |b: Block, v: Value| -> Vec<(Value, Block)> {
        copies
            .iter()
            .map(|(copy_of, map)| (mapped(v, map), copied_block(copy_of, b)))
            .collect()
    };
    extend_exit_phis(f, &s.exits, &s.blocks, in_copies);
    read_through_exit_phis(f, &s.blocks, &s.read_after, in_copies);
}
