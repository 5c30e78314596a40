//! Value ranges: for each `i32` value of a function, an interval `[lo, hi]` of signed values
//! that holds on every execution.
//!
//! Optimistic propagation over SSA: every instruction starts with no value at all and grows
//! until nothing changes, so a loop's phi gets the range its entry value and its updates
//! reach together, not the whole of `i32`. Operations that could wrap give the whole range;
//! the others follow interval arithmetic (`srem` by a constant `c` keeps its dividend's sign
//! and stays below `|c|`). A phi's value from a predecessor ending in a comparison of that
//! value is cut by the comparison on that edge (`i + 1` reaching the header only while
//! `i + 1 < n` is below `n`'s greatest value), and such a phi is looked at again whenever
//! either compared value grows. A select that picks the smaller or
//! the greater of the two values it compares has their minimum or maximum; any other select
//! on a comparison takes each of its values (the compared value, or it combined with a
//! constant) only where the comparison lets it through.
//!
//! Two relations that intervals alone miss come from the branches before a block
//! (`analysis::orders`). Where `x < y` holds, `y - x` is at least 1 and, when `y`'s greatest
//! value less `x`'s least fits in `i32`, that at most: it cannot wrap. A midpoint
//! `x + (y - x) / c` of such a difference (`c >= 2`, or a right shift by at least 1) lies in
//! `[x, y - 1]` (`[x, y]` where only `x <= y` holds), though the sum of their intervals
//! reaches past `y`: so a bisection's `lo = mid + 1` cannot wrap, `lo` stays non-negative
//! and `(hi - lo) / 2` needs no rounding correction.
//!
//! So that loops end, a phi whose range has grown twice widens each bound that moves to the
//! next threshold past it: the function's constants, their negations (a remainder's range
//! is symmetric) and their neighbours, then the ends of `i32` and their neighbours (a
//! counter stepping by 1 while below a bound of unknown range stays at most `i32::MAX - 1`,
//! so its step cannot wrap). There are finitely many thresholds, so every phi widens
//! finitely often.

use crate::analysis::orders::{order_at, Order};
use crate::analysis::Cfg;
use crate::fast_hash::FastHashMap;
use crate::ir::{BinaryOp, Block, CastOp, Function, Inst, InstKind, IntPred, Type, Value};

/// A signed interval; `lo > hi` is the empty one (no value reaches here yet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub lo: i64,
    pub hi: i64,
}

const MIN: i64 = i32::MIN as i64;
const MAX: i64 = i32::MAX as i64;

impl Range {
    pub const FULL: Range = Range { lo: MIN, hi: MAX };
    const EMPTY: Range = Range { lo: 1, hi: 0 };

    pub fn new(lo: i64, hi: i64) -> Range {
        Range { lo, hi }
    }

    pub fn constant(c: i32) -> Range {
        Range::new(c as i64, c as i64)
    }

    pub fn is_empty(self) -> bool {
        self.lo > self.hi
    }

    /// Whether every value lies in `lo..=hi`.
    pub fn within(self, lo: i64, hi: i64) -> bool {
        lo <= self.lo && self.hi <= hi
    }

    fn join(self, other: Range) -> Range {
        if self.is_empty() {
            return other;
        }
        if other.is_empty() {
            return self;
        }
        Range::new(self.lo.min(other.lo), self.hi.max(other.hi))
    }

    fn meet(self, lo: i64, hi: i64) -> Range {
        Range::new(self.lo.max(lo), self.hi.min(hi))
    }

    /// This interval if it fits in `i32`, else the whole range (the operation may wrap).
    fn or_full(lo: i64, hi: i64) -> Range {
        if MIN <= lo && hi <= MAX {
            Range::new(lo, hi)
        } else {
            Range::FULL
        }
    }
}

pub struct Ranges {
    /// By instruction index; `EMPTY` for instructions without an `i32` result.
    of: Vec<Range>,
}

impl Ranges {
    pub fn new(f: &Function, cfg: &Cfg) -> Ranges {
        Solver::new(f, cfg).solve()
    }

