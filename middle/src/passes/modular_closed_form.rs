//! modular-closed-form: a loop whose only effect is to keep a sum modulo `M` (`r = (r + t)
//! % M`, `M` fixed for the loop and the term `t` fixed too or growing by a fixed amount each
//! round, `a + j*b` in round `j`) and other values that `loop-closed-form` computes, runs
//! only when a test before it fails; when it holds, the values are computed by formula and
//! the loop is skipped. After `n` rounds, `r` is `(r0 + n*a + C(n,2)*b) mod M`, which needs
//! no 64-bit arithmetic: each product modulo `M` is built from the bits of one factor by
//! doubling and adding modulo `M`, each step `x + y mod M` taken as `x >= M - y ? x - (M -
//! y) : x + y`, which never leaves `0..M` and so never wraps (`C(n,2)` is the half of
//! whichever of `n` and `n - 1` is even times the other, each reduced first).
//!
//! The formula is the loop's result only where none of its additions wrapped and each `%`
//! took the remainder of a value that is not negative, which the test checks: `a >= 0`,
//! `b >= 0`, `M >= 1`, `0 <= r0`, `r0 + a <= i32::MAX` and `M - 1 + a + n*b <= i32::MAX`
//! (the loop adds `n + 1` terms when its exit count is `n`). For a fixed term, range
//! analysis may already have turned the `%` into selects (`s > M - 1 ? s - M : s` when `s =
//! r + a` lies within one modulus of `0..M`, with `s < 1 - M ? s + M : ...` when it may
//! lie below), which are the remainder only while `r0 < M` and every term is below `M`
//! (`a + n*b < M`), so those forms are tested on that instead. The test also asks for at
//! least `MIN_ROUNDS` rounds, below which the loop costs less than the formula's doubling
//! steps.
//!
//! Range analysis may also leave the two-sided form with its outer test decided (`false ?
//! s + M : inner`); the inner select is then the remainder. The pipeline runs the pass three
//! times: after `loop-closed-form`; after `loop-split` and `range-simplify` have made a
//! quotient exact (`(60*i) / 60` is `i` in the rounds where the product cannot wrap); and
//! after the late `dead-stores`, once unrolled inner loops and unread tables are gone. A
//! loop that an earlier run skipped by a formula, still there for when its test fails, is
//! left alone.
//!
//! A term computed inside the loop from values fixed for it, by operations that touch no
//! memory and cannot fault, counts as fixed: those operations move before the loop.
//!
//! The loop needs `loop-closed-form`'s form: a preheader, a single latch, one exiting block
//! and one exit block reached only from it, no effect, a computable exit count, and every
//! value used after it a modular sum (its phi or the new value) or a polynomial recurrence.
//! The skipped way enters the exit block from a new block, where phis choose the values.
//!
//! Needs: the CFG, the dominator tree, the loop forest, the module's function summaries.
//! Preserves: behaviour.

use crate::analysis::scev::{ExitCount, Invariant, LoopEvolution, Recurrence};
use crate::analysis::{Cfg, DomTree, LoopInfo, ModuleFacts, Preserved};
use crate::ir::{semantics, BinaryOp, Block, Function, Inst, InstKind, IntPred, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::arith_writer::ArithWriter;
use crate::transform::closed_form::{
    binomials, evaluate, exit_count, fold_exit_phis, pair_factors, results_of,
};
use crate::transform::pinned::is_pinned;

/// The fewest rounds for which the formula replaces the loop.
const MIN_ROUNDS: i32 = 256;
/// Loops of more instructions than this are left alone.
const MAX_INSTRUCTIONS: usize = 200;
/// The most values a sum adds to its phi in one round, each by an addition of its own.
const MAX_ADDENDS: usize = 8;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let mut changed = false;
    loop {
        let loops = cx.analyses.loops(f);
        if loops.loops.is_empty() {
            break;
        }
        let cfg = cx.analyses.cfg(f);
        let dom = cx.analyses.dom(f);
        let facts = cx.facts();
        let Some((k, plan)) = (0..loops.loops.len())
            .rev()
            .find_map(|k| plan(f, &cfg, &dom, &loops, facts, k).map(|p| (k, p)))
        else {
            break;
        };
        apply(f, &loops, k, plan);
        changed = true;
        cx.analyses.invalidate(Preserved::Nothing);
    }
    Preserved::nothing_if(changed)
}

