//! The loop's values after it: the exits where a phi of each can go, and the exits' phis
//! given the values of each copy.

use crate::analysis::{Cfg, DomTree, LoopInfo};
use crate::ir::{Block, Function, Inst, InstKind, Type, Value};
use crate::transform::loop_frame::uses_after;

/// The uses of loop `k`'s values after it other than by a phi for an edge from it, each
/// with the exit that dominates it and that only the loop enters (where a phi of the
/// value in each copy can go): (value, user, operand index, exit). `None` when a use has
/// no such exit (it follows a join of several exits).
pub(super) fn reads_after_exits(
    f: &Function,
    cfg: &Cfg,
    dom: &DomTree,
    loops: &LoopInfo,
    k: usize,
) -> Option<Vec<(Inst, Inst, usize, Block)>> {
    let lp = &loops.loops[k];
    let inside = |b: Block| loops.knows(b) && loops.contains(k, b);
    let dedicated = |x: Block| cfg.preds(x).iter().all(|&b| inside(b));
    let mut read_after = Vec::new();
    for (v, user, index) in uses_after(f, &lp.blocks) {
        let at = match f.kind(user) {
            InstKind::Phi { blocks: from, .. } => from[index],
            _ => f.inst_block(user)?,
        };
        // A block another loop's unrolling added in this run: the analyses do not know it.
        if !loops.knows(at) {
            return None;
        }
        let x = lp
            .exits
            .iter()
            .copied()
            .find(|&x| dedicated(x) && dom.dominates(x, at))?;
        read_after.push((v, user, index, x));
    }
    Some(read_after)
}

/// Gives each phi of the loop's `exits`, for each of its values from one of the loop's
/// `blocks`, that value from the blocks that `others` names for that block (its copies,
/// with what the value is there).
pub(super) fn extend_exit_phis(
    f: &mut Function,
    exits: &[Block],
    blocks: &[Block],
    others: impl Fn(Block, Value) -> Vec<(Value, Block)>,
) {
    for &x in exits {
        for phi in f.phis(x).collect::<Vec<_>>() {
            let InstKind::Phi { args, blocks: from } = f.kind(phi).clone() else {
                unreachable!("a phi");
            };
            for (v, b) in args.into_iter().zip(from) {
                if !blocks.contains(&b) {
                    continue;
                }
                for (value, other) in others(b, v) {
                    f.add_phi_incoming(phi, value, other);
                }
            }
        }
    }
}

/// Points each use in `read_after` (`reads_after_exits`) at a phi, made once per value and
/// exit, at the start of its exit `x`: from each of the loop's `blocks` that leaves to `x`
/// the value itself, and from the blocks that `others` names for that block (as for
/// `extend_exit_phis`) the value they give.
pub(super) fn read_through_exit_phis(
    f: &mut Function,
    blocks: &[Block],
    read_after: &[(Inst, Inst, usize, Block)],
    others: impl Fn(Block, Value) -> Vec<(Value, Block)>,
) {
    let mut merged: Vec<((Inst, Block), Value)> = Vec::new();
    for &(v, user, index, x) in read_after {
        let phi = match merged.iter().find(|(key, _)| *key == (v, x)) {
            Some(&(_, phi)) => phi,
            None => {
                let (mut args, mut from) = (Vec::new(), Vec::new());
                for &b in blocks {
                    let leaves = f
                        .terminator(b)
                        .is_some_and(|t| f.kind(t).targets().contains(&x));
                    if !leaves {
                        continue;
                    }
                    args.push(Value::Inst(v));
                    from.push(b);
                    for (value, other) in others(b, Value::Inst(v)) {
                        args.push(value);
                        from.push(other);
                    }
                }
                let ty = f.inst(v).ty;
                debug_assert!(ty != Type::Void, "a value used after the loop");
                let kind = InstKind::Phi { args, blocks: from };
                let phi = Value::Inst(f.prepend_inst(x, kind, ty));
                merged.push(((v, x), phi));
                phi
            }
        };
        f.set_operand(user, index, phi);
    }
}
