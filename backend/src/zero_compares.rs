//! zero-compares: a compare of a register with zero after the instruction that computed it
//! (`and r2, r2, #1` ... `cmp r2, #0`) goes, and that instruction sets the flags itself
//! (`ands r2, r2, #1`), when the flags are read only for equality or sign (`eq`, `ne`, `mi`,
//! `pl`): the N and Z flags of the result are those of the compare, while C and V may
//! differ.
//!
//! The computing instruction is an unpredicated data-processing operation, at most
//! `MAX_DISTANCE` instructions before the compare, with nothing between that writes the
//! register or sets or reads the flags. The flags never pass from one block to another
//! before `repeated-compares` (selection emits each comparison in the block that reads it), so their readers are the
//! instructions after the compare up to the next that sets them, or the block's end.
//!
//! Needs: nothing. Preserves: behaviour.

use crate::mir::*;

/// How far back from a compare the instruction computing its register may be.
const MAX_DISTANCE: usize = 8;

pub fn run(mf: &mut MFunction) {
    for block in &mut mf.blocks {
        let mut folded = Vec::new();
        for j in 0..block.insts.len() {
            let MInst::Cmp {
                cond: None,
                rn,
                src: Operand2::Imm(0),
            } = block.insts[j]
            else {
                continue;
            };
            let Some(k) = computed_at(&block.insts[..j], rn) else {
                continue;
            };
            if !reads_only_zero_or_sign(&block.insts[j + 1..]) {
                continue;
            }
            let MInst::Alu {
                cond: None,
                op,
                rd,
                rn,
                src,
            } = block.insts[k]
            else {
                unreachable!("computed_at finds an unpredicated operation")
            };
            block.insts[k] = MInst::AluS { op, rd, rn, src };
            folded.push(j);
        }
        if !folded.is_empty() {
            let mut index = 0;
            block.insts.retain(|_| {
                index += 1;
                folded.binary_search(&(index - 1)).is_err()
            });
        }
    }
}

/// Where, among the instructions before a compare, the unpredicated operation computing
/// `r` is, if nothing after it writes `r` or touches the flags.
fn computed_at(before: &[MInst], r: Reg) -> Option<usize> {
    for (k, inst) in before.iter().enumerate().rev().take(MAX_DISTANCE) {
        if inst.writes(r) {
            return matches!(inst, MInst::Alu { cond: None, .. }).then_some(k);
        }
        if inst.sets_flags() || inst.flags_read().is_some() {
            return None;
        }
    }
    None
}

/// Whether the flags a compare sets are read, up to the next instruction that sets them
/// for certain, only under `eq`, `ne`, `mi` or `pl`. A predicated compare may leave them
/// for the instructions after it.
fn reads_only_zero_or_sign(after: &[MInst]) -> bool {
    for inst in after {
        let read = inst.flags_read();
        if let Some(cond) = read {
            if !matches!(cond, Cond::Eq | Cond::Ne | Cond::Mi | Cond::Pl) {
                return false;
            }
        }
        if inst.sets_flags() && read.is_none() {
            return true;
        }
    }
    true
}

#[cfg(test)]
#[path = "zero_compares_tests.rs"]
mod tests;
