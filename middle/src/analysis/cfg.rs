//! The control-flow graph of a function (of the IR, or of machine IR through the same
//! `Graph` trait): predecessors, successors and a reverse post-order of the nodes reachable
//! from the entry.

use super::adjacency::Adjacency;
use super::graph::{Graph, Node};
use crate::ir::Block;

#[derive(Clone, Debug, PartialEq)]
pub struct Cfg<N = Block> {
    /// Each node's predecessors, in the order of `Graph::nodes`.
    preds: Adjacency<N>,
    /// Each node's successors, each once, in the graph's order.
    succs: Adjacency<N>,
    /// Reachable nodes in reverse post-order (the entry first).
    rpo: Vec<N>,
    /// Position of each node in `rpo`, `u32::MAX` when unreachable.
    rpo_index: Vec<u32>,
}

impl<N: Node> Cfg<N> {
    pub fn new<G: Graph<Node = N>>(g: &G) -> Cfg<N> {
        let n = g.capacity();
        let mut edges = Vec::new();
        for b in g.nodes() {
            let targets = g.successors(b);
            for (k, &s) in targets.iter().enumerate() {
                if !targets[..k].contains(&s) {
                    edges.push((b, s));
                }
            }
        }
        let mut cfg = Cfg {
            preds: Adjacency::from_pairs(n, edges.iter().map(|&(b, s)| (s, b))),
            succs: Adjacency::from_pairs(n, edges.iter().copied()),
            rpo: Vec::new(),
            rpo_index: vec![u32::MAX; n],
        };
        if let Some(entry) = g.entry() {
            cfg.compute_rpo(entry, n);
        }
        cfg
    }

    /// Iterative depth-first search; post-order reversed.
    fn compute_rpo(&mut self, entry: N, n: usize) {
        let mut visited = vec![false; n];
        let mut post = Vec::new();
        let mut stack: Vec<(N, usize)> = vec![(entry, 0)];
        visited[entry.index()] = true;
        while let Some((b, next)) = stack.last_mut() {
            let b = *b;
            if let Some(&s) = self.succs.get(b).get(*next) {
                *next += 1;
                if !visited[s.index()] {
                    visited[s.index()] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        for (i, b) in post.iter().enumerate() {
            self.rpo_index[b.index()] = i as u32;
        }
        self.rpo = post;
    }

    /// One more than the largest node index.
    pub fn capacity(&self) -> usize {
        self.rpo_index.len()
    }

    pub fn preds(&self, b: N) -> &[N] {
        self.preds.get(b)
    }

    pub fn succs(&self, b: N) -> &[N] {
        self.succs.get(b)
    }

    /// Reachable nodes, entry first, every node before its successors except along back
    /// edges.
    pub fn rpo(&self) -> &[N] {
        &self.rpo
    }

    pub fn rpo_index(&self, b: N) -> Option<usize> {
        let i = self.rpo_index[b.index()];
        (i != u32::MAX).then_some(i as usize)
    }

    pub fn is_reachable(&self, b: N) -> bool {
        self.rpo_index[b.index()] != u32::MAX
    }
}
