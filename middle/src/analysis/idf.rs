//! Iterated dominance frontiers, computed per variable with the priority-queue walk over
//! dominator-tree levels (Sreedhar and Gao; as in LLVM's `IDFCalculator`). Given the blocks
//! that define a variable, returns where phis are needed; restricted to blocks where the
//! variable is live on entry, so no dead phi is placed.

use super::{Cfg, DomTree};
use crate::ir::Block;
use std::collections::BinaryHeap;

/// Blocks of the iterated dominance frontier of `defs`, keeping only those for which
/// `live_in` holds, in dominator-tree pre-order. `defs` must be reachable blocks.
pub fn iterated_frontier(
    cfg: &Cfg,
    dom: &DomTree,
    defs: &[Block],
    is_def: impl Fn(Block) -> bool,
    live_in: impl Fn(Block) -> bool,
    capacity: usize,
) -> Vec<Block> {
    // Max-heap on (level, pre-order number): deepest blocks first.
    let mut queue: BinaryHeap<(u32, u32, Block)> = defs
        .iter()
        .map(|&b| (dom.level(b), dom.preorder_number(b), b))
        .collect();
    let mut in_frontier = vec![false; capacity];
    let mut visited = vec![false; capacity];
    let mut result = Vec::new();
    let mut worklist = Vec::new();
    while let Some((root_level, _, root)) = queue.pop() {
        worklist.push(root);
        visited[root.index()] = true;
        while let Some(node) = worklist.pop() {
            for &succ in cfg.succs(node) {
                let level = dom.level(succ);
                // Edges into the subtree below the root's level are not frontier edges of it.
                if level > root_level || in_frontier[succ.index()] {
                    continue;
                }
                in_frontier[succ.index()] = true;
                if !live_in(succ) {
                    continue;
                }
                result.push(succ);
                if !is_def(succ) {
                    queue.push((level, dom.preorder_number(succ), succ));
                }
            }
            for &child in dom.children(node) {
                if !visited[child.index()] {
                    visited[child.index()] = true;
                    worklist.push(child);
                }
            }
        }
    }
    result.sort_by_key(|&b| dom.preorder_number(b));
    result
}
