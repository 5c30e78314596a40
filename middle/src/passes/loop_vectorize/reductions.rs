//! Values carried round to round that four lanes can carry apart and combine after the
//! loop: a sum (`s = s + x`, `s = s - x`: wrapping addition gives the same total in any
//! order) and a running minimum or maximum (`m = x > m ? x : m`, as if-to-select writes
//! `if (x > m) m = x;`: the extreme of the lanes' extremes is the extreme).

use crate::ir::{
    BinaryOp, Block, Function, Inst, InstKind, IntPred, ReduceOp, Type, Value, VectorOp,
};

/// A carried value: the header phi, its stepped value, the value `x` each round adds,
/// subtracts or compares, how the lanes step and combine, and the compare of a minimum or
/// maximum (which the lane-wise operation replaces).
pub(super) struct Reduction {
    pub(super) phi: Inst,
    pub(super) next: Inst,
    pub(super) x: Value,
    pub(super) step: VectorOp,
    pub(super) combine: ReduceOp,
    pub(super) compare: Option<Inst>,
}

impl Reduction {
    /// Whether every lane starts from the phi's first value (a minimum or maximum), rather
    /// than lane 0 from it and the others from 0 (a sum).
    pub(super) fn starts_in_every_lane(&self) -> bool {
        self.combine != ReduceOp::Add
    }
}

/// Header phi `phi` of loop block `h` as a reduction, when nothing else in the loop reads
/// it or its stepped value.
pub(super) fn reduction(f: &Function, h: Block, phi: Inst) -> Option<Reduction> {
    if f.inst(phi).ty != Type::I32 {
        return None;
    }
    let next = f.phi_incoming(phi, h)?.as_inst()?;
    if f.inst_block(next) != Some(h) {
        return None;
    }
    let p = Value::Inst(phi);
    let (x, step, combine, compare) = match *f.kind(next) {
        InstKind::Binary {
            op: BinaryOp::Add,
            args: [a, b],
        } if a == p || b == p => (
            if a == p { b } else { a },
            VectorOp::Add,
            ReduceOp::Add,
            None,
        ),
        InstKind::Binary {
            op: BinaryOp::Sub,
            args: [a, b],
        } if a == p && b != p => (b, VectorOp::Sub, ReduceOp::Add, None),
        InstKind::Select {
            args: [Value::Inst(c), t, e],
        } => {
            let (x, op) = extreme(f, c, t, e, p)?;
            let step = if op == ReduceOp::SMax {
                VectorOp::SMax
            } else {
                VectorOp::SMin
            };
            (x, step, op, Some(c))
        }
        _ => return None,
    };
    let inside = |i: Inst| f.inst_block(i) == Some(h);
    let phi_users: Vec<Inst> = f.uses(p).iter().map(|u| u.inst).collect();
    let phi_ok = phi_users.iter().all(|&u| u == next || Some(u) == compare);
    // The stepped value goes back to the phi, and may be read after the loop.
    let next_ok = f
        .uses(Value::Inst(next))
        .iter()
        .all(|u| u.inst == phi || !inside(u.inst));
    let compare_ok = compare.is_none_or(|c| f.uses(Value::Inst(c)).len() == 1 && inside(c));
    (phi_ok && next_ok && compare_ok && x != p).then_some(Reduction {
        phi,
        next,
        x,
        step,
        combine,
        compare,
    })
}

/// `select c, t, e` with `c` a signed compare of `x` and the phi `p`, picking one of them:
/// `x` and whether it keeps the maximum or the minimum.
fn extreme(f: &Function, c: Inst, t: Value, e: Value, p: Value) -> Option<(Value, ReduceOp)> {
    let InstKind::Icmp { pred, args: [a, b] } = *f.kind(c) else {
        return None;
    };
    // The compare as `x pred p`.
    let (x, pred) = if b == p {
        (a, pred)
    } else if a == p {
        (b, pred.swapped())
    } else {
        return None;
    };
    // The select as picking `x` when the compare holds.
    let pred = if (t, e) == (x, p) {
        pred
    } else if (t, e) == (p, x) {
        pred.inverse()
    } else {
        return None;
    };
    match pred {
        IntPred::Sgt | IntPred::Sge => Some((x, ReduceOp::SMax)),
        IntPred::Slt | IntPred::Sle => Some((x, ReduceOp::SMin)),
        _ => None,
    }
}
