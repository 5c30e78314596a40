//! shrink-wrap: a function that can return early without needing its frame (a recursion's
//! base case, a guard at the top) sets the frame up only on the paths that go on, so the
//! early return is `bx lr` with no register saved or restored.
//!
//! The frameless region is the largest set of blocks from the entry that do not need the
//! frame (`frame_placement::needs_frame`) and whose predecessors all lie in the set (so no
//! path comes back into it with the frame up; a loop is in it whole or not at all), kept to
//! those that lead within it to a return. Inside it:
//! - the callee-saved registers the region writes (it names no `lr`: that needs the
//!   frame) move to caller-saved registers that it leaves unused and that are dead where it
//!   is left (or, for a copy in the entry of a register the region does not write again,
//!   to that register); each way out copies them back after its prologue where they are
//!   live;
//! - constants built in the entry into such registers that the region does not read are
//!   built after the prologue instead, where they are live;
//! - stores of registers to the function's own stack slots in the entry block (arguments
//!   spilled where they arrive) move to each way out, storing the register if the region
//!   does not overwrite it, else a caller-saved copy of it.
//!
//! A small returning block that needs no frame, reached from the region and from framed
//! code alike, is first copied for the region's ways into it.
//!
//! Not done for a recursion whose every self-call sits right behind a test (a pruned search,
//! a base case `inline` tests before the call): the recursion then seldom returns early, and
//! the copies on the framed way would be paid for nothing.
//!
//! Each edge leaving the region gets a `Prologue`: at the top of the edge's target when
//! every way into the target leaves the region, else in a block of its own on the edge.
//! Not done when the frame's stack reservation needs `ip` (it does not encode), when there
//! are too few free caller-saved registers, or when the region has more than
//! `MAX_PROLOGUES` ways out (each is a copy of the prologue).
//!
//! Needs: physical registers; runs last, after `branches` (nothing may move code across a
//! prologue). Preserves: behaviour.

use crate::frame::Frame;
use crate::imm::is_operand2;
use crate::mir::frame_placement::{is_saved, needs_frame};
use crate::mir::*;
use crate::regalloc::liveness::{Liveness, PHYS_NODES};

/// The most copies of the prologue one function may get.
const MAX_PROLOGUES: usize = 3;

pub fn run(mf: &mut MFunction) {
    let frame = Frame::new(mf);
    let no_frame = frame.saved_core.is_empty() && frame.saved_float == 0 && frame.frame_bytes == 0;
    // Taking saved registers off the list changes the reservation by 4 bytes at most.
    if no_frame
        || !is_operand2(frame.frame_bytes + 4)
        || mf.blocks.is_empty()
        || self_calls_all_guarded(mf)
    {
        return;
    }
    let mut trial = mf.clone();
    copy_shared_returns(&mut trial);
    if wrap(&mut trial, &frame) {
        *mf = trial;
    }
}

/// Whether the function calls itself, and each time right behind a test: the first call of
/// a block whose only predecessor ends in a conditional branch (`if (!seen[v]) dfs(v);`, a
/// base case tested before the call as `inline` leaves it, a pruned search). Such callers
/// tend to test what the callee's early return tests, so that the recursion seldom takes
/// it and the framed way would pay the copies for nothing.
fn self_calls_all_guarded(mf: &MFunction) -> bool {
    let preds = mf.reached_preds();
    let mut calls = 0;
    let behind_test = |b: MBlockId| {
        matches!(preds[b.index()].as_slice(), [p]
            if mf.block(*p).insts.iter().any(|i| matches!(i, MInst::BCond { .. })))
    };
    for b in mf.block_ids() {
        let mut first = true;
        for inst in &mf.block(b).insts {
            if !inst.is_call() {
                continue;
            }
            if matches!(inst, MInst::Bl { sym, .. } if *sym == mf.symbol) {
                calls += 1;
                if !(first && behind_test(b)) {
                    return false;
                }
            }
            first = false;
        }
    }
    calls > 0
}

