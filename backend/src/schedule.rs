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
//! Single-issue list scheduling: each cycle, of the instructions whose operands are ready,
//! the one with the longest latency-weighted path to the region's end goes first (ties:
//! the earlier in the original order); when none is ready, time moves on to the first
//! that will be. The instructions and registers are unchanged, so the allocation and the
//! instruction count are too.
//!
//! Needs: physical registers (after `regalloc`). Preserves: behaviour.

use crate::dependences::{regions, reorder, CopyPartners, DepGraph, Progress};
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
    let mut progress = Progress::new(&graph);
    // Ready by priority, and waiting for their operands by the cycle they may start.
    let mut ready: BinaryHeap<(u32, Reverse<u32>)> = BinaryHeap::new();
    let mut waiting: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new();
    for k in progress.roots() {
        ready.push((height[k], Reverse(k as u32)));
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
        progress.issue(&graph, k, cycle, |to, at| {
            waiting.push(Reverse((at, to as u32)))
        });
        cycle += 1;
    }
    order
}

#[cfg(test)]
#[path = "schedule_tests.rs"]
mod tests;
