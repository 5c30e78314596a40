//! repeated-compares: a block entered only from one other block, whose first flag-setting
//! instruction is the same compare as the last one of that block, with neither block
//! writing the compared registers between the two, finds the flags already set: the second
//! compare goes. `cmp r10, r9; bge X` ... `X: cmp r10, r9; sub lr, lr, #1; addle r8, r8, #1`
//! loses its second `cmp` (selection emits each compare in the block that reads it, so the
//! arm of an `if` whose body is a select re-tests the branch's condition).
//!
//! Runs last before emission: from here on the flags may pass from one block to the next,
//! and nothing may insert a flag-setting instruction at a block's start or copy a block
//! into another predecessor.
//!
//! Needs: successor lists in step with the terminators. Preserves: behaviour, the blocks
//! and their layout.

use crate::mir::*;

pub fn run(mf: &mut MFunction) {
    let preds = mf.preds();
    for b in mf.block_ids() {
        let [p] = preds[b.index()][..] else {
            continue;
        };
        if p == b || b == MBlockId::ENTRY {
            continue;
        }
        let Some(compare) = flags_at_end(mf.block(p)) else {
            continue;
        };
        if let Some(k) = same_compare_first(&mf.block(b).insts, &compare) {
            mf.block_mut(b).insts.remove(k);
        }
    }
}

/// Whether `inst` writes one of the registers `compare` reads.
fn writes_operand(inst: &MInst, compare: &MInst) -> bool {
    compare.regs().iter().any(|&(r, _)| inst.writes(r))
}

/// The compare whose flags a block leaves, when its registers still hold the compared
/// values at the block's end (not a predicated compare, after which the flags may be
/// another's).
fn flags_at_end(block: &MBlock) -> Option<MInst> {
    let k = block.insts.iter().rposition(MInst::sets_flags)?;
    let compare = &block.insts[k];
    let kept = compare.is_compare()
        && compare.flags_read().is_none()
        && !block.insts[k + 1..]
            .iter()
            .any(|inst| writes_operand(inst, compare));
    kept.then(|| compare.clone())
}

/// Where in `insts` the first flag-setting instruction is, when it is `compare` and no
/// instruction before it writes a register `compare` reads.
fn same_compare_first(insts: &[MInst], compare: &MInst) -> Option<usize> {
    for (k, inst) in insts.iter().enumerate() {
        if inst.sets_flags() {
            return (inst == compare).then_some(k);
        }
        if writes_operand(inst, compare) {
            return None;
        }
    }
    None
}

#[cfg(test)]
#[path = "repeated_compares_tests.rs"]
mod tests;