    /// The range of `v`, an `i32` or `i1` value; the whole of `i32` where nothing is known
    /// (also for instructions created after the analysis).
    pub fn of(&self, v: Value) -> Range {
        match v {
            Value::Int(c) => Range::constant(c),
            Value::Bool(b) => Range::constant(b as i32),
            Value::Inst(i) => match self.of.get(i.index()) {
                Some(r) if !r.is_empty() => *r,
                _ => Range::FULL,
            },
            _ => Range::FULL,
        }
    }

    /// Whether `pred` holds for every pair of values `a` and `b` can take (`Some(true)`),
    /// for none (`Some(false)`), or neither is known.
    pub fn decide(&self, pred: IntPred, a: Value, b: Value) -> Option<bool> {
        decide(pred, self.of(a), self.of(b))
    }
}

/// Whether `pred` holds between every value of `a` and every value of `b`, or for none.
fn decide(pred: IntPred, a: Range, b: Range) -> Option<bool> {
    use IntPred::*;
    let unsigned_ok = a.lo >= 0 && b.lo >= 0;
    let (always, never) = match pred {
        Eq => (
            a.lo == a.hi && b.lo == b.hi && a.lo == b.lo,
            a.hi < b.lo || b.hi < a.lo,
        ),
        Ne => (
            a.hi < b.lo || b.hi < a.lo,
            a.lo == a.hi && b.lo == b.hi && a.lo == b.lo,
        ),
        Slt => (a.hi < b.lo, a.lo >= b.hi),
        Sle => (a.hi <= b.lo, a.lo > b.hi),
        Sgt => (a.lo > b.hi, a.hi <= b.lo),
        Sge => (a.lo >= b.hi, a.hi < b.lo),
        Ult if unsigned_ok => (a.hi < b.lo, a.lo >= b.hi),
        Ule if unsigned_ok => (a.hi <= b.lo, a.lo > b.hi),
        Ugt if unsigned_ok => (a.lo > b.hi, a.hi <= b.lo),
        Uge if unsigned_ok => (a.lo >= b.hi, a.hi < b.lo),
        _ => (false, false),
    };
    if always {
        Some(true)
    } else if never {
        Some(false)
    } else {
        None
    }
}

struct Solver<'a> {
    f: &'a Function,
    cfg: &'a Cfg,
    of: Vec<Range>,
    /// How often each phi's range has grown.
    grown: Vec<u8>,
    /// Widening thresholds, ascending.
    thresholds: Vec<i64>,
    worklist: Vec<Inst>,
    queued: Vec<bool>,
    /// By instruction index: for a `sub y, x` where the branches before it order `x` and
    /// `y`, that order.
    ordered_differences: Vec<Option<Order>>,
    /// Midpoints `x + (y - x) / c` of ordered differences, each with its difference.
    midpoints: FastHashMap<Inst, Inst>,
    /// For each `y` of an ordered difference, the midpoints whose range its range bounds
    /// (it is not their operand, so growing would not reach them).
    midpoint_bounds: FastHashMap<Inst, Vec<Inst>>,
}

