//! Relief of extreme register pressure before graph colouring. Where more than `LIMIT`
//! virtual registers of a class are live at once, the interference graph grows with the
//! square of that number (2,000 values live across a loop make 14 million edges), though
//! the colourer ends up spilling nearly all of them. So when some block's peak pressure
//! exceeds the limit, every block whose peak exceeds `TARGET` names for spilling the
//! cheapest registers live at its peak (by the colourer's spill cost, ties to the lower
//! register), as many as its excess beyond those already named. Blocks go in decreasing
//! order of peak, so that in nested loops the innermost block chooses and the enclosing
//! ones find their excess already named. Spilling turns the named registers into
//! short-lived temporaries or recomputations, so the peaks fall; the allocator repeats
//! this until no peak exceeds the limit (or nothing more can be spilled), then colours.
//! Functions under the limit are left alone: in the shared test suites only the
//! integer-divide-optimization programs, which pass a thousand arguments, reach it.
//!
//! Pressure is measured where the colourer adds interference edges: at each instruction,
//! over the registers live after it together with those it defines, and at block entry.
//! A walk over a block keeps the live set as the block's live-out registers overlaid with
//! the registers the walk has changed, so that its cost is the block's length and its
//! live-out set, not the number of live registers at each point.

use super::liveness::{defs_uses, Liveness, PHYS_NODES};
use super::spill_weight;
use crate::mir::*;

/// The most virtual registers of a class the colourer is given live at once.
pub const LIMIT: usize = 256;

/// The pressure to which a function over the limit is relieved, everywhere.
pub const TARGET: usize = 64;

/// The live set at successive points of a backward walk over one block.
struct Walk<'a> {
    liveness: &'a Liveness,
    /// The live-out nodes of the block, ascending.
    out: Vec<usize>,
    /// Per node, the number of the last walk whose block has it live out.
    out_in: Vec<u32>,
    /// Per node, the number of the last walk that changed it, and whether it was live
    /// after that change.
    changed_in: Vec<u32>,
    live: Vec<bool>,
    /// The nodes this walk changed.
    changed: Vec<usize>,
    number: u32,
    /// Virtual registers live now.
    pressure: usize,
}

