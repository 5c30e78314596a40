//! The dominator tree of a `Cfg` (the IR's or machine IR's), from the immediate dominators
//! that `semi_nca` computes. Each block also gets its depth in the tree and pre/post DFS
//! numbers, so `dominates` is two comparisons. `walk_scoped` visits the tree with state
//! that each block extends for the blocks it dominates (value tables, known facts). Blocks
//! unreachable from the entry dominate and are dominated by nothing.

use super::adjacency::Adjacency;
use super::cfg::Cfg;
use super::graph::Node;
use super::semi_nca::immediate_dominators;
use crate::ir::Block;

const NONE: u32 = u32::MAX;

/// State that a walk down the dominator tree extends block by block and cuts back when it
/// leaves a block's subtree, so that each block sees what its dominators added and no more.
pub trait ScopedState {
    /// A mark of how much has been added so far (an undo log's length).
    fn mark(&self) -> usize;
    /// Forgets what was added after `mark`.
    fn forget_since(&mut self, mark: usize);
}

#[derive(Clone, Debug, PartialEq)]
pub struct DomTree<N = Block> {
    idom: Vec<u32>,
    /// Each block's children, in reverse post-order.
    children: Adjacency<N>,
    level: Vec<u32>,
    pre: Vec<u32>,
    post: Vec<u32>,
    /// Blocks in dominator-tree pre-order.
    preorder: Vec<N>,
}

impl<N: Node> DomTree<N> {
    pub fn new(cfg: &Cfg<N>) -> DomTree<N> {
        let n = cfg.capacity();
        let rpo = cfg.rpo();
        let idom = immediate_dominators(cfg);
        let edges = rpo
            .iter()
            .skip(1)
            .map(|&b| (N::from_index(idom[b.index()] as usize), b));
        let children = Adjacency::from_pairs(n, edges);
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
    fn number(&mut self, entry: N) {
        let mut counter = 0;
        let mut post_counter = 0;
        let mut stack = vec![(entry, 0usize)];
        self.pre[entry.index()] = counter;
        counter += 1;
        self.preorder.push(entry);
        while let Some((b, next)) = stack.last_mut() {
            let b = *b;
            if let Some(&c) = self.children.get(b).get(*next) {
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
    pub fn idom(&self, b: N) -> Option<N> {
        let i = self.idom[b.index()];
        (i != NONE && i as usize != b.index()).then(|| N::from_index(i as usize))
    }

    pub fn children(&self, b: N) -> &[N] {
        self.children.get(b)
    }

    /// Depth in the tree (the entry is 0).
    pub fn level(&self, b: N) -> u32 {
        self.level[b.index()]
    }

    pub fn is_reachable(&self, b: N) -> bool {
        self.pre[b.index()] != NONE
    }

    /// The position of a reachable block in the tree's pre-order.
    pub fn preorder_number(&self, b: N) -> u32 {
        self.pre[b.index()]
    }

    /// Whether `a` dominates `b` (every block dominates itself). False for unreachable blocks.
    pub fn dominates(&self, a: N, b: N) -> bool {
        let (pa, pb) = (self.pre[a.index()], self.pre[b.index()]);
        pa != NONE && pb != NONE && pa <= pb && self.post[b.index()] <= self.post[a.index()]
    }

    /// Reachable blocks in dominator-tree pre-order (every block after its dominators).
    pub fn preorder(&self) -> &[N] {
        &self.preorder
    }

    /// Visits the blocks below `entry` in pre-order (children in order), calling `visit` on
    /// each with `state` as its dominators left it: what a block adds is forgotten once its
    /// subtree is done.
    pub fn walk_scoped<S: ScopedState>(
        &self,
        entry: N,
        state: &mut S,
        mut visit: impl FnMut(&mut S, N),
    ) {
        // (block, None) enters the block; (block, Some(mark)) leaves its subtree.
        let mut stack = vec![(entry, None)];
        while let Some((b, leaving)) = stack.pop() {
            if let Some(mark) = leaving {
                state.forget_since(mark);
                continue;
            }
            stack.push((b, Some(state.mark())));
            stack.extend(self.children(b).iter().rev().map(|&c| (c, None)));
            visit(state, b);
        }
    }

    /// The nearest common dominator of two reachable blocks.
    pub fn common_dominator(&self, mut a: N, b: N) -> N {
        while !self.dominates(a, b) {
            match self.idom(a) {
                Some(p) => a = p,
                None => break,
            }
        }
        a
    }
}
