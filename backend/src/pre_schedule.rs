//! pre-schedule: list scheduling of each block before register allocation, over virtual
//! registers, with the Cortex-A72 latencies of the cost model, watching register pressure:
//! loads, multiplies and VFP work start early, away from their uses, while the registers
//! live at once stay within what the allocator has.
//!
//! Regions and dependences are those of the scheduler after allocation (`dependences`: the
//! runs between calls and branches, at most `MAX_REGION` instructions, keeping every
//! dependence on registers, flags and memory), plus one for copies: a definition stays
//! after the readers of the registers it is copied to or from anywhere in the function, so
//! no two registers a copy joins come to interfere and the allocator coalesces as before.
//!
//! Top-down, so that the heights of the latency-weighted paths order the work as the
//! scheduler after allocation does, and the pressure follows from what has been issued:
//! a register is live from its definition (or the region's start) until its last reader
//! in the region has issued, or to the region's end when it is live there. Liveness gives
//! the registers live after each region; registers live across it untouched count
//! throughout. Pressure is counted per class (core, VFP, NEON) over virtual registers and
//! the allocatable physical ones, at each instruction over the registers live after it
//! with those it defines, where the graph colourer adds its interference edges.
//!
//! Each class has a bound: the allocator's register count less `RESERVE`, or the peak of
//! the original order if that is higher. An instruction that would take a class beyond its
//! bound is never picked; while every class stays more than `NEAR` below its bound, the
//! instruction that can start soonest goes first (ties: the longest path, then the earlier
//! in the original order), and beyond that the one that most lowers the pressure of the
//! crowded classes does. So the schedule never exceeds a pressure the allocator cannot
//! hold where the original order did not, and a region whose original order is already
//! near the bound keeps close to it. When every candidate would exceed a bound, the
//! region keeps its original order. (A compare with zero that the new order moves away
//! from the operation computing its register, which `zero-compares` would have folded,
//! is caught only by the trial allocation below, which runs `zero-compares` too.)
//!
//! The graph colourer's result reacts to any change of order in ways no pressure count
//! foresees (other colours, other coalesced copies, in blocks the scheduler did not touch),
//! so a function keeps its new order only if, allocated and cleaned up as the pipeline
//! does after allocation, it costs nowhere more than the original order allocated the
//! same way: by the cost model's issue cycles with each block's taken 10^loop depth times, by
//! instructions (recursion has no depth), and by callee-saved registers. Functions of more
//! than `MAX_FUNCTION` instructions, whose two trial allocations would cost too much
//! compile time, are not scheduled.
//!
//! Needs: virtual registers (after `isel`, before `regalloc`). Preserves: behaviour,
//! blocks and successors; each block's instructions are the same, reordered.

use crate::dependences::{class, regions, reorder, CopyPartners, DepGraph, Progress};
use crate::mir::*;
use crate::passes::allocate_and_clean_up;
use crate::regalloc::allocatable;
use crate::regalloc::liveness::{node, Liveness, PHYS_NODES};
use std::cmp::Reverse;

/// The smallest region worth scheduling.
const MIN_REGION: usize = 3;
/// The largest region scheduled as one, which keeps the time linear.
const MAX_REGION: usize = 256;
/// Registers of each class the scheduler leaves to the allocator's own needs.
const RESERVE: usize = 2;
/// How far below its bound a class's pressure counts as crowded.
const NEAR: usize = 2;
/// The most instructions of a function scheduled: a larger one is left as it is, since
/// each function is allocated twice more to judge its new order.
const MAX_FUNCTION: usize = 20_000;

pub fn run(mf: &mut MFunction, opt_level: u8) {
    let size: usize = mf.blocks.iter().map(|b| b.insts.len()).sum();
    if size > MAX_FUNCTION {
        return;
    }
    let mut scheduled = mf.clone();
    if schedule_function(&mut scheduled)
        && allocated_cost(&scheduled, opt_level).within(&allocated_cost(mf, opt_level))
    {
        *mf = scheduled;
    }
}

