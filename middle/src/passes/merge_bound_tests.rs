//! merge-bound-tests: two tests of one value against bounds fixed for the loop, one right
//! after the other and leaving for the same block, become one test against the tighter
//! bound, computed before the loop.
//!
//! `while (k < taps && k <= i)` in an inner loop tests `k` twice a round, in two blocks, so
//! the loop cannot be rotated into one block. Where both tests must pass to go on and
//! `taps` and `i` are fixed, `k < taps && k <= i` is `k < (i < taps ? i + 1 : taps)`: when
//! `i < taps`, `i + 1` cannot wrap and `k <= i` is the tighter test; otherwise `k < taps`
//! implies `k <= i`. Likewise `k < a && k < b` is `k < min(a, b)`, `k <= a && k <= b` is
//! `k <= min(a, b)`, and lower bounds take the maximum (`k > a && k >= b` is
//! `k > (b > a ? b - 1 : a)`).
//!
//! The first block ends in `condbr` on a comparison of `x` with a bound; one target is the
//! second block, whose only predecessor it is and which holds nothing but a comparison of
//! `x` with the other bound (used only by its `condbr`) and that `condbr`; the other
//! target of the first block is a target of the second as well, and its phis take the same
//! value from both. The first block then branches on the merged test straight to where the
//! second went on, and the second block goes. Both bounds must be fixed for the innermost
//! loop around the first block, which needs a preheader (where the merged bound goes);
//! constant bounds merge into a constant. Unsigned and equality tests stay.
//!
//! Needs: the loop forest. Preserves: behaviour.

use crate::analysis::{LoopInfo, Preserved};
use crate::ir::{BinaryOp, Block, Function, Inst, InstKind, IntPred, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::phi_edits::{Edit, PhiEdits};
use crate::transform::remove_blocks::remove_blocks;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let cfg = cx.analyses.cfg(f);
    let loops = cx.analyses.loops(f);
    let mut preds: Vec<usize> = vec![0; f.block_capacity()];
    for &b in cfg.rpo() {
        preds[b.index()] = cfg.preds(b).len();
    }
    let mut changed = false;
    for &b in cfg.rpo() {
        // A merge makes the block after the removed one the next candidate: three tests
        // become one.
        while let Some(merge) = find(f, &loops, &preds, b) {
            apply(f, &merge);
            preds[merge.exit.index()] -= 1;
            changed = true;
        }
    }
    Preserved::nothing_if(changed)
}

/// Two tests to merge: `first` goes on to `second` or leaves for `exit`; `second` goes on
/// to `next` or leaves for `exit`.
struct Merge {
    first: Block,
    second: Block,
    next: Block,
    exit: Block,
    /// Where the merged bound is computed.
    preheader: Block,
    x: Value,
    test: BoundTest,
    other: BoundTest,
}

/// `x pred bound`, with `pred` one of `<`, `<=`, `>`, `>=` (signed).
#[derive(Clone, Copy)]
struct BoundTest {
    pred: IntPred,
    bound: Value,
}

fn find(f: &Function, loops: &LoopInfo, preds: &[usize], first: Block) -> Option<Merge> {
    let k = loops.innermost(first)?;
    let preheader = loops.loops[k].preheader?;
    let (c1, [yes, no]) = f.cond_branch(first)?;
    let c1 = c1.as_inst()?;
    let (second, exit, on) = if preds[yes.index()] == 1 && yes != first {
        (yes, no, true)
    } else if preds[no.index()] == 1 && no != first {
        (no, yes, false)
    } else {
        return None;
    };
    let mut insts = f.block_insts(second);
    let (c2, term) = (insts.next()?, insts.next()?);
    if insts.next().is_some() || f.uses(Value::Inst(c2)).len() != 1 {
        return None;
    }
    let (cond, [yes2, no2]) = f.cond_branch(second)?;
    if cond != Value::Inst(c2) || f.terminator(second) != Some(term) {
        return None;
    }
    let (next, on2) = if no2 == exit {
        (yes2, true)
    } else if yes2 == exit {
        (no2, false)
    } else {
        return None;
    };
    let same_exit_values = f
        .phis(exit)
        .all(|phi| f.phi_incoming(phi, first) == f.phi_incoming(phi, second));
    if !same_exit_values {
        return None;
    }
    let InstKind::Icmp { args: [p, q], .. } = *f.kind(c1) else {
        return None;
    };
    [p, q].into_iter().find_map(|x| {
        let test = bound_test(f, c1, on, x)?;
        let other = bound_test(f, c2, on2, x)?;
        let fixed = |t: BoundTest| t.bound != x && loops.is_invariant(f, k, t.bound);
        let sides_agree = is_upper(test.pred) == is_upper(other.pred);
        (fixed(test) && fixed(other) && sides_agree).then_some(Merge {
            first,
            second,
            next,
            exit,
            preheader,
            x,
            test,
            other,
        })
    })
}

