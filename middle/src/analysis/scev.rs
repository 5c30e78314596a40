//! Scalar evolution of one loop: which integer values of the loop follow a polynomial in the
//! iteration number, and how many times the loop goes round.
//!
//! A value's evolution is a `Recurrence`: its value in iteration `k` (0 for the first) is
//! `c0 + c1*C(k,1) + c2*C(k,2) + c3*C(k,3)`, with `C` the binomial coefficient and each `cj`
//! an `Invariant` (a constant plus multiples of values defined outside the loop). In the
//! usual chain-of-recurrences notation `{a,+,b}` is `[a, b]` and `{a,+,{b,+,c}}` is
//! `[a, b, c]`: the coefficients are the value's repeated differences from one iteration to
//! the next. Sums and constant multiples act on the coefficients one by one, and a header phi
//! `x = phi [init, preheader], [x + d, latch]` with `d` a recurrence `[d0, d1, ..]` is
//! `[init, d0, d1, ..]`, since the sum of `C(i,j)` for `i < k` is `C(k,j+1)`. Everything is
//! exact in wrapping 32-bit arithmetic, the IR's: the coefficients and binomials are taken
//! modulo 2^32 (`C(k,2)` and `C(k,3)` without dividing a wrapped product, see
//! `passes::loop_closed_form`).
//!
//! A phi is solved with itself standing for its own value: the value from the latch must be
//! the phi plus a recurrence that does not mention it. Values computed while a phi stands
//! for itself are remembered only until that phi is solved.
//!
//! The exit count of a loop whose only exiting block decides on `x pred b`, `x` a recurrence
//! `{s,+,c}` and `b` invariant, is the number of times that block lets the loop go on before
//! it leaves: `b - s` for `x < b` stepping by 1, and so on (`ExitCount`). A loop that never
//! leaves never shows its exit values, so the count need only be right when it does.
//!
//! Needs: the loop forest and the dominator tree.

use crate::analysis::{DomTree, LoopInfo};
use crate::fast_hash::FastHashMap;
use crate::ir::{BinaryOp, Block, Function, Inst, InstKind, IntPred, Type, Value};

/// The highest power of the iteration number a recurrence may have: `C(k,3)` is the last
/// binomial that can be taken modulo 2^32 without a wider multiplication.
pub const MAX_DEGREE: usize = 3;

/// How many levels of arithmetic outside the loop `LoopEvolution::expanded` looks through.
const EXPANSION_DEPTH: u32 = 4;

/// How many values one loop's analysis may look at, so that a huge loop body costs a
/// bounded amount.
const MAX_VISITS: usize = 20_000;

/// An integer that does not change inside the loop: `constant + sum of factor * value` in
/// wrapping arithmetic, each value defined outside the loop.
#[derive(Clone, Debug, PartialEq)]
pub struct Invariant {
    pub constant: i32,
    /// `(value, factor)`: no value twice, no factor zero, in the order first met.
    pub terms: Vec<(Value, i32)>,
}

impl Invariant {
    pub fn constant(c: i32) -> Invariant {
        Invariant {
            constant: c,
            terms: Vec::new(),
        }
    }

    pub fn value(v: Value) -> Invariant {
        match v {
            Value::Int(c) => Invariant::constant(c),
            _ => Invariant {
                constant: 0,
                terms: vec![(v, 1)],
            },
        }
    }

    pub fn as_constant(&self) -> Option<i32> {
        self.terms.is_empty().then_some(self.constant)
    }

    pub fn is_zero(&self) -> bool {
        self.as_constant() == Some(0)
    }

    pub fn add(&self, other: &Invariant) -> Invariant {
        let mut sum = self.clone();
        sum.constant = sum.constant.wrapping_add(other.constant);
        for &(v, c) in &other.terms {
            sum.add_term(v, c);
        }
        sum
    }

