//! schedule: list scheduling of each block after register allocation, with the Cortex-A72
//! result latencies of the cost model, so that what uses a load's or a multiply's result
//! sits as far after it as the block's other work allows.
//!
//! Instructions move only within a region of a block: the run between two calls (a call
//! reads and clobbers registers and memory the machine IR does not list) or before the
//! block's branches, which stay last (a region of more than `MAX_REGION` instructions is
//! scheduled in pieces). Within a region an instruction keeps its dependences
//! (`dependences`): registers both ways, the flags, and memory (loads may pass each other).
//!
//! List scheduling within the core's issue limits (the cost model's): in each cycle, of the
//! instructions whose operands are ready and whose pipeline has a free slot, the one with
//! the longest latency-weighted path to the region's end goes first (ties: the earlier in
//! the original order), up to three a cycle, two integer operations, one load, one store,
//! one multi-cycle operation (a divide holds it four cycles) and two VFP operations; when
//! none can start, time moves on. The instructions and registers are unchanged, so the
//! allocation and the instruction count are too.
//!
//! Needs: physical registers (after `regalloc`). Preserves: behaviour.

use crate::cost_model::CostClass;
use crate::dependences::{class, regions, reorder, CopyPartners, DepGraph, Progress, Slots};
use crate::mir::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The smallest region worth scheduling.
const MIN_REGION: usize = 3;
/// The largest region scheduled as one: a longer run of straight code is scheduled in
/// pieces of this many instructions, which keeps the time linear.
const MAX_REGION: usize = 256;

pub fn run(mf: &mut MFunction) {
    for block in &mut mf.blocks {
        for range in regions(&block.insts, MAX_REGION) {
            if range.len() >= MIN_REGION {
                let order = schedule(&block.insts[range.clone()]);
                reorder(&mut block.insts[range], &order);
            }
        }
    }
}

/// The order of a region's instructions, by their indices.
fn schedule(region: &[MInst]) -> Vec<usize> {
    let n = region.len();
    let graph = DepGraph::new(region, &[], &CopyPartners::default());
    let height = &graph.height;
    let classes: Vec<CostClass> = region.iter().map(|i| class(i, &[])).collect();
    let mut progress = Progress::new(&graph);
    let mut slots = Slots::default();
    // Ready by priority, and waiting for their operands by the cycle they may start.
    let mut ready: BinaryHeap<(u32, Reverse<u32>)> = BinaryHeap::new();
    let mut waiting: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new();
    for k in progress.roots() {
        ready.push((height[k], Reverse(k as u32)));
    }
    let mut order = Vec::with_capacity(n);
    let mut cycle = 0u32;
    let mut passed_over = Vec::new();
    while order.len() < n {
        while let Some(&Reverse((at, k))) = waiting.peek() {
            if at > cycle {
                break;
            }
            waiting.pop();
            ready.push((height[k as usize], Reverse(k)));
        }
        // The highest ready instruction whose pipeline has a slot this cycle.
        let mut picked = None;
        while let Some((h, Reverse(k))) = ready.pop() {
            if slots.fits(classes[k as usize], cycle) {
                picked = Some(k as usize);
                break;
            }
            passed_over.push((h, Reverse(k)));
        }
        ready.extend(passed_over.drain(..));
        let Some(k) = picked else {
            // Nothing can start now: the next cycle, or when the next operands are ready.
            let next = waiting.peek().map_or(cycle + 1, |&Reverse((at, _))| at);
            cycle = if ready.is_empty() {
                next.max(cycle + 1)
            } else {
                cycle + 1
            };
            continue;
        };
        order.push(k);
        progress.issue(&graph, k, cycle, |to, at| {
            waiting.push(Reverse((at, to as u32)))
        });
        if slots.take(classes[k], cycle) {
            cycle += 1;
        }
    }
    order
}

#[cfg(test)]
#[path = "schedule_tests.rs"]
mod tests;
