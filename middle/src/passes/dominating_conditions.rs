//! Branches decided by a dominating branch: inside `if (x > 5)`, a test `x > 3` is true and
//! `x < 2` false; inside its `else`, `x == 9` is false. Nested `if`s and `&&`/`||` chains
//! that test one value against constants several times reduce to the tests that matter.
//!
//! A walk over the dominator tree keeps, for each value, the signed range it is known to lie
//! in: entering a block whose only predecessor ends in `condbr (icmp pred x, c)` (the block
//! being one of its two different targets) narrows `x`'s range by the comparison, or by its
//! inverse on the false side, for every block that block dominates. A `condbr` on
//! `icmp pred x, c` whose outcome the range of `x` decides gets that outcome as a constant
//! condition; `simplify-cfg` then removes the branch. Comparisons with a constant on the left
//! count after swapping; unsigned comparisons and `!=` (not a range) add nothing, though a
//! range can still decide a `!=` test. The condition value itself is known too: a branch
//! on a condition that a dominating branch already tested goes the same way (loop rotation
//! leaves such a guard when a loop starts where another's test has just passed), and so
//! does a comparison of the same two values by the same predicate or its inverse, either
//! way round (`p != 0` where `p == 0` failed).
//!
//! Comparisons of two values give an order: under `if (x < y)`, `x >= y` is false. And a
//! loop counter's bounds are known everywhere its loop header dominates: a header phi that
//! starts at `s` and steps by 1 while `phi + 1 < n` (tested where every round passes, `n`
//! invariant), entered with `s < n` known, lies in `[s, n - 1]` and below `n` (it never
//! wraps: each step leaves it below `n`). The range checks an inlined accessor repeats on
//! every element of a loop then go.
//!
//! Needs: the CFG, the dominator tree and the loop forest. Preserves: behaviour and the CFG
//! (only branch conditions change).

use crate::analysis::entry_order::branch_into;
use crate::analysis::{DomTree, LoopInfo, Preserved, ScopedState};
use crate::fast_hash::FastHashMap;
use crate::ir::{BinaryOp, Block, Function, InstKind, IntPred, Value};
use crate::passes::FunctionContext;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let Some(entry) = f.entry() else {
        return Preserved::All;
    };
    let cfg = cx.analyses.cfg(f);
    let dom = cx.analyses.dom(f);
    let loops = cx.analyses.loops(f);
    // The known facts; a block's go when its subtree is done.
    let mut known = Known::default();
    let mut changed = false;
    dom.walk_scoped(entry, &mut known, |known, b| {
        if let [p] = cfg.preds(b) {
            if let Some((x, range)) = edge_fact(f, *p, b) {
                known.push(x, range);
            }
            if let Some((x, y)) = edge_order(f, *p, b) {
                known.push_less(x, y);
            }
            if let Some((cond, range)) = edge_condition(f, *p, b) {
                known.push(cond, range);
            }
        }
        for counter in counters(f, &dom, &loops, b) {
            counter.learn(known);
        }
        changed |= decide_branch(f, b, known);
    });
    Preserved::cfg_if(changed)
}

/// The ranges known for values where the walk is, each value's own list innermost last,
/// so a lookup costs only that value's facts (10,000 nested loops, each testing its own
/// counter, made a scan of all facts quadratic).
#[derive(Default)]
struct Known {
    by_value: FastHashMap<Value, Vec<Range>>,
    /// Pairs `(x, y)` known to have `x < y`, with how many facts say so.
    less: FastHashMap<(Value, Value), u32>,
    /// The facts in the order they came, to forget the latest ones.
    log: Vec<Fact>,
}

enum Fact {
    Range(Value),
    Less(Value, Value),
}

impl Known {
    fn push(&mut self, v: Value, r: Range) {
        self.by_value.entry(v).or_default().push(r);
        self.log.push(Fact::Range(v));
    }

    fn push_less(&mut self, x: Value, y: Value) {
        *self.less.entry((x, y)).or_default() += 1;
        self.log.push(Fact::Less(x, y));
    }

    fn is_less(&self, x: Value, y: Value) -> bool {
        self.less.contains_key(&(x, y))
    }

    /// The range all known facts about `v` leave it.
    fn range(&self, v: Value) -> Range {
        self.by_value.get(&v).map_or(FULL, |facts| {
            facts.iter().fold(FULL, |r, k| r.intersect(*k))
        })
    }
}

impl ScopedState for Known {
    fn mark(&self) -> usize {
        self.log.len()
    }

    fn forget_since(&mut self, mark: usize) {
        for fact in self.log.drain(mark..).rev() {
            match fact {
                Fact::Range(v) => {
                    if let Some(facts) = self.by_value.get_mut(&v) {
                        facts.pop();
                    }
                }
                Fact::Less(x, y) => {
                    if let Some(n) = self.less.get_mut(&(x, y)) {
                        *n -= 1;
                        if *n == 0 {
                            self.less.remove(&(x, y));
                        }
                    }
                }
            }
        }
    }
}

/// A closed interval of signed 32-bit values.
#[derive(Clone, Copy, PartialEq, Debug)]
struct Range {
    lo: i64,
    hi: i64,
}

