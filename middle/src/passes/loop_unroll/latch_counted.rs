//! An innermost loop of several blocks counted by a phi of its header and tested at its
//! latch (or at its header): the shape both full unrolling (`full_blocks`) and unrolling
//! by a factor (`branching`) start from.

use crate::analysis::LoopInfo;
use crate::ir::{Block, Function, InstKind, Value};
use crate::transform::counter_test::{inclusive_test, MAX_STEP};
use crate::transform::loop_counter::{counter, Counter};

/// An innermost loop of several blocks counted by a phi of its header: its preheader
/// jumps to the header, it has one latch, and the latch tests the stepped counter against
/// a bound (`<`, `<=`; `>`, `>=` counting down), or the header the counter itself. Other
/// blocks may leave it too (`early`).
pub(super) struct LatchCounted {
    pub(super) p: Block,
    pub(super) h: Block,
    pub(super) l: Block,
    /// The block that tests the counter: the latch (the stepped counter), or the header
    /// (the counter itself).
    pub(super) tested: Block,
    /// The block the test leaves to.
    pub(super) e: Block,
    /// The loop's other exiting blocks (a `break`).
    pub(super) early: Vec<Block>,
    pub(super) counter: Counter,
    pub(super) bound: Value,
    pub(super) inclusive: bool,
}

pub(super) fn latch_counted(f: &Function, loops: &LoopInfo, k: usize) -> Option<LatchCounted> {
    let lp = &loops.loops[k];
    let h = lp.header;
    if !lp.children.is_empty() || lp.blocks.len() < 2 {
        return None;
    }
    let p = lp.preheader?;
    let &[l] = lp.latches.as_slice() else {
        return None;
    };
    if !matches!(f.kind(f.terminator(p)?), InstKind::Br { .. }) {
        return None;
    }
    // The latch tests the stepped counter, or else the header tests the counter itself
    // (a `while (i < n)` with a `break` inside, which rotation leaves as it is).
    let tested = if lp.exiting.contains(&l) {
        l
    } else if lp.exiting.contains(&h) {
        h
    } else {
        return None;
    };
    let InstKind::CondBr {
        args: [cond],
        targets,
    } = *f.kind(f.terminator(tested)?)
    else {
        return None;
    };
    let go_on_when = lp.blocks.contains(&targets[0]);
    let e = targets[usize::from(go_on_when)];
    if lp.blocks.contains(&e) {
        return None;
    }
    let early: Vec<Block> = lp
        .exiting
        .iter()
        .copied()
        .filter(|&x| x != tested)
        .collect();
    let InstKind::Icmp { pred, args: [a, b] } = *f.kind(cond.as_inst()?) else {
        return None;
    };
    let (ctr, bound, pred) = f
        .phis(h)
        .filter_map(|phi| counter(f, phi, p, l))
        .find_map(|c| {
            let value = Value::Inst(if tested == l { c.next } else { c.phi });
            if a == value {
                Some((c, b, pred))
            } else if b == value {
                Some((c, a, pred.swapped()))
            } else {
                None
            }
        })?;
    let pred = if go_on_when { pred } else { pred.inverse() };
    let inclusive = inclusive_test(pred, ctr.step)?;
    if !(1..=MAX_STEP.unsigned_abs()).contains(&ctr.step.unsigned_abs()) {
        return None;
    }
    Some(LatchCounted {
        p,
        h,
        l,
        tested,
        e,
        early,
        counter: ctr,
        bound,
        inclusive,
    })
}
