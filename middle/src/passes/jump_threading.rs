//! Jump threading: when a block's branch
//! condition is known on an edge into it, that edge goes straight to the successor the
//! branch would take. The typical sources are an inlined predicate (`return 1` and
//! `return 0` merged by a phi, then tested with `!= 0`: after threading, each return jumps
//! to its side of the `if` and the phi goes) and a test repeated after a join
//! (`if (a == b) x = ...; else x = ...; if (a != b) ...`: each arm knows the answer).
//!
//! The condition of `b`'s branch is known on the edge from a predecessor `p` when it is a
//! phi of `b` whose value from `p` is constant, a comparison of operands that are constants
//! or phis of `b` with constant values from `p`, or a comparison (or value) that a branch
//! decides on every path into `p`: `p`'s own branch into `b`, or the branch into one of
//! `p`'s nearest dominators entered by a single edge. A comparison of the same two values
//! is decided by the same predicate, its inverse, either way round, by `==`, and by a strict
//! order for `!=` and the non-strict order.
//!
//! A block `b` is threaded when it holds nothing but phis used only inside it, possibly one
//! comparison used only by the branch, and the `condbr`: the edge `p -> b` becomes
//! `p -> s`, `s`'s phis take from `p` what they took from `b`, and `b`'s phis drop `p`.
//! A block with up to `DUPLICATE_LIMIT` further instructions (no calls, no allocas), whose
//! values are used only inside it and by its successors' phis, is threaded from a
//! predecessor that jumps to it unconditionally: that predecessor gets a copy of the block's
//! instructions, then jumps to `s`. Skipped: loop headers (threading a back edge could make
//! a loop with two entries; any other new edge enters loops only where `b -> s` did,
//! through their headers), and a `p` that already branches to `s`. A block left without
//! predecessors goes.
//!
//! Needs: the CFG and the dominator tree. Preserves: behaviour; changes the CFG.

use crate::analysis::entry_order::branch_into;
use crate::analysis::{Cfg, DomTree, Preserved};
use crate::ir::semantics;
use crate::ir::{Block, Function, Inst, InstKind, IntPred, Value};
use crate::passes::FunctionContext;
use crate::transform::phi_edits::{Edit, PhiEdits};
use crate::transform::remove_blocks::remove_blocks;
use crate::transform::value_map::{mapped, mapped_kind, ValueMap};

/// The most instructions, besides phis, the comparison and the branch, a block may hold to
/// be copied into a predecessor.
const DUPLICATE_LIMIT: usize = 4;

/// How many dominators of a predecessor are searched for a branch that decides the
/// condition.
const DOMINATOR_WALK: usize = 6;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let cfg = cx.analyses.cfg(f);
    let dom = cx.analyses.dom(f);
    let mut edits = PhiEdits::new(f.block_capacity());
    let mut changed = false;
    // Blocks that gained predecessors in this run: the CFG analysis no longer lists them all.
    let mut gained = vec![false; f.block_capacity()];
    let blocks: Vec<Block> = f.blocks().collect();
    for b in blocks {
        if gained[b.index()] || !f.is_in_layout(b) {
            continue;
        }
        let Some((cond, targets)) = f.cond_branch(b) else {
            continue;
        };
        if cfg.preds(b).iter().any(|&p| dom.dominates(b, p)) {
            continue;
        }
        let thin = is_thin(f, b, cond);
        if !thin && !is_duplicable(f, b) {
            continue;
        }
        let facts = Facts {
            cfg: &cfg,
            dom: &dom,
            gained: &gained,
        };
        let mut threaded = Vec::new();
        let mut remaining = 0;
        for &p in cfg.preds(b) {
            if !f.is_in_layout(p) {
                continue;
            }
            remaining += 1;
            let Some(taken) = facts.known_condition(f, b, cond, p) else {
                continue;
            };
            let s = targets[usize::from(!taken)];
            let fits = if thin {
                !f.successors(p).contains(&s)
            } else {
                f.successors(p) == [b]
            };
            if fits {
                threaded.push((p, s));
            }
        }
        for (p, s) in threaded {
            let map = if thin {
                phis_on_edge(f, b, p)
            } else {
                copy_into(f, b, p, cond)
            };
            let from_b: Vec<(Inst, Value)> = f
                .phis(s)
                .map(|phi| (phi, mapped(incoming(f, phi, b), &map)))
                .collect();
            let term = f.terminator(p).expect("a predecessor ends in a branch");
            for target in f.kind_mut_targets(term) {
                if *target == b {
                    *target = s;
                }
            }
            for (phi, v) in from_b {
                f.add_phi_incoming(phi, v, p);
            }
            edits.queue(f, b, Edit::Remove(p));
            gained[s.index()] = true;
            remaining -= 1;
            changed = true;
        }
        edits.flush(f, b);
        if remaining == 0 && !cfg.preds(b).is_empty() {
            for t in targets {
                edits.queue(f, t, Edit::Remove(b));
                edits.flush(f, t);
            }
            remove_blocks(f, &[b]);
        }
    }
    Preserved::nothing_if(changed)
}

