//! loop-unroll: a counted loop of one block runs its
//! body `k` times per test, and the original loop finishes the last few iterations; a loop
//! of a few rounds known at compile time becomes its bodies in a row.
//!
//! ```text
//!   P: ...; br H                   P:  ...; lim = n - e, or MIN if that wraps
//!   H: phis; body;                     condbr init < lim, PU, PH
//!      i' = i + s                  PU: br U
//!      condbr i' < n, H, E         U:  phis; body(i); body(i + s); ...; body(i + (k-1)s)
//!   E: ...                             condbr i + ks < lim, U, C
//!                                  C:  condbr i + ks < n, PH, E
//!                                  PH: phis of H's phis, from P and from C; br H
//!                                  H:  unchanged: the remainder, one body per test
//!                                  E:  phis of H's values used after the loop, from H and C
//! ```
//!
//! The loop runs its body, steps its counter `i` by a constant `s > 0` and goes on while
//! `i' < n` (or `i' <= n`: `d = 1`) for an invariant `n`. A block of `k` bodies from `i`
//! skips the tests `i + s < n + d`, ..., `i + (k-1)s < n + d`; they all hold, without
//! wrapping, exactly when `i < n - e` with `e = (k-1)s - d >= 0`. Where `n - e` would wrap
//! below `i32::MIN`, no counter passes and `lim` is `MIN`. `i + ks < lim` implies the
//! loop's own test, so U repeats only when the loop would go on and the next block's
//! skipped tests hold; otherwise C makes the loop's test and H goes on from there.
//! The test may be on `i' + c` for a constant `c > 0` instead (`j + 1 < n` in a loop
//! stepping `j` by 2, which value numbering writes `j + 3` from the phi): `e` grows by `c`,
//! and C adds `c` to the counter before its test.
//!
//! A loop counting down (`s < 0`, going on while `i' > n` or `i' >= n`) is the mirror
//! image: `e = (k-1)|s| - d`, `lim = n + e` (`MAX` where that wraps), and U repeats while
//! `i + ks > lim`.
//!
//! A loop whose start and bound are constants and whose trip count is at most
//! `MAX_FULL_TRIPS` (and its bodies together at most `MAX_FULLY_UNROLLED`) is unrolled
//! fully: P jumps to one block of all its bodies in a row, which jumps to
//! E, and the loop goes; its values after it are the last body's, and later passes fold the
//! now constant counters and addresses.
//!
//! Only innermost loops of one block with a preheader, a single exit that is theirs alone,
//! no call, and a bound that the loops around them do not read from memory qualify,
//! unless the counter starts at a run-time value that the loop around does not change.
//! `k` is 8, 4 or 2 by the body's size in machine instructions (`MAX_UNROLLED` at most in
//! U), at most the trip count when that is a known constant, and a function grows by at
//! most `MAX_GROWTH` instructions. Later passes fold the copies' counters (`i + s + s` is
//! `i + 2s`) and their addresses into immediate offsets.
//!
//! An innermost loop of several blocks (a body that branches: a neighbour skipped, a
//! coordinate wrapped) with such a known count unrolls fully too when its one latch is its
//! only way out: each round's copy of the blocks jumps from its latch to the next round's
//! header, and the last to E. After the first, `MAX_NEST_ROUNDS` rounds of the analysis
//! unroll the loops that this leaves innermost (the `dx` loop around a `dy` loop). Such a
//! loop that can also leave early (a `break`, a `return`, a test at its top) has every
//! round peeled in front of it instead (`early_exits`).
//!
//! Needs: the CFG and the loop forest. Preserves: behaviour (the CFG changes).

mod branching;
mod early_exits;