/// A sum kept modulo `modulus`: `phi` starts at `start` and takes `next`, the remainder of
/// `phi + step`, each round.
struct ModularSum {
    phi: Inst,
    next: Inst,
    start: Value,
    /// The values added to the phi each round, or subtracted from it where marked.
    addends: Vec<(Value, bool)>,
    /// What the addends add in the first round, and how much more in each later one.
    first: Invariant,
    increment: Invariant,
    modulus: Value,
    /// Whether `next` is the selects range analysis makes of the remainder, not a `srem`.
    subtracts: bool,
}

/// What loop `k`'s results become.
struct Plan {
    preheader: Block,
    exiting: Block,
    exit: Block,
    count: ExitCount,
    sums: Vec<ModularSum>,
    /// Values used after the loop that follow polynomials.
    recurrences: Vec<(Value, Recurrence)>,
    /// Instructions inside the loop that compute terms from values fixed for it, to be
    /// computed before it instead, in order.
    hoisted: Vec<Inst>,
}

fn plan(
    f: &Function,
    cfg: &Cfg,
    dom: &DomTree,
    loops: &LoopInfo,
    facts: &ModuleFacts,
    k: usize,
) -> Option<Plan> {
    let l = &loops.loops[k];
    let (Some(preheader), &[latch]) = (l.preheader, l.latches.as_slice()) else {
        return None;
    };
    let (exiting, exit, used_after) = results_of(f, cfg, loops, facts, k, MAX_INSTRUCTIONS)?;
    if skipped_already(f, cfg, dom, preheader, exit) {
        return None;
    }
    let mut evolution = LoopEvolution::new(f, loops, k)?;
    let mut sums: Vec<ModularSum> = Vec::new();
    let mut recurrences = Vec::new();
    let mut hoisted = Vec::new();
    for i in used_after {
        if sums.iter().any(|s| s.phi == i || s.next == i) {
            continue;
        }
        if let Some(r) = evolution.recurrence(Value::Inst(i)) {
            recurrences.push((Value::Inst(i), r));
            continue;
        }
        let phi = match f.kind(i) {
            InstKind::Phi { .. } => i,
            _ => f
                .phis(l.header)
                .find(|&p| phi_next(f, p, latch) == Some(i))?,
        };
        let mut sum = modular_sum(f, loops, k, phi, preheader, latch)?;
        for &(v, minus) in &sum.addends {
            // Each addend follows `{a,+,b}`: a term of the iteration's first degree; or it
            // is computed inside the loop from values fixed for it, and then fixed too.
            let r = match evolution.recurrence(v) {
                Some(r) => r,
                None if fixed_for_loop(f, loops, k, v, &mut hoisted, HOIST_DEPTH) => {
                    Recurrence::invariant(Invariant::value(v))
                }
                None => return None,
            };
            let zero = Invariant::constant(0);
            let (a, b) = match r.coeffs.as_slice() {
                [a] => (a, &zero),
                [a, b] => (a, b),
                _ => return None,
            };
            let sign = if minus { -1 } else { 1 };
            sum.first = sum.first.add(&a.scale(sign));
            sum.increment = sum.increment.add(&b.scale(sign));
        }
        sums.push(sum);
    }
    if sums.is_empty() {
        return None;
    }
    let count = evolution.exit_count(dom, exiting)?;
    if count.count.terms.is_empty() && count.count.constant < MIN_ROUNDS {
        // A constant count below the threshold: the test would always fail.
        return None;
    }
    Some(Plan {
        preheader,
        exiting,
        exit,
        count,
        sums,
        recurrences,
        hoisted,
    })
}