impl<'a> Solver<'a> {
    fn new(f: &'a Function, cfg: &'a Cfg) -> Solver<'a> {
        let mut thresholds = vec![MIN, MIN + 1, -1, 0, 1, MAX - 1, MAX];
        for b in cfg.rpo() {
            for i in f.block_insts(*b) {
                for v in f.kind(i).operands() {
                    if let Value::Int(c) = *v {
                        let c = c as i64;
                        thresholds.extend([c - 1, c, c + 1, -c - 1, -c, -c + 1]);
                    }
                }
            }
        }
        thresholds.retain(|t| (MIN..=MAX).contains(t));
        thresholds.sort_unstable();
        thresholds.dedup();
        let n = f.inst_capacity();
        let mut solver = Solver {
            f,
            cfg,
            of: vec![Range::EMPTY; n],
            grown: vec![0; n],
            thresholds,
            worklist: Vec::new(),
            queued: vec![false; n],
            ordered_differences: vec![None; n],
            midpoints: FastHashMap::default(),
            midpoint_bounds: FastHashMap::default(),
        };
        solver.find_relations();
        solver
    }

    /// Fills `ordered_differences`, `midpoints` and `midpoint_bounds`.
    fn find_relations(&mut self) {
        let f = self.f;
        for &b in self.cfg.rpo() {
            for i in f.block_insts(b) {
                if let InstKind::Binary {
                    op: BinaryOp::Sub,
                    args: [y, x],
                } = *f.kind(i)
                {
                    self.ordered_differences[i.index()] = order_at(f, self.cfg, b, x, y);
                }
            }
        }
        for &b in self.cfg.rpo() {
            for i in f.block_insts(b) {
                let InstKind::Binary {
                    op: BinaryOp::Add,
                    args: [p, q],
                } = *f.kind(i)
                else {
                    continue;
                };
                let found = self
                    .halved_difference(q, p)
                    .or(self.halved_difference(p, q));
                if let Some((d, y)) = found {
                    self.midpoints.insert(i, d);
                    if let Value::Inst(y) = y {
                        self.midpoint_bounds.entry(y).or_default().push(i);
                    }
                }
            }
        }
    }

    /// For `q = (y - x) / c` (`c >= 2`, or a right shift by at least 1) of an ordered
    /// difference, that difference and `y`.
    fn halved_difference(&self, q: Value, x: Value) -> Option<(Inst, Value)> {
        let InstKind::Binary {
            op,
            args: [Value::Inst(d), Value::Int(c)],
        } = *self.f.kind(q.as_inst()?)
        else {
            return None;
        };
        let halves = match op {
            BinaryOp::SDiv => c >= 2,
            BinaryOp::AShr | BinaryOp::LShr => (1..32).contains(&c),
            _ => false,
        };
        if !halves {
            return None;
        }
        self.ordered_differences[d.index()]?;
        match *self.f.kind(d) {
            InstKind::Binary {
                op: BinaryOp::Sub,
                args: [y, dx],
            } if dx == x => Some((d, y)),
            _ => None,
        }
    }

    fn solve(mut self) -> Ranges {
        for b in self.cfg.rpo().iter().rev() {
            for i in self.f.block_insts(*b).collect::<Vec<_>>().into_iter().rev() {
                self.push(i);
            }
        }
        while let Some(i) = self.worklist.pop() {
            self.queued[i.index()] = false;
            // Ranges only grow (joined with what they were), so that an edge's cut or a
            // phi's widening cannot make them swing back and forth.
            let old = self.of[i.index()];
            let new = old.join(self.evaluate(i));
            if new == old {
                continue;
            }
            let new = if self.f.kind(i).is_phi() {
                self.widen(i, old, new)
            } else {
                new
            };
            self.of[i.index()] = new;
            for m in self.midpoint_bounds.get(&i).cloned().unwrap_or_default() {
                self.push(m);
            }
            for u in self.f.uses(Value::Inst(i)) {
                self.push(u.inst);
                if matches!(self.f.kind(u.inst), InstKind::Icmp { .. }) {
                    self.push_cut_phis(u.inst);
                }
            }
        }
        Ranges { of: self.of }
    }

    /// Queues the phis whose incoming values a branch on comparison `cmp` cuts: when one of
    /// the compared values grows, so may the values the branch lets through.
    fn push_cut_phis(&mut self, cmp: Inst) {
        let f = self.f;
        for u in f.uses(Value::Inst(cmp)) {
            if !matches!(f.kind(u.inst), InstKind::CondBr { .. }) {
                continue;
            }
            let Some(b) = f.inst_block(u.inst) else {
                continue;
            };
            for &s in f.successors(b) {
                for phi in f.phis(s) {
                    self.push(phi);
                }
            }
        }
    }

    fn push(&mut self, i: Inst) {
        let reachable = self
            .f
            .inst_block(i)
            .is_some_and(|b| self.cfg.is_reachable(b));
        if reachable && !std::mem::replace(&mut self.queued[i.index()], true) {
            self.worklist.push(i);
        }
    }

    /// `new`, a phi's range grown from `old`, with the bounds that moved pushed out to the
    /// next thresholds once the phi has grown twice.
    fn widen(&mut self, phi: Inst, old: Range, new: Range) -> Range {
        let grown = &mut self.grown[phi.index()];
        *grown = grown.saturating_add(1);
        if *grown <= 2 || old.is_empty() {
            return new;
        }
        let lo = if new.lo < old.lo {
            let k = self.thresholds.partition_point(|&t| t <= new.lo);
            self.thresholds[k.saturating_sub(1)]
        } else {
            new.lo
        };
        let hi = if new.hi > old.hi {
            let k = self.thresholds.partition_point(|&t| t < new.hi);
            self.thresholds[k.min(self.thresholds.len() - 1)]
        } else {
            new.hi
        };
        Range::new(lo, hi)
    }

    /// The range of `v`, a select's value taken when its condition `c` is `holds`: when `c`
    /// compares a value `x` and `v` is `x` or `x` combined with a constant, computed from
    /// `x`'s range cut by the comparison (`x > k ? x - m : x` has `x - m` only for `x > k`),
    /// empty when no value of `x` passes.
    fn arm(&self, v: Value, c: Value, holds: bool) -> Range {
        let Some(InstKind::Icmp { pred, args: [p, q] }) = c.as_inst().map(|c| self.f.kind(c))
        else {
            return self.get(v);
        };
        let pred = if holds { *pred } else { pred.inverse() };
        let cut_of = |x: Value| {
            if x == *p {
                Some(satisfying(self.get(x), pred, self.get(*q)))
            } else if x == *q {
                Some(satisfying(self.get(x), pred.swapped(), self.get(*p)))
            } else {
                None
            }
        };
        if let Some(r) = cut_of(v) {
            return r;
        }
        let Some(&InstKind::Binary { op, args: [x, k] }) = v.as_inst().map(|v| self.f.kind(v))
        else {
            return self.get(v);
        };
        match (cut_of(x), k) {
            // Never taken with the values `x` has so far.
            (Some(rx), Value::Int(_)) if rx.is_empty() => Range::EMPTY,
            (Some(rx), Value::Int(_)) => binary(op, rx, self.get(k)),
            _ => self.get(v),
        }
    }

    /// The range of an operand as known so far; constants and values from outside the
    /// solver's instructions are known.
    fn get(&self, v: Value) -> Range {
        match v {
            Value::Inst(i) => self.of[i.index()],
            Value::Int(c) => Range::constant(c),
            Value::Bool(b) => Range::constant(b as i32),
            _ => Range::FULL,
        }
    }

    fn evaluate(&self, i: Inst) -> Range {
        let f = self.f;
        let data = f.inst(i);
        if !matches!(data.ty, Type::I32 | Type::I1) {
            return Range::EMPTY;
        }
        match f.kind(i) {
            InstKind::Phi { args, blocks } => {
                let to = f.inst_block(i).expect("a queued instruction is in a block");
                args.iter()
                    .zip(blocks)
                    .filter(|(_, &from)| self.cfg.is_reachable(from))
                    .fold(Range::EMPTY, |r, (&v, &from)| {
                        r.join(self.on_edge(v, from, to))
                    })
            }
            InstKind::Binary { op, args: [a, b] } => {
                let (ra, rb) = (self.get(*a), self.get(*b));
                if ra.is_empty() || rb.is_empty() {
                    return Range::EMPTY;
                }
                let r = binary(*op, ra, rb);
                if let Some(order) = self.ordered_differences[i.index()] {
                    difference(r, ra, rb, order)
                } else if let Some(&d) = self.midpoints.get(&i) {
                    self.midpoint(r, d)
                } else {
                    r
                }
            }
            InstKind::Select { args: [c, a, b] } => self.select(*c, *a, *b),
            InstKind::Icmp { .. } | InstKind::Fcmp { .. } => Range::new(0, 1),
            InstKind::Ctz { .. } => Range::new(0, 32),
            InstKind::Cast {
                op: CastOp::Zext,
                args: [a],
            } => self.get(*a).meet(0, 1),
            _ => Range::FULL,
        }
    }

    /// The range of a midpoint `x + (y - x) / c`, `r` by interval arithmetic, of the ordered
    /// difference `d = y - x`: within `[x, y - 1]` (`[x, y]` for `x <= y`) when `d` cannot
    /// wrap, for the quotient is then at least 0 and below `d` (at most `d`).
    fn midpoint(&self, r: Range, d: Inst) -> Range {
        let InstKind::Binary { args: [y, x], .. } = *self.f.kind(d) else {
            return r;
        };
        let (ry, rx) = (self.get(y), self.get(x));
        let Some(order) = self.ordered_differences[d.index()] else {
            return r;
        };
        if ry.is_empty() || rx.is_empty() || widest_gap(ry, rx).is_none() {
            return r;
        }
        Range::new(r.lo.max(rx.lo), r.hi.min(ry.hi - order.least_gap()))
    }

    /// `select c, a, b`: either operand's values, or when `c` compares `a` with `b` so that
    /// the select picks the smaller of them (`a < b ? a : b`) or the greater, their minimum
    /// or maximum.
    fn select(&self, c: Value, a: Value, b: Value) -> Range {
        let (ra, rb) = (self.get(a), self.get(b));
        let picks_smaller = match c {
            Value::Inst(c) => match *self.f.kind(c) {
                InstKind::Icmp { pred, args: [x, y] } if (x, y) == (a, b) || (x, y) == (b, a) => {
                    let below = matches!(pred, IntPred::Slt | IntPred::Sle);
                    let above = matches!(pred, IntPred::Sgt | IntPred::Sge);
                    (below || above).then_some(below == ((x, y) == (a, b)))
                }
                _ => None,
            },
            _ => None,
        };
        match picks_smaller {
            None => self.arm(a, c, true).join(self.arm(b, c, false)),
            Some(_) if ra.is_empty() || rb.is_empty() => Range::EMPTY,
            Some(true) => Range::new(ra.lo.min(rb.lo), ra.hi.min(rb.hi)),
            Some(false) => Range::new(ra.lo.max(rb.lo), ra.hi.max(rb.hi)),
        }
    }

    /// The range of `v` flowing along the edge `from -> to`, cut by `from`'s branch when it
    /// compares `v` and the edge fixes the comparison's outcome.
    fn on_edge(&self, v: Value, from: Block, to: Block) -> Range {
        let r = self.get(v);
        let Some(t) = self.f.terminator(from) else {
            return r;
        };
        let InstKind::CondBr {
            args: [Value::Inst(cond)],
            targets: [yes, no],
        } = *self.f.kind(t)
        else {
            return r;
        };
        if yes == no {
            return r;
        }
        let InstKind::Icmp { pred, args: [a, b] } = *self.f.kind(cond) else {
            return r;
        };
        let pred = if to == yes { pred } else { pred.inverse() };
        if a == v {
            cut(r, pred, self.get(b))
        } else if b == v {
            cut(r, pred.swapped(), self.get(a))
        } else {
            r
        }
    }
}