    pub fn scale(&self, by: i32) -> Invariant {
        let mut out = Invariant::constant(self.constant.wrapping_mul(by));
        for &(v, c) in &self.terms {
            out.add_term(v, c.wrapping_mul(by));
        }
        out
    }

    /// The factor of `v` in the sum (0 when absent).
    pub fn factor(&self, v: Value) -> i32 {
        self.terms
            .iter()
            .find(|(t, _)| *t == v)
            .map_or(0, |&(_, c)| c)
    }

    fn add_term(&mut self, v: Value, c: i32) {
        match self.terms.iter().position(|(t, _)| *t == v) {
            Some(p) => {
                let sum = self.terms[p].1.wrapping_add(c);
                if sum == 0 {
                    self.terms.remove(p);
                } else {
                    self.terms[p].1 = sum;
                }
            }
            None if c != 0 => self.terms.push((v, c)),
            None => {}
        }
    }
}

/// A value's evolution: in iteration `k` it is the sum of `coeffs[j] * C(k, j)`. Trailing
/// zero coefficients are dropped, but there is always the first.
#[derive(Clone, Debug, PartialEq)]
pub struct Recurrence {
    pub coeffs: Vec<Invariant>,
}

impl Recurrence {
    pub fn invariant(i: Invariant) -> Recurrence {
        Recurrence { coeffs: vec![i] }
    }

    /// The highest power of the iteration number (0 for an invariant).
    pub fn degree(&self) -> usize {
        self.coeffs.len() - 1
    }

    /// `{start,+,step}` with a constant step: `(start, step)`.
    pub fn as_affine(&self) -> Option<(&Invariant, i32)> {
        match self.coeffs.as_slice() {
            [start, step] => Some((start, step.as_constant()?)),
            _ => None,
        }
    }

    fn normalized(mut coeffs: Vec<Invariant>) -> Option<Recurrence> {
        while coeffs.len() > 1 && coeffs.last().is_some_and(Invariant::is_zero) {
            coeffs.pop();
        }
        (coeffs.len() <= MAX_DEGREE + 1).then_some(Recurrence { coeffs })
    }

    fn add(&self, other: &Recurrence) -> Option<Recurrence> {
        let n = self.coeffs.len().max(other.coeffs.len());
        let zero = Invariant::constant(0);
        let coeffs = (0..n)
            .map(|j| {
                let a = self.coeffs.get(j).unwrap_or(&zero);
                a.add(other.coeffs.get(j).unwrap_or(&zero))
            })
            .collect();
        Recurrence::normalized(coeffs)
    }

    fn scale(&self, by: i32) -> Option<Recurrence> {
        Recurrence::normalized(self.coeffs.iter().map(|c| c.scale(by)).collect())
    }

    /// The product with a recurrence: one of the two must be a constant, or an invariant
    /// value times a recurrence of constant coefficients (the result stays a sum of
    /// multiples of values).
    fn mul(&self, other: &Recurrence) -> Option<Recurrence> {
        if let Some(c) = other.constant() {
            return self.scale(c);
        }
        if let Some(c) = self.constant() {
            return other.scale(c);
        }
        let (single, poly) = match (self.single_value(), other.single_value()) {
            (Some(v), _) => (v, other),
            (_, Some(v)) => (v, self),
            _ => return None,
        };
        let coeffs = poly
            .coeffs
            .iter()
            .map(|c| Some(Invariant::value(single).scale(c.as_constant()?)))
            .collect::<Option<Vec<_>>>()?;
        Recurrence::normalized(coeffs)
    }

    /// The recurrence whose value in iteration `k` is this one's in iteration `k - 1`: each
    /// coefficient, the repeated difference at -1, is the one at 0 minus the next one's at -1.
    fn one_iteration_late(&self) -> Recurrence {
        let mut coeffs = self.coeffs.clone();
        for j in (0..coeffs.len() - 1).rev() {
            coeffs[j] = coeffs[j].add(&coeffs[j + 1].scale(-1));
        }
        Recurrence { coeffs }
    }

