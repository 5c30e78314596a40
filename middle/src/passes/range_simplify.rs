//! range-simplify: simplifies operations that the value ranges of their operands decide
//! (`analysis::ranges`).
//!
//! - A comparison that holds for every pair of values in its operands' ranges, or for none,
//!   becomes `true` or `false`.
//! - `x % c` and `x / c` for a constant `c > 0`:
//!   - `x` strictly between `-c` and `c` is its own remainder, and its quotient is 0;
//!   - `x` within `0..2c` has remainder `x >= c ? x - c : x` and quotient `x >= c`: a
//!     compare and a conditional subtract in place of a multiply-high sequence (a sum of two
//!     values below a modulus, taken modulo it);
//!   - `x` strictly between `-2c` and `2c` likewise steps up by `c` when `x <= -c` (the
//!     remainder keeps the dividend's sign), with quotient `(x >= c) - (x <= -c)`: the sum
//!     of two remainders of possibly negative values;
//!   - a non-negative `x` and `c = 2^k` give `x & (c - 1)` and `x >> k`, without the
//!     rounding correction for negative dividends that `instcombine` would add;
//!   - `(y * m) / c` with `m` a multiple of `c` is `y * (m / c)` when `y * m` cannot wrap.
//! - A comparison of `x + 1` or `x - 1` that cannot wrap, where only selects and the
//!   phis after the branch on the comparison pick the step, compares `x` itself where only
//!   the predicate changes (`x + 1 > y` is `x >= y`): it no longer waits for the step,
//!   which is then made under the select's condition.
//!
//! Needs: the CFG. Preserves: behaviour and the CFG.

use crate::analysis::ranges::Ranges;
use crate::analysis::Preserved;
use crate::ir::{BinaryOp, Block, CastOp, Function, Inst, InstKind, IntPred, Type, Value};
use crate::passes::FunctionContext;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let cfg = cx.analyses.cfg(f);
    let ranges = Ranges::new(f, &cfg);
    let mut changed = false;
    for &b in cfg.rpo() {
        let insts: Vec<Inst> = f.block_insts(b).collect();
        for i in insts {
            if let Some(v) = simplify(f, &ranges, i) {
                f.replace_all_uses(Value::Inst(i), v);
                f.remove_inst(i);
                changed = true;
            }
        }
    }
    Preserved::cfg_if(changed)
}

/// The value that replaces `i`, built in front of it if need be.
fn simplify(f: &mut Function, ranges: &Ranges, i: Inst) -> Option<Value> {
    match *f.kind(i) {
        InstKind::Icmp { pred, args: [a, b] } => ranges
            .decide(pred, a, b)
            .map(Value::Bool)
            .or_else(|| past_a_step(f, ranges, i, pred, a, b)),
        InstKind::Binary {
            op: op @ (BinaryOp::SDiv | BinaryOp::SRem),
            args: [x, Value::Int(c)],
        } if c > 0 => divide(f, ranges, i, op, x, c),
        _ => None,
    }
}

/// `x / c` or `x % c` (`op`) for `c > 0`, when the range of `x` allows a cheaper form.
fn divide(
    f: &mut Function,
    ranges: &Ranges,
    i: Inst,
    op: BinaryOp,
    x: Value,
    c: i32,
) -> Option<Value> {
    let r = ranges.of(x);
    let c64 = c as i64;
    let is_div = op == BinaryOp::SDiv;
    if r.within(1 - c64, c64 - 1) {
        return Some(if is_div { Value::Int(0) } else { x });
    }
    if r.within(0, 2 * c64 - 1) {
        let at_least = insert(
            f,
            i,
            InstKind::icmp(IntPred::Sge, x, Value::Int(c)),
            Type::I1,
        );
        return Some(if is_div {
            let kind = InstKind::Cast {
                op: CastOp::Zext,
                args: [at_least],
            };
            insert(f, i, kind, Type::I32)
        } else {
            let less = insert(
                f,
                i,
                InstKind::binary(BinaryOp::Sub, x, Value::Int(c)),
                Type::I32,
            );
            let kind = InstKind::Select {
                args: [at_least, less, x],
            };
            insert(f, i, kind, Type::I32)
        });
    }
    // Within one modulus either way: one step up or down, or none. Not for a range that
    // says nothing (with `c` above 2^30 every value qualifies): a later run, knowing more,
    // may find the one-sided case above.
    let known = r.lo > i64::from(i32::MIN) || r.hi < i64::from(i32::MAX);
    if known && r.within(1 - 2 * c64, 2 * c64 - 1) {
        let at_least = insert(
            f,
            i,
            InstKind::icmp(IntPred::Sge, x, Value::Int(c)),
            Type::I1,
        );
        let at_most = insert(
            f,
            i,
            InstKind::icmp(IntPred::Sle, x, Value::Int(-c)),
            Type::I1,
        );
        if is_div {
            let zext = |f: &mut Function, b| {
                let kind = InstKind::Cast {
                    op: CastOp::Zext,
                    args: [b],
                };
                insert(f, i, kind, Type::I32)
            };
            let up = zext(f, at_least);
            let down = zext(f, at_most);
            return Some(insert(
                f,
                i,
                InstKind::binary(BinaryOp::Sub, up, down),
                Type::I32,
            ));
        }
        let less = insert(
            f,
            i,
            InstKind::binary(BinaryOp::Sub, x, Value::Int(c)),
            Type::I32,
        );
        let above = InstKind::Select {
            args: [at_least, less, x],
        };
        let above = insert(f, i, above, Type::I32);
        let more = insert(
            f,
            i,
            InstKind::binary(BinaryOp::Add, x, Value::Int(c)),
            Type::I32,
        );
        let kind = InstKind::Select {
            args: [at_most, more, above],
        };
        return Some(insert(f, i, kind, Type::I32));
    }
    if r.lo >= 0 && (c as u32).is_power_of_two() {
        let kind = if is_div {
            InstKind::binary(BinaryOp::AShr, x, Value::Int(c.trailing_zeros() as i32))
        } else {
            InstKind::binary(BinaryOp::And, x, Value::Int(c - 1))
        };
        return Some(insert(f, i, kind, Type::I32));
    }
    if is_div {
        return exact_product_quotient(f, ranges, i, x, c);
    }
    None
}