/// Comparison `cmp` as a test of `x` against a bound that goes on when the comparison
/// comes out `holds`.
fn bound_test(f: &Function, cmp: Inst, holds: bool, x: Value) -> Option<BoundTest> {
    let InstKind::Icmp { pred, args: [p, q] } = *f.kind(cmp) else {
        return None;
    };
    let pred = if holds { pred } else { pred.inverse() };
    let (pred, bound) = if p == x {
        (pred, q)
    } else if q == x {
        (pred.swapped(), p)
    } else {
        return None;
    };
    matches!(
        pred,
        IntPred::Slt | IntPred::Sle | IntPred::Sgt | IntPred::Sge
    )
    .then_some(BoundTest { pred, bound })
}

fn is_upper(pred: IntPred) -> bool {
    matches!(pred, IntPred::Slt | IntPred::Sle)
}

fn is_strict(pred: IntPred) -> bool {
    matches!(pred, IntPred::Slt | IntPred::Sgt)
}

fn apply(f: &mut Function, m: &Merge) {
    let merged = merged_test(f, m.preheader, m.test, m.other);
    let term = f
        .terminator(m.first)
        .expect("the first test ends in a condbr");
    let cond = f.insert_inst_before(
        term,
        InstKind::Icmp {
            pred: merged.pred,
            args: [m.x, merged.bound],
        },
        Type::I1,
    );
    f.replace_kind(
        term,
        InstKind::CondBr {
            args: [Value::Inst(cond)],
            targets: [m.next, m.exit],
        },
        Type::Void,
    );
    let mut edits = PhiEdits::new(f.block_capacity());
    edits.queue(f, m.exit, Edit::Remove(m.second));
    edits.queue(f, m.next, Edit::Rename(m.second, m.first));
    edits.flush_all(f);
    remove_blocks(f, &[m.second]);
}

/// The one test equivalent to passing both `a` and `b` (on the same side), its bound
/// computed at the end of `at` unless both bounds are constants.
fn merged_test(f: &mut Function, at: Block, a: BoundTest, b: BoundTest) -> BoundTest {
    let upper = is_upper(a.pred);
    let (strict, inclusive) = match (is_strict(a.pred), is_strict(b.pred)) {
        (true, false) => (a.bound, b.bound),
        (false, true) => (b.bound, a.bound),
        _ => {
            let bound = tighter(f, at, upper, a.bound, b.bound);
            return BoundTest {
                pred: a.pred,
                bound,
            };
        }
    };
    // `x < s && x <= n`: `x < n + 1` where `n < s` (then `n + 1` cannot wrap), else `x < s`;
    // below, `x > s && x >= n` is `x > n - 1` where `n > s`.
    let (pred, step) = if upper {
        (IntPred::Slt, 1)
    } else {
        (IntPred::Sgt, -1)
    };
    let bound = match (strict, inclusive) {
        (Value::Int(s), Value::Int(n)) => Value::Int(if (n < s) == upper && n != s {
            n + step
        } else {
            s
        }),
        _ => {
            let inside = emit(f, at, cmp(pred, inclusive, strict), Type::I1);
            let moved = emit(
                f,
                at,
                InstKind::Binary {
                    op: BinaryOp::Add,
                    args: [inclusive, Value::Int(step)],
                },
                Type::I32,
            );
            select(f, at, inside, moved, strict)
        }
    };
    BoundTest { pred, bound }
}

/// The tighter of bounds `p` and `q`: the smaller for an upper bound, else the greater.
fn tighter(f: &mut Function, at: Block, upper: bool, p: Value, q: Value) -> Value {
    if let (Value::Int(p), Value::Int(q)) = (p, q) {
        return Value::Int(if upper { p.min(q) } else { p.max(q) });
    }
    let pred = if upper { IntPred::Slt } else { IntPred::Sgt };
    let p_inside = emit(f, at, cmp(pred, p, q), Type::I1);
    select(f, at, p_inside, p, q)
}

fn select(f: &mut Function, at: Block, c: Value, a: Value, b: Value) -> Value {
    emit(f, at, InstKind::Select { args: [c, a, b] }, Type::I32)
}

fn cmp(pred: IntPred, a: Value, b: Value) -> InstKind {
    InstKind::Icmp { pred, args: [a, b] }
}

/// Adds `kind` at the end of `b`, before its terminator.
fn emit(f: &mut Function, b: Block, kind: InstKind, ty: Type) -> Value {
    let term = f.terminator(b).expect("a preheader ends in a jump");
    Value::Inst(f.insert_inst_before(term, kind, ty))
}