    fn constant(&self) -> Option<i32> {
        match self.coeffs.as_slice() {
            [c] => c.as_constant(),
            _ => None,
        }
    }

    /// The invariant `1 * v`.
    fn single_value(&self) -> Option<Value> {
        match self.coeffs.as_slice() {
            [c] if c.constant == 0 && c.terms.len() == 1 && c.terms[0].1 == 1 => Some(c.terms[0].0),
            _ => None,
        }
    }
}

/// How many times a loop's exiting block lets it go on before it leaves: `count` when
/// `guard` holds (or there is none), else 0.
#[derive(Clone, Debug, PartialEq)]
pub struct ExitCount {
    pub guard: Option<(IntPred, Invariant, Invariant)>,
    pub count: Invariant,
}

/// The scalar evolution of the values of one loop.
pub struct LoopEvolution<'a> {
    f: &'a Function,
    loops: &'a LoopInfo,
    k: usize,
    preheader: Block,
    latch: Block,
    cache: FastHashMap<Value, Option<Recurrence>>,
    /// Results that depend on a phi standing for itself, dropped once it is solved.
    provisional: FastHashMap<Value, Option<Recurrence>>,
    /// Header phis being solved, innermost last.
    solving: Vec<Inst>,
    visits: usize,
}

impl<'a> LoopEvolution<'a> {
    /// The analysis of loop `k`, which needs a preheader and a single latch.
    pub fn new(f: &'a Function, loops: &'a LoopInfo, k: usize) -> Option<LoopEvolution<'a>> {
        let l = &loops.loops[k];
        let &[latch] = l.latches.as_slice() else {
            return None;
        };
        Some(LoopEvolution {
            f,
            loops,
            k,
            preheader: l.preheader?,
            latch,
            cache: FastHashMap::default(),
            provisional: FastHashMap::default(),
            solving: Vec::new(),
            visits: 0,
        })
    }

    /// Whether `v` is computed inside the loop.
    pub fn is_in_loop(&self, v: Value) -> bool {
        v.as_inst()
            .and_then(|i| self.f.inst_block(i))
            .is_some_and(|b| self.loops.contains(self.k, b))
    }

    /// The evolution of an integer value, if it is a recurrence of this loop.
    pub fn recurrence(&mut self, v: Value) -> Option<Recurrence> {
        if self.f.value_type(v) != Type::I32 {
            return None;
        }
        if !self.is_in_loop(v) {
            return Some(Recurrence::invariant(Invariant::value(v)));
        }
        if let Some(r) = self.cache.get(&v).or_else(|| self.provisional.get(&v)) {
            return r.clone();
        }
        let i = v
            .as_inst()
            .expect("values inside the loop are instructions");
        if self.solving.contains(&i) {
            // The phi stands for itself; whatever uses it is provisional.
            return Some(Recurrence::invariant(Invariant::value(v)));
        }
        self.visits += 1;
        if self.visits > MAX_VISITS {
            return None;
        }
        let r = self.compute(i);
        if r.as_ref().is_some_and(|r| self.mentions_loop_values(r)) {
            self.provisional.insert(v, r.clone());
        } else {
            self.cache.insert(v, r.clone());
        }
        r
    }

    /// The evolution of an address: the pointer defined outside the loop that it is
    /// computed from through `gep`s, and its byte offset from that pointer.
    pub fn address(&mut self, addr: Value) -> Option<(Value, Recurrence)> {
        let mut root = addr;
        let mut offset = Recurrence::invariant(Invariant::constant(0));
        while self.is_in_loop(root) {
            let InstKind::Gep {
                args: [base, index],
                stride,
            } = *self.f.kind(root.as_inst()?)
            else {
                return None;
            };
            let bytes = self.recurrence(index)?.scale(i32::try_from(stride).ok()?)?;
            offset = offset.add(&bytes)?;
            root = base;
        }
        Some((root, offset))
    }

    fn compute(&mut self, i: Inst) -> Option<Recurrence> {
        match self.f.kind(i) {
            InstKind::Binary { op, args: [a, b] } => {
                let (op, a, b) = (*op, *a, *b);
                let ra = self.recurrence(a)?;
                let rb = self.recurrence(b)?;
                match op {
                    BinaryOp::Add => ra.add(&rb),
                    BinaryOp::Sub => ra.add(&rb.scale(-1)?),
                    BinaryOp::Mul => ra.mul(&rb),
                    _ => None,
                }
            }
            InstKind::Phi { .. } if self.f.inst_block(i) == Some(self.header()) => self.solve(i),
            _ => None,
        }
    }

    fn header(&self) -> Block {
        self.loops.loops[self.k].header
    }

    /// A header phi: the value from the latch must be the phi plus a recurrence `d`; the
    /// phi is then `[init, d0, d1, ..]`. Or the value from the latch is a recurrence `l` that
    /// does not mention the phi (a rotated loop's `i + d`, carried by a phi of its own and
    /// computed from another counter): the phi is `l` one iteration late, when `init` is
    /// what `l` would have been in iteration -1.
    fn solve(&mut self, phi: Inst) -> Option<Recurrence> {
        let init = self.f.phi_incoming(phi, self.preheader)?;
        let next = self.f.phi_incoming(phi, self.latch)?;
        self.solving.push(phi);
        let stepped = self.recurrence(next);
        self.solving.pop();
        self.provisional.clear();
        let mut stepped = stepped?;
        let me = Value::Inst(phi);
        if stepped.coeffs.iter().all(|c| c.factor(me) == 0) {
            if self.mentions_loop_values(&stepped) {
                return None;
            }
            let late = stepped.one_iteration_late();
            let start = self.recurrence(init)?;
            let differs = self
                .expanded(&start.coeffs[0], EXPANSION_DEPTH)
                .add(&self.expanded(&late.coeffs[0], EXPANSION_DEPTH).scale(-1));
            return (start.degree() == 0 && differs.is_zero()).then_some(late);
        }
        if stepped.coeffs[0].factor(me) != 1
            || stepped.coeffs[1..].iter().any(|c| c.factor(me) != 0)
        {
            return None;
        }
        stepped.coeffs[0] = stepped.coeffs[0].add(&Invariant::value(me).scale(-1));
        if self.mentions_loop_values(&stepped) {
            return None;
        }
        let start = self.recurrence(init)?;
        if start.degree() != 0 {
            return None;
        }
        let mut coeffs = start.coeffs;
        coeffs.extend(stepped.coeffs);
        Recurrence::normalized(coeffs)
    }

    /// `i` with the sums, differences and constant multiples that compute its values
    /// outside the loop written out, `depth` levels deep, so that two ways of writing one
    /// value compare equal (`(n - 1) - d` and `n - 1 + 2 - d - 2`).
    fn expanded(&self, i: &Invariant, depth: u32) -> Invariant {
        let mut out = Invariant::constant(i.constant);
        for &(v, c) in &i.terms {
            let parts = match v.as_inst().map(|d| self.f.kind(d)) {
                Some(&InstKind::Binary { op, args: [a, b] }) if depth > 0 => match (op, b) {
                    (BinaryOp::Add, _) => Some(Invariant::value(a).add(&Invariant::value(b))),
                    (BinaryOp::Sub, _) => {
                        Some(Invariant::value(a).add(&Invariant::value(b).scale(-1)))
                    }
                    (BinaryOp::Mul, Value::Int(m)) => Some(Invariant::value(a).scale(m)),
                    _ => None,
                },
                _ => None,
            };
            let term = match parts {
                Some(p) => self.expanded(&p, depth - 1),
                None => Invariant::value(v),
            };
            out = out.add(&term.scale(c));
        }
        out
    }

    fn mentions_loop_values(&self, r: &Recurrence) -> bool {
        r.coeffs
            .iter()
            .any(|c| c.terms.iter().any(|&(v, _)| self.is_in_loop(v)))
    }

    /// The number of times the loop goes round before leaving through its only exiting
    /// block `exiting`, which must dominate the latch, when that block's branch compares a
    /// recurrence of step ±1 (or any step, when everything is constant, or any odd step
    /// against `!=`) with an invariant.
    pub fn exit_count(&mut self, dom: &DomTree, exiting: Block) -> Option<ExitCount> {
        if !dom.dominates(exiting, self.latch) {
            return None;
        }
        let header = self.header();
        let branch = self.f.terminator(exiting)?;
        let InstKind::CondBr {
            args: [cond],
            targets,
        } = self.f.kind(branch)
        else {
            return None;
        };
        let goes_on = |t: Block| self.loops.contains(self.k, t) || t == header;
        let stays_when_true = match (goes_on(targets[0]), goes_on(targets[1])) {
            (true, false) => true,
            (false, true) => false,
            _ => return None,
        };
        let InstKind::Icmp { pred, args: [a, b] } = self.f.kind(cond.as_inst()?) else {
            return None;
        };
        let pred = if stays_when_true {
            *pred
        } else {
            pred.inverse()
        };
        let (ra, rb) = (self.recurrence(*a)?, self.recurrence(*b)?);
        let (pred, x, bound) = match (ra.degree(), rb.degree()) {
            (1, 0) => (pred, ra, rb),
            (0, 1) => (pred.swapped(), rb, ra),
            _ => return None,
        };
        let (start, step) = x.as_affine()?;
        count_steps(pred, start, step, &bound.coeffs[0])
    }
}