/// `(y * m) / c` as `y * (m / c)` when `c` divides `m` and `y * m` stays in `i32` (then the
/// product is exact, a multiple of `c`, and the division exact too).
fn exact_product_quotient(
    f: &mut Function,
    ranges: &Ranges,
    i: Inst,
    x: Value,
    c: i32,
) -> Option<Value> {
    let InstKind::Binary {
        op: BinaryOp::Mul,
        args: [y, Value::Int(m)],
    } = *f.kind(x.as_inst()?)
    else {
        return None;
    };
    if m % c != 0 {
        return None;
    }
    let r = ranges.of(y);
    let fits = |v: i64| i32::try_from(v * m as i64).is_ok();
    if !(fits(r.lo) && fits(r.hi)) {
        return None;
    }
    let factor = m / c;
    if factor == 1 {
        return Some(y);
    }
    Some(insert(
        f,
        i,
        InstKind::binary(BinaryOp::Mul, y, Value::Int(factor)),
        Type::I32,
    ))
}

/// `x + 1 > y` as `x >= y` (`x + 1 <= y` as `x < y`, `x - 1 < y` as `x <= y`, `x - 1 >= y`
/// as `x > y`; the step on either side) when `x` is below the largest `i32` (above the
/// smallest), so that the step cannot wrap, and the step's other uses pick it. The
/// comparison no longer waits for the step, and the step is made under the condition of
/// the select that picks it: `if (len > best) best = len;` with `len = j - i + 1` is a
/// compare and an `addge`.
fn past_a_step(
    f: &mut Function,
    ranges: &Ranges,
    i: Inst,
    pred: IntPred,
    a: Value,
    b: Value,
) -> Option<Value> {
    let ((x, step), pred, other, stepped) = match (unit_step(f, a), unit_step(f, b)) {
        (Some(s), _) => (s, pred, b, a),
        (None, Some(s)) => (s, pred.swapped(), a, b),
        (None, None) => return None,
    };
    // Only a step that is picked gains: by a select (made under its condition) or by a
    // phi on the edge from the branch on this comparison (`up = i - 1; if (up < 0) up =
    // n - 1;`, where `i <= 0` is a test loop-split and unswitching read). Any other use
    // computes it anyway, and the comparison only moves (a loop's guard on its first
    // counter value). Not a counter stepped round a loop (`miss = miss + 1; if (miss >
    // limit) break;`): the old value would live on beside the new one.
    let branches: Vec<Block> = f
        .uses(Value::Inst(i))
        .iter()
        .filter(|u| matches!(f.kind(u.inst), InstKind::CondBr { .. }))
        .filter_map(|u| f.inst_block(u.inst))
        .collect();
    let picked = f.uses(stepped).iter().all(|u| match f.kind(u.inst) {
        InstKind::Select { .. } => true,
        InstKind::Phi { blocks, .. } => branches.contains(&blocks[u.index as usize]),
        _ => u.inst == i,
    });
    if !picked || comes_back(f, stepped, x) {
        return None;
    }
    let r = ranges.of(x);
    let below_max = r.hi < i64::from(i32::MAX);
    let above_min = r.lo > i64::from(i32::MIN);
    let past = match (pred, step) {
        (IntPred::Sgt, 1) if below_max => IntPred::Sge,
        (IntPred::Sle, 1) if below_max => IntPred::Slt,
        (IntPred::Slt, -1) if above_min => IntPred::Sle,
        (IntPred::Sge, -1) if above_min => IntPred::Sgt,
        _ => return None,
    };
    Some(insert(f, i, InstKind::icmp(past, x, other), Type::I1))
}

/// Whether `v` reaches `x` through at most `MAX_PHI_HOPS` phis (a value carried round a
/// loop into the phi it was computed from).
fn comes_back(f: &Function, v: Value, x: Value) -> bool {
    let mut at = vec![v];
    for _ in 0..MAX_PHI_HOPS {
        at = at
            .iter()
            .flat_map(|&w| f.uses(w).iter().map(|u| u.inst))
            .filter(|&u| f.kind(u).is_phi())
            .map(Value::Inst)
            .collect();
        if at.contains(&x) {
            return true;
        }
    }
    false
}

/// How many phis `comes_back` follows a value through.
const MAX_PHI_HOPS: usize = 3;

/// `v` as `x + step` for a step of 1 or -1.
fn unit_step(f: &Function, v: Value) -> Option<(Value, i32)> {
    match *f.kind(v.as_inst()?) {
        InstKind::Binary {
            op: BinaryOp::Add,
            args: [x, Value::Int(c @ (1 | -1))],
        } => Some((x, c)),
        InstKind::Binary {
            op: BinaryOp::Sub,
            args: [x, Value::Int(1)],
        } => Some((x, -1)),
        _ => None,
    }
}

fn insert(f: &mut Function, before: Inst, kind: InstKind, ty: Type) -> Value {
    Value::Inst(f.insert_inst_before(before, kind, ty))
}