/// The most instructions before its return a returning block may have to be copied.
const MAX_RETURN_COPY: usize = 3;

/// Gives a small returning block that needs no frame, reached both from the region and from
/// outside it, a copy of its own for the ways from the region (a shared `return 1;` after a
/// base case and after a loop with calls).
fn copy_shared_returns(mf: &mut MFunction) {
    let preds = mf.reached_preds();
    let stores = movable_stores(mf);
    let clean = clean_blocks(mf, &stores);
    let inside = pred_closed(mf, &preds, &clean);
    for r in mf.layout.clone() {
        let insts = &mf.block(r).insts;
        let from: Vec<MBlockId> = preds[r.index()]
            .iter()
            .copied()
            .filter(|p| inside[p.index()])
            .collect();
        if inside[r.index()]
            || !clean[r.index()]
            || from.is_empty()
            || insts.len() > MAX_RETURN_COPY + 1
            || !ends_in_return(insts)
        {
            continue;
        }
        let copy = mf.add_block(mf.block(r).loop_depth);
        mf.layout.pop();
        mf.block_mut(copy).insts = mf.block(r).insts.clone();
        for &p in &from {
            redirect(mf, p, r, copy);
        }
        lay_out_after(mf, copy, from[0]);
    }
    mf.recompute_succs();
}

fn ends_in_return(insts: &[MInst]) -> bool {
    matches!(
        insts.last(),
        Some(MInst::Ret { .. } | MInst::TailCall { .. })
    )
}

/// Shrink-wraps `mf` if it can; whether it did.
fn wrap(mf: &mut MFunction, frame: &Frame) -> bool {
    let preds = mf.reached_preds();
    let stores = movable_stores(mf);
    let region = frameless_region(mf, &preds, &stores);
    if !region[MBlockId::ENTRY.index()] {
        return false;
    }
    let exits = exits(mf, &region, &preds);
    if exits.len() > MAX_PROLOGUES {
        return false;
    }
    let live = [
        Liveness::new(mf, RegClass::Int),
        Liveness::new(mf, RegClass::Float),
    ];
    let Some(plan) = Plan::new(mf, &region, &exits, frame, &live, &stores) else {
        return false;
    };
    plan.apply(mf, &region, exits, &live);
    mf.recompute_succs();
    true
}

/// The positions in the entry block of stores of a register to one of the function's own
/// stack slots, each slot stored once there: the stores that may wait for the prologue.
fn movable_stores(mf: &MFunction) -> Vec<usize> {
    let insts = &mf.block(MBlockId::ENTRY).insts;
    let accessed_elsewhere = |k: usize, at| {
        insts
            .iter()
            .enumerate()
            .any(|(j, i)| j != k && i.slot_access().map(|(_, _, a)| a) == Some(at))
    };
    (0..insts.len())
        .filter(|&k| match insts[k].slot_access() {
            Some((false, r, at @ (Slot::Local(_), _))) => {
                mf.class_of(r) != RegClass::Vector && !accessed_elsewhere(k, at)
            }
            _ => false,
        })
        .collect()
}

/// Per block, whether it needs no frame (the entry's movable stores aside).
fn clean_blocks(mf: &MFunction, stores: &[usize]) -> Vec<bool> {
    mf.block_ids()
        .map(|b| {
            mf.block(b).insts.iter().enumerate().all(|(k, inst)| {
                !needs_frame(inst) || (b == MBlockId::ENTRY && stores.contains(&k))
            })
        })
        .collect()
}

/// The largest set of clean blocks from the entry with every predecessor inside: from those
/// the entry reaches over clean blocks, blocks with a predecessor outside drop until none
/// has one. Empty when the entry is not clean or has predecessors.
fn pred_closed(mf: &MFunction, preds: &[Vec<MBlockId>], clean: &[bool]) -> Vec<bool> {
    let mut inside = vec![false; mf.blocks.len()];
    if !clean[0] || !preds[0].is_empty() {
        return inside;
    }
    inside[0] = true;
    let mut stack = vec![MBlockId::ENTRY];
    while let Some(b) = stack.pop() {
        for &s in mf.succs(b) {
            if clean[s.index()] && !inside[s.index()] {
                inside[s.index()] = true;
                stack.push(s);
            }
        }
    }
    let mut dropped = true;
    while dropped {
        dropped = false;
        for b in mf.block_ids() {
            if inside[b.index()] && preds[b.index()].iter().any(|p| !inside[p.index()]) {
                inside[b.index()] = false;
                dropped = true;
            }
        }
    }
    inside
}