use crate::analysis::{Cfg, DomTree, LoopInfo, Preserved};
use crate::cost_model::inst_size;
use crate::ir::{BinaryOp, Block, Function, Inst, InstKind, IntPred, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::canonical_loops::canonicalize_loops;
use crate::transform::cfg_cleanup::clean_up_cfg;
use crate::transform::fold_constants::fold_constants;
use crate::transform::loop_counter::{counter, Counter};
use crate::transform::remove_blocks::remove_blocks;
use crate::transform::trivial_phis;
use crate::transform::unroll_limit::MAX_FULL_TRIPS;
use crate::transform::value_map::{
    copied_block, copy_blocks, copy_insts, mapped, mapped_kind, ValueMap,
};
use branching::{branching_shape, unroll_branching};
use early_exits::{early_exits_shape, peel_every_round};

/// The most machine instructions the bodies of an unrolled loop may take together.
const MAX_UNROLLED: u32 = 128;
/// The most instructions unrolling may add to one function.
const MAX_GROWTH: u32 = 4_000;
/// The largest factor for a loop whose bound the loops around compute afresh: its limit
/// and extra tests are paid on every entry, and four bodies already take most of the gain.
const MAX_FACTOR_CHANGING_BOUND: u32 = 4;
/// The most instructions looked at to tell whether a bound is read from memory.
const MAX_BOUND_SEARCH: usize = 32;
/// The most machine instructions the bodies of a fully unrolled loop may take together:
/// more than `MAX_UNROLLED`, as the copies' counters and addresses become constants.
const MAX_FULLY_UNROLLED: u32 = 256;
/// The largest counter step handled (so that `(k-1)s` stays far from wrapping).
const MAX_STEP: i32 = 1 << 16;
/// How many levels of a nest of small loops of several blocks unroll in one run.
const MAX_NEST_ROUNDS: usize = 3;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let mut growth = 0;
    let mut changed = unroll_one_block_loops(f, cx, &mut growth);
    let mut nests = false;
    // Loops of several blocks, innermost first: a nest of small loops unrolls level by
    // level, each round seeing the loops the last one left.
    for _ in 0..MAX_NEST_ROUNDS {
        if changed {
            cx.analyses.invalidate(Preserved::Nothing);
        }
        let cfg = cx.analyses.cfg(f);
        let dom = cx.analyses.dom(f);
        let loops = cx.analyses.loops(f);
        let mut unrolled = false;
        for k in 0..loops.loops.len() {
            if let Some(s) = blocks_shape(f, &cfg, &loops, k) {
                let added = s.size * (s.trips - 1);
                if growth + added > MAX_GROWTH {
                    continue;
                }
                growth += added;
                unroll_blocks_fully(f, &loops, k, &s);
                unrolled = true;
            } else if let Some(s) = early_exits_shape(f, &cfg, &dom, &loops, k) {
                let added = s.size * s.rounds;
                if growth + added > MAX_GROWTH {
                    continue;
                }
                growth += added;
                peel_every_round(f, &s);
                unrolled = true;
            }
        }
        if !unrolled {
            break;
        }
        changed = true;
        nests = true;
    }
    if nests {
        clean_up(f, cx);
    }
    changed |= unroll_branching_loops(f, cx, &mut growth);
    Preserved::nothing_if(changed)
}

/// Unrolls by a factor the counted loops whose bodies branch; returns whether it changed
/// anything.
fn unroll_branching_loops(f: &mut Function, cx: &mut FunctionContext, growth: &mut u32) -> bool {
    let cfg = cx.analyses.cfg(f);
    let dom = cx.analyses.dom(f);
    let loops = cx.analyses.loops(f);
    let facts = cx.facts();
    let mut changed = false;
    // The exits of the loops unrolled so far, which have new predecessors (the copies)
    // that the CFG does not know of.
    let mut entered: Vec<Block> = Vec::new();
    for k in 0..loops.loops.len() {
        if loops.loops[k].exits.iter().any(|x| entered.contains(x)) {
            continue;
        }
        let Some(s) = branching_shape(f, facts, &cfg, &dom, &loops, k) else {
            continue;
        };
        let added = s.size * s.factor;
        if *growth + added > MAX_GROWTH {
            continue;
        }
        *growth += added;
        entered.extend(&loops.loops[k].exits);
        unroll_branching(f, s);
        changed = true;
    }
    changed
}

/// After loops of several blocks unrolled: each round's counter is a constant now, so fold
/// it and the tests it decides, drop the arms that no longer run and the phis left with one
/// value, and give the loops left their preheaders again. Functions without such loops
/// are left as they are.
fn clean_up(f: &mut Function, cx: &mut FunctionContext) {
    cx.analyses.invalidate(Preserved::Nothing);
    let folded = fold_constants(f);
    cx.analyses.invalidate(Preserved::cfg_if(folded));
    let cleaned = clean_up_cfg(f);
    cx.analyses.invalidate(Preserved::nothing_if(cleaned));
    let removed = trivial_phis::remove_all(f, cx.analyses);
    cx.analyses.invalidate(Preserved::cfg_if(removed));
    let canonical = canonicalize_loops(f, cx.analyses);
    cx.analyses.invalidate(Preserved::nothing_if(canonical));
}