/// Whether `b` holds only phis used inside `b`, possibly the comparison `cond` used only by
/// the branch, and the branch.
fn is_thin(f: &Function, b: Block, cond: Value) -> bool {
    let term = f.terminator(b).expect("a block ends in a terminator");
    f.block_insts(b).all(|i| {
        let used_inside = || {
            f.uses(Value::Inst(i))
                .iter()
                .all(|u| f.inst_block(u.inst) == Some(b))
        };
        i == term
            || (f.kind(i).is_phi() && used_inside())
            || (Value::Inst(i) == cond
                && matches!(f.kind(i), InstKind::Icmp { .. })
                && f.uses(cond).len() == 1)
    })
}

/// Whether a copy of `b`'s instructions may stand in for `b` at the end of a predecessor:
/// few instructions, none a call or an alloca, and every value used only inside `b` or by
/// a phi of a successor for the edge from `b`.
fn is_duplicable(f: &Function, b: Block) -> bool {
    let term = f.terminator(b).expect("a block ends in a terminator");
    let mut body = 0;
    for i in f.block_insts(b) {
        let kind = f.kind(i);
        if matches!(kind, InstKind::Call { .. } | InstKind::Alloca { .. }) {
            return false;
        }
        if i != term && !kind.is_phi() && !is_branch_only_comparison(f, i, term) {
            body += 1;
        }
        let used_inside_or_on_edge = f.uses(Value::Inst(i)).iter().all(|u| {
            f.inst_block(u.inst) == Some(b)
                || matches!(f.kind(u.inst), InstKind::Phi { blocks, .. }
                    if blocks[u.index as usize] == b)
        });
        if !used_inside_or_on_edge {
            return false;
        }
    }
    body <= DUPLICATE_LIMIT
}

/// Whether `i` is a comparison whose only use is the branch `term`.
fn is_branch_only_comparison(f: &Function, i: Inst, term: Inst) -> bool {
    matches!(f.kind(i), InstKind::Icmp { .. })
        && f.uses(Value::Inst(i)).iter().all(|u| u.inst == term)
}

/// `b`'s phis mapped to their values on the edge from `p`.
fn phis_on_edge(f: &Function, b: Block, p: Block) -> ValueMap {
    f.phis(b).map(|phi| (phi, incoming(f, phi, p))).collect()
}

/// Copies `b`'s instructions, but for its phis and branch, to the end of `p`, which jumps
/// to `b`; returns what stands for each of `b`'s values there.
fn copy_into(f: &mut Function, b: Block, p: Block, cond: Value) -> ValueMap {
    let mut map = phis_on_edge(f, b, p);
    let term = f.terminator(b).expect("a block ends in a terminator");
    let at = f.terminator(p).expect("a predecessor ends in a branch");
    let body: Vec<Inst> = f
        .block_insts(b)
        .filter(|&i| i != term && !f.kind(i).is_phi())
        .filter(|&i| !(Value::Inst(i) == cond && is_branch_only_comparison(f, i, term)))
        .collect();
    for i in body {
        let kind = mapped_kind(f, i, &map);
        let ty = f.inst(i).ty;
        let copy = f.insert_inst_before(at, kind, ty);
        map.insert(i, Value::Inst(copy));
    }
    map
}

