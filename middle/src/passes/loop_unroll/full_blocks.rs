//! loop-unroll for an innermost loop of several blocks with a small known count, whose one
//! latch is its only way out: every round written out in a row after the preheader.

use super::copies::{blocks_size, copy_round, entry_values, latch_values};
use super::latch_counted::latch_counted;
use super::MAX_FULLY_UNROLLED;
use crate::analysis::{Cfg, LoopInfo};
use crate::cost_model::CostModel;
use crate::ir::{Block, Function, Inst, InstKind, Type, Value};
use crate::transform::counter_test::constant_trip_count;
use crate::transform::phi_edits::incoming_index;
use crate::transform::remove_blocks::remove_blocks;
use crate::transform::unroll_limit::MAX_FULL_TRIPS;
use crate::transform::value_map::{copied_block, mapped, ValueMap};

/// A loop of several blocks to unroll fully: its preheader, header, latch and exit, its
/// blocks, the header's phis, the known number of rounds and the size of one round.
pub(super) struct BlocksShape {
    p: Block,
    h: Block,
    l: Block,
    e: Block,
    blocks: Vec<Block>,
    pub(super) trips: u32,
    pub(super) size: u32,
}

/// An innermost loop of several blocks (its body branches: a neighbour skipped, a
/// coordinate wrapped) whose counter runs a known, small number of rounds
/// (`latch_counted`, to a constant), its exit entered from its latch alone.
pub(super) fn blocks_shape(
    f: &Function,
    costs: &dyn CostModel,
    cfg: &Cfg,
    loops: &LoopInfo,
    k: usize,
) -> Option<BlocksShape> {
    let c = latch_counted(f, loops, k)?;
    if c.tested != c.l || cfg.preds(c.e) != [c.l] || !c.early.is_empty() {
        return None;
    }
    let trips = constant_trip_count(c.counter.start, c.bound, c.counter.step, c.inclusive)?;
    let blocks = loops.loops[k].blocks.clone();
    let size = blocks_size(f, costs, &blocks, true)?;
    let fits = trips <= MAX_FULL_TRIPS && size.max(1) * trips <= MAX_FULLY_UNROLLED;
    (trips >= 1 && fits).then_some(BlocksShape {
        p: c.p,
        h: c.h,
        l: c.l,
        e: c.e,
        blocks,
        trips,
        size,
    })
}

/// Writes out every round of loop `k` in a row after its preheader: each copy of the
/// blocks takes the header's values from the round before (the first from the
/// preheader), its latch jumps to the next copy (the last to the exit), and the values
/// used after the loop are the last round's. Later passes fold the constant counters and
/// the tests they decide.
pub(super) fn unroll_blocks_fully(f: &mut Function, loops: &LoopInfo, k: usize, s: &BlocksShape) {
    let phis: Vec<Inst> = f.phis(s.h).collect();
    let mut carried = entry_values(f, &phis, s.p);
    let mut after = s.p;
    let mut jump = f.terminator(s.p).expect("a preheader ends in a jump");
    let mut last = ValueMap::default();
    for _ in 0..s.trips {
        let (copy_of, map) = copy_round(f, &s.blocks, after, &phis, Some(&carried));
        after = copy_of.last().map_or(after, |&(_, c)| c);
        let header = copied_block(&copy_of, s.h);
        f.replace_kind(jump, InstKind::Br { targets: [header] }, Type::Void);
        carried = latch_values(f, &phis, s.l, &map);
        jump = f
            .terminator(copied_block(&copy_of, s.l))
            .expect("a latch ends in a branch");
        last = map;
    }
    f.replace_kind(jump, InstKind::Br { targets: [s.e] }, Type::Void);
    // The exit's phis take the last round's values, from its latch.
    let last_latch = f.inst_block(jump).expect("in a block");
    for phi in f.phis(s.e).collect::<Vec<_>>() {
        let index = incoming_index(f, phi, s.l);
        let x = f.kind(phi).operands()[index];
        f.set_operand(phi, index, mapped(x, &last));
        f.kind_mut_targets(phi)[index] = last_latch;
    }
    let inside = |f: &Function, i: Inst| f.inst_block(i).is_some_and(|b| loops.contains(k, b));
    let values: Vec<Inst> = s.blocks.iter().flat_map(|&b| f.block_insts(b)).collect();
    for v in values {
        let users: Vec<(Inst, usize)> = f
            .uses(Value::Inst(v))
            .iter()
            .filter(|u| !inside(f, u.inst))
            .map(|u| (u.inst, u.index as usize))
            .collect();
        for (user, index) in users {
            f.set_operand(user, index, mapped(Value::Inst(v), &last));
        }
    }
    remove_blocks(f, &s.blocks);
}
