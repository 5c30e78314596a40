//! The control-flow graph of a function: predecessors, successors and a reverse post-order
//! of the blocks reachable from the entry.

use super::adjacency::Adjacency;
use crate::ir::{Block, Function};

#[derive(Clone, Debug, PartialEq)]
pub struct Cfg {
    /// Each block's predecessors, in layout order.
    preds: Adjacency,
    /// Each block's successors, each once, in the terminator's order.
    succs: Adjacency,
    /// Reachable blocks in reverse post-order (the entry first).
    rpo: Vec<Block>,
    /// Position of each block in `rpo`, `u32::MAX` when unreachable.
    rpo_index: Vec<u32>,
}

impl Cfg {
    pub fn new(f: &Function) -> Cfg {
        let n = f.block_capacity();
        let mut edges = Vec::new();
        for b in f.blocks() {
            let targets = f.successors(b);
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
        if let Some(entry) = f.entry() {
            cfg.compute_rpo(entry, n);
        }
        cfg
    }

    /// Iterative depth-first search; post-order reversed.
    fn compute_rpo(&mut self, entry: Block, n: usize) {
        let mut visited = vec![false; n];
        let mut post = Vec::new();
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
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

    pub fn preds(&self, b: Block) -> &[Block] {
        self.preds.get(b)
    }

    pub fn succs(&self, b: Block) -> &[Block] {
        self.succs.get(b)
    }

    /// Reachable blocks, entry first, every block before its successors except along back
    /// edges.
    pub fn rpo(&self) -> &[Block] {
        &self.rpo
    }

    pub fn rpo_index(&self, b: Block) -> Option<usize> {
        let i = self.rpo_index[b.index()];
        (i != u32::MAX).then_some(i as usize)
    }

    pub fn is_reachable(&self, b: Block) -> bool {
        self.rpo_index[b.index()] != u32::MAX
    }
}
