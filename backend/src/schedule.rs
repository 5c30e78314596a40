//! schedule: list scheduling of each block after register allocation, with the Cortex-A72
//! result latencies of the cost model, so that what uses a load's or a multiply's result
//! sits as far after it as the block's other work allows.
//!
//! Instructions move only within a region of a block: the run between two calls (a call
//! reads and clobbers registers and memory the machine IR does not list) or before the
//! block's branches, which stay last (a region of more than `MAX_REGION` instructions is
//! scheduled in pieces). Within a region an instruction stays after
//! - the last instruction defining a register it reads (by that instruction's latency),
//!   and after the last reader and writer of a register it defines;
//! - for the flags, likewise: compares define them, predicated instructions read them;
//! - for memory, the last store before it, and a store after every load and store before
//!   it (loads may pass each other).
//!
//! Single-issue list scheduling: each cycle, of the instructions whose operands are ready,
//! the one with the longest latency-weighted path to the region's end goes first (ties:
//! the earlier in the original order); when none is ready, time moves on to the first
//! that will be. The instructions and registers are unchanged, so the allocation and the
//! instruction count are too.
//!
//! Needs: physical registers (after `regalloc`). Preserves: behaviour.

use crate::mir::*;
use middle::cost_model::CostClass;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The smallest region worth scheduling.
const MIN_REGION: usize = 3;
/// The largest region scheduled as one: a longer run of straight code is scheduled in
/// pieces of this many instructions, which keeps the time linear.
const MAX_REGION: usize = 256;

pub fn run(mf: &mut MFunction) {
    for block in &mut mf.blocks {
        let mut out = Vec::with_capacity(block.insts.len());
        let mut region = Vec::new();
        for inst in std::mem::take(&mut block.insts) {
            if inst.is_call() || inst.is_terminator() {
                out.extend(schedule(std::mem::take(&mut region)));
                out.push(inst);
            } else {
                region.push(inst);
                if region.len() == MAX_REGION {
                    out.extend(schedule(std::mem::take(&mut region)));
                }
            }
        }
        out.extend(schedule(region));
        block.insts = out;
    }
}

/// The class of an instruction for its latency.
fn class(inst: &MInst) -> CostClass {
    match inst {
        MInst::Mul { .. } | MInst::Smmul { .. } | MInst::Mla { .. } | MInst::Mls { .. } => {
            CostClass::Multiply
        }
        MInst::SDiv { .. } => CostClass::Divide,
        MInst::Ldr { .. } | MInst::Ldm { .. } => CostClass::Load,
        MInst::Str { .. } | MInst::Stm { .. } => CostClass::Store,
        MInst::VLdr { .. } | MInst::VLdm { .. } => CostClass::VfpLoad,
        MInst::VStr { .. } | MInst::VStm { .. } => CostClass::VfpStore,
        MInst::VBin { op: VOp::Div, .. } => CostClass::VfpDivide,
        MInst::VBin { .. } | MInst::VNeg { .. } => CostClass::VfpArith,
        MInst::VCvtToFloat { .. } | MInst::VCvtToInt { .. } => CostClass::VfpConvert,
        MInst::VMovFromCore { .. }
        | MInst::VMovToCore { .. }
        | MInst::VCmp { .. }
        | MInst::VToDoubleCore { .. } => CostClass::Transfer,
        MInst::Copy {
            dst: Reg::Phys(p), ..
        } if p.class() == RegClass::Float => CostClass::VfpArith,
        _ => CostClass::Alu,
    }
}

/// What the dependences of a region are built from: for each register (and the flags),
/// its last writer and its readers since; for memory, the last store and the loads since.
#[derive(Default)]
struct Tracker {
    last_def: Vec<Option<u32>>,
    uses_since: Vec<Vec<u32>>,
    last_store: Option<u32>,
    loads_since: Vec<u32>,
}

impl Tracker {
    fn slot(&mut self, key: usize) -> usize {
        if self.last_def.len() <= key {
            self.last_def.resize(key + 1, None);
            self.uses_since.resize_with(key + 1, Vec::new);
        }
        key
    }
}

/// The key of the flags among the registers' keys.
const FLAGS: usize = 0;

fn key(r: Reg) -> usize {
    match r {
        Reg::Phys(p) => 1 + p.0 as usize,
        Reg::Virt(v) => 1 + 256 + v.0 as usize,
    }
}