/// What the dominator tree and the CFG, both as they were when the pass started, say about
/// branch conditions on entry to a block.
struct Facts<'a> {
    cfg: &'a Cfg,
    dom: &'a DomTree,
    gained: &'a [bool],
}

impl Facts<'_> {
    /// The branch direction `cond` takes when `b` is entered from `p`, if it is known then.
    fn known_condition(&self, f: &Function, b: Block, cond: Value, p: Block) -> Option<bool> {
        let on_edge = |v: Value| match v {
            Value::Inst(i) if f.inst_block(i) == Some(b) && f.kind(i).is_phi() => incoming(f, i, p),
            other => other,
        };
        let value = on_edge(cond);
        if let Value::Bool(x) = value {
            return Some(x);
        }
        let test = match cond.as_inst().map(|i| f.kind(i)) {
            Some(&InstKind::Icmp { pred, args: [x, y] }) if value == cond => {
                let (x, y) = (on_edge(x), on_edge(y));
                if let (Value::Int(x), Value::Int(y)) = (x, y) {
                    return Some(semantics::icmp(pred, x as u32, y as u32));
                }
                Some((pred, x, y))
            }
            _ => None,
        };
        let decide = |q: Block, into: Block| {
            let (c, side) = branch_fact(f, q, into)?;
            if c == value {
                return Some(side);
            }
            let (pred, x, y) = test?;
            decided_by(f, c, side, pred, x, y)
        };
        if let Some(known) = decide(p, b) {
            return Some(known);
        }
        let mut x = p;
        for _ in 0..DOMINATOR_WALK {
            if self.gained[x.index()] || !f.is_in_layout(x) {
                return None;
            }
            if let [q] = *self.cfg.preds(x) {
                if q != x && f.is_in_layout(q) {
                    if let Some(known) = decide(q, x) {
                        return Some(known);
                    }
                }
            }
            x = self.dom.idom(x)?;
        }
        None
    }
}

/// The condition of `q`'s two-way branch and whether `into`, one of its targets, is its
/// true side.
fn branch_fact(f: &Function, q: Block, into: Block) -> Option<(Value, bool)> {
    branch_into(f, q, into).filter(|_| f.successors(q).contains(&into))
}

/// The outcome of `pred x, y` where comparison `c` is known to be `side`, if that decides it.
fn decided_by(
    f: &Function,
    c: Value,
    side: bool,
    pred: IntPred,
    x: Value,
    y: Value,
) -> Option<bool> {
    let InstKind::Icmp {
        pred: tested,
        args: [cx, cy],
    } = *f.kind(c.as_inst()?)
    else {
        return None;
    };
    let pred = if [x, y] == [cx, cy] {
        pred
    } else if [y, x] == [cx, cy] {
        pred.swapped()
    } else {
        return None;
    };
    implies(if side { tested } else { tested.inverse() }, pred)
}

/// Whether `known` holding for two values decides `pred` on them, and how.
fn implies(known: IntPred, pred: IntPred) -> Option<bool> {
    use IntPred::*;
    if pred == known {
        return Some(true);
    }
    if pred == known.inverse() {
        return Some(false);
    }
    let weak = match known {
        Eq => return Some(semantics::icmp(pred, 0, 0)),
        Slt => Sle,
        Sgt => Sge,
        Ult => Ule,
        Ugt => Uge,
        _ => return None,
    };
    match pred {
        Ne => Some(true),
        Eq => Some(false),
        _ if pred == weak => Some(true),
        _ if pred == known.swapped() => Some(false),
        _ => None,
    }
}

/// The value phi `phi` takes from block `from`, one of its block's predecessors.
fn incoming(f: &Function, phi: Inst, from: Block) -> Value {
    f.phi_incoming(phi, from)
        .expect("a phi has a value for each predecessor")
}