/// Per block, whether it is in the frameless region: the pred-closed clean blocks that lead
/// within them to a return or tail call.
fn frameless_region(mf: &MFunction, preds: &[Vec<MBlockId>], stores: &[usize]) -> Vec<bool> {
    let inside = pred_closed(mf, preds, &clean_blocks(mf, stores));
    let mut returns = vec![false; mf.blocks.len()];
    let mut stack: Vec<MBlockId> = mf
        .block_ids()
        .filter(|b| inside[b.index()] && ends_in_return(&mf.block(*b).insts))
        .collect();
    for b in &stack {
        returns[b.index()] = true;
    }
    while let Some(b) = stack.pop() {
        for &p in &preds[b.index()] {
            if inside[p.index()] && !returns[p.index()] {
                returns[p.index()] = true;
                stack.push(p);
            }
        }
    }
    returns
}

/// A way out of the frameless region: its target, and the region's block on the edge, or
/// `None` when every block branching to the target lies in the region (the prologue then
/// goes at the top of the target).
struct Exit {
    target: MBlockId,
    edge_from: Option<MBlockId>,
}

fn exits(mf: &MFunction, region: &[bool], preds: &[Vec<MBlockId>]) -> Vec<Exit> {
    let mut exits = Vec::new();
    let mut seen = vec![false; mf.blocks.len()];
    for &b in &mf.layout {
        if !region[b.index()] {
            continue;
        }
        for &t in mf.succs(b) {
            if region[t.index()] {
                continue;
            }
            if preds[t.index()].iter().all(|p| region[p.index()]) {
                if !seen[t.index()] {
                    seen[t.index()] = true;
                    exits.push(Exit {
                        target: t,
                        edge_from: None,
                    });
                }
            } else {
                exits.push(Exit {
                    target: t,
                    edge_from: Some(b),
                });
            }
        }
    }
    exits
}

/// What moves: the saved registers the region writes, each with its caller-saved stand-in,
/// and the entry's stores that wait for the prologue, each with the register whose value
/// they store there (its position in the entry, the store as it will be written).
struct Plan {
    renames: Vec<(PReg, PReg)>,
    /// Positions in the entry of constants built into saved registers that the region
    /// does not read: they are built after the prologue instead, where needed.
    sunk: Vec<usize>,
    stores: Vec<(usize, Option<MInst>, MInst)>,
}

