//! Jump threading (seed 002's FuseImmediatelyBranch, generalised): when a block's branch
//! condition is a constant on an edge into it, that edge goes straight to the successor the
//! branch would take. The typical source is an inlined predicate: `return 1` and `return 0`
//! merged by a phi, then tested with `!= 0`; after threading, each return jumps to its side
//! of the `if` and the phi goes.
//!
//! A block `b` is threaded when it holds nothing but phis used only inside it, possibly one
//! comparison used only by the branch, and the `condbr`; the condition is known on the edge
//! from a predecessor `p` when it is a phi of `b` whose value from `p` is constant, or the
//! comparison of operands that are constants or phis of `b` with constant values from `p`.
//! The edge `p -> b` becomes `p -> s`, `s`'s phis take from `p` what they took from `b`, and
//! `b`'s phis drop `p`. Skipped: loop headers (threading a back edge could make a loop with
//! two entries; any other new edge enters loops only where `b -> s` did, through their
//! headers), and a `p` that already branches to `s`. A block left without predecessors
//! goes.
//!
//! Needs: the CFG and the dominator tree. Preserves: behaviour; changes the CFG.

use crate::analysis::Preserved;
use crate::ir::semantics;
use crate::ir::{Block, Function, Inst, InstKind, Value};
use crate::passes::phi_edits::{Edit, PhiEdits};
use crate::passes::simplify_cfg::remove_blocks;
use crate::passes::FunctionContext;

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
        let Some((cond, targets)) = branch(f, b) else {
            continue;
        };
        if cfg.preds(b).iter().any(|&p| dom.dominates(b, p)) || !is_thin(f, b, cond) {
            continue;
        }
        let mut remaining = 0;
        for &p in cfg.preds(b) {
            if !f.is_in_layout(p) {
                continue;
            }
            remaining += 1;
            let Some(taken) = known_condition(f, b, cond, p) else {
                continue;
            };
            let s = targets[usize::from(!taken)];
            if p == b || f.successors(p).contains(&s) {
                continue;
            }
            let from_b: Vec<(Inst, Value)> =
                f.phis(s).map(|phi| (phi, incoming(f, phi, b))).collect();
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

/// The condition and the (true, false) targets of `b`'s conditional branch.
fn branch(f: &Function, b: Block) -> Option<(Value, [Block; 2])> {
    match f.kind(f.terminator(b)?) {
        InstKind::CondBr {
            args: [cond],
            targets,
        } if targets[0] != targets[1] => Some((*cond, *targets)),
        _ => None,
    }
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

/// The branch direction `cond` takes when `b` is entered from `p`, if it is known then.
fn known_condition(f: &Function, b: Block, cond: Value, p: Block) -> Option<bool> {
    let on_edge = |v: Value| match v {
        Value::Inst(i) if f.inst_block(i) == Some(b) && f.kind(i).is_phi() => incoming(f, i, p),
        other => other,
    };
    match on_edge(cond) {
        Value::Bool(x) => return Some(x),
        Value::Inst(i) if Value::Inst(i) == cond => {}
        _ => return None,
    }
    let InstKind::Icmp { pred, args: [x, y] } = *f.kind(cond.as_inst()?) else {
        return None;
    };
    match (on_edge(x), on_edge(y)) {
        (Value::Int(x), Value::Int(y)) => Some(semantics::icmp(pred, x as u32, y as u32)),
        _ => None,
    }
}

/// The value phi `phi` takes from block `from`, one of its block's predecessors.
fn incoming(f: &Function, phi: Inst, from: Block) -> Value {
    f.phi_incoming(phi, from)
        .expect("a phi has a value for each predecessor")
}