/// Schedules every block of `mf`; returns whether any instruction moved.
fn schedule_function(mf: &mut MFunction) -> bool {
    let context = Context::new(mf);
    let mut live = LiveSet::new(context.counted.len());
    let mut changed = false;
    for b in mf.block_ids() {
        let live_out: Vec<usize> = context
            .liveness
            .iter()
            .flat_map(|l| l.live_out(mf, b))
            .collect();
        live.reset(&live_out, &context.counted);
        changed |= schedule_block(&mut mf.blocks[b.index()].insts, &context, &mut live);
    }
    changed
}

/// What a function costs once allocated and cleaned up as the pipeline does.
struct Cost {
    /// Its instructions by the cost model's issue cycles, each block's times 10^loop depth (the
    /// depth capped at 6).
    weighted: u64,
    /// Its instructions, as a stand-in for recursion, which loop depths do not see.
    instructions: usize,
    /// The callee-saved registers its prologue saves.
    saved: usize,
}

impl Cost {
    /// Whether this cost is nowhere above `other`'s.
    fn within(&self, other: &Cost) -> bool {
        self.weighted <= other.weighted
            && self.instructions <= other.instructions
            && self.saved <= other.saved
    }
}

fn allocated_cost(mf: &MFunction, opt_level: u8) -> Cost {
    let mut trial = mf.clone();
    allocate_and_clean_up(&mut trial, opt_level);
    let mut cost = Cost {
        weighted: 0,
        instructions: 0,
        saved: 0,
    };
    let mut saved = [false; PHYS_NODES];
    for block in &trial.blocks {
        let times = 10u64.pow(block.loop_depth.min(6));
        cost.instructions += block.insts.len();
        for inst in &block.insts {
            cost.weighted += u64::from(class(inst, &[]).issue()) * times;
            inst.for_each_reg(|r, role| {
                if let (Reg::Phys(p), true) = (r, role != Role::Use) {
                    saved[p.0 as usize] |= !caller_saved().any(|c| c == p);
                }
            });
        }
    }
    cost.saved = saved.iter().filter(|&&s| s).count();
    cost
}

/// What the blocks of a function are scheduled with.
struct Context {
    vreg_classes: Vec<RegClass>,
    partners: CopyPartners,
    liveness: [Liveness; CLASSES],
    /// Per register node, the class (`RegClass::index`) whose pressure it counts in, if any.
    counted: Vec<Option<usize>>,
    /// Per class, the registers the allocator has.
    registers: [usize; CLASSES],
}

/// How many register classes there are.
const CLASSES: usize = RegClass::ALL.len();

impl Context {
    fn new(mf: &MFunction) -> Context {
        let mut counted = vec![None; PHYS_NODES + mf.vreg_classes.len()];
        for (c, class) in RegClass::ALL.into_iter().enumerate() {
            for p in allocatable(class) {
                counted[node(Reg::Phys(p))] = Some(c);
            }
        }
        for (v, &class) in mf.vreg_classes.iter().enumerate() {
            counted[PHYS_NODES + v] = Some(class.index());
        }
        Context {
            vreg_classes: mf.vreg_classes.clone(),
            partners: CopyPartners::new(mf),
            liveness: RegClass::ALL.map(|class| Liveness::new(mf, class)),
            counted,
            registers: RegClass::ALL.map(|class| allocatable(class).len()),
        }
    }
}

/// The registers live at a point of a backward walk over a block, with their pressure.
struct LiveSet {
    live: Vec<bool>,
    /// The nodes made live since the last reset.
    touched: Vec<usize>,
    count: [usize; CLASSES],
}

impl LiveSet {
    fn new(nodes: usize) -> LiveSet {
        LiveSet {
            live: vec![false; nodes],
            touched: Vec::new(),
            count: [0; CLASSES],
        }
    }

    /// Starts over with `nodes` live.
    fn reset(&mut self, nodes: &[usize], counted: &[Option<usize>]) {
        for x in self.touched.drain(..) {
            self.live[x] = false;
        }
        self.count = [0; CLASSES];
        for &x in nodes {
            self.set(x, true, counted);
        }
    }

    fn set(&mut self, x: usize, live: bool, counted: &[Option<usize>]) {
        if self.live[x] == live {
            return;
        }
        self.live[x] = live;
        if live {
            self.touched.push(x);
        }
        if let Some(c) = counted[x] {
            if live {
                self.count[c] += 1;
            } else {
                self.count[c] -= 1;
            }
        }
    }