/// The range of `y - x`, `r` by interval arithmetic, where `order` holds between `x` and `y`:
/// from the least gap the order allows up to `y`'s greatest less `x`'s least, when that
/// fits in `i32` (then the difference cannot wrap).
fn difference(r: Range, ry: Range, rx: Range, order: Order) -> Range {
    match widest_gap(ry, rx) {
        Some(hi) => Range::new((ry.lo - rx.hi).max(order.least_gap()), hi),
        None => r,
    }
}

/// `y`'s greatest value less `x`'s least, when it fits in `i32`: then `y - x` with
/// `x <= y` cannot wrap.
fn widest_gap(ry: Range, rx: Range) -> Option<i64> {
    let gap = ry.hi - rx.lo;
    (gap <= MAX).then_some(gap)
}

/// The values of `r` that can satisfy `r pred other`, kept whole when there are none.
fn cut(r: Range, pred: IntPred, other: Range) -> Range {
    let cut = satisfying(r, pred, other);
    // An empty cut means the edge is never taken with these values; keeping `r` stays sound.
    if cut.is_empty() {
        r
    } else {
        cut
    }
}

/// The values of `r` that can satisfy `r pred other`, empty when none can.
fn satisfying(r: Range, pred: IntPred, other: Range) -> Range {
    if r.is_empty() || other.is_empty() {
        return r;
    }
    match pred {
        IntPred::Slt => r.meet(MIN, other.hi - 1),
        IntPred::Sle => r.meet(MIN, other.hi),
        IntPred::Sgt => r.meet(other.lo + 1, MAX),
        IntPred::Sge => r.meet(other.lo, MAX),
        IntPred::Eq => r.meet(other.lo, other.hi),
        _ => r,
    }
}

