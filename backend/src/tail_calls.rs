//! tail-calls: a call whose result the function returns at once (`bl f` then `ret`, the
//! result in the register the return reads, or no result returned) becomes a tail call:
//! the frame comes down and `b f` jumps, so `f` returns straight to our caller. A function
//! whose only call is such a call then saves no link register at all.
//!
//! The callee must not need our frame: no argument goes on the stack (then it would lie in
//! the frame being taken down), and no address of the frame's memory is taken anywhere in
//! the function (a local array passed down, a pointer kept in memory). Calls to ourselves
//! qualify too; the IR's `tail-recursion` has already made loops of those it could.
//!
//! Needs: physical registers. Preserves: behaviour.

use crate::mir::*;

pub fn run(mf: &mut MFunction) {
    let frame_escapes = mf.blocks.iter().flat_map(|b| &b.insts).any(|i| match i {
        MInst::SlotAddr { .. } => true,
        MInst::Str { addr, .. } | MInst::VStr { addr, .. } => {
            matches!(addr, Addr::Slot(Slot::Outgoing(_), _))
        }
        _ => false,
    });
    if frame_escapes {
        return;
    }
    for block in &mut mf.blocks {
        let [.., MInst::Bl { sym, uses, defs }, MInst::Ret { uses: returned }] =
            block.insts.as_slice()
        else {
            continue;
        };
        if !returned.iter().all(|r| defs.contains(r)) {
            continue;
        }
        let tail = MInst::TailCall {
            sym: sym.clone(),
            uses: uses.clone(),
        };
        block.insts.truncate(block.insts.len() - 2);
        block.insts.push(tail);
    }
}

#[cfg(test)]
#[path = "tail_calls_tests.rs"]
mod tests;
