//! Whether branches on the way into a block decided `x < y` for two values: a loop's
//! guard `start < n` before its preheader, looked for through the block's phis edge by
//! edge and up the dominator tree (a relation of two values, once decided, stays).
//! `pointer-induction` asks it for a loop's first exit test, `loop-split` whether a loop
//! is entered with its counter below its bound. `branch_into` reads the branch on an edge
//! for them and for the passes that take facts from dominating branches.

use crate::analysis::{Cfg, DomTree};
use crate::ir::{Block, Function, InstKind, IntPred, Value};

/// How many blocks up the dominator tree, or back across phis, a fact is looked for.
const MAX_FACT_DEPTH: u32 = 6;

/// Whether `x < y` (signed) holds on every path into `b`.
pub fn less_on_entry(f: &Function, cfg: &Cfg, dom: &DomTree, b: Block, x: Value, y: Value) -> bool {
    Facts { f, cfg, dom }.less_on_entry(b, x, y, MAX_FACT_DEPTH)
}

/// What branches decided about two values on the way into a block.
struct Facts<'a> {
    f: &'a Function,
    cfg: &'a Cfg,
    dom: &'a DomTree,
}

impl Facts<'_> {
    /// Whether `x < y` holds on every path into `b`: a phi `x` of `b` on each edge with its
    /// incoming value, otherwise on the edge from `b`'s only predecessor, or on entry to its
    /// immediate dominator.
    fn less_on_entry(&self, b: Block, x: Value, y: Value, depth: u32) -> bool {
        if depth == 0 {
            return false;
        }
        let f = self.f;
        if let Some(phi) = x
            .as_inst()
            .filter(|&i| f.inst_block(i) == Some(b) && f.kind(i).is_phi())
        {
            return self.cfg.preds(b).iter().all(|&p| {
                f.phi_incoming(phi, p)
                    .is_some_and(|v| self.less_on_edge(p, b, v, y, depth - 1))
            });
        }
        match (self.cfg.preds(b), self.dom.idom(b)) {
            ([p], _) => self.less_on_edge(*p, b, x, y, depth - 1),
            (_, Some(d)) => self.less_on_entry(d, x, y, depth - 1),
            _ => false,
        }
    }

    /// Whether `x < y` holds when `p` goes to `b`: decided by `p`'s branch, or holding on
    /// entry to `p`.
    fn less_on_edge(&self, p: Block, b: Block, x: Value, y: Value, depth: u32) -> bool {
        self.branch_decides(p, b, x, y) || self.less_on_entry(p, x, y, depth)
    }

    fn branch_decides(&self, p: Block, b: Block, x: Value, y: Value) -> bool {
        let f = self.f;
        let Some((cond, taken)) = branch_into(f, p, b) else {
            return false;
        };
        let Some(c) = cond.as_inst() else {
            return false;
        };
        let InstKind::Icmp {
            pred,
            args: [a, c2],
        } = *f.kind(c)
        else {
            return false;
        };
        let pred = if taken { pred } else { pred.inverse() };
        // As `lo < hi` or `lo <= hi`.
        let (lo, hi, strict) = match pred {
            IntPred::Slt => (a, c2, true),
            IntPred::Sgt => (c2, a, true),
            IntPred::Sle => (a, c2, false),
            IntPred::Sge => (c2, a, false),
            _ => return false,
        };
        at_most(x, lo, !strict) && at_most(hi, y, false)
    }
}

/// Whether `v <= of` (`v < of` when `strict`), by being the same value or by constants.
fn at_most(v: Value, of: Value, strict: bool) -> bool {
    match (v, of) {
        _ if v == of => !strict,
        (Value::Int(p), Value::Int(q)) => p < q || (!strict && p == q),
        _ => false,
    }
}

/// The condition of predecessor `p`'s two-way branch and whether `b` is its true side.
pub fn branch_into(f: &Function, p: Block, b: Block) -> Option<(Value, bool)> {
    let InstKind::CondBr {
        args: [cond],
        targets: [t, e],
    } = *f.kind(f.terminator(p)?)
    else {
        return None;
    };
    (t != e).then_some((cond, b == t))
}