/// Unrolls the loops of one block (partly, or fully for a small known count); returns
/// whether it changed anything.
fn unroll_one_block_loops(f: &mut Function, cx: &mut FunctionContext, growth: &mut u32) -> bool {
    let cfg = cx.analyses.cfg(f);
    let loops = cx.analyses.loops(f);
    let mut changed = false;
    for k in 0..loops.loops.len() {
        let Some(s) = shape(f, &cfg, &loops, k) else {
            continue;
        };
        let added = s.body_size * (s.factor - 1);
        if *growth + added > MAX_GROWTH {
            continue;
        }
        *growth += added;
        if s.full {
            unroll_fully(f, &s);
        } else {
            unroll(f, &s);
        }
        changed = true;
    }
    changed
}

/// A loop to unroll: preheader, the loop's one block, its exit; the counter phi and its
/// step (negative when it counts down); the bound and whether the test is `<=` (`>=`); the
/// counter's first value; the factor and the body's size.
struct Shape {
    p: Block,
    h: Block,
    e: Block,
    next: Inst,
    test: CounterTest,
    init: Value,
    factor: u32,
    body_size: u32,
    /// The trip count, when it is a known constant (then at least the factor).
    trips: Option<u32>,
    /// The factor is the trip count, a constant: the loop goes, its bodies in a row.
    full: bool,
}

fn shape(f: &Function, cfg: &Cfg, loops: &LoopInfo, k: usize) -> Option<Shape> {
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
    let changing_bound = bound_changes(f, loops, k, bound, init)?;
    let mut body_size = 0;
    for i in f.block_insts(h) {
        let kind = f.kind(i);
        if matches!(kind, InstKind::Call { .. } | InstKind::Alloca { .. }) {
            return None;
        }
        if !kind.is_phi() && !kind.is_terminator() {
            body_size += inst_size(kind);
        }
    }
    let trips = if offset == 0 {
        constant_trip_count(init, bound, step, inclusive)
    } else {
        None
    };
    let full =
        trips.is_some_and(|t| t <= MAX_FULL_TRIPS && body_size.max(1) * t <= MAX_FULLY_UNROLLED);
    let mut factor = [8, 4, 2]
        .into_iter()
        .filter(|&k| !changing_bound || k <= MAX_FACTOR_CHANGING_BOUND)
        .find(|&k| body_size.max(1) * k <= MAX_UNROLLED)?;
    match trips {
        Some(t) if full => factor = t,
        Some(t) => {
            while factor > t {
                factor /= 2;
            }
        }
        None => {}
    }
    (factor >= 2).then_some(Shape {
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
        factor,
        body_size,
        trips,
        full,
    })
}

/// Whether loop `k` may unroll for its bound and its counter's start, and if so whether
/// the loops around it change the bound (then its limit is paid on every entry).
fn bound_changes(
    f: &Function,
    loops: &LoopInfo,
    k: usize,
    bound: Value,
    init: Value,
) -> Option<bool> {
    let block_of = |v: Value| v.as_inst().and_then(|i| f.inst_block(i));
    // The bound is fixed for the loop itself: defined before it.
    if block_of(bound).is_some_and(|b| loops.knows(b) && loops.contains(k, b)) {
        return None;
    }
    // A bound read from memory afresh for each entry (a row's length in a sparse matrix)
    // often makes few rounds, and the limit and the extra tests would be paid on every
    // entry: such a loop is left alone.
    let mut outermost = k;
    while let Some(parent) = loops.loops[outermost].parent {
        outermost = parent;
    }
    // A block added by unrolling another loop in this run (fully unrolled bodies, which
    // may compute this bound) counts as inside.
    let defined_inside =
        |v: Value| block_of(v).is_some_and(|b| !loops.knows(b) || loops.contains(outermost, b));
    // Unless the counter starts at a run-time value that the loop around does not change
    // (a knapsack's capacity, counting down to an item's weight): then the loop spans the
    // problem's size, not a datum's.
    let parent = loops.loops[k].parent;
    let spans_the_problem = block_of(init)
        .is_some_and(|b| loops.knows(b) && parent.is_none_or(|q| !loops.contains(q, b)));
    if read_inside(f, bound, &defined_inside) && !spans_the_problem {
        return None;
    }
    Some(defined_inside(bound))
}

