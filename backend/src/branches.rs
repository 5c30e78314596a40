//! Branch clean-up before emission. A jump to a block that holds nothing but a jump goes
//! straight to where that one leads (such blocks are left by critical-edge splitting when
//! no phi copy landed in them), and a conditional branch that then goes where its block's
//! closing jump goes is dropped, with the compare that only it read; blocks nothing reaches
//! any more leave the layout and are not emitted. Then a conditional branch to the next block in
//! the layout followed by a jump elsewhere is inverted so that it falls through:
//! `blt .L1; b .L2; .L1:` becomes `bge .L2; .L1:` (the jump to the next block is not
//! emitted). A rotated loop's latch then ends in one branch, back to the body.
//!
//! Before that, a block A whose only predecessor X branches to it on a condition and
//! otherwise falls through to the next block N, and which ends by jumping to N, moves
//! between X and N (`X: bge A; N: ...; A: ...; b N` becomes `X: blt N; A: ...; N: ...`): the
//! way through A loses its jump, the way around it still takes one branch. The loop body
//! behind `if (i < j) continue;` then runs straight into the latch.
//!
//! A jump to a small block that ends in branches (at most `MAX_TAIL` instructions before
//! them, no call) is replaced by a copy of that block when it is not the next block anyway:
//! the arms of an `if`/`else if` chain in a loop then each end with the latch's test and
//! branch back, instead of jumping to it. Each block is copied at most `MAX_COPIES` times.
//!
//! A block that only jumps back to a loop header laid out before it (the phi copies of a
//! back edge: `mov`s, then `b H`) moves to just before the header when the block before the
//! header lies outside the loop: the back edge then falls through into the header, and only
//! the way into the loop takes the jump. A path that fell through into the moved block now
//! jumps to it instead, one branch either way; every other path into it saves one.
//!
//! Needs: nothing. Preserves: behaviour; blocks stay in storage, so no branch is renumbered.

use crate::mir::*;

pub fn run(mf: &mut MFunction) {
    thread_jumps(mf);
    let reached = drop_unreached(mf);
    place_side_blocks(mf, &reached);
    duplicate_small_tails(mf);
    drop_unreached(mf);
    place_back_edge_blocks(mf);
    fall_through(mf);
}

/// The most instructions, besides its branches, a block copied into its jumping
/// predecessors may have.
const MAX_TAIL: usize = 3;
/// The most copies made of one block.
const MAX_COPIES: u32 = 8;

/// Replaces jumps to small blocks ending in branches by copies of those blocks.
fn duplicate_small_tails(mf: &mut MFunction) {
    let n = mf.blocks.len();
    let mut next_in_layout: Vec<Option<MBlockId>> = vec![None; n];
    for pair in mf.layout.windows(2) {
        next_in_layout[pair[0].index()] = Some(pair[1]);
    }
    let mut copies = vec![0u32; n];
    for &p in &mf.layout.clone() {
        // Only a lone jump: after a conditional branch, the copy's code would not run first.
        let insts = &mf.block(p).insts;
        let (Some(MInst::B { target: t }), false) = (
            insts.last(),
            insts.len() >= 2 && matches!(insts[insts.len() - 2], MInst::BCond { .. }),
        ) else {
            continue;
        };
        let t = *t;
        let copy_fits = t != p
            && t != MBlockId::ENTRY
            && next_in_layout[p.index()] != Some(t)
            && copies[t.index()] < MAX_COPIES
            && is_small_tail(&mf.block(t).insts);
        if !copy_fits {
            continue;
        }
        let tail = mf.block(t).insts.clone();
        let block = mf.block_mut(p);
        block.insts.pop();
        block.insts.extend(tail);
        block.succs = block.terminator_succs();
        copies[t.index()] += 1;
    }
}

/// Whether a block is at most `MAX_TAIL` instructions without calls, then branches ending in
/// a jump.
fn is_small_tail(insts: &[MInst]) -> bool {
    let branches = insts
        .iter()
        .rev()
        .take_while(|i| matches!(i, MInst::B { .. } | MInst::BCond { .. }))
        .count();
    let body = &insts[..insts.len() - branches];
    matches!(insts.last(), Some(MInst::B { .. }))
        && body.len() <= MAX_TAIL
        && !body.iter().any(|i| i.is_call() || i.is_terminator())
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
            inst.retarget(|target| *target = dest[target.index()]);
        }
        drop_branches_to_the_jump_target(&mut block.insts);
        block.succs = block.terminator_succs();
    }
}

/// Drops the conditional branches of a block that go where its closing jump goes anyway
/// (left when the blocks between them held only jumps: a loop that `loop-split` emptied),
/// and then the compare before them when no other instruction reads its flags.
fn drop_branches_to_the_jump_target(insts: &mut Vec<MInst>) {
    let Some(&MInst::B { target }) = insts.last() else {
        return;
    };
    let before = insts.len();
    insts.retain(|i| !matches!(i, MInst::BCond { target: t, .. } if *t == target));
    if insts.len() == before {
        return;
    }
    let body = insts.len() - 1;
    if body > 0
        && !insts[..body].iter().any(MInst::is_terminator)
        && insts[body - 1].is_compare()
        && insts[body - 1].flags_read().is_none()
    {
        insts.remove(body - 1);
    }
}