/// The exit count of a loop that goes on while `start + k*step pred bound`.
fn count_steps(
    pred: IntPred,
    start: &Invariant,
    step: i32,
    bound: &Invariant,
) -> Option<ExitCount> {
    use IntPred::*;
    if let (Some(s), Some(b)) = (start.as_constant(), bound.as_constant()) {
        return constant_count(pred, s, step, b).map(|n| ExitCount {
            guard: None,
            count: Invariant::constant(n as i32),
        });
    }
    let up = bound.add(&start.scale(-1));
    let down = start.add(&bound.scale(-1));
    let guarded = |count: Invariant| {
        Some(ExitCount {
            guard: Some((pred, start.clone(), bound.clone())),
            count,
        })
    };
    match (pred, step) {
        (Slt | Ult, 1) => guarded(up),
        (Sle | Ule, 1) => guarded(up.add(&Invariant::constant(1))),
        (Sgt | Ugt, -1) => guarded(down),
        (Sge | Uge, -1) => guarded(down.add(&Invariant::constant(1))),
        (Ne, _) if step % 2 != 0 => Some(ExitCount {
            guard: None,
            count: up.scale(odd_inverse(step)),
        }),
        _ => None,
    }
}

/// The exit count when the start and the bound are constants: `None` when the loop would
/// wrap around before leaving, or never leave.
fn constant_count(pred: IntPred, s: i32, step: i32, b: i32) -> Option<u32> {
    use IntPred::*;
    let holds = |x: i64| match pred {
        Eq => x == b as i64,
        Ne => x != b as i64,
        Slt => x < b as i64,
        Sle => x <= b as i64,
        Sgt => x > b as i64,
        Sge => x >= b as i64,
        Ult => (x as u32) < b as u32,
        Ule => (x as u32) <= b as u32,
        Ugt => (x as u32) > b as u32,
        Uge => (x as u32) >= b as u32,
    };
    if !holds(s as i64) {
        return Some(0);
    }
    let (s, step, b) = (s as i64, step as i64, b as i64);
    let count = match (pred, step.signum()) {
        (Slt, 1) => (b - s + step - 1) / step,
        (Sle, 1) => (b - s) / step + 1,
        (Sgt, -1) => (s - b - step - 1) / -step,
        (Sge, -1) => (s - b) / -step + 1,
        (Ult, 1) => ((b as u32 as i64) - (s as u32 as i64) + step - 1) / step,
        (Ule, 1) => ((b as u32 as i64) - (s as u32 as i64)) / step + 1,
        (Ugt, -1) => ((s as u32 as i64) - (b as u32 as i64) - step - 1) / -step,
        (Uge, -1) => ((s as u32 as i64) - (b as u32 as i64)) / -step + 1,
        (Ne, _) if step % 2 != 0 => {
            return Some(
                (b as i32)
                    .wrapping_sub(s as i32)
                    .wrapping_mul(odd_inverse(step as i32)) as u32,
            )
        }
        _ => return None,
    };
    // The first value that fails the test must be reached without wrapping around.
    let last = s + count * step;
    let signed = matches!(pred, Slt | Sle | Sgt | Sge);
    let in_range = if signed {
        i32::MIN as i64 <= last && last <= i32::MAX as i64
    } else {
        let s = s as u32 as i64;
        let last = s + count * step;
        0 <= last && last <= u32::MAX as i64
    };
    (in_range && !holds(last) && u32::try_from(count).is_ok()).then_some(count as u32)
}

