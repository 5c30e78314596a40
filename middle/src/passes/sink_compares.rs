//! sink-compares: an integer comparison whose only users are branches and selects in other
//! blocks is computed again in each of those blocks, right before its first user there.
//! The back end fuses a comparison with the branches and selects of its own block (the
//! `cmp` sets the flags they read); one computed elsewhere becomes a truth value in a
//! register (`mov r6, #0; moveq r6, #1`) that each user compares with 0 again. Loop passes
//! leave such comparisons: `licm` hoists `x == 0` out of a loop (tail recursion's loop
//! tests its invariant argument every round), and the truth value then takes a register
//! for the whole loop, or a stack slot.
//!
//! A comparison is copied into a block only where that keeps no value alive there that was
//! not already: each operand is a constant or alive in the block anyway (defined there, or
//! used by something else the block dominates). A copy that traded the truth value for an
//! operand would gain nothing, and only move the allocator's choices around. And only where
//! the truth value may live across a call on its way to the block (a call in a block on a
//! path from the comparison to it): there it takes a callee-saved register, which the
//! function saves and restores, or a stack slot. Elsewhere the register it frees is worth
//! less than the allocator's choices it moves. Float comparisons stay: `vcmp` and moving
//! the flags back cost more than `cmp r, #0`.
//!
//! Needs: the CFG and the dominator tree. Preserves: behaviour and the CFG.

use crate::analysis::{Cfg, DomTree, Preserved};
use crate::ir::{Block, Function, Inst, InstKind, Value};
use crate::passes::FunctionContext;

/// The most blocks the walk from a user's block back to the comparison's visits.
const WALK_LIMIT: usize = 512;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let dom = cx.analyses.dom(f);
    let cfg = cx.analyses.cfg(f);
    let mut has_call = vec![false; f.block_capacity()];
    for b in f.blocks() {
        has_call[b.index()] = f
            .block_insts(b)
            .any(|i| matches!(f.kind(i), InstKind::Call { .. }));
    }
    let mut changed = false;
    let compares: Vec<Inst> = f
        .all_insts()
        .filter(|&i| matches!(f.kind(i), InstKind::Icmp { .. }))
        .collect();
    for i in compares {
        let Some(home) = f.inst_block(i) else {
            continue;
        };
        let cond = Value::Inst(i);
        let only_tested = f.uses(cond).iter().all(|u| {
            u.index == 0
                && matches!(
                    f.kind(u.inst),
                    InstKind::CondBr { .. } | InstKind::Select { .. }
                )
        });
        if !only_tested {
            continue;
        }
        let mut blocks: Vec<Block> = Vec::new();
        for u in f.uses(cond) {
            let b = f.inst_block(u.inst).expect("a user is in a block");
            if b != home && !blocks.contains(&b) {
                blocks.push(b);
            }
        }
        for b in blocks {
            if !keeps_pressure(f, &dom, i, b) || !crosses_call(&cfg, &has_call, home, b) {
                continue;
            }
            let users: Vec<Inst> = f
                .block_insts(b)
                .filter(|&u| f.kind(u).operands().first() == Some(&cond))
                .collect();
            let copy = f.insert_inst_before(users[0], f.kind(i).clone(), f.inst(i).ty);
            for u in users {
                f.set_operand(u, 0, Value::Inst(copy));
            }
            changed = true;
        }
        if f.uses(cond).is_empty() {
            f.remove_inst(i);
        }
    }
    Preserved::cfg_if(changed)
}

/// Whether a value defined in `home` and used in `b`, which `home` dominates, may live
/// across a call: one in a block on a path from `home` to `b` (`b` included, `home` not),
/// found walking back from `b` over predecessors up to `home`. A walk that meets more than
/// `WALK_LIMIT` blocks answers no.
fn crosses_call(cfg: &Cfg, has_call: &[bool], home: Block, b: Block) -> bool {
    let mut seen = vec![false; has_call.len()];
    seen[home.index()] = true;
    seen[b.index()] = true;
    let mut stack = vec![b];
    let mut walked = 0;
    while let Some(x) = stack.pop() {
        if has_call[x.index()] {
            return true;
        }
        walked += 1;
        if walked > WALK_LIMIT {
            return false;
        }
        for &p in cfg.preds(x) {
            if !seen[p.index()] {
                seen[p.index()] = true;
                stack.push(p);
            }
        }
    }
    false
}

/// Whether comparison `i` computed in `b` keeps no value alive there that is not already.
fn keeps_pressure(f: &Function, dom: &DomTree, i: Inst, b: Block) -> bool {
    f.kind(i)
        .operands()
        .iter()
        .all(|&v| v.is_constant() || alive_in(f, dom, v, i, b))
}

/// Whether `v` is alive in `b` whether or not comparison `i` uses it: defined there, or
/// used by something other than `i` in a block `b` dominates.
fn alive_in(f: &Function, dom: &DomTree, v: Value, i: Inst, b: Block) -> bool {
    if v.as_inst().and_then(|d| f.inst_block(d)) == Some(b) {
        return true;
    }
    f.uses(v)
        .iter()
        .any(|u| u.inst != i && f.inst_block(u.inst).is_some_and(|ub| dom.dominates(b, ub)))
}
