//! Removing a loop whose work nothing needs: whether it can go (no value of it used after
//! it, its exit's phis taking one value from all its exiting blocks), whether an
//! instruction has an effect that keeps it, and the removal, a jump from its preheader
//! straight to its exit. `loop-deletion` and `loop-idioms` remove loops so.

use crate::analysis::{LoopInfo, ModuleFacts};
use crate::ir::{Block, Callee, Function, Inst, InstKind, Type, Value};
use crate::transform::phi_edits::{Edit, PhiEdits};
use crate::transform::remove_blocks::remove_blocks;

/// The preheader and the exit of loop `k` when it can go (its effects aside).
pub fn deletable(f: &Function, loops: &LoopInfo, k: usize) -> Option<(Block, Block)> {
    let l = &loops.loops[k];
    let preheader = l.preheader?;
    let &[exit] = l.exits.as_slice() else {
        return None;
    };
    for &b in loops.blocks_of(k) {
        for i in f.block_insts(b) {
            let used_outside = f
                .uses(Value::Inst(i))
                .iter()
                .any(|u| f.inst_block(u.inst).is_none_or(|ub| !loops.contains(k, ub)));
            if used_outside {
                return None;
            }
        }
    }
    let one_value_from_the_loop = f.phis(exit).all(|phi| match f.kind(phi) {
        InstKind::Phi { args, blocks } => {
            let mut from_loop = args
                .iter()
                .zip(blocks)
                .filter(|(_, b)| loops.contains(k, **b))
                .map(|(v, _)| *v);
            let first = from_loop.next();
            from_loop.all(|v| Some(v) == first)
        }
        _ => unreachable!("only phis are taken"),
    });
    one_value_from_the_loop.then_some((preheader, exit))
}

/// Whether `i` is a store or a call that may write memory or do I/O (by the module's
/// function summaries): what keeps a loop whose results go unused.
pub fn has_effect(f: &Function, facts: &ModuleFacts, i: Inst) -> bool {
    match f.kind(i) {
        InstKind::Store { .. } => true,
        InstKind::Call { callee, .. } => match callee {
            Callee::Function(g) => !facts.summary(*g).is_read_only(),
            _ => true,
        },
        _ => false,
    }
}

/// Sends the preheader of loop `k` straight to `exit` and removes the loop's blocks.
pub fn delete(f: &mut Function, loops: &LoopInfo, k: usize, preheader: Block, exit: Block) {
    let l = &loops.loops[k];
    let mut edits = PhiEdits::new(f.block_capacity());
    for (n, &b) in l.exiting.iter().enumerate() {
        let edit = if n == 0 {
            Edit::Rename(b, preheader)
        } else {
            Edit::Remove(b)
        };
        edits.queue(f, exit, edit);
    }
    edits.flush_all(f);
    let jump = f
        .terminator(preheader)
        .expect("a preheader ends in a jump to the header");
    f.replace_kind(jump, InstKind::Br { targets: [exit] }, Type::Void);
    remove_blocks(f, loops.blocks_of(k));
}