const FULL: Range = Range {
    lo: i32::MIN as i64,
    hi: i32::MAX as i64,
};

impl Range {
    /// The values `v` for which `v pred c` holds, when they form an interval.
    fn of(pred: IntPred, c: i32) -> Option<Range> {
        let c = c as i64;
        let (lo, hi) = match pred {
            IntPred::Eq => (c, c),
            IntPred::Slt => (FULL.lo, c - 1),
            IntPred::Sle => (FULL.lo, c),
            IntPred::Sgt => (c + 1, FULL.hi),
            IntPred::Sge => (c, FULL.hi),
            _ => return None,
        };
        Some(Range { lo, hi })
    }

    fn intersect(self, other: Range) -> Range {
        Range {
            lo: self.lo.max(other.lo),
            hi: self.hi.min(other.hi),
        }
    }

    fn contains(self, other: Range) -> bool {
        self.lo <= other.lo && other.hi <= self.hi
    }

    fn is_disjoint(self, other: Range) -> bool {
        self.hi < other.lo || other.hi < self.lo
    }
}

/// `icmp pred x, c` with the constant on the right, if `cond` is such a comparison.
fn comparison(f: &Function, cond: Value) -> Option<(IntPred, Value, i32)> {
    match *f.kind(cond.as_inst()?) {
        InstKind::Icmp {
            pred,
            args: [x, Value::Int(c)],
        } if !x.is_constant() => Some((pred, x, c)),
        InstKind::Icmp {
            pred,
            args: [Value::Int(c), x],
        } if !x.is_constant() => Some((pred.swapped(), x, c)),
        _ => None,
    }
}

/// The range its predecessor `p`'s branch guarantees on entry to `b`.
fn edge_fact(f: &Function, p: Block, b: Block) -> Option<(Value, Range)> {
    let (cond, taken) = branch_into(f, p, b)?;
    let (pred, x, c) = comparison(f, cond)?;
    let pred = if taken { pred } else { pred.inverse() };
    Some((x, Range::of(pred, c)?))
}

/// An order `x < y` between two values that predecessor `p`'s branch guarantees on entry to
/// `b` (`x < y` taken, or `x >= y` not taken, and the mirrored forms).
fn edge_order(f: &Function, p: Block, b: Block) -> Option<(Value, Value)> {
    let (cond, taken) = branch_into(f, p, b)?;
    let InstKind::Icmp { pred, args: [x, y] } = *f.kind(cond.as_inst()?) else {
        return None;
    };
    if x.is_constant() || y.is_constant() {
        return None;
    }
    as_order(if taken { pred } else { pred.inverse() }, x, y)
}

/// `x pred y` as `a < b`, when it is a strict signed order.
fn as_order(pred: IntPred, x: Value, y: Value) -> Option<(Value, Value)> {
    match pred {
        IntPred::Slt => Some((x, y)),
        IntPred::Sgt => Some((y, x)),
        _ => None,
    }
}

/// A loop counter (see the header): `phi` steps by 1 from `start` while `phi + 1 < bound`.
struct Counter {
    phi: Value,
    start: Value,
    bound: Value,
}

impl Counter {
    /// Adds the counter's range and its order below the bound, if the loop is entered
    /// with its start below the bound.
    fn learn(&self, known: &mut Known) {
        let (start, bound) = (
            value_range(known, self.start),
            value_range(known, self.bound),
        );
        if !(start.hi < bound.lo || known.is_less(self.start, self.bound)) {
            return;
        }
        let range = Range {
            lo: start.lo,
            hi: bound.hi - 1,
        };
        known.push(self.phi, range);
        known.push_less(self.phi, self.bound);
    }
}

/// What `known` says of `v`, a constant being its own range.
fn value_range(known: &Known, v: Value) -> Range {
    match v {
        Value::Int(c) => Range {
            lo: c as i64,
            hi: c as i64,
        },
        _ => known.range(v),
    }
}

/// The counters of the loop `header` heads, if it is one.
fn counters(f: &Function, dom: &DomTree, loops: &LoopInfo, header: Block) -> Vec<Counter> {
    let Some(k) = loops.innermost(header) else {
        return Vec::new();
    };
    let l = &loops.loops[k];
    let (Some(pre), &[latch]) = (l.preheader, l.latches.as_slice()) else {
        return Vec::new();
    };
    if l.header != header {
        return Vec::new();
    }
    // The tests every round passes: branches in blocks that dominate the latch, with one
    // target in the loop, as `x < bound` on the way round.
    let mut tests = Vec::new();
    let mut at = Some(latch);
    while let Some(b) = at {
        if let Some(test) = staying_test(f, loops, k, b) {
            tests.push(test);
        }
        at = if b == header { None } else { dom.idom(b) };
    }
    let mut found = Vec::new();
    for phi in f.phis(header) {
        let (Some(start), Some(next)) = (f.phi_incoming(phi, pre), f.phi_incoming(phi, latch))
        else {
            continue;
        };
        let phi = Value::Inst(phi);
        let steps_by_one = next.as_inst().is_some_and(|i| {
            matches!(
                *f.kind(i),
                InstKind::Binary { op: BinaryOp::Add, args: [a, Value::Int(1)] } if a == phi
            )
        });
        if !steps_by_one {
            continue;
        }
        for &(x, bound) in &tests {
            if x == next {
                found.push(Counter { phi, start, bound });
            }
        }
    }
    found
}