impl Plan {
    /// None when there are too few free caller-saved registers: those the region does not
    /// name, that are dead where it is left (`ip` only when no far offset needs it).
    fn new(
        mf: &MFunction,
        region: &[bool],
        exits: &[Exit],
        frame: &Frame,
        live: &[Liveness; 2],
        stores: &[usize],
    ) -> Option<Plan> {
        let mut named = [false; PHYS_NODES];
        let mut written = [false; PHYS_NODES];
        // Per register, the last position (block, instruction) the region writes it.
        let mut last_write = vec![None; PHYS_NODES];
        for b in mf.block_ids().filter(|b| region[b.index()]) {
            for (k, inst) in mf.block(b).insts.iter().enumerate() {
                inst.for_each_reg(|r, role| {
                    if let Reg::Phys(p) = r {
                        named[p.0 as usize] = true;
                        if role != Role::Use {
                            written[p.0 as usize] = true;
                            last_write[p.0 as usize] = Some((b, k));
                        }
                    }
                });
            }
        }
        for live in live {
            for exit in exits {
                for node in live.live_in(exit.target) {
                    if node < PHYS_NODES && !is_saved(PReg(node as u8)) {
                        named[node] = true;
                    }
                }
            }
        }
        let ip = (!frame.needs_ip(mf)).then_some(PReg::IP);
        let unnamed = |p: &PReg| !named[p.0 as usize];
        // Popped from the end: r0 and s0 first.
        let mut free = [
            (0..4)
                .map(PReg)
                .chain(ip)
                .filter(unnamed)
                .rev()
                .collect::<Vec<_>>(),
            (0..16).map(PReg::s).filter(unnamed).rev().collect(),
        ];
        let mut renames = Vec::new();
        let mut sunk = Vec::new();
        for c in (0..PHYS_NODES as u8)
            .map(PReg)
            .filter(|&p| written[p.0 as usize] && is_saved(p))
        {
            if let Some(builds) = constant_builds(mf, region, c) {
                sunk.extend(builds);
            } else if let Some(x) = kept_source(mf, region, c, &last_write) {
                renames.push((c, x));
            } else {
                renames.push((c, free[c.class().index()].pop()?));
            }
        }
        sunk.sort_unstable();
        let renamed = |p: PReg| stand_in(&renames, p);
        let mut moved = Vec::new();
        for &k in stores {
            let store = &mf.block(MBlockId::ENTRY).insts[k];
            let Some((_, Reg::Phys(value), _)) = store.slot_access() else {
                return None;
            };
            let overwritten =
                last_write[value.0 as usize].is_some_and(|(b, j)| b != MBlockId::ENTRY || j > k);
            let (copy, held) = if overwritten {
                let t = free[value.class().index()].pop()?;
                let copy = MInst::Copy {
                    dst: Reg::Phys(t),
                    src: Reg::Phys(renamed(value)),
                };
                (Some(copy), t)
            } else {
                (None, renamed(value))
            };
            let mut late = store.clone();
            late.visit_regs(|r, _| *r = Reg::Phys(held));
            moved.push((k, copy, late));
        }
        Some(Plan {
            renames,
            sunk,
            stores: moved,
        })
    }

    fn apply(&self, mf: &mut MFunction, region: &[bool], exits: Vec<Exit>, live: &[Liveness; 2]) {
        let entry = std::mem::take(&mut mf.block_mut(MBlockId::ENTRY).insts);
        let mut kept = Vec::with_capacity(entry.len());
        let mut sunk = Vec::new();
        for (k, inst) in entry.into_iter().enumerate() {
            if let Some((_, copy, _)) = self.stores.iter().find(|(j, _, _)| *j == k) {
                kept.extend(copy.clone());
            } else if self.sunk.contains(&k) {
                sunk.push(inst);
            } else {
                kept.push(inst);
            }
        }
        mf.block_mut(MBlockId::ENTRY).insts = kept;
        for (b, block) in mf.blocks.iter_mut().enumerate() {
            if !region[b] {
                continue;
            }
            for inst in &mut block.insts {
                inst.visit_regs(|r, _| {
                    if let Reg::Phys(p) = *r {
                        *r = Reg::Phys(stand_in(&self.renames, p));
                    }
                });
            }
        }
        for exit in exits {
            let mut code = vec![MInst::Prologue];
            code.extend(self.stores.iter().map(|(_, _, store)| store.clone()));
            for &(c, t) in &self.renames {
                if live[c.class().index()]
                    .live_in(exit.target)
                    .any(|n| n == c.0 as usize)
                {
                    code.push(MInst::Copy {
                        dst: Reg::Phys(c),
                        src: Reg::Phys(t),
                    });
                }
            }
            let needed = |inst: &&MInst| {
                inst.regs().iter().all(|&(r, _)| {
                    live[0]
                        .live_in(exit.target)
                        .any(|n| r == Reg::Phys(PReg(n as u8)))
                })
            };
            code.extend(sunk.iter().filter(needed).cloned());
            place(mf, exit, code);
        }
    }
}

/// The register standing in for `p` under `renames` (`p` itself when it has none).
fn stand_in(renames: &[(PReg, PReg)], p: PReg) -> PReg {
    renames
        .iter()
        .find(|&&(c, _)| c == p)
        .map_or(p, |&(_, t)| t)
}