/// How deep `fixed_for_loop` looks through the operations computing a term.
const HOIST_DEPTH: u32 = 6;

/// Whether `v` is computed inside loop `k` only from values fixed for it, by operations
/// that touch no memory and cannot fault (`d * d * d` for a `d` fixed for the loop, left
/// inside by an unrolled inner loop after `licm` ran); those operations go to `hoisted`
/// after their operands'.
fn fixed_for_loop(
    f: &Function,
    loops: &LoopInfo,
    k: usize,
    v: Value,
    hoisted: &mut Vec<Inst>,
    depth: u32,
) -> bool {
    if loops.is_invariant(f, k, v) {
        return !matches!(v, Value::Undef(_));
    }
    let Some(i) = v.as_inst() else {
        return false;
    };
    let op = f.kind(i).opcode();
    if depth == 0 || is_pinned(f, i) || op.may_fault() || f.kind(i).is_phi() {
        return false;
    }
    let operands = f.kind(i).operands().to_vec();
    if !operands
        .into_iter()
        .all(|a| fixed_for_loop(f, loops, k, a, hoisted, depth - 1))
    {
        return false;
    }
    if !hoisted.contains(&i) {
        hoisted.push(i);
    }
    true
}

/// How many blocks up the dominator tree from a loop's preheader, and down the chain of
/// single successors from its exit, `skipped_already` looks.
const SKIP_REACH: usize = 4;

/// Whether a branch shortly before the loop (whose `preheader` and `exit` are given) already
/// skips it to where its exit leads, through a block that computes something: an earlier
/// run's formula, which this run would only test again under the same conditions (the
/// skip of a loop that may run no round is an empty block).
fn skipped_already(f: &Function, cfg: &Cfg, dom: &DomTree, preheader: Block, exit: Block) -> bool {
    let mut after = vec![exit];
    while after.len() <= SKIP_REACH {
        match cfg.succs(after[after.len() - 1]) {
            &[next] => after.push(next),
            _ => break,
        }
    }
    let mut at = preheader;
    for _ in 0..SKIP_REACH {
        let Some(up) = dom.idom(at) else {
            return false;
        };
        let way_around = cfg
            .succs(up)
            .iter()
            .find(|&&t| !dom.dominates(t, preheader));
        if let Some(&skip) = way_around {
            let computes = f.block_insts(skip).nth(1).is_some();
            if computes && matches!(cfg.succs(skip), &[to] if after.contains(&to)) {
                return true;
            }
        }
        at = up;
    }
    false
}

/// The value a header phi takes from the latch.
fn phi_next(f: &Function, phi: Inst, latch: Block) -> Option<Inst> {
    let InstKind::Phi { args, blocks } = f.kind(phi) else {
        return None;
    };
    let at = blocks.iter().position(|&b| b == latch)?;
    args[at].as_inst()
}

