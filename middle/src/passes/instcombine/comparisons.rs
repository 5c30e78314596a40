//! instcombine's rewrites of comparisons: a comparison's `zext` tested against 0 or 1 as
//! the inverse comparison, a select on the sign of a value as a shift of its sign bit, and
//! a test of a difference as one of its mirror computed before it.

use super::{binary_before, is_equality};
use crate::analysis::DomTree;
use crate::ir::{BinaryOp, CastOp, FloatPred, Function, Inst, InstKind, IntPred, Type, Value};

/// `icmp eq (zext b), 0` and `icmp ne (zext b), 1` are `!b`: the inverse comparison when `b`
/// is a comparison used only here.
pub(super) fn negation(f: &mut Function, i: Inst) -> Option<Value> {
    let InstKind::Icmp {
        pred,
        args: [Value::Inst(z), Value::Int(c)],
    } = *f.kind(i)
    else {
        return None;
    };
    let InstKind::Cast {
        op: CastOp::Zext,
        args: [Value::Inst(b)],
    } = *f.kind(z)
    else {
        return None;
    };
    if !matches!((pred, c), (IntPred::Eq, 0) | (IntPred::Ne, 1))
        || f.uses(Value::Inst(b)).len() != 1
    {
        return None;
    }
    let kind = match *f.kind(b) {
        InstKind::Icmp { pred, args } => InstKind::Icmp {
            pred: pred.inverse(),
            args,
        },
        InstKind::Fcmp { pred, args } => InstKind::Fcmp {
            pred: float_inverse(pred),
            args,
        },
        _ => return None,
    };
    Some(Value::Inst(f.insert_inst_before(i, kind, Type::I1)))
}

/// `select (x < 0), -1, 0` as `ashr x, 31`, and `select (x < 0), 1, 0` as `lshr x, 31`
/// (either way round, and the test written `x <= -1`, `x >= 0` or `x > -1`).
pub(super) fn sign_bit_select(f: &mut Function, i: Inst) -> Option<Value> {
    let InstKind::Select {
        args: [Value::Inst(c), Value::Int(t), Value::Int(e)],
    } = *f.kind(i)
    else {
        return None;
    };
    let InstKind::Icmp {
        pred,
        args: [x, Value::Int(k)],
    } = *f.kind(c)
    else {
        return None;
    };
    let negative = match (pred, k) {
        (IntPred::Slt, 0) | (IntPred::Sle, -1) => true,
        (IntPred::Sge, 0) | (IntPred::Sgt, -1) => false,
        _ => return None,
    };
    let (when_negative, otherwise) = if negative { (t, e) } else { (e, t) };
    let op = match (when_negative, otherwise) {
        (-1, 0) => BinaryOp::AShr,
        (1, 0) => BinaryOp::LShr,
        _ => return None,
    };
    Some(binary_before(f, i, op, x, Value::Int(31)))
}

/// `b - a == c` as `a - b == -c` (or `!=`) where `a - b` is computed anyway, before `b - a`:
/// `s - t == 1 || t - s == 1` then tests one difference (`cmp d, #1; cmnne d, #1`), and
/// `t - s` goes.
pub(super) fn mirrored_difference(f: &mut Function, i: Inst, dom: &DomTree) -> Option<Value> {
    let InstKind::Icmp {
        pred,
        args: [Value::Inst(d), Value::Int(c)],
    } = *f.kind(i)
    else {
        return None;
    };
    let InstKind::Binary {
        op: BinaryOp::Sub,
        args: [b, a],
    } = *f.kind(d)
    else {
        return None;
    };
    if !is_equality(pred) {
        return None;
    }
    // Only towards a difference made before `b - a`, which then also comes before the
    // comparison: two differences that each came first would trade places for ever.
    let at = f.inst_block(d)?;
    let before_d = |t: Inst| match f.inst_block(t) {
        Some(tb) if tb == at => {
            std::iter::successors(f.prev_inst(d), |&p| f.prev_inst(p)).any(|p| p == t)
        }
        Some(tb) => dom.dominates(tb, at),
        None => false,
    };
    let twin = f.uses(a).iter().map(|u| u.inst).find(|&t| {
        matches!(*f.kind(t), InstKind::Binary { op: BinaryOp::Sub, args: [x, y] } if x == a && y == b)
            && before_d(t)
    })?;
    let kind = InstKind::Icmp {
        pred,
        args: [Value::Inst(twin), Value::Int(c.wrapping_neg())],
    };
    Some(Value::Inst(f.insert_inst_before(i, kind, Type::I1)))
}

/// The float predicate that holds exactly when `p` does not, NaN operands included.
fn float_inverse(p: FloatPred) -> FloatPred {
    use FloatPred::*;
    match p {
        Oeq => Une,
        Une => Oeq,
        One => Ueq,
        Ueq => One,
        Olt => Uge,
        Uge => Olt,
        Ole => Ugt,
        Ugt => Ole,
        Ogt => Ule,
        Ule => Ogt,
        Oge => Ult,
        Ult => Oge,
        Ord => Uno,
        Uno => Ord,
    }
}