/// The inverse of an odd number modulo 2^32 (Newton's iteration: each step doubles the
/// number of correct low bits, and `x = a` is right in three).
pub fn odd_inverse(a: i32) -> i32 {
    debug_assert!(a % 2 != 0);
    let mut x = a;
    for _ in 0..4 {
        x = x.wrapping_mul(2i32.wrapping_sub(a.wrapping_mul(x)));
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_inverses_multiply_to_one() {
        for a in [1i32, 3, 5, 7, -1, -3, 0x7fff_ffff, 12345679] {
            assert_eq!(a.wrapping_mul(odd_inverse(a)), 1, "{a}");
        }
    }

    #[test]
    fn constant_counts_match_a_simulation() {
        use IntPred::*;
        for pred in [Slt, Sle, Sgt, Sge, Ult, Ule, Ugt, Uge, Ne] {
            for s in [-7, -1, 0, 1, 5, 100] {
                for step in [-3, -2, -1, 1, 2, 3] {
                    for b in [-9, -1, 0, 3, 10, 99, 100, 101] {
                        let got = constant_count(pred, s, step, b);
                        match simulate(pred, s, step, b) {
                            Some(n) if got.is_some() => {
                                assert_eq!(got, Some(n), "{pred:?} {s} {step} {b}")
                            }
                            Some(_) => {}
                            None => assert!(
                                got.is_none_or(|n| n >= SIMULATED),
                                "{pred:?} {s} {step} {b}"
                            ),
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_recurrence_one_iteration_late_takes_the_previous_value() {
        let value = |r: &Recurrence, k: i64| -> i64 {
            let mut binomial = 1i64;
            let mut sum = 0;
            for (j, c) in r.coeffs.iter().enumerate() {
                sum += c.as_constant().expect("constant coefficients") as i64 * binomial;
                binomial = binomial * (k - j as i64) / (j as i64 + 1);
            }
            sum
        };
        for coeffs in [vec![7], vec![3, -2], vec![1, 4, 6], vec![-5, 2, -3, 9]] {
            let r = Recurrence {
                coeffs: coeffs.into_iter().map(Invariant::constant).collect(),
            };
            let late = r.one_iteration_late();
            for k in 0..8 {
                assert_eq!(value(&late, k), value(&r, k - 1), "{r:?} at {k}");
            }
        }
    }

    const SIMULATED: u32 = 1_000_000;

    /// The exit count by running the loop, `None` beyond `SIMULATED` steps.
    fn simulate(pred: IntPred, s: i32, step: i32, b: i32) -> Option<u32> {
        let mut x = s;
        for n in 0..SIMULATED {
            if !crate::ir::semantics::icmp(pred, x as u32, b as u32) {
                return Some(n);
            }
            x = x.wrapping_add(step);
        }
        None
    }
}
