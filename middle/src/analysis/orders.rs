//! Orders between two values that the branches leading to a block establish: the body of
//! `while (lo < hi) { ... }` runs only with `lo < hi`, and so does a rotated loop's header
//! when the guard before the loop and the test at its latch both compare the values that
//! its phis take.
//!
//! `order_at` walks up from a block through predecessors that are the only ones of the
//! block after them. Each step, an edge from a `condbr` on `icmp x, y` fixes the order of
//! `x` and `y` on that side; and a block whose phis `x` and `y` are ordered on every
//! incoming edge (looking up each edge the same way through blocks of one predecessor)
//! keeps that order wherever it runs. Values in SSA form do not change between the branch
//! and the block, so the order holds there.

use crate::analysis::Cfg;
use crate::ir::{Block, Function, Inst, InstKind, IntPred, Value};

/// How far `order_at` follows single predecessors up from a block, and from each edge
/// into a block with phis.
const MAX_STEPS: usize = 8;

/// `x < y` (`Strict`) or `x <= y`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Strict,
    NonStrict,
}

impl Order {
    /// The least difference `y - x` the order allows.
    pub fn least_gap(self) -> i64 {
        match self {
            Order::Strict => 1,
            Order::NonStrict => 0,
        }
    }

    fn both(self, other: Order) -> Order {
        if self == Order::Strict && other == Order::Strict {
            Order::Strict
        } else {
            Order::NonStrict
        }
    }
}

/// Whether `x < y` or `x <= y` holds wherever block `b` runs, as the branches before it
/// show; `None` when they show neither.
pub fn order_at(f: &Function, cfg: &Cfg, b: Block, x: Value, y: Value) -> Option<Order> {
    let mut block = b;
    for _ in 0..MAX_STEPS {
        if let Some(order) = phi_order(f, cfg, block, x, y) {
            return Some(order);
        }
        let &[pred] = cfg.preds(block) else {
            return None;
        };
        if let Some(order) = edge_order(f, cfg, pred, block, x, y) {
            return Some(order);
        }
        block = pred;
    }
    None
}

/// The order of `x` and `y` when both are phis of `b` and every reachable edge into `b`
/// orders the values they take on it.
fn phi_order(f: &Function, cfg: &Cfg, b: Block, x: Value, y: Value) -> Option<Order> {
    let incoming = |v: Value| match v {
        Value::Inst(i) if f.inst_block(i) == Some(b) => match f.kind(i) {
            InstKind::Phi { args, blocks } => Some((args, blocks)),
            _ => None,
        },
        _ => None,
    };
    let ((xs, from), (ys, from_y)) = (incoming(x)?, incoming(y)?);
    let mut order = Order::Strict;
    for (k, &pred) in from.iter().enumerate() {
        if !cfg.is_reachable(pred) {
            continue;
        }
        let at = from_y.iter().position(|&p| p == pred)?;
        order = order.both(edge_order(f, cfg, pred, b, xs[k], ys[at])?);
    }
    Some(order)
}

/// The order of `x` and `y` on the edge `from -> to`: fixed by `from`'s branch, or by the
/// edge into `from` when `from` has one predecessor and jumps to `to` unconditionally.
fn edge_order(
    f: &Function,
    cfg: &Cfg,
    from: Block,
    to: Block,
    x: Value,
    y: Value,
) -> Option<Order> {
    let (mut from, mut to) = (from, to);
    for _ in 0..MAX_STEPS {
        let t = f.terminator(from)?;
        match *f.kind(t) {
            InstKind::CondBr {
                args: [Value::Inst(cond)],
                targets: [yes, no],
            } if yes != no => return branch_order(f, cond, to == yes, x, y),
            InstKind::Br { .. } => {
                let &[pred] = cfg.preds(from) else {
                    return None;
                };
                (from, to) = (pred, from);
            }
            _ => return None,
        }
    }
    None
}

/// The order of `x` and `y` where the comparison `cond` came out `holds`.
fn branch_order(f: &Function, cond: Inst, holds: bool, x: Value, y: Value) -> Option<Order> {
    let InstKind::Icmp { pred, args: [a, b] } = *f.kind(cond) else {
        return None;
    };
    let pred = if holds { pred } else { pred.inverse() };
    let pred = if (a, b) == (x, y) {
        pred
    } else if (a, b) == (y, x) {
        pred.swapped()
    } else {
        return None;
    };
    match pred {
        IntPred::Slt => Some(Order::Strict),
        IntPred::Sle | IntPred::Eq => Some(Order::NonStrict),
        _ => None,
    }
}
