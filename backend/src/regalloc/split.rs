//! Live-range splitting around crowded loops, before colouring.
//!
//! A register that lives through a loop without being read or written there, but is read
//! around it, competes inside the loop with the loop's own values. When the loop is
//! crowded (more registers live across one of its calls than there are callee-saved
//! registers), the colourer spills some of them; spilling this one everywhere reloads it
//! at each use around the loop too, where registers are free. A recursion inlined into
//! itself shows it: each level is a loop holding the next, and the outer levels reloaded
//! their own counters in every round of their own loops. So such a register `v` is split:
//! a copy `v' = v` on every edge into the loop, and `v = v'` on every edge out of it where
//! `v` is live. Inside the loop only `v'` lives, and nothing reads it there: the colourer
//! spills it before the loop's own values (its only occurrences are the copies), which
//! stores `v` on entering the loop and loads it on leaving, once each, while `v` keeps a
//! register where it is used. Where registers suffice, the colourer coalesces the copies
//! away.
//!
//! A register is split at a loop that does not mention it when:
//! - its occurrences in the enclosing loop (or the function, for an outermost loop)
//!   outside this one, weighted by block frequency, outnumber twice the runs of the edges
//!   into the loop: then the copies cost less than the loads they save;
//! - the blocks of those occurrences are not crowded by a call themselves, counting the
//!   registers their own loop mentions (else both halves are spilled, and the copies move
//!   the value from slot to slot: `bank_queue` took 1.03x its cycles). Blocks merely
//!   crowded, without a call, do not count: in a recursion inlined into itself, the outer
//!   level's loop holds more values than registers, and its counter kept a register
//!   through the inner level's loop, where the inner level reloaded its own bases;
//! - every edge out of the loop has a place for its copy: the start of its target when all
//!   the target's predecessors are in the loop, else the end of its source when that has
//!   no other successor;
//! - its definitions cannot be repeated anywhere (constants and addresses are left to the
//!   spiller, which recomputes them at their uses).
//!
//! Loops crowded without a call (more registers live than colours) are left alone: split
//! there, the colourer's other choices moved, and `crypto-1` took 1.012x its cycles and
//! `iir_filter` 1.003x, for no gain on the corpus.
//!
//! Needs: block frequencies. Preserves: behaviour (each copy moves a value that is the
//! same on both sides).

use super::liveness::{defs_uses, node, Liveness, PHYS_NODES};
use super::{pressure, spill, spill_weight};
use crate::mir::loops::LoopNest;
use crate::mir::*;
use middle::fast_hash::FastHashSet;

/// Where a copy goes.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    /// At the start of the block.
    Start(MBlockId),
    /// At the end of the block, before its branches.
    End(MBlockId),
}

/// A register to split around one loop: the places of the copies into the loop (`v' = v`)
/// and out of it (`v = v'`).
struct Split {
    reg: Reg,
    into: Vec<Place>,
    out_of: Vec<Place>,
}

/// Splits the registers of `class` that live through crowded loops without being
/// mentioned there (see the module comment), given the colours available; whether it split
/// any.
pub fn around_loops(mf: &mut MFunction, class: RegClass, colors: &[PReg]) -> bool {
    let splits = plan(mf, class, colors);
    for split in &splits {
        let copy = mf.new_vreg(class);
        for &place in &split.into {
            insert(
                mf,
                place,
                MInst::Copy {
                    dst: copy,
                    src: split.reg,
                },
            );
        }
        for &place in &split.out_of {
            insert(
                mf,
                place,
                MInst::Copy {
                    dst: split.reg,
                    src: copy,
                },
            );
        }
    }
    !splits.is_empty()
}

fn insert(mf: &mut MFunction, place: Place, inst: MInst) {
    match place {
        Place::Start(b) => mf.block_mut(b).insts.insert(0, inst),
        Place::End(b) => mf.block_mut(b).insert_before_branches(inst),
    }
}

/// The most virtual registers live at one point of a block, and across one of its calls (0
/// when it calls nothing).
#[derive(Clone, Copy, Default)]
struct Peak {
    anywhere: usize,
    across_call: usize,
}

/// Per block, its peaks over every virtual register of `class`, and over those that
/// `counts(node, block)` accepts.
fn block_peaks(
    mf: &MFunction,
    class: RegClass,
    liveness: &Liveness,
    counts: impl Fn(usize, MBlockId) -> bool,
) -> Vec<[Peak; 2]> {
    let mut live = vec![false; PHYS_NODES + mf.vreg_classes.len()];
    let (mut defs, mut uses) = (Vec::new(), Vec::new());
    mf.block_ids()
        .map(|b| {
            let mut peaks = [Peak::default(); 2];
            let mut now = [0usize; 2];
            let mut touched = Vec::new();
            let mut set = |x: usize, on: bool, now: &mut [usize; 2]| {
                if live[x] == on {
                    return;
                }
                live[x] = on;
                touched.push(x);
                if x >= PHYS_NODES {
                    let change = |n: &mut usize| if on { *n += 1 } else { *n -= 1 };
                    change(&mut now[0]);
                    if counts(x, b) {
                        change(&mut now[1]);
                    }
                }
            };
            for x in liveness.live_out(mf, b) {
                set(x, true, &mut now);
            }
            let mut measure = |now: &[usize; 2], call: bool| {
                for k in 0..2 {
                    peaks[k].anywhere = peaks[k].anywhere.max(now[k]);
                    if call {
                        peaks[k].across_call = peaks[k].across_call.max(now[k]);
                    }
                }
            };
            for inst in mf.block(b).insts.iter().rev() {
                defs_uses(mf, inst, class, &mut defs, &mut uses);
                for &d in &defs {
                    set(d, true, &mut now);
                }
                measure(&now, inst.is_call());
                for &d in &defs {
                    set(d, false, &mut now);
                }
                for &u in &uses {
                    set(u, true, &mut now);
                }
            }
            measure(&now, false);
            for x in touched {
                live[x] = false;
            }
            peaks
        })
        .collect()
}