/// The range of `a op b` over `i32` values in `a` and `b` (neither empty).
fn binary(op: BinaryOp, a: Range, b: Range) -> Range {
    match op {
        BinaryOp::Add => Range::or_full(a.lo + b.lo, a.hi + b.hi),
        BinaryOp::Sub => Range::or_full(a.lo - b.hi, a.hi - b.lo),
        BinaryOp::Mul => {
            let products = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi];
            let lo = products.iter().copied().min().unwrap_or(MIN);
            let hi = products.iter().copied().max().unwrap_or(MAX);
            Range::or_full(lo, hi)
        }
        BinaryOp::SDiv if b.lo == b.hi && b.lo > 0 => Range::new(a.lo / b.lo, a.hi / b.lo),
        BinaryOp::SDiv if b.lo == b.hi && b.lo < -1 => Range::new(a.hi / b.lo, a.lo / b.lo),
        BinaryOp::SRem if b.lo == b.hi && b.lo != 0 => {
            let m = b.lo.abs() - 1;
            if a.lo >= 0 {
                Range::new(if a.hi <= m { a.lo } else { 0 }, a.hi.min(m))
            } else if a.hi <= 0 {
                Range::new(a.lo.max(-m), if a.lo >= -m { a.hi } else { 0 })
            } else {
                Range::new(a.lo.max(-m), a.hi.min(m))
            }
        }
        BinaryOp::And if b.lo >= 0 => Range::new(0, if a.lo >= 0 { a.hi.min(b.hi) } else { b.hi }),
        BinaryOp::And if a.lo >= 0 => Range::new(0, a.hi),
        BinaryOp::LShr if b.lo == b.hi && (1..32).contains(&b.lo) => {
            if a.lo >= 0 {
                Range::new(a.lo >> b.lo, a.hi >> b.lo)
            } else {
                Range::new(0, (u32::MAX >> b.lo) as i64)
            }
        }
        BinaryOp::AShr if b.lo == b.hi && (0..32).contains(&b.lo) => {
            Range::new(a.lo >> b.lo, a.hi >> b.lo)
        }
        // By an amount not known: toward 0 (or -1) from either bound, never past it.
        BinaryOp::LShr if a.lo >= 0 => Range::new(0, a.hi),
        BinaryOp::AShr => Range::new(a.lo.min(0), a.hi.max(-1)),
        _ => Range::FULL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value `op` produces on a sample of each range lies in the computed range.
    #[test]
    fn binary_ranges_hold_for_sampled_values() {
        let edges = [
            MIN,
            MIN + 1,
            -70_000,
            -300,
            -7,
            -1,
            0,
            1,
            5,
            299,
            65_536,
            MAX - 1,
            MAX,
        ];
        let ranges: Vec<Range> = edges
            .iter()
            .flat_map(|&lo| {
                edges
                    .iter()
                    .filter(move |&&hi| hi >= lo)
                    .map(move |&hi| Range::new(lo, hi))
            })
            .collect();
        let ops = [
            BinaryOp::Add,
            BinaryOp::Sub,
            BinaryOp::Mul,
            BinaryOp::SDiv,
            BinaryOp::SRem,
            BinaryOp::And,
            BinaryOp::LShr,
            BinaryOp::AShr,
        ];
        let samples = |r: Range| {
            [
                r.lo,
                r.hi,
                r.lo + (r.hi - r.lo) / 2,
                r.lo + (r.hi - r.lo) / 3,
            ]
        };
        for op in ops {
            for &a in &ranges {
                for &b in &ranges {
                    let r = binary(op, a, b);
                    for x in samples(a) {
                        for y in samples(b) {
                            let v = apply(op, x as i32, y as i32) as i64;
                            assert!(
                                r.lo <= v && v <= r.hi,
                                "{op:?} {x} {y} = {v} outside {r:?} from {a:?} {b:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    fn apply(op: BinaryOp, x: i32, y: i32) -> i32 {
        crate::ir::semantics::binary(op, x as u32, y as u32) as i32
    }

    #[test]
    fn comparisons_are_decided_only_when_the_ranges_do() {
        let small = Range::new(0, 9);
        let big = Range::new(10, 20);
        assert_eq!(decide(IntPred::Slt, small, big), Some(true));
        assert_eq!(decide(IntPred::Sge, small, big), Some(false));
        assert_eq!(decide(IntPred::Ult, small, big), Some(true));
        assert_eq!(decide(IntPred::Eq, small, big), Some(false));
        assert_eq!(decide(IntPred::Slt, small, Range::new(5, 20)), None);
        // Unsigned order differs from signed order for negative values.
        assert_eq!(decide(IntPred::Ult, Range::new(-5, -1), big), None);
    }
}
