//! A counted loop of one block, as the passes that run its rounds in blocks see it
//! (loop-unroll by a factor, loop-vectorize four lanes at a time): an innermost loop whose
//! one block is its header and latch, entered from a preheader that jumps to it, left to
//! one exit that only it enters, and tested on its counter: the loop goes on while the
//! stepped counter (plus a small constant) is below a bound (`<`, `<=`; `>`, `>=` counting
//! down).

use super::counter_test::{constant_trip_count, inclusive_test, CounterTest, MAX_STEP};
use crate::analysis::{Cfg, LoopInfo};
use crate::ir::{BinaryOp, Block, Function, Inst, InstKind, Value};

/// A counted loop of one block: preheader, the loop's block, its exit; the counter's
/// stepped value and exit test; the counter's first value.
pub struct OneBlockLoop {
    pub p: Block,
    pub h: Block,
    pub e: Block,
    /// The stepped counter, `phi + step`.
    pub next: Inst,
    pub test: CounterTest,
    pub init: Value,
    /// The trip count, when the start and the bound are constants and the test is of the
    /// stepped counter itself.
    pub trips: Option<u32>,
}

/// Loop `k` as a counted loop of one block, if it is one.
pub fn one_block_loop(f: &Function, cfg: &Cfg, loops: &LoopInfo, k: usize) -> Option<OneBlockLoop> {
    let lp = &loops.loops[k];
    let h = lp.header;
    if lp.blocks != [h] || !lp.children.is_empty() || lp.latches != [h] {
        return None;
    }
    let p = lp.preheader?;
    let &[e] = lp.exits.as_slice() else {
        return None;
    };
    if cfg.preds(e) != [h] || !matches!(f.kind(f.terminator(p)?), InstKind::Br { .. }) {
        return None;
    }
    let InstKind::CondBr {
        args: [cond],
        targets,
    } = *f.kind(f.terminator(h)?)
    else {
        return None;
    };
    let go_on_when = targets[0] == h;
    let InstKind::Icmp { pred, args: [a, b] } = *f.kind(cond.as_inst()?) else {
        return None;
    };
    let (counter, bound, pred) = if offset_step(f, h, a).is_some() {
        (a, b, pred)
    } else {
        (b, a, pred.swapped())
    };
    let (next, step, offset) = offset_step(f, h, counter)?;
    let pred = if go_on_when { pred } else { pred.inverse() };
    let inclusive = inclusive_test(pred, step)?;
    if step < 0 && offset != 0 {
        return None;
    }
    let InstKind::Binary {
        args: [Value::Inst(phi), _],
        ..
    } = *f.kind(next)
    else {
        return None;
    };
    let init = f.phi_incoming(phi, p)?;
    let trips = if offset == 0 {
        constant_trip_count(init, bound, step, inclusive)
    } else {
        None
    };
    Some(OneBlockLoop {
        p,
        h,
        e,
        next,
        test: CounterTest {
            step,
            bound,
            inclusive,
            offset,
        },
        init,
        trips,
    })
}

/// When `v` is the counter's next value `next`, or `next + c` for a constant `0 < c <=
/// MAX_STEP` (also written `i + s + c`, from the phi): `next`'s add, the step and `c` (0
/// for `next` itself).
fn offset_step(f: &Function, h: Block, v: Value) -> Option<(Inst, i32, i32)> {
    if let Some((next, step)) = counter_step(f, h, v) {
        return Some((next, step, 0));
    }
    let InstKind::Binary {
        op: BinaryOp::Add,
        args: [x, Value::Int(c)],
    } = *f.kind(v.as_inst()?)
    else {
        return None;
    };
    // `next + c`, or the phi plus more than its step (value numbering's form of it).
    let (next, step, c) = match counter_step(f, h, x) {
        Some((next, step)) => (next, step, c),
        None => {
            let latch = f.phi_incoming(x.as_inst()?, h)?;
            let (next, step) = counter_step(f, h, latch)?;
            let phi_of_next = matches!(
                *f.kind(next),
                InstKind::Binary { args: [p, _], .. } if p == x
            );
            if !phi_of_next {
                return None;
            }
            (next, step, c.checked_sub(step)?)
        }
    };
    (1..=MAX_STEP).contains(&c).then_some((next, step, c))
}

/// When `v` is `phi + s` in `h` for a phi of `h` taking `v` back from `h` and a constant
/// `0 < |s| <= MAX_STEP`: the add and `s`.
fn counter_step(f: &Function, h: Block, v: Value) -> Option<(Inst, i32)> {
    let next = v.as_inst()?;
    let InstKind::Binary {
        op: BinaryOp::Add,
        args: [Value::Inst(phi), Value::Int(step)],
    } = *f.kind(next)
    else {
        return None;
    };
    let ok = f.inst_block(next) == Some(h)
        && f.inst_block(phi) == Some(h)
        && f.kind(phi).is_phi()
        && f.phi_incoming(phi, h) == Some(v)
        && (1..=MAX_STEP.unsigned_abs()).contains(&step.unsigned_abs());
    ok.then_some((next, step))
}