/// Whether `v`, defined in the loops around (`inside`), is a load there, or computed from
/// one there (phis aside, at most `MAX_BOUND_SEARCH` instructions looked at): a bound the
/// data decides (a row's end in a sparse matrix), not the loops' own arithmetic (`n - 1 -
/// i`, `min(l + w, n)` of random `l` and `w`).
fn read_inside(f: &Function, v: Value, inside: &dyn Fn(Value) -> bool) -> bool {
    let mut seen: Vec<Inst> = Vec::new();
    let mut work = vec![v];
    while let Some(v) = work.pop() {
        let Some(i) = v.as_inst().filter(|_| inside(v)) else {
            continue;
        };
        if seen.contains(&i) {
            continue;
        }
        if seen.len() == MAX_BOUND_SEARCH {
            return true;
        }
        seen.push(i);
        match f.kind(i) {
            InstKind::Load { .. } | InstKind::Call { .. } => return true,
            // A counter of the loops around, or a value they carry.
            InstKind::Phi { .. } => {}
            kind => work.extend(kind.operands().iter().copied()),
        }
    }
    false
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

/// Whether a test that goes on while `pred` holds of the stepped counter and the bound is
/// inclusive (`<=`, or `>=` counting down); `None` for a test that does not bound a counter
/// stepping by `step`.
fn inclusive_test(pred: IntPred, step: i32) -> Option<bool> {
    match (pred, step > 0) {
        (IntPred::Slt, true) | (IntPred::Sgt, false) => Some(false),
        (IntPred::Sle, true) | (IntPred::Sge, false) => Some(true),
        _ => None,
    }
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

/// The number of times the body runs when the counter starts at a constant and the bound is
/// one, unless the counter would wrap before the test fails.
fn constant_trip_count(init: Value, bound: Value, step: i32, inclusive: bool) -> Option<u32> {
    let (Value::Int(init), Value::Int(n)) = (init, bound) else {
        return None;
    };
    // Counting down is counting up the negated counter to the negated bound, where the
    // counter wraps past -MIN instead of MAX.
    let (init, n, step, top) = if step > 0 {
        (init as i64, n as i64, step as i64, i32::MAX as i64)
    } else {
        (
            -(init as i64),
            -(n as i64),
            -(step as i64),
            -(i32::MIN as i64),
        )
    };
    let end = n + inclusive as i64;
    if end - 1 + step > top {
        return None;
    }
    let span = end - init;
    let trips = if span > 0 {
        (span + step - 1) / step
    } else {
        1
    };
    Some(trips.min(u32::MAX as i64) as u32)
}

/// The phis and the body of a loop of one block `h`, and the uses of its values after it
/// other than by E's phis from H.
#[allow(clippy::type_complexity)]
fn loop_values(f: &Function, h: Block) -> (Vec<Inst>, Vec<Inst>, Vec<(Inst, Inst, usize)>) {
    let phis: Vec<Inst> = f.phis(h).collect();
    let body: Vec<Inst> = f
        .block_insts(h)
        .filter(|&i| !f.kind(i).is_phi() && !f.kind(i).is_terminator())
        .collect();
    (phis, body, uses_after(f, &[h]))
}

/// The uses of the values of a loop with these blocks after it, other than by a phi for
/// an edge from it: (value, user, operand index).
fn uses_after(f: &Function, blocks: &[Block]) -> Vec<(Inst, Inst, usize)> {
    let mut after = Vec::new();
    for &b in blocks {
        for v in f.block_insts(b) {
            for u in f.uses(Value::Inst(v)) {
                let at = match f.kind(u.inst) {
                    InstKind::Phi { blocks: from, .. } => from[u.index as usize],
                    _ => f.inst_block(u.inst).expect("a user is in a block"),
                };
                if !blocks.contains(&at) {
                    after.push((v, u.inst, u.index as usize));
                }
            }
        }
    }
    after
}

/// The uses of loop `k`'s values after it other than by a phi for an edge from it, each
/// with the exit that dominates it and that only the loop enters (where a phi of the
/// value in each copy can go): (value, user, operand index, exit). `None` when a use has
/// no such exit (it follows a join of several exits).
fn reads_after_exits(
    f: &Function,
    cfg: &Cfg,
    dom: &DomTree,
    loops: &LoopInfo,
    k: usize,
) -> Option<Vec<(Inst, Inst, usize, Block)>> {
    let lp = &loops.loops[k];
    let inside = |b: Block| loops.knows(b) && loops.contains(k, b);
    let dedicated = |x: Block| cfg.preds(x).iter().all(|&b| inside(b));
    let mut read_after = Vec::new();
    for (v, user, index) in uses_after(f, &lp.blocks) {
        let at = match f.kind(user) {
            InstKind::Phi { blocks: from, .. } => from[index],
            _ => f.inst_block(user)?,
        };
        // A block another loop's unrolling added in this run: the analyses do not know it.
        if !loops.knows(at) {
            return None;
        }
        let x = lp
            .exits
            .iter()
            .copied()
            .find(|&x| dedicated(x) && dom.dominates(x, at))?;
        read_after.push((v, user, index, x));
    }
    Some(read_after)
}

/// Gives each phi of the loop's `exits`, for each of its values from one of the loop's
/// `blocks`, that value from the blocks that `others` names for that block (its copies,
/// with what the value is there).
fn extend_exit_phis(
    f: &mut Function,
    exits: &[Block],
    blocks: &[Block],
    others: impl Fn(Block, Value) -> Vec<(Value, Block)>,
) {
    for &x in exits {
        for phi in f.phis(x).collect::<Vec<_>>() {
            let InstKind::Phi { args, blocks: from } = f.kind(phi).clone() else {
                unreachable!("a phi");
            };
            for (v, b) in args.into_iter().zip(from) {
                if !blocks.contains(&b) {
                    continue;
                }
                for (value, other) in others(b, v) {
                    f.add_phi_incoming(phi, value, other);
                }
            }
        }
    }
}

/// Points each use in `read_after` (`reads_after_exits`) at a phi, made once per value and
/// exit, at the start of its exit `x`: from each of the loop's `blocks` that leaves to `x`
/// the value itself, and from the blocks that `others` names for that block (as for
/// `extend_exit_phis`) the value they give.
fn read_through_exit_phis(
    f: &mut Function,
    blocks: &[Block],
    read_after: &[(Inst, Inst, usize, Block)],
    others: impl Fn(Block, Value) -> Vec<(Value, Block)>,
) {
    let mut merged: Vec<((Inst, Block), Value)> = Vec::new();
    for &(v, user, index, x) in read_after {
        let phi = match merged.iter().find(|(key, _)| *key == (v, x)) {
            Some(&(_, phi)) => phi,
            None => {
                let (mut args, mut from) = (Vec::new(), Vec::new());
                for &b in blocks {
                    let leaves = f
                        .terminator(b)
                        .is_some_and(|t| f.kind(t).targets().contains(&x));
                    if !leaves {
                        continue;
                    }
                    args.push(Value::Inst(v));
                    from.push(b);
                    for (value, other) in others(b, Value::Inst(v)) {
                        args.push(value);
                        from.push(other);
                    }
                }
                let ty = f.inst(v).ty;
                debug_assert!(ty != Type::Void, "a value used after the loop");
                let kind = InstKind::Phi { args, blocks: from };
                let phi = Value::Inst(f.prepend_inst(x, kind, ty));
                merged.push(((v, x), phi));
                phi
            }
        };
        f.set_operand(user, index, phi);
    }
}

/// Copies `body` to the end of `to` once per round, each round's phis the previous round's
/// latch values (the first round's: `at` as given); `at` ends describing the last round.
fn copy_rounds(
    f: &mut Function,
    h: Block,
    phis: &[Inst],
    body: &[Inst],
    rounds: u32,
    to: Block,
    at: &mut ValueMap,
) {
    for round in 0..rounds {
        if round > 0 {
            let latch = latch_values(f, phis, h, at);
            for (&phi, v) in phis.iter().zip(latch) {
                at.insert(phi, v);
            }
        }
        for &i in body {
            let kind = mapped_kind(f, i, at);
            let ty = f.inst(i).ty;
            at.insert(i, Value::Inst(f.append_inst(to, kind, ty)));
        }
    }
}

/// Full unrolling: P jumps to one block F holding every round, which jumps to E; the loop
/// goes, and its values after it are the last round's.
fn unroll_fully(f: &mut Function, s: &Shape) {
    let (p, h, e) = (s.p, s.h, s.e);
    let (phis, body, after) = loop_values(f, h);
    let fb = f.create_block();
    f.insert_block_after(fb, p);
    let mut at = ValueMap::default();
    for &phi in &phis {
        at.insert(phi, f.phi_incoming(phi, p).expect("from the preheader"));
    }
    copy_rounds(f, h, &phis, &body, s.factor, fb, &mut at);
    f.append_inst(fb, InstKind::Br { targets: [e] }, Type::Void);
    let term_p = f.terminator(p).expect("a preheader ends in br");
    f.replace_kind(term_p, InstKind::Br { targets: [fb] }, Type::Void);
    for phi in f.phis(e).collect::<Vec<_>>() {
        let index = incoming_index(f, phi, h);
        let x = f.kind(phi).operands()[index];
        f.set_operand(phi, index, mapped(x, &at));
        f.kind_mut_targets(phi)[index] = fb;
    }
    for (v, user, index) in after {
        f.set_operand(user, index, mapped(Value::Inst(v), &at));
    }
    f.remove_block(h);
}

fn unroll(f: &mut Function, s: &Shape) {
    let (p, h, e) = (s.p, s.h, s.e);
    let (phis, body, after) = loop_values(f, h);

    let term_p = f.terminator(p).expect("a preheader ends in br");
    let lim = s.test.limit(f, s.factor, term_p);
    let [pu, u, c, ph] = [(); 4].map(|_| f.create_block());
    f.insert_block_after(pu, p);
    f.insert_block_after(u, pu);
    f.insert_block_after(c, u);
    f.insert_block_after(ph, c);
    let frame = Frame {
        p,
        h,
        exiting: h,
        e,
        pu,
        c,
        ph,
        lim,
        test: s.test,
        always: s.trips.is_some(),
    };
    frame.enter(f, s.init);
    let before = s.test.before();
    f.append_inst(pu, InstKind::Br { targets: [u] }, Type::Void);

    // U: the bodies one after another, each copy's phis the previous copy's latch values.
    let mut at = ValueMap::default();
    let mut u_phis = Vec::with_capacity(phis.len());
    for &phi in &phis {
        let ty = f.inst(phi).ty;
        let copy = f.append_inst(u, empty_phi(), ty);
        at.insert(phi, Value::Inst(copy));
        u_phis.push(copy);
    }
    copy_rounds(f, h, &phis, &body, s.factor, u, &mut at);
    let last = latch_values(f, &phis, h, &at);
    for ((&phi, &copy), &v) in phis.iter().zip(&u_phis).zip(&last) {
        let first = f.phi_incoming(phi, p).expect("from the preheader");
        f.add_phi_incoming(copy, first, pu);
        f.add_phi_incoming(copy, v, u);
    }
    let counter = at[&s.next];
    let again = f.append_inst(u, InstKind::icmp(before, counter, lim), Type::I1);
    let branch = InstKind::CondBr {
        args: [Value::Inst(again)],
        targets: [u, c],
    };
    f.append_inst(u, branch, Type::Void);

    frame.leave(f, counter, &phis, &last, after, &at);
}

/// Where a block of copies of a loop's body sits: P, which enters PU (its way into the
/// copies) or PH; C after the last copy, which makes the loop's own test, to PH or E; PH,
/// which gives H (the original loop, finishing the last rounds) its entry values; and E,
/// which `exiting` (H, or the latch) leaves to.
struct Frame {
    p: Block,
    h: Block,
    exiting: Block,
    e: Block,
    pu: Block,
    c: Block,
    ph: Block,
    lim: Value,
    test: CounterTest,
    /// The trip count is known (at least the factor): the copies are entered for sure. A
    /// constant start and bound alone do not make it so (the count is unknown where a
    /// counter would wrap).
    always: bool,
}

impl Frame {
    /// P's branch: into PU, for sure or while `init` is before the limit.
    fn enter(&self, f: &mut Function, init: Value) {
        let term_p = f.terminator(self.p).expect("a preheader ends in br");
        let branch = if self.always {
            InstKind::Br { targets: [self.pu] }
        } else {
            let enter = InstKind::icmp(self.test.before(), init, self.lim);
            let enter = Value::Inst(f.insert_inst_before(term_p, enter, Type::I1));
            InstKind::CondBr {
                args: [enter],
                targets: [self.pu, self.ph],
            }
        };
        f.replace_kind(term_p, branch, Type::Void);
    }

    /// C's test of the last copy's stepped `counter`; PH's phis for H's `phis`, of what the
    /// last copy takes back to them (`last`); E's phis, and phis of E for the loop's values
    /// used after it otherwise (`after`), taking from C what `at` (the last copy's) maps
    /// them to.
    fn leave(
        &self,
        f: &mut Function,
        counter: Value,
        phis: &[Inst],
        last: &[Value],
        after: Vec<(Inst, Inst, usize)>,
        at: &ValueMap,
    ) {
        let (e, c, ph) = (self.e, self.c, self.ph);
        let go_on = self.test.append(f, c, counter);
        let branch = InstKind::CondBr {
            args: [Value::Inst(go_on)],
            targets: [ph, e],
        };
        f.append_inst(c, branch, Type::Void);
        self.enter_remainder(f, phis, last);
        let e_phis: Vec<Inst> = f.phis(e).collect();
        for phi in e_phis {
            if let Some(x) = f.phi_incoming(phi, self.exiting) {
                f.add_phi_incoming(phi, mapped(x, at), c);
            }
        }
        let mut merged = ValueMap::default();
        for (v, user, index) in after {
            let phi = *merged.entry(v).or_insert_with(|| {
                let kind = InstKind::Phi {
                    args: vec![Value::Inst(v), mapped(Value::Inst(v), at)],
                    blocks: vec![self.exiting, c],
                };
                let ty = f.inst(v).ty;
                Value::Inst(f.prepend_inst(e, kind, ty))
            });
            f.set_operand(user, index, phi);
        }
    }

    /// PH's phis for H's `phis`: the first values from P (unless the copies are entered
    /// for sure), what the last copy takes back to them (`last`) from C; PH jumps to H.
    fn enter_remainder(&self, f: &mut Function, phis: &[Inst], last: &[Value]) {
        let (p, h, c, ph) = (self.p, self.h, self.c, self.ph);
        for (&phi, &v) in phis.iter().zip(last) {
            let first = f.phi_incoming(phi, p).expect("from the preheader");
            let ty = f.inst(phi).ty;
            let (args, blocks) = if self.always {
                (vec![v], vec![c])
            } else {
                (vec![first, v], vec![p, c])
            };
            let kind = InstKind::Phi { args, blocks };
            let entry = f.append_inst(ph, kind, ty);
            let index = incoming_index(f, phi, p);
            f.set_operand(phi, index, Value::Inst(entry));
            f.kind_mut_targets(phi)[index] = ph;
        }
        f.append_inst(ph, InstKind::Br { targets: [h] }, Type::Void);
    }
}

/// The exit test of a counted loop: the counter steps by `step` (negative when it counts
/// down), and the loop goes on while `i' + offset < bound` (`<=` when inclusive; `>` and
/// `>=` counting down).
#[derive(Clone, Copy)]
struct CounterTest {
    step: i32,
    bound: Value,
    inclusive: bool,
    /// A constant `0 <= offset <= MAX_STEP` (`j + 1 < n` in a loop stepping `j` by 2).
    offset: i32,
}

impl CounterTest {
    /// The comparison of a counter with the limit of a block of bodies: `<`, or `>`
    /// counting down.
    fn before(&self) -> IntPred {
        if self.step > 0 {
            IntPred::Slt
        } else {
            IntPred::Sgt
        }
    }

    /// The loop's own test of the stepped `counter`, appended to block `b`.
    fn append(&self, f: &mut Function, b: Block, counter: Value) -> Inst {
        let pred = match (self.inclusive, self.step > 0) {
            (false, true) => IntPred::Slt,
            (true, true) => IntPred::Sle,
            (false, false) => IntPred::Sgt,
            (true, false) => IntPred::Sge,
        };
        let tested = if self.offset == 0 {
            counter
        } else {
            let kind = InstKind::binary(BinaryOp::Add, counter, Value::Int(self.offset));
            Value::Inst(f.append_inst(b, kind, Type::I32))
        };
        f.append_inst(b, InstKind::icmp(pred, tested, self.bound), Type::I1)
    }

    /// `lim` for `factor` bodies per test, built before `before` in the preheader when the
    /// bound is not a constant: `n - e`, or `n + e` counting down, clamped to the end of
    /// `i32` that it would wrap past.
    fn limit(&self, f: &mut Function, factor: u32, before: Inst) -> Value {
        let e = (factor as i64 - 1) * self.step.unsigned_abs() as i64 - self.inclusive as i64
            + self.offset as i64;
        let (delta, end, fits) = if self.step > 0 {
            (-e, i32::MIN, IntPred::Sge)
        } else {
            (e, i32::MAX, IntPred::Sle)
        };
        match self.bound {
            Value::Int(n) => {
                let lim = n as i64 + delta;
                Value::Int(lim.clamp(i32::MIN as i64, i32::MAX as i64) as i32)
            }
            n if e == 0 => n,
            n => {
                let moved = InstKind::binary(BinaryOp::Add, n, Value::Int(delta as i32));
                let moved = Value::Inst(f.insert_inst_before(before, moved, Type::I32));
                let edge = Value::Int((end as i64 - delta) as i32);
                let fits = InstKind::icmp(fits, n, edge);
                let fits = Value::Inst(f.insert_inst_before(before, fits, Type::I1));
                let kind = InstKind::Select {
                    args: [fits, moved, Value::Int(end)],
                };
                Value::Inst(f.insert_inst_before(before, kind, Type::I32))
            }
        }
    }
}

/// What each of a header's `phis` takes from its preheader `p`.
fn entry_values(f: &Function, phis: &[Inst], p: Block) -> Vec<Value> {
    phis.iter()
        .map(|&phi| f.phi_incoming(phi, p).expect("from the preheader"))
        .collect()
}

/// What each of a header's `phis` takes back from `latch`, in the copy that `at` describes.
fn latch_values(f: &Function, phis: &[Inst], latch: Block, at: &ValueMap) -> Vec<Value> {
    phis.iter()
        .map(|&phi| mapped(f.phi_incoming(phi, latch).expect("from the latch"), at))
        .collect()
}

/// A copy of a loop's `blocks` laid out after block `after`: each original block with its
/// copy, and what stands for each original instruction there. With `carried`, the header's
/// `phis` are not copied: the copy takes those values for them (the round before's).
fn copy_round(
    f: &mut Function,
    blocks: &[Block],
    after: Block,
    phis: &[Inst],
    carried: Option<&[Value]>,
) -> (Vec<(Block, Block)>, ValueMap) {
    let copy_of = copy_blocks(f, blocks, after);
    let mut map = copy_insts(f, &copy_of);
    for (&phi, &v) in phis.iter().zip(carried.unwrap_or_default()) {
        let copy = map[&phi].as_inst().expect("a copied phi");
        f.replace_all_uses(Value::Inst(copy), v);
        f.remove_inst(copy);
        map.insert(phi, v);
    }
    (copy_of, map)
}

pub(super) fn incoming_index(f: &Function, phi: Inst, from: Block) -> usize {
    match f.kind(phi) {
        InstKind::Phi { blocks, .. } => blocks
            .iter()
            .position(|&b| b == from)
            .expect("an incoming pair from the block"),
        _ => unreachable!("a phi"),
    }
}

fn empty_phi() -> InstKind {
    InstKind::Phi {
        args: Vec::new(),
        blocks: Vec::new(),
    }
}

/// A loop of several blocks to unroll fully: its preheader, header, latch and exit, its
/// blocks, the header's phis, the known number of rounds and the size of one round.
struct BlocksShape {
    p: Block,
    h: Block,
    l: Block,
    e: Block,
    blocks: Vec<Block>,
    trips: u32,
    size: u32,
}

/// An innermost loop of several blocks counted by a phi of its header: its preheader
/// jumps to the header, it has one latch, and the latch tests the stepped counter against
/// a bound (`<`, `<=`; `>`, `>=` counting down), or the header the counter itself. Other
/// blocks may leave it too (`early`).
struct LatchCounted {
    p: Block,
    h: Block,
    l: Block,
    /// The block that tests the counter: the latch (the stepped counter), or the header
    /// (the counter itself).
    tested: Block,
    /// The block the test leaves to.
    e: Block,
    /// The loop's other exiting blocks (a `break`).
    early: Vec<Block>,
    counter: Counter,
    bound: Value,
    inclusive: bool,
}

fn latch_counted(f: &Function, loops: &LoopInfo, k: usize) -> Option<LatchCounted> {
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

/// The machine instructions of `blocks` besides phis and branches; `None` when one of them
/// allocates, or calls where `calls` is false.
fn blocks_size(f: &Function, blocks: &[Block], calls: bool) -> Option<u32> {
    let mut size = 0;
    for &b in blocks {
        for i in f.block_insts(b) {
            let kind = f.kind(i);
            let call = matches!(kind, InstKind::Call { .. });
            if matches!(kind, InstKind::Alloca { .. }) || call && !calls {
                return None;
            }
            if !kind.is_phi() && !kind.is_terminator() {
                size += inst_size(kind);
            }
        }
    }
    Some(size)
}

/// An innermost loop of several blocks (its body branches: a neighbour skipped, a
/// coordinate wrapped) whose counter runs a known, small number of rounds
/// (`latch_counted`, to a constant), its exit entered from its latch alone.
fn blocks_shape(f: &Function, cfg: &Cfg, loops: &LoopInfo, k: usize) -> Option<BlocksShape> {
    let c = latch_counted(f, loops, k)?;
    if c.tested != c.l || cfg.preds(c.e) != [c.l] || !c.early.is_empty() {
        return None;
    }
    let trips = constant_trip_count(c.counter.start, c.bound, c.counter.step, c.inclusive)?;
    let blocks = loops.loops[k].blocks.clone();
    let size = blocks_size(f, &blocks, true)?;
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
fn unroll_blocks_fully(f: &mut Function, loops: &LoopInfo, k: usize, s: &BlocksShape) {
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