/// Takes the blocks the entry no longer reaches out of the layout (a tail copied into every
/// block that jumped to it is one); returns which blocks it reaches.
fn drop_unreached(mf: &mut MFunction) -> Vec<bool> {
    let reached = mf.reached();
    mf.layout.retain(|b| reached[b.index()]);
    reached
}

/// Moves each block that only its layout predecessor's conditional branch enters, and that
/// jumps to where that predecessor falls through, in between the two. The layout is a
/// linked list while blocks move, so the pass takes linear time.
fn place_side_blocks(mf: &mut MFunction, reached: &[bool]) {
    const NONE: u32 = u32::MAX;
    let n = mf.blocks.len();
    let mut preds = mf.preds();
    for list in &mut preds {
        list.retain(|p| reached[p.index()]);
    }
    let mut next = vec![NONE; n];
    let mut prev = vec![NONE; n];
    for pair in mf.layout.windows(2) {
        next[pair[0].index()] = pair[1].0;
        prev[pair[1].index()] = pair[0].0;
    }
    let mut placed = vec![false; n];
    let mut cur = mf.layout.first().map_or(NONE, |b| b.0);
    while cur != NONE {
        let x = MBlockId(cur);
        let after = next[x.index()];
        if after != NONE {
            if let Some(a) = side_block(mf, &preds, x, MBlockId(after)) {
                if !placed[a.index()] && a != MBlockId::ENTRY {
                    // Unlink `a`, then link it after `x`.
                    let (p, q) = (prev[a.index()], next[a.index()]);
                    if p != NONE {
                        next[p as usize] = q;
                    }
                    if q != NONE {
                        prev[q as usize] = p;
                    }
                    next[x.index()] = a.0;
                    prev[a.index()] = x.0;
                    next[a.index()] = after;
                    prev[after as usize] = a.0;
                    placed[a.index()] = true;
                }
            }
        }
        cur = next[cur as usize];
    }
    let mut layout = Vec::with_capacity(mf.layout.len());
    let mut cur = mf.layout.first().map_or(NONE, |b| b.0);
    while cur != NONE {
        layout.push(MBlockId(cur));
        cur = next[cur as usize];
    }
    mf.layout = layout;
}

/// The block `x` branches to besides `after` (on its one condition or by its jump), when that
/// block has `x` as its only predecessor and ends by jumping to `after`.
fn side_block(
    mf: &MFunction,
    preds: &[Vec<MBlockId>],
    x: MBlockId,
    after: MBlockId,
) -> Option<MBlockId> {
    let insts = &mf.block(x).insts;
    let n = insts.len();
    if n >= 3 && matches!(insts[n - 3], MInst::BCond { .. }) {
        return None;
    }
    let [MInst::BCond { target: t, .. }, MInst::B { target: u }] =
        insts.get(n.checked_sub(2)?..)?
    else {
        return None;
    };
    // `fall_through` inverts the branch afterwards, whichever way round it is now.
    let a = match (*t == after, *u == after) {
        (false, true) => *t,
        (true, false) => *u,
        _ => return None,
    };
    if a == x || preds[a.index()] != [x] {
        return None;
    }
    let side = &mf.block(a).insts;
    let m = side.len();
    let jumps_after = matches!(side.last(), Some(MInst::B { target }) if *target == after);
    let one_way = m < 2 || !matches!(side[m - 2], MInst::BCond { .. });
    (jumps_after && one_way).then_some(a)
}

/// Moves each block that only jumps back to a header, whose layout predecessor lies in fewer
/// loops than it, to just before that header (at most one per header).
fn place_back_edge_blocks(mf: &mut MFunction) {
    let position: Vec<usize> = {
        let mut at = vec![usize::MAX; mf.blocks.len()];
        for (k, b) in mf.layout.iter().enumerate() {
            at[b.index()] = k;
        }
        at
    };
    let mut before: Vec<Option<MBlockId>> = vec![None; mf.blocks.len()];
    let mut moved = vec![false; mf.blocks.len()];
    for k in 1..mf.layout.len() {
        let l = mf.layout[k];
        let block = mf.block(l);
        let [MInst::B { target: h }] = block.insts[block.insts.len() - 1..] else {
            continue;
        };
        let only_jumps = !block.insts.iter().any(|i| matches!(i, MInst::BCond { .. }));
        let hk = position[h.index()];
        if !only_jumps || h == MBlockId::ENTRY || hk == usize::MAX || hk == 0 || hk >= k {
            continue;
        }
        let p = mf.layout[hk - 1];
        // A header that moves itself, or a block that another one moves before, would take
        // its companion out of the layout with it.
        let entangled = moved[h.index()] || before[l.index()].is_some();
        if p == l
            || mf.block(p).loop_depth >= block.loop_depth
            || before[h.index()].is_some()
            || entangled
        {
            continue;
        }
        before[h.index()] = Some(l);
        moved[l.index()] = true;
    }
    if !moved.contains(&true) {
        return;
    }
    let mut layout = Vec::with_capacity(mf.layout.len());
    for &b in &mf.layout {
        if moved[b.index()] {
            continue;
        }
        if let Some(l) = before[b.index()] {
            layout.push(l);
        }
        layout.push(b);
    }
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