/// `b`'s branch as `x < bound` on its side into loop `k`, `bound` defined outside the loop.
fn staying_test(f: &Function, loops: &LoopInfo, k: usize, b: Block) -> Option<(Value, Value)> {
    let InstKind::CondBr {
        args: [cond],
        targets: [t, e],
    } = *f.kind(f.terminator(b)?)
    else {
        return None;
    };
    let stays_when_true = match (loops.contains(k, t), loops.contains(k, e)) {
        (true, false) => true,
        (false, true) => false,
        _ => return None,
    };
    let InstKind::Icmp { pred, args: [x, y] } = *f.kind(cond.as_inst()?) else {
        return None;
    };
    let pred = if stays_when_true {
        pred
    } else {
        pred.inverse()
    };
    let (x, bound) = as_order(pred, x, y)?;
    let outside = bound
        .as_inst()
        .and_then(|i| f.inst_block(i))
        .is_none_or(|b| !loops.contains(k, b));
    outside.then_some((x, bound))
}

/// The condition of predecessor `p`'s branch, as the range {1} or {0} it has on entry to
/// `b`: a later branch on the same condition goes the same way.
fn edge_condition(f: &Function, p: Block, b: Block) -> Option<(Value, Range)> {
    let (cond, taken) = branch_into(f, p, b)?;
    if cond.is_constant() {
        return None;
    }
    let bit = i64::from(taken);
    Some((cond, Range { lo: bit, hi: bit }))
}

/// Replaces `b`'s branch condition by a constant if the ranges in `known` decide it.
fn decide_branch(f: &mut Function, b: Block, known: &Known) -> bool {
    let Some(term) = f.terminator(b) else {
        return false;
    };
    let InstKind::CondBr { args: [cond], .. } = *f.kind(term) else {
        return false;
    };
    // A condition's only facts are the {1} or {0} of a branch on it above.
    let tested = known.range(cond);
    if tested != FULL {
        f.set_operand(term, 0, Value::Bool(tested.lo == 1));
        return true;
    }
    if let Some(outcome) =
        decided_by_order(f, cond, known).or_else(|| decided_by_related_test(f, cond, known))
    {
        f.set_operand(term, 0, Value::Bool(outcome));
        return true;
    }
    let Some((pred, x, c)) = comparison(f, cond) else {
        return false;
    };
    let range = known.range(x);
    if range == FULL {
        return false;
    }
    let outcome = match (Range::of(pred, c), Range::of(pred.inverse(), c)) {
        (Some(holds), _) if holds.contains(range) => true,
        (Some(holds), _) if holds.is_disjoint(range) => false,
        (_, Some(fails)) if fails.contains(range) => false,
        (_, Some(fails)) if fails.is_disjoint(range) => true,
        _ => return false,
    };
    f.set_operand(term, 0, Value::Bool(outcome));
    true
}

/// The most uses of a compared value searched for a tested comparison of the same values.
const MAX_RELATED: usize = 64;

/// The outcome of `cond`, a comparison, if a dominating branch tested the same two values
/// with the same predicate or its inverse, either way round: where `x == c` failed,
/// `x != c` holds (loop rotation's guard of `while (p != 0)` after `if (p == 0)`).
fn decided_by_related_test(f: &Function, cond: Value, known: &Known) -> Option<bool> {
    let InstKind::Icmp { pred, args: [x, y] } = *f.kind(cond.as_inst()?) else {
        return None;
    };
    for u in f.uses(x).iter().take(MAX_RELATED) {
        let other = Value::Inst(u.inst);
        let InstKind::Icmp {
            pred: tested_pred,
            args,
        } = *f.kind(u.inst)
        else {
            continue;
        };
        let tested_pred = if args == [x, y] {
            tested_pred
        } else if args == [y, x] {
            tested_pred.swapped()
        } else {
            continue;
        };
        let tested = known.range(other);
        if other == cond || tested == FULL {
            continue;
        }
        if tested_pred == pred {
            return Some(tested.lo == 1);
        }
        if tested_pred == pred.inverse() {
            return Some(tested.lo == 0);
        }
    }
    None
}

/// The outcome of `cond`, a comparison of two values, if a known order decides it.
fn decided_by_order(f: &Function, cond: Value, known: &Known) -> Option<bool> {
    let InstKind::Icmp { pred, args: [x, y] } = *f.kind(cond.as_inst()?) else {
        return None;
    };
    let pred = if known.is_less(x, y) {
        pred
    } else if known.is_less(y, x) {
        pred.swapped()
    } else {
        return None;
    };
    // Now the left operand is below the right one.
    match pred {
        IntPred::Slt | IntPred::Sle | IntPred::Ne => Some(true),
        IntPred::Sgt | IntPred::Sge | IntPred::Eq => Some(false),
        _ => None,
    }
}