/// `phi` as a modular sum, if it is one: it takes `(phi + c) % M`, or what range analysis
/// leaves of it, and nothing else in the loop reads it or the parts of the sum.
fn modular_sum(
    f: &Function,
    loops: &LoopInfo,
    k: usize,
    phi: Inst,
    preheader: Block,
    latch: Block,
) -> Option<ModularSum> {
    let InstKind::Phi { args, blocks } = f.kind(phi) else {
        return None;
    };
    let start = args[blocks.iter().position(|&b| b == preheader)?];
    let next = phi_next(f, phi, latch)?;
    let invariant = |v: Value| loops.is_invariant(f, k, v) && !matches!(v, Value::Undef(_));
    let mut parts = vec![next];
    let (step, modulus, subtracts) = match *f.kind(next) {
        InstKind::Binary {
            op: BinaryOp::SRem,
            args: [s, m],
        } if invariant(m) => (plus_phi(f, phi, s, &mut parts)?, m, false),
        _ => {
            let (step, m) = remainder_by_selects(f, phi, next, &mut parts)?;
            let step = step.into_iter().map(|v| (v, false)).collect();
            (step, Value::Int(m), true)
        }
    };
    // Only the sum reads the phi and the parts, inside the loop; only the phi reads the
    // sum there.
    let read_only_by = |v: Inst, by: &dyn Fn(Inst) -> bool| {
        f.uses(Value::Inst(v))
            .iter()
            .filter(|u| f.inst_block(u.inst).is_some_and(|b| loops.contains(k, b)))
            .all(|u| by(u.inst))
    };
    let in_sum = |i: Inst| parts.contains(&i);
    if !read_only_by(phi, &in_sum)
        || !read_only_by(next, &|i| i == phi)
        || parts
            .iter()
            .any(|&p| p != next && !read_only_by(p, &in_sum))
    {
        return None;
    }
    Some(ModularSum {
        phi,
        next,
        start,
        addends: step,
        first: Invariant::constant(0),
        increment: Invariant::constant(0),
        modulus,
        subtracts,
    })
}

/// The values `v` adds to `phi`, or subtracts from it (marked), when `v` is `phi` plus and
/// minus other values through a chain of additions and subtractions from the chain
/// (reassociation leaves `(phi + a) + b`, a table's entries `(s + p[4]) - p[1]`); the
/// operations go to `parts`.
fn plus_phi(
    f: &Function,
    phi: Inst,
    v: Value,
    parts: &mut Vec<Inst>,
) -> Option<Vec<(Value, bool)>> {
    let mut addends = Vec::new();
    let mut at = v;
    while at != Value::Inst(phi) {
        let op = at.as_inst()?;
        let (rest, c, minus) = match *f.kind(op) {
            InstKind::Binary {
                op: BinaryOp::Add,
                args: [a, b],
            } if reaches(f, phi, a, MAX_ADDENDS) => (a, b, false),
            InstKind::Binary {
                op: BinaryOp::Add,
                args: [a, b],
            } => (b, a, false),
            InstKind::Binary {
                op: BinaryOp::Sub,
                args: [a, b],
            } => (a, b, true),
            _ => return None,
        };
        if addends.len() == MAX_ADDENDS {
            return None;
        }
        addends.push((c, minus));
        parts.push(op);
        at = rest;
    }
    (!addends.is_empty()).then_some(addends)
}

/// The values of `addends` when none is subtracted.
fn only_added(addends: Vec<(Value, bool)>) -> Option<Vec<Value>> {
    addends
        .into_iter()
        .map(|(v, minus)| (!minus).then_some(v))
        .collect()
}

/// Whether `v` is `phi` or an addition (or subtraction from) that reaches it within `depth`
/// more of them.
fn reaches(f: &Function, phi: Inst, v: Value, depth: usize) -> bool {
    if v == Value::Inst(phi) {
        return true;
    }
    let Some(i) = v.as_inst() else {
        return false;
    };
    match *f.kind(i) {
        InstKind::Binary {
            op: BinaryOp::Add,
            args: [a, b],
        } if depth > 0 => reaches(f, phi, a, depth - 1) || reaches(f, phi, b, depth - 1),
        InstKind::Binary {
            op: BinaryOp::Sub,
            args: [a, _],
        } if depth > 0 => reaches(f, phi, a, depth - 1),
        _ => false,
    }
}

/// `addends` as the values that are not constants and the sum of the constants (`None`
/// when it wraps).
fn split_addends(addends: &[Value]) -> (Vec<Value>, Option<i32>) {
    let others: Vec<Value> = addends
        .iter()
        .copied()
        .filter(|v| !matches!(v, Value::Int(_)))
        .collect();
    let sum = addends.iter().try_fold(0i32, |sum, v| match v {
        Value::Int(c) => sum.checked_add(*c),
        _ => Some(sum),
    });
    (others, sum)
}

