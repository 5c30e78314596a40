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
            let (step, x) = (picked_extreme(f, c, t, e, false)?, other(t, e, p)?);
            let combine = if step == VectorOp::SMax {
                ReduceOp::SMax
            } else {
                ReduceOp::SMin
            };
            (x, step, combine, Some(c))
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

/// Of the two values `t` and `e`, the one that is not `p`, when the other is.
fn other(t: Value, e: Value, p: Value) -> Option<Value> {
    if t == p {
        Some(e)
    } else if e == p {
        Some(t)
    } else {
        None
    }
}

/// Whether `select c, t, e` picks the larger (`SMax`) or the smaller (`SMin`) of `t` and
/// `e`: `c` a signed compare of the two. With `against_constants`, a compare with a
/// constant `k` counts as one with `k + 1` or `k - 1` when that keeps the outcome (`x > k`
/// is `x >= k + 1`: instcombine writes `x >= 200` as `x > 199`).
pub(super) fn picked_extreme(
    f: &Function,
    c: Inst,
    t: Value,
    e: Value,
    against_constants: bool,
) -> Option<VectorOp> {
    let InstKind::Icmp { pred, args: [a, b] } = *f.kind(c) else {
        return None;
    };
    let mut forms = vec![(pred, b)];
    if let (Value::Int(k), true) = (b, against_constants) {
        let other = match pred {
            IntPred::Sgt => k.checked_add(1).map(|k| (IntPred::Sge, k)),
            IntPred::Sge => k.checked_sub(1).map(|k| (IntPred::Sgt, k)),
            IntPred::Slt => k.checked_sub(1).map(|k| (IntPred::Sle, k)),
            IntPred::Sle => k.checked_add(1).map(|k| (IntPred::Slt, k)),
            _ => None,
        };
        forms.extend(other.map(|(pred, k)| (pred, Value::Int(k))));
    }
    // The compare as `t pred e`: the select picks `t` when it holds.
    let pred = forms.into_iter().find_map(|(pred, b)| {
        if (a, b) == (t, e) {
            Some(pred)
        } else if (a, b) == (e, t) {
            Some(pred.swapped())
        } else {
            None
        }
    })?;
    match pred {
        IntPred::Sgt | IntPred::Sge => Some(VectorOp::SMax),
        IntPred::Slt | IntPred::Sle => Some(VectorOp::SMin),
        _ => None,
    }
}