/// The register `c` copies, when the region's only write of `c` is that copy, in the entry,
/// of a register the prologue does not save and the region does not write after it: that
/// register can stand in for `c` (the copy becomes one of itself, which is not emitted).
fn kept_source(
    mf: &MFunction,
    region: &[bool],
    c: PReg,
    last_write: &[Option<(MBlockId, usize)>],
) -> Option<PReg> {
    let mut source = None;
    for b in mf.block_ids().filter(|b| region[b.index()]) {
        for (k, inst) in mf.block(b).insts.iter().enumerate() {
            if !inst.writes(Reg::Phys(c)) {
                continue;
            }
            match *inst {
                MInst::Copy {
                    src: Reg::Phys(x), ..
                } if b == MBlockId::ENTRY && source.is_none() && !is_saved(x) => {
                    let written_after = last_write[x.0 as usize]
                        .is_some_and(|(wb, j)| wb != MBlockId::ENTRY || j > k);
                    if written_after {
                        return None;
                    }
                    source = Some(x);
                }
                _ => return None,
            }
        }
    }
    source
}

/// The positions in the entry of the instructions building constants into `c` (`mov` or
/// `mvn` of an immediate, `movw`, `movt`, a symbol's address), when those are all the
/// region's instructions naming `c`.
fn constant_builds(mf: &MFunction, region: &[bool], c: PReg) -> Option<Vec<usize>> {
    let mut builds = Vec::new();
    for b in mf.block_ids().filter(|b| region[b.index()]) {
        for (k, inst) in mf.block(b).insts.iter().enumerate() {
            if !inst.regs().iter().any(|&(r, _)| r == Reg::Phys(c)) {
                continue;
            }
            let builds_c = match *inst {
                MInst::Mov {
                    cond: None,
                    rd,
                    src: Operand2::Imm(_),
                }
                | MInst::Mvn {
                    rd,
                    src: Operand2::Imm(_),
                }
                | MInst::Movw { rd, .. }
                | MInst::Movt { rd, .. }
                | MInst::LoadSym { rd, .. } => rd == Reg::Phys(c),
                _ => false,
            };
            if b != MBlockId::ENTRY || !builds_c {
                return None;
            }
            builds.push(k);
        }
    }
    Some(builds)
}

/// Puts `code` on `exit`: at the top of its target, or in a block of its own on the edge,
/// laid out after the edge's source when the edge is the source's closing jump, else last.
fn place(mf: &mut MFunction, exit: Exit, mut code: Vec<MInst>) {
    let target = exit.target;
    let Some(from) = exit.edge_from else {
        mf.block_mut(target).insts.splice(0..0, code);
        return;
    };
    let pad = mf.add_block(mf.block(from).loop_depth);
    mf.layout.pop();
    code.push(MInst::B { target });
    mf.block_mut(pad).insts = code;
    redirect(mf, from, target, pad);
    lay_out_after(mf, pad, from);
}

/// Makes `from`'s branches to `old` go to `new` instead.
fn redirect(mf: &mut MFunction, from: MBlockId, old: MBlockId, new: MBlockId) {
    for inst in &mut mf.block_mut(from).insts {
        inst.retarget(|t| {
            if *t == old {
                *t = new;
            }
        });
    }
}

/// Lays `block`, which `from` now branches to, out after `from` when `from`'s closing jump
/// goes there (so that it falls through), else last.
fn lay_out_after(mf: &mut MFunction, block: MBlockId, from: MBlockId) {
    let falls_in = matches!(
        mf.block(from).insts.last(),
        Some(MInst::B { target }) if *target == block
    );
    let at = match mf.layout.iter().position(|&b| b == from) {
        Some(k) if falls_in => k + 1,
        _ => mf.layout.len(),
    };
    mf.layout.insert(at, block);
}

#[cfg(test)]
#[path = "shrink_wrap_tests.rs"]
mod tests;
