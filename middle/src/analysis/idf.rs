//! Iterated dominance frontiers, computed per variable with the priority-queue walk over
//! dominator-tree levels (Sreedhar and Gao; as in LLVM's `IDFCalculator`). Given the blocks
//! that define a variable, returns where phis are needed; restricted to blocks where the
//! variable is live on entry, so no dead phi is placed.
//!
//! One calculator serves every variable of a function. It knows for each block the
//! shallowest level that an edge leaving the block's dominator subtree reaches, so a walk
//! enters only subtrees holding a frontier edge of its root, and its marks are stamped per
//! query: a query costs what it visits, not the size of the function (deeply nested loops
//! would otherwise make the walks quadratic).

use super::graph::Node;
use super::{Cfg, DomTree};
use crate::ir::Block;
use std::collections::BinaryHeap;

pub struct IdfCalculator<'a, N: Node = Block> {
    cfg: &'a Cfg<N>,
    dom: &'a DomTree<N>,
    /// For each reachable block, the smallest dominator-tree level among the targets of the
    /// edges leaving blocks of its subtree.
    reach: Vec<u32>,
    /// `in_frontier[b] == stamp`: `b` was found in the frontier by the current query.
    in_frontier: Vec<u32>,
    /// `visited[b] == stamp`: the current query has walked `b`.
    visited: Vec<u32>,
    stamp: u32,
}

impl<'a, N: Node> IdfCalculator<'a, N> {
    pub fn new(cfg: &'a Cfg<N>, dom: &'a DomTree<N>) -> Self {
        let capacity = cfg.capacity();
        let mut reach = vec![u32::MAX; capacity];
        for &b in dom.preorder().iter().rev() {
            let edges = cfg.succs(b).iter().map(|&s| dom.level(s));
            let below = dom.children(b).iter().map(|&c| reach[c.index()]);
            reach[b.index()] = edges.chain(below).min().unwrap_or(u32::MAX);
        }
        IdfCalculator {
            cfg,
            dom,
            reach,
            in_frontier: vec![0; capacity],
            visited: vec![0; capacity],
            stamp: 0,
        }
    }

    /// Blocks of the iterated dominance frontier of `defs`, keeping only those for which
    /// `live_in` holds, in dominator-tree pre-order. `defs` must be reachable blocks.
    pub fn iterated_frontier(
        &mut self,
        defs: &[N],
        is_def: impl Fn(N) -> bool,
        mut live_in: impl FnMut(N) -> bool,
    ) -> Vec<N> {
        let (cfg, dom) = (self.cfg, self.dom);
        self.stamp += 1;
        let stamp = self.stamp;
        // Max-heap on (level, pre-order number): deepest blocks first.
        let mut queue: BinaryHeap<(u32, u32, N)> = defs
            .iter()
            .map(|&b| (dom.level(b), dom.preorder_number(b), b))
            .collect();
        let mut result = Vec::new();
        let mut worklist = Vec::new();
        while let Some((root_level, _, root)) = queue.pop() {
            worklist.push(root);
            self.visited[root.index()] = stamp;
            while let Some(node) = worklist.pop() {
                for &succ in cfg.succs(node) {
                    let level = dom.level(succ);
                    // Edges into the subtree below the root's level are not frontier edges
                    // of it.
                    if level > root_level || self.in_frontier[succ.index()] == stamp {
                        continue;
                    }
                    self.in_frontier[succ.index()] = stamp;
                    if !live_in(succ) {
                        continue;
                    }
                    result.push(succ);
                    if !is_def(succ) {
                        queue.push((level, dom.preorder_number(succ), succ));
                    }
                }
                for &child in dom.children(node) {
                    if self.visited[child.index()] != stamp
                        && self.reach[child.index()] <= root_level
                    {
                        self.visited[child.index()] = stamp;
                        worklist.push(child);
                    }
                }
            }
        }
        result.sort_by_key(|&b| dom.preorder_number(b));
        result
    }
}