fn schedule(region: Vec<MInst>) -> Vec<MInst> {
    let n = region.len();
    if n < MIN_REGION {
        return region;
    }
    let latency: Vec<u32> = region.iter().map(|i| class(i).latency()).collect();
    // Edges (from, to, delay), from < to, in the order of `to`.
    let mut edges: Vec<(u32, u32, u32)> = Vec::new();
    let mut t = Tracker::default();
    for (index, inst) in region.iter().enumerate() {
        let i = index as u32;
        let read = |t: &mut Tracker, k: usize, edges: &mut Vec<(u32, u32, u32)>| {
            let k = t.slot(k);
            if let Some(d) = t.last_def[k] {
                edges.push((d, i, latency[d as usize]));
            }
            t.uses_since[k].push(i);
        };
        let write = |t: &mut Tracker, k: usize, edges: &mut Vec<(u32, u32, u32)>| {
            let k = t.slot(k);
            if let Some(d) = t.last_def[k] {
                edges.push((d, i, 0));
            }
            for u in t.uses_since[k].drain(..) {
                if u != i {
                    edges.push((u, i, 0));
                }
            }
            t.last_def[k] = Some(i);
        };
        if inst.flags_read().is_some() {
            read(&mut t, FLAGS, &mut edges);
        }
        inst.for_each_reg(|r, role| {
            if role != Role::Def {
                read(&mut t, key(r), &mut edges);
            }
        });
        inst.for_each_reg(|r, role| {
            if role != Role::Use {
                write(&mut t, key(r), &mut edges);
            }
        });
        if inst.sets_flags() {
            write(&mut t, FLAGS, &mut edges);
        }
        match inst {
            MInst::Ldr { .. } | MInst::VLdr { .. } | MInst::Ldm { .. } | MInst::VLdm { .. } => {
                if let Some(s) = t.last_store {
                    edges.push((s, i, 0));
                }
                t.loads_since.push(i);
            }
            MInst::Str { .. } | MInst::VStr { .. } | MInst::Stm { .. } | MInst::VStm { .. } => {
                if let Some(s) = t.last_store {
                    edges.push((s, i, 0));
                }
                for l in t.loads_since.drain(..) {
                    edges.push((l, i, 0));
                }
                t.last_store = Some(i);
            }
            _ => {}
        }
    }
    // Successor lists (grouped by source, a counting sort) and predecessor counts.
    let mut first = vec![0usize; n + 1];
    let mut preds = vec![0u32; n];
    for &(from, to, _) in &edges {
        first[from as usize + 1] += 1;
        preds[to as usize] += 1;
    }
    for k in 0..n {
        first[k + 1] += first[k];
    }
    let mut next = first.clone();
    let mut grouped = vec![(0, 0); edges.len()];
    for &(from, to, delay) in &edges {
        grouped[next[from as usize]] = (to, delay);
        next[from as usize] += 1;
    }
    let succs = |k: usize| &grouped[first[k]..first[k + 1]];
    // The longest latency-weighted path from each instruction to the region's end.
    let mut height = vec![0u32; n];
    for k in (0..n).rev() {
        height[k] = succs(k)
            .iter()
            .map(|&(to, delay)| delay.max(1) + height[to as usize])
            .max()
            .unwrap_or(latency[k]);
    }
    let mut earliest = vec![0u32; n];
    // Ready by priority, and waiting for their operands by the cycle they may start.
    let mut ready: BinaryHeap<(u32, Reverse<u32>)> = BinaryHeap::new();
    let mut waiting: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new();
    for k in 0..n {
        if preds[k] == 0 {
            ready.push((height[k], Reverse(k as u32)));
        }
    }
    let mut order = Vec::with_capacity(n);
    let mut cycle = 0u32;
    while order.len() < n {
        while let Some(&Reverse((at, k))) = waiting.peek() {
            if at > cycle && !ready.is_empty() {
                break;
            }
            waiting.pop();
            cycle = cycle.max(at);
            ready.push((height[k as usize], Reverse(k)));
        }
        let (_, Reverse(k)) = ready
            .pop()
            .expect("an acyclic region has a ready instruction");
        let k = k as usize;
        order.push(k);
        for &(to, delay) in succs(k) {
            let to = to as usize;
            earliest[to] = earliest[to].max(cycle + delay);
            preds[to] -= 1;
            if preds[to] == 0 {
                waiting.push(Reverse((earliest[to], to as u32)));
            }
        }
        cycle += 1;
    }
    let mut slots: Vec<Option<MInst>> = region.into_iter().map(Some).collect();
    order
        .into_iter()
        .map(|k| slots[k].take().expect("scheduled once"))
        .collect()
}

#[cfg(test)]
#[path = "schedule_tests.rs"]
mod tests;