    /// Moves the point from after `inst` to before it.
    fn step_back(&mut self, inst: &MInst, counted: &[Option<usize>]) {
        inst.for_each_reg(|r, role| {
            if role != Role::Use {
                self.set(node(r), false, counted);
            }
        });
        if inst.is_call() {
            for p in caller_saved() {
                self.set(node(Reg::Phys(p)), false, counted);
            }
        }
        inst.for_each_reg(|r, role| {
            if role != Role::Def {
                self.set(node(r), true, counted);
            }
        });
    }
}

/// Schedules a block's regions, last first, `live` holding the registers live at the
/// block's end; returns whether any instruction moved.
fn schedule_block(insts: &mut [MInst], context: &Context, live: &mut LiveSet) -> bool {
    let mut changed = false;
    let mut position = insts.len();
    for range in regions(insts, MAX_REGION).into_iter().rev() {
        for inst in insts[range.end..position].iter().rev() {
            live.step_back(inst, &context.counted);
        }
        if range.len() >= MIN_REGION {
            if let Some(order) = schedule(&insts[range.clone()], live, context) {
                reorder(&mut insts[range.clone()], &order);
                changed = true;
            }
        }
        for inst in insts[range.clone()].iter().rev() {
            live.step_back(inst, &context.counted);
        }
        position = range.start;
    }
    changed
}

/// The live ranges of a region's registers, one per definition (and one per register read
/// before any definition), as the pressure of an order is counted.
struct Model {
    /// Per live range: its class, its readers, whether it is live after the region.
    class: Vec<usize>,
    readers: Vec<u32>,
    live_out: Vec<bool>,
    /// Per instruction, the live ranges it reads and those it starts.
    reads: Vec<Vec<u32>>,
    starts: Vec<Vec<u32>>,
    /// Per class, the pressure at the region's start.
    entry: [usize; CLASSES],
}

impl Model {
    fn new(region: &[MInst], live: &LiveSet, counted: &[Option<usize>]) -> Model {
        let mut regs: Vec<usize> = Vec::new();
        for inst in region {
            inst.for_each_reg(|r, _| {
                if counted[node(r)].is_some() {
                    regs.push(node(r));
                }
            });
        }
        regs.sort_unstable();
        regs.dedup();
        let mut model = Model {
            class: Vec::new(),
            readers: Vec::new(),
            live_out: Vec::new(),
            reads: Vec::with_capacity(region.len()),
            starts: Vec::with_capacity(region.len()),
            entry: live.count,
        };
        // Per register of `regs`, its current live range.
        let mut current: Vec<Option<u32>> = vec![None; regs.len()];
        let index = |r: Reg| regs.binary_search(&node(r)).ok();
        for inst in region {
            let mut reads = Vec::new();
            inst.for_each_reg(|r, role| {
                let Some(k) = index(r).filter(|_| role != Role::Def) else {
                    return;
                };
                let range = *current[k].get_or_insert_with(|| model.open(regs[k], counted, 1));
                if !reads.contains(&range) {
                    reads.push(range);
                    model.readers[range as usize] += 1;
                }
            });
            let mut starts = Vec::new();
            inst.for_each_reg(|r, role| {
                if let Some(k) = index(r).filter(|_| role != Role::Use) {
                    let range = model.open(regs[k], counted, 0);
                    current[k] = Some(range);
                    starts.push(range);
                }
            });
            model.reads.push(reads);
            model.starts.push(starts);
        }
        // A register the region touches is live at its start only through its first
        // live range, counted when opened, not as a register live across the region.
        for (k, &x) in regs.iter().enumerate() {
            if let (true, Some(range)) = (live.live[x], current[k]) {
                model.live_out[range as usize] = true;
                model.entry[model.class[range as usize]] -= 1;
            }
        }
        model
    }

    /// A new live range of node `x`; `at_entry` is 1 for one live at the region's start.
    fn open(&mut self, x: usize, counted: &[Option<usize>], at_entry: usize) -> u32 {
        let c = counted[x].unwrap_or_default();
        self.class.push(c);
        self.readers.push(0);
        self.live_out.push(false);
        self.entry[c] += at_entry;
        (self.class.len() - 1) as u32
    }