fn plan(mf: &MFunction, class: RegClass, colors: &[PReg]) -> Vec<Split> {
    // Only a call crowds a loop: a function that calls nothing needs no liveness here.
    if !mf.blocks.iter().flat_map(|b| &b.insts).any(MInst::is_call) {
        return Vec::new();
    }
    let nest = LoopNest::new(mf);
    if nest.headers().next().is_none() {
        return Vec::new();
    }
    let liveness = Liveness::new(mf, class);
    let callee_saved = colors
        .iter()
        .filter(|&&p| !caller_saved().any(|c| c == p))
        .count();
    let remat = spill::remat_costs(mf);
    let preds = mf.preds();
    // Per virtual register, the block and weight of each of its occurrences; and which
    // loops mention it, as (register, header).
    let mut mentions: Vec<Vec<(MBlockId, f64)>> = vec![Vec::new(); mf.vreg_classes.len()];
    let mut mentioned_in: FastHashSet<(usize, MBlockId)> = FastHashSet::default();
    for b in mf.block_ids() {
        let weight = spill_weight(mf.block(b));
        for inst in &mf.block(b).insts {
            inst.for_each_reg(|r, _| {
                if let Reg::Virt(v) = r {
                    let v = v.0 as usize;
                    mentions[v].push((b, weight));
                    mentioned_in.extend(nest.loops_of(b).map(|h| (v, h)));
                }
            });
        }
    }
    // The second peak counts the registers that the block's innermost loop mentions: those
    // competing for registers there, where the others pass through, unused, to be split or
    // spilled around it.
    let peaks = block_peaks(mf, class, &liveness, |x, b| {
        nest.loops_of(b)
            .next()
            .is_none_or(|h| mentioned_in.contains(&(x - PHYS_NODES, h)))
    });
    if peaks.iter().any(|p| p[0].anywhere > pressure::LIMIT) {
        // Pressure relief spills first.
        return Vec::new();
    }
    let mut splits = Vec::new();
    for h in nest.headers() {
        let in_loop = |b: MBlockId| nest.contains(h, b);
        let body: Vec<MBlockId> = mf.block_ids().filter(|&b| in_loop(b)).collect();
        let crowded = body
            .iter()
            .any(|b| peaks[b.index()][0].across_call > callee_saved);
        if !crowded {
            continue;
        }
        let entering: Vec<MBlockId> = preds[h.index()]
            .iter()
            .copied()
            .filter(|&p| !in_loop(p))
            .collect();
        let exits: Vec<(MBlockId, MBlockId)> = body
            .iter()
            .flat_map(|&b| mf.succs(b).iter().map(move |&s| (b, s)))
            .filter(|&(_, s)| !in_loop(s))
            .collect();
        let entry_weight: f64 = entering.iter().map(|&p| spill_weight(mf.block(p))).sum();
        let around =
            |b: MBlockId| !in_loop(b) && nest.parent(h).is_none_or(|p| nest.contains(p, b));
        for x in liveness.live_in(h).filter(|&x| x >= PHYS_NODES) {
            let v = x - PHYS_NODES;
            if remat[v].is_some() || mentioned_in.contains(&(v, h)) {
                continue;
            }
            let used_around: Vec<(MBlockId, f64)> = mentions[v]
                .iter()
                .copied()
                .filter(|&(b, _)| around(b))
                .collect();
            let weight: f64 = used_around.iter().map(|&(_, w)| w).sum();
            // Where the register is used, a call must leave it a callee-saved register, or
            // both halves end up in memory and the copies only move it from slot to slot.
            // A block merely crowded (more values than registers, no call) spills the
            // cheapest of them, and this one, used there, is not the cheapest.
            let roomy = used_around
                .iter()
                .all(|&(b, _)| peaks[b.index()][1].across_call < callee_saved);
            if weight <= 2.0 * entry_weight || !roomy {
                continue;
            }
            let reg = Reg::Virt(VReg(v as u32));
            let out_of: Option<Vec<Place>> = exits
                .iter()
                .filter(|&&(_, s)| liveness.live_in(s).any(|y| y == node(reg)))
                .map(|&(b, s)| {
                    if preds[s.index()].iter().all(|&p| in_loop(p)) {
                        Some(Place::Start(s))
                    } else if mf.succs(b) == [s] {
                        Some(Place::End(b))
                    } else {
                        None
                    }
                })
                .collect();
            let Some(mut out_of) = out_of else {
                continue;
            };
            // Several exits may share a target.
            let mut seen = Vec::new();
            out_of.retain(|&p| {
                let new = !seen.contains(&p);
                seen.push(p);
                new
            });
            splits.push(Split {
                reg,
                into: entering.iter().map(|&p| Place::End(p)).collect(),
                out_of,
            });
        }
    }
    splits
}
