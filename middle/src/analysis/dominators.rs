//! The dominator tree, by the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple,
//! Fast Dominance Algorithm") over reverse post-order. Each block also gets its depth in the
//! tree and pre/post DFS numbers, so `dominates` is two comparisons.

use super::cfg::Cfg;
use crate::ir::{Block, Function};

const NONE: u32 = u32::MAX;

#[derive(Clone, Debug, PartialEq)]
pub struct DomTree {
    idom: Vec<u32>,
    children: Vec<Vec<Block>>,
    level: Vec<u32>,
    pre: Vec<u32>,
    post: Vec<u32>,
    /// Blocks in dominator-tree pre-order.
    preorder: Vec<Block>,
}

impl DomTree {
    pub fn new(f: &Function, cfg: &Cfg) -> DomTree {
        let n = f.block_capacity();
        let rpo = cfg.rpo();
        let mut idom = vec![NONE; n];
        if let Some(&entry) = rpo.first() {
            idom[entry.index()] = entry.0;
            let mut changed = true;
            while changed {
                changed = false;
                for &b in &rpo[1..] {
                    let mut new_idom = NONE;
                    for &p in cfg.preds(b) {
                        if idom[p.index()] == NONE {
                            continue;
                        }
                        new_idom = if new_idom == NONE {
                            p.0
                        } else {
                            intersect(&idom, cfg, p.0, new_idom)
                        };
                    }
                    if idom[b.index()] != new_idom {
                        idom[b.index()] = new_idom;
                        changed = true;
                    }
                }
            }
        }
        let mut children = vec![Vec::new(); n];
        for &b in rpo.iter().skip(1) {
            children[idom[b.index()] as usize].push(b);
        }
        let mut tree = DomTree {
            idom,
            children,
            level: vec![0; n],
            pre: vec![NONE; n],
            post: vec![NONE; n],
            preorder: Vec::new(),
        };
        if let Some(&entry) = rpo.first() {
            tree.number(entry);
        }
        tree
    }

    /// Assigns levels and DFS numbers with an explicit stack.
    fn number(&mut self, entry: Block) {
        let mut counter = 0;
        let mut post_counter = 0;
        let mut stack = vec![(entry, 0usize)];
        self.pre[entry.index()] = counter;
        counter += 1;
        self.preorder.push(entry);
        while let Some((b, next)) = stack.last_mut() {
            let b = *b;
            if let Some(&c) = self.children[b.index()].get(*next) {
                *next += 1;
                self.level[c.index()] = self.level[b.index()] + 1;
                self.pre[c.index()] = counter;
                counter += 1;
                self.preorder.push(c);
                stack.push((c, 0));
            } else {
                self.post[b.index()] = post_counter;
                post_counter += 1;
                stack.pop();
            }
        }
    }

    /// The immediate dominator; `None` for the entry and unreachable blocks.
    pub fn idom(&self, b: Block) -> Option<Block> {
        let i = self.idom[b.index()];
        (i != NONE && i != b.0).then_some(Block(i))
    }

    pub fn children(&self, b: Block) -> &[Block] {
        &self.children[b.index()]
    }

    /// Depth in the tree (the entry is 0).
    pub fn level(&self, b: Block) -> u32 {
        self.level[b.index()]
    }

    pub fn is_reachable(&self, b: Block) -> bool {
        self.pre[b.index()] != NONE
    }

    /// The position of a reachable block in the tree's pre-order.
    pub fn preorder_number(&self, b: Block) -> u32 {
        self.pre[b.index()]
    }

    /// Whether `a` dominates `b` (every block dominates itself). False for unreachable blocks.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        let (pa, pb) = (self.pre[a.index()], self.pre[b.index()]);
        pa != NONE && pb != NONE && pa <= pb && self.post[b.index()] <= self.post[a.index()]
    }

    /// Reachable blocks in dominator-tree pre-order (every block after its dominators).
    pub fn preorder(&self) -> &[Block] {
        &self.preorder
    }

    /// The nearest common dominator of two reachable blocks.
    pub fn common_dominator(&self, mut a: Block, b: Block) -> Block {
        while !self.dominates(a, b) {
            match self.idom(a) {
                Some(p) => a = p,
                None => break,
            }
        }
        a
    }
}

fn intersect(idom: &[u32], cfg: &Cfg, mut a: u32, mut b: u32) -> u32 {
    let index = |x: u32| cfg.rpo_index(Block(x)).unwrap_or(usize::MAX);
    while a != b {
        while index(a) > index(b) {
            a = idom[a as usize];
        }
        while index(b) > index(a) {
            b = idom[b as usize];
        }
    }
    a
}