    /// The pressure before the first instruction of a region issues.
    fn start(&self) -> State {
        State {
            remaining: self.readers.clone(),
            live: self.entry,
        }
    }

    /// The highest pressure of each class at an instruction when the region runs in
    /// `order`.
    fn peak(&self, order: impl Iterator<Item = usize>) -> [usize; CLASSES] {
        let mut state = self.start();
        let mut peak = [0; CLASSES];
        for k in order {
            let (at, _) = state.effect(self, k);
            peak = std::array::from_fn(|c| peak[c].max(at[c]));
            state.issue(self, k);
        }
        peak
    }
}

/// The pressure of a partly issued region.
struct State {
    /// Per live range, its readers not yet issued.
    remaining: Vec<u32>,
    live: [usize; CLASSES],
}

impl State {
    /// The pressure at instruction `k` if it issued now, and after it.
    fn effect(&self, model: &Model, k: usize) -> ([usize; CLASSES], [usize; CLASSES]) {
        let mut at = self.live;
        for &range in &model.reads[k] {
            let range = range as usize;
            if self.remaining[range] == 1 && !model.live_out[range] {
                at[model.class[range]] -= 1;
            }
        }
        let mut after = at;
        for &range in &model.starts[k] {
            let range = range as usize;
            at[model.class[range]] += 1;
            if model.readers[range] > 0 || model.live_out[range] {
                after[model.class[range]] += 1;
            }
        }
        (at, after)
    }

    fn issue(&mut self, model: &Model, k: usize) {
        self.live = self.effect(model, k).1;
        for &range in &model.reads[k] {
            self.remaining[range as usize] -= 1;
        }
    }
}

/// A new order for a region (indices of its instructions), or none if it keeps its own:
/// every candidate would exceed a bound, or the list scheduler found the same order.
fn schedule(region: &[MInst], live: &LiveSet, context: &Context) -> Option<Vec<usize>> {
    let n = region.len();
    let model = Model::new(region, live, &context.counted);
    let original = model.peak(0..n);
    let bound: [usize; CLASSES] =
        std::array::from_fn(|c| original[c].max(context.registers[c].saturating_sub(RESERVE)));
    let graph = DepGraph::new(region, &context.vreg_classes, &context.partners);
    let mut progress = Progress::new(&graph);
    let mut available: Vec<usize> = progress.roots().collect();
    let mut state = model.start();
    let mut order = Vec::with_capacity(n);
    let mut cycle = 0u32;
    while !available.is_empty() {
        let pick = choose(
            &available,
            &graph,
            &model,
            &state,
            &progress.earliest,
            cycle,
            bound,
        )?;
        let k = available.swap_remove(pick);
        cycle = cycle.max(progress.earliest[k]);
        state.issue(&model, k);
        order.push(k);
        progress.issue(&graph, k, cycle, |to, _| available.push(to));
        cycle += 1;
    }
    let unchanged = order.iter().enumerate().all(|(i, &k)| i == k);
    (!unchanged).then_some(order)
}

/// What orders the candidates, least first: the change in crowded classes' pressure, the
/// cycle the instruction can start, its height (reversed) and its original position.
type Priority = (i64, u32, Reverse<u32>, usize);

/// The position in `available` of the instruction to issue next, if any stays within the
/// bounds.
fn choose(
    available: &[usize],
    graph: &DepGraph,
    model: &Model,
    state: &State,
    earliest: &[u32],
    cycle: u32,
    bound: [usize; CLASSES],
) -> Option<usize> {
    let mut best: Option<(usize, Priority)> = None;
    for (position, &k) in available.iter().enumerate() {
        let (at, after) = state.effect(model, k);
        if (0..CLASSES).any(|c| at[c] > bound[c]) {
            continue;
        }
        let crowding: i64 = (0..CLASSES)
            .filter(|&c| after[c] + NEAR > bound[c])
            .map(|c| after[c] as i64 - state.live[c] as i64)
            .sum();
        let key = (
            crowding,
            earliest[k].max(cycle),
            Reverse(graph.height[k]),
            k,
        );
        if best.as_ref().is_none_or(|(_, b)| key < *b) {
            best = Some((position, key));
        }
    }
    best.map(|(position, _)| position)
}

#[cfg(test)]
#[path = "pre_schedule_tests.rs"]
mod tests;