/// Whether `a` and `b` hold the same values as many times each, in any order.
fn same_values(a: &[Value], b: &[Value]) -> bool {
    let count = |xs: &[Value], v: &Value| xs.iter().filter(|x| *x == v).count();
    a.len() == b.len() && a.iter().all(|v| count(a, v) == count(b, v))
}

/// The step and the constant modulus of `next` when it is the remainder of `s = phi + c`
/// by `M` as range analysis writes it for `s` within one modulus either side: `s > M - 1 ?
/// s - M : s`, perhaps inside `s < 1 - M ? s + M : ...`, each of `s - M` and `s + M`
/// written on `s`, or for a constant `c` on `phi` (`phi + (c - M)`).
fn remainder_by_selects(
    f: &Function,
    phi: Inst,
    next: Inst,
    parts: &mut Vec<Inst>,
) -> Option<(Vec<Value>, i32)> {
    let select = |i: Inst| match *f.kind(i) {
        InstKind::Select { args: [t, a, b] } => {
            let InstKind::Icmp {
                pred,
                args: [x, Value::Int(bound)],
            } = *f.kind(t.as_inst()?)
            else {
                return None;
            };
            Some((t.as_inst()?, pred, x, bound, a, b))
        }
        _ => None,
    };
    let (mut test, mut pred, mut s, mut bound, mut a, mut b) = select(decided(f, next, parts)?)?;
    let mut below = None;
    if pred == IntPred::Slt {
        // `s < 1 - M ? s + M : inner`.
        below = Some((test, a, bound));
        let inner = decided(f, b.as_inst()?, parts)?;
        parts.push(inner);
        (test, pred, s, bound, a, b) = select(inner)?;
    }
    parts.push(test);
    let step = only_added(plus_phi(f, phi, s, parts)?)?;
    let (others, c) = split_addends(&step);
    let m = bound.checked_add(1)?;
    // `value` is `s + delta`, on `s` or on the phi.
    let shifted = |value: Value, delta: i32, parts: &mut Vec<Inst>| -> Option<()> {
        let add = value.as_inst()?;
        if let InstKind::Binary {
            op: BinaryOp::Add,
            args: [x, Value::Int(d)],
        } = *f.kind(add)
        {
            if x == s && d == delta {
                parts.push(add);
                return Some(());
            }
        }
        let mut own = Vec::new();
        let addends = only_added(plus_phi(f, phi, value, &mut own)?)?;
        let (more, d) = split_addends(&addends);
        let matches = same_values(&more, &others) && c.is_some_and(|c| d == c.checked_add(delta));
        matches.then(|| parts.extend(own))
    };
    if pred != IntPred::Sgt || b != s {
        return None;
    }
    shifted(a, m.checked_neg()?, parts)?;
    if let Some((test, more, low)) = below {
        if low != 1 - m {
            return None;
        }
        parts.push(test);
        shifted(more, m, parts)?;
    }
    Some((step, m))
}

