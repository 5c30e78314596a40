//! Branch clean-up before emission. A jump to a block that holds nothing but a jump goes
//! straight to where that one leads (such blocks are left by critical-edge splitting when
//! no phi copy landed in them); blocks nothing reaches any more move to the end of the
//! layout, where they cost no fall-through. Then a conditional branch to the next block in
//! the layout followed by a jump elsewhere is inverted so that it falls through:
//! `blt .L1; b .L2; .L1:` becomes `bge .L2; .L1:` (the jump to the next block is not
//! emitted). A rotated loop's latch then ends in one branch, back to the body.
//!
//! Needs: nothing. Preserves: behaviour; blocks stay in storage, so no branch is renumbered.

use crate::mir::*;

pub fn run(mf: &mut MFunction) {
    thread_jumps(mf);
    move_unreachable_last(mf);
    fall_through(mf);
}

/// Retargets every branch past blocks that only jump.
fn thread_jumps(mf: &mut MFunction) {
    let n = mf.blocks.len();
    let only_jump = |b: MBlockId| match mf.block(b).insts.as_slice() {
        [MInst::B { target }] if b != MBlockId::ENTRY => Some(*target),
        _ => None,
    };
    let mut dest: Vec<MBlockId> = Vec::with_capacity(n);
    for b in mf.block_ids() {
        // A chain of jumps is at most n long; a longer one is a cycle of empty blocks, an
        // endless loop that must stay one.
        let mut to = b;
        for _ in 0..n {
            match only_jump(to) {
                Some(next) if next != b => to = next,
                _ => break,
            }
        }
        dest.push(to);
    }
    for block in &mut mf.blocks {
        for inst in &mut block.insts {
            if let MInst::B { target } | MInst::BCond { target, .. } = inst {
                *target = dest[target.index()];
            }
        }
        block.succs = block.terminator_succs();
    }
}

/// Puts the blocks the entry no longer reaches after all the others, keeping both groups in
/// their order.
fn move_unreachable_last(mf: &mut MFunction) {
    let mut reached = vec![false; mf.blocks.len()];
    let mut stack = vec![MBlockId::ENTRY];
    reached[MBlockId::ENTRY.index()] = true;
    while let Some(b) = stack.pop() {
        for &s in &mf.block(b).succs {
            if !reached[s.index()] {
                reached[s.index()] = true;
                stack.push(s);
            }
        }
    }
    let (mut layout, unreached): (Vec<MBlockId>, Vec<MBlockId>) =
        mf.layout.iter().partition(|b| reached[b.index()]);
    layout.extend(unreached);
    mf.layout = layout;
}

/// Inverts `b<cond> next; b other` into `b<!cond> other; b next`.
fn fall_through(mf: &mut MFunction) {
    for p in 0..mf.layout.len() {
        let Some(&next) = mf.layout.get(p + 1) else {
            continue;
        };
        let block = &mut mf.blocks[mf.layout[p].index()];
        let n = block.insts.len();
        if n < 2 || (n >= 3 && matches!(block.insts[n - 3], MInst::BCond { .. })) {
            continue;
        }
        if let [MInst::BCond { cond, target: x }, MInst::B { target: y }] =
            &mut block.insts[n - 2..]
        {
            if *x == next && *y != next {
                *cond = cond.invert();
                std::mem::swap(x, y);
                block.succs = block.terminator_succs();
            }
        }
    }
}

#[cfg(test)]
#[path = "branches_tests.rs"]
mod tests;