impl<'a> Walk<'a> {
    fn new(liveness: &'a Liveness, nodes: usize) -> Walk<'a> {
        Walk {
            liveness,
            out: Vec::new(),
            out_in: vec![0; nodes],
            changed_in: vec![0; nodes],
            live: vec![false; nodes],
            changed: Vec::new(),
            number: 0,
            pressure: 0,
        }
    }

    /// Starts at the end of block `b`.
    fn start(&mut self, mf: &MFunction, b: MBlockId) {
        self.number += 1;
        self.changed.clear();
        self.out = self.liveness.live_out(mf, b);
        for &x in &self.out {
            self.out_in[x] = self.number;
        }
        self.pressure = self.out.iter().filter(|&&x| x >= PHYS_NODES).count();
    }

    fn out_contains(&self, x: usize) -> bool {
        self.out_in[x] == self.number
    }

    fn is_live(&self, x: usize) -> bool {
        if self.changed_in[x] == self.number {
            self.live[x]
        } else {
            self.out_contains(x)
        }
    }

    fn set(&mut self, x: usize, live: bool) {
        if self.is_live(x) != live && x >= PHYS_NODES {
            if live {
                self.pressure += 1;
            } else {
                self.pressure -= 1;
            }
        }
        if self.changed_in[x] != self.number {
            self.changed_in[x] = self.number;
            self.changed.push(x);
        }
        self.live[x] = live;
    }

    /// Calls `f` on every live node.
    fn for_each_live(&self, mut f: impl FnMut(usize)) {
        for &x in &self.out {
            if self.changed_in[x] != self.number {
                f(x);
            }
        }
        for &x in &self.changed {
            if self.live[x] {
                f(x);
            }
        }
    }

    /// How many of the live nodes `named` holds.
    fn count_named(&self, named: &[bool]) -> usize {
        let mut count = self.out.iter().filter(|&&x| named[x]).count();
        for &x in &self.changed {
            if named[x] && self.out_contains(x) {
                count -= 1;
            }
            if named[x] && self.live[x] {
                count += 1;
            }
        }
        count
    }
}

/// Walks block `b` backwards, calling `weigh(node, weight)` on every register occurrence
/// and `at_point(walk, position)` at every measuring point: after instruction
/// `position`'s defs join the live set, and at the top with position `insts.len()`. Stops
/// when `at_point` says so.
fn walk_block(
    mf: &MFunction,
    class: RegClass,
    b: MBlockId,
    walk: &mut Walk,
    mut weigh: impl FnMut(usize, f64),
    mut at_point: impl FnMut(&Walk, usize) -> bool,
) {
    let block = mf.block(b);
    let weight = spill_weight(block);
    let (mut defs, mut uses) = (Vec::new(), Vec::new());
    walk.start(mf, b);
    for (position, inst) in block.insts.iter().enumerate().rev() {
        defs_uses(mf, inst, class, &mut defs, &mut uses);
        for &x in defs.iter().chain(&uses) {
            weigh(x, weight);
        }
        for &d in &defs {
            walk.set(d, true);
        }
        if !at_point(walk, position) {
            return;
        }
        for &d in &defs {
            walk.set(d, false);
        }
        for &u in &uses {
            walk.set(u, true);
        }
    }
    at_point(walk, block.insts.len());
}

/// The virtual registers of `class` to spill before colouring, ascending; none if no
/// block's peak pressure exceeds `LIMIT`. `unspillable` marks registers that spilling
/// created, which are never named.
pub fn relief(
    mf: &MFunction,
    class: RegClass,
    liveness: &Liveness,
    unspillable: &[bool],
) -> Vec<VReg> {
    let n = PHYS_NODES + mf.vreg_classes.len();
    let mut walk = Walk::new(liveness, n);
    let mut cost = vec![0.0f64; n];
    // (peak pressure, block, position of the peak) of each block over the target.
    let mut peaks = Vec::new();
    for b in mf.block_ids() {
        let mut peak = (0, 0);
        walk_block(
            mf,
            class,
            b,
            &mut walk,
            |x, w| cost[x] += w,
            |walk, position| {
                if walk.pressure > peak.0 {
                    peak = (walk.pressure, position);
                }
                true
            },
        );
        if peak.0 > TARGET {
            peaks.push((peak.0, b, peak.1));
        }
    }
    if peaks.iter().all(|&(pressure, ..)| pressure <= LIMIT) {
        return Vec::new();
    }
    peaks.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let spillable =
        |x: usize| x >= PHYS_NODES && !unspillable.get(x - PHYS_NODES).copied().unwrap_or(false);
    let mut named = vec![false; n];
    let mut candidates: Vec<usize> = Vec::new();
    for (pressure, b, peak) in peaks {
        candidates.clear();
        walk_block(
            mf,
            class,
            b,
            &mut walk,
            |_, _| {},
            |walk, position| {
                if position != peak {
                    return true;
                }
                let wanted = pressure - TARGET;
                let already = walk.count_named(&named);
                if already < wanted {
                    walk.for_each_live(|x| {
                        if spillable(x) && !named[x] {
                            candidates.push(x);
                        }
                    });
                    let cheaper =
                        |a: &usize, b: &usize| cost[*a].total_cmp(&cost[*b]).then(a.cmp(b));
                    let more = wanted - already;
                    if candidates.len() > more {
                        candidates.select_nth_unstable_by(more, cheaper);
                        candidates.truncate(more);
                    }
                }
                false
            },
        );
        for &x in &candidates {
            named[x] = true;
        }
    }
    (PHYS_NODES..n)
        .filter(|&x| named[x])
        .map(|x| VReg((x - PHYS_NODES) as u32))
        .collect()
}