/// Tests in the preheader whether the formulas hold; computes them in a new block that
/// goes to the exit; and gives the values used after the loop phis there.
fn apply(f: &mut Function, loops: &LoopInfo, k: usize, plan: Plan) {
    let header = loops.loops[k].header;
    fold_exit_phis(f, plan.exit);
    let enter = f
        .terminator(plan.preheader)
        .expect("a preheader ends in a branch");
    for &i in &plan.hoisted {
        f.move_inst_before(i, enter);
    }
    let mut w = ArithWriter::new(f, enter);
    let n = exit_count(&mut w, &plan.count);
    let steps: Vec<(Value, Value)> = plan
        .sums
        .iter()
        .map(|s| (w.invariant(&s.first), w.invariant(&s.increment)))
        .collect();
    let mut holds = compare(&mut w, IntPred::Sge, n, Value::Int(MIN_ROUNDS));
    for (s, &(a, b)) in plan.sums.iter().zip(&steps) {
        for test in conditions(&mut w, s, a, b, n) {
            holds = and(&mut w, holds, test);
        }
    }
    let skip = f.add_block();
    let jump = f.append_inst(
        skip,
        InstKind::Br {
            targets: [plan.exit],
        },
        Type::Void,
    );
    f.replace_kind(
        enter,
        InstKind::CondBr {
            args: [holds],
            targets: [skip, header],
        },
        Type::Void,
    );
    let mut w = ArithWriter::new(f, jump);
    let mut closed: Vec<(Inst, Value)> = Vec::new();
    for (s, &(a, b)) in plan.sums.iter().zip(&steps) {
        // `(r0 + n*a + C(n,2)*b) mod M`, then one more step, `a + n*b`, for the new value.
        let m = s.modulus;
        let reduced = |w: &mut ArithWriter, v: Value| w.binary(BinaryOp::SRem, v, m);
        let (start, a, rounds) = (
            reduced(&mut w, s.start),
            reduced(&mut w, a),
            reduced(&mut w, n),
        );
        let mut total = times_mod(&mut w, rounds, a, m);
        let mut last_step = a;
        if b != Value::Int(0) {
            let b = reduced(&mut w, b);
            let (half, other) = pair_factors(&mut w, n);
            let (half, other) = (reduced(&mut w, half), reduced(&mut w, other));
            let pairs = times_mod(&mut w, half, other, m);
            let grown = times_mod(&mut w, pairs, b, m);
            total = add_mod(&mut w, total, grown, m);
            let nb = times_mod(&mut w, rounds, b, m);
            last_step = add_mod(&mut w, a, nb, m);
        }
        let last = add_mod(&mut w, start, total, m);
        closed.push((s.phi, last));
        closed.push((s.next, add_mod(&mut w, last, last_step, m)));
    }
    let degree = plan.recurrences.iter().map(|(_, r)| r.degree()).max();
    let binomials = binomials(&mut w, n, degree.unwrap_or(0));
    for (v, r) in &plan.recurrences {
        let value = evaluate(&mut w, r, &binomials);
        closed.push((v.as_inst().expect("a loop's value"), value));
    }
    for (v, value) in closed {
        let outside: Vec<_> = f
            .uses(Value::Inst(v))
            .iter()
            .filter(|u| f.inst_block(u.inst).is_none_or(|b| !loops.contains(k, b)))
            .copied()
            .collect();
        if outside.is_empty() {
            continue;
        }
        let phi = f.prepend_inst(
            plan.exit,
            InstKind::Phi {
                args: vec![Value::Inst(v), value],
                blocks: vec![plan.exiting, skip],
            },
            Type::I32,
        );
        for u in outside {
            f.set_operand(u.inst, u.index as usize, Value::Inst(phi));
        }
    }
}

/// The tests under which the formula of sum `s` is the loop's result, the sum adding `a +
/// j*b` in round `j` of the `n + 1`: every term and `r0` not negative, `M >= 1`, and no
/// addition wrapping, the first (`r0 + a`) nor any later one (`M - 1 + a + n*b`).
fn conditions(w: &mut ArithWriter, s: &ModularSum, a: Value, b: Value, n: Value) -> Vec<Value> {
    let (r0, m) = (s.start, s.modulus);
    let room = w.binary(BinaryOp::Sub, Value::Int(i32::MAX), a);
    let top = w.binary(BinaryOp::Add, m, Value::Int(-1));
    let mut tests = vec![
        compare(w, IntPred::Sge, a, Value::Int(0)),
        compare(w, IntPred::Sgt, m, Value::Int(0)),
        compare(w, IntPred::Sge, r0, Value::Int(0)),
        compare(w, IntPred::Sle, top, room),
    ];
    if s.subtracts {
        tests.push(compare(w, IntPred::Slt, r0, m));
        tests.push(compare(w, IntPred::Slt, a, m));
    } else {
        tests.push(compare(w, IntPred::Sle, r0, room));
    }
    if b != Value::Int(0) {
        // `n*b <= room - top`, as `n <= (room - top) / max(b, 1)` for `b >= 0` (the divisor
        // never 0, even where the test fails); for the selects also `n*b <= top - a`, so
        // that the last term stays below `M`.
        let spare = w.binary(BinaryOp::Sub, room, top);
        let positive = compare(w, IntPred::Sgt, b, Value::Int(0));
        tests.push(compare(w, IntPred::Sge, b, Value::Int(0)));
        let divisor = select(w, positive, b, Value::Int(1), Type::I32);
        let most = w.binary(BinaryOp::SDiv, spare, divisor);
        tests.push(compare(w, IntPred::Sle, n, most));
        if s.subtracts {
            let below_m = w.binary(BinaryOp::Sub, top, a);
            let most = w.binary(BinaryOp::SDiv, below_m, divisor);
            tests.push(compare(w, IntPred::Sle, n, most));
        }
    }
    tests
}

