//! The memory accesses of each loop, for the passes that move memory operations out of
//! loops or keep them in registers across one (`licm`, `scalar-promotion`): its loads,
//! stores and calls, its inner loops' included; and, for one loop, what may write memory
//! while it runs. Inner loops come after the loops around
//! them in the loop forest, so going backwards each loop takes its children's finished
//! lists and every block is scanned once. A loop with more accesses than the caller's
//! bound gets no list: checking each candidate against every access would cost their
//! product, and so does a loop with vector loads or stores, which those passes leave alone.

use crate::analysis::alias::{locate, vector_location, Location};
use crate::analysis::LoopInfo;
use crate::ir::{Function, Inst, InstKind};

/// For each loop, its loads, stores and calls and its inner loops' (own blocks first, then
/// the children in order), or `None` past `max`.
pub fn loop_accesses(f: &Function, loops: &LoopInfo, max: usize) -> Vec<Option<Vec<Inst>>> {
    let mut lists: Vec<Option<Vec<Inst>>> = vec![None; loops.loops.len()];
    for k in (0..loops.loops.len()).rev() {
        let blocks = &loops.loops[k].blocks;
        let own = || blocks.iter().flat_map(|&b| f.block_insts(b));
        let vectors =
            own().any(|i| matches!(f.kind(i), InstKind::VLoad { .. } | InstKind::VStore { .. }));
        let mut list: Option<Vec<Inst>> = (!vectors).then(|| {
            own()
                .filter(|&i| {
                    matches!(
                        f.kind(i),
                        InstKind::Load { .. } | InstKind::Store { .. } | InstKind::Call { .. }
                    )
                })
                .take(max + 1)
                .collect()
        });
        for &c in &loops.loops[k].children {
            list = match (list, &lists[c]) {
                (Some(mut l), Some(inner)) => {
                    l.extend_from_slice(inner);
                    Some(l)
                }
                _ => None,
            };
        }
        lists[k] = list.filter(|l| l.len() <= max);
    }
    lists
}

/// The stores of loop `k`, inner loops included, with where they write, and its calls: what
/// may change memory while it runs (`predictive-commoning`, `loop-load-pre`).
pub fn loop_writers(
    f: &Function,
    loops: &LoopInfo,
    k: usize,
) -> (Vec<(Inst, Location)>, Vec<Inst>) {
    let mut stores = Vec::new();
    let mut calls = Vec::new();
    for &b in loops.blocks_of(k) {
        for i in f.block_insts(b) {
            match *f.kind(i) {
                InstKind::Store { args: [_, addr] } => stores.push((i, locate(f, addr))),
                InstKind::VStore { args: [_, addr] } => stores.push((i, vector_location(f, addr))),
                InstKind::Call { .. } => calls.push(i),
                _ => {}
            }
        }
    }
    (stores, calls)
}