fn compare(w: &mut ArithWriter, pred: IntPred, a: Value, b: Value) -> Value {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        return Value::Bool(semantics::icmp(pred, x as u32, y as u32));
    }
    let kind = InstKind::Icmp { pred, args: [a, b] };
    Value::Inst(w.f.insert_inst_before(w.at, kind, Type::I1))
}

fn and(w: &mut ArithWriter, a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Bool(true), x) | (x, Value::Bool(true)) => x,
        (Value::Bool(false), _) | (_, Value::Bool(false)) => Value::Bool(false),
        _ => select(w, a, b, Value::Bool(false), Type::I1),
    }
}

fn select(w: &mut ArithWriter, c: Value, a: Value, b: Value, ty: Type) -> Value {
    match c {
        Value::Bool(true) => return a,
        Value::Bool(false) => return b,
        _ => {}
    }
    let kind = InstKind::Select { args: [c, a, b] };
    Value::Inst(w.f.insert_inst_before(w.at, kind, ty))
}

/// What `v` picks when it is a select whose condition range analysis decided (`s < 1 - M`
/// found false leaves `false ? s + M : inner`), through any number of them, with the
/// selects, the arms they drop and the value picked in `parts`; else `v`.
fn decided(f: &Function, mut v: Inst, parts: &mut Vec<Inst>) -> Option<Inst> {
    while let InstKind::Select {
        args: [Value::Bool(c), a, b],
    } = *f.kind(v)
    {
        let (kept, dropped) = if c { (a, b) } else { (b, a) };
        parts.push(v);
        parts.extend(dropped.as_inst());
        v = kept.as_inst()?;
        parts.push(v);
    }
    Some(v)
}

/// `x + y mod m` for `x` and `y` in `0..m`, without leaving `0..m`.
fn add_mod(w: &mut ArithWriter, x: Value, y: Value, m: Value) -> Value {
    let room = w.binary(BinaryOp::Sub, m, y);
    let wraps = compare(w, IntPred::Sge, x, room);
    let less = w.binary(BinaryOp::Sub, x, room);
    let sum = w.binary(BinaryOp::Add, x, y);
    select(w, wraps, less, sum, Type::I32)
}

/// `x * y mod m` for `x` and `y` in `0..m`: `x`'s bits from the highest, doubling and
/// adding `y` modulo `m`.
fn times_mod(w: &mut ArithWriter, x: Value, y: Value, m: Value) -> Value {
    let bits = match m {
        Value::Int(m) => 32 - (m - 1).max(1).leading_zeros(),
        _ => 31,
    };
    let mut product = Value::Int(0);
    for bit in (0..bits).rev() {
        product = add_mod(w, product, product, m);
        let shifted = w.binary(BinaryOp::LShr, x, Value::Int(bit as i32));
        let set = w.binary(BinaryOp::And, shifted, Value::Int(1));
        let set = compare(w, IntPred::Ne, set, Value::Int(0));
        let added = add_mod(w, product, y, m);
        product = select(w, set, added, product, Type::I32);
    }
    product
}
