//! The post-dominator tree: dominators of the reverse CFG, computed by the dominator tree's
//! Semi-NCA algorithm (`semi_nca::by_number`) over a depth-first numbering of the reverse
//! CFG. Needs the function and its `Cfg`; covers the blocks reachable from the entry.
//!
//! A virtual exit joins every block ending in `ret`. Blocks that cannot reach a `ret`
//! (infinite loops and what only leads into them) are handled as LLVM handles its extra
//! roots: taking the reachable blocks in post-order (the last in reverse post-order first),
//! each one not yet known to reach the virtual exit gets an edge to it, as if it returned,
//! and everything that reaches it is then settled. For `while (1) { A; B; }` the block
//! ending the body is attached, so the header is post-dominated by the body. Every reachable
//! block thus has a post-dominator chain ending at the virtual exit. The blocks with an edge
//! to it are `exit_predecessors()`; its children in the tree are `roots()`.

use super::cfg::Cfg;
use super::semi_nca;
use crate::ir::{Block, Function, InstKind};

const NONE: u32 = u32::MAX;

#[derive(Clone, Debug, PartialEq)]
pub struct PostDomTree {
    /// Immediate post-dominator of each block; `NONE` for the virtual exit or outside the tree.
    ipdom: Vec<u32>,
    children: Vec<Vec<Block>>,
    /// The children of the virtual exit.
    roots: Vec<Block>,
    /// The blocks with an edge to the virtual exit.
    exit_preds: Vec<Block>,
    level: Vec<u32>,
    pre: Vec<u32>,
    post: Vec<u32>,
    /// Blocks in tree pre-order.
    preorder: Vec<Block>,
}

impl PostDomTree {
    pub fn new(f: &Function, cfg: &Cfg) -> PostDomTree {
        let n = f.block_capacity();
        let mut graph = ReverseDfs::new(f, cfg, n);
        let parent = std::mem::take(&mut graph.parent);
        // Predecessors in the reverse CFG: the block's successors, and the virtual exit.
        let idom = semi_nca::by_number(parent, |w| {
            let b = graph.vertex[w] as usize;
            let exit = graph.from_exit[b].then_some(0);
            let succs = cfg.succs(Block(b as u32)).iter();
            exit.into_iter()
                .chain(succs.map(|s| graph.number[s.index()]))
        });
        let mut ipdom = vec![NONE; n];
        let mut children: Vec<Vec<Block>> = (0..n).map(|_| Vec::new()).collect();
        let mut roots = Vec::new();
        // DFS order puts every block after its immediate post-dominator.
        for (&b, &d) in graph.vertex.iter().zip(&idom).skip(1) {
            let d = d as usize;
            if d == 0 {
                roots.push(Block(b));
            } else {
                let p = graph.vertex[d];
                ipdom[b as usize] = p;
                children[p as usize].push(Block(b));
            }
        }
        let exit_preds = graph.vertex[1..]
            .iter()
            .map(|&b| Block(b))
            .filter(|b| graph.from_exit[b.index()])
            .collect();
        let mut tree = PostDomTree {
            ipdom,
            children,
            roots,
            exit_preds,
            level: vec![0; n],
            pre: vec![NONE; n],
            post: vec![NONE; n],
            preorder: Vec::new(),
        };
        tree.number();
        tree
    }

    /// Assigns levels and DFS numbers below the virtual exit with an explicit stack.
    fn number(&mut self) {
        let mut counter = 0;
        let mut post_counter = 0;
        for k in 0..self.roots.len() {
            let root = self.roots[k];
            self.pre[root.index()] = counter;
            counter += 1;
            self.preorder.push(root);
            let mut stack = vec![(root, 0usize)];
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
    }

    /// The immediate post-dominator; `None` when it is the virtual exit, and for blocks
    /// unreachable from the entry.
    pub fn ipdom(&self, b: Block) -> Option<Block> {
        let i = self.ipdom[b.index()];
        (i != NONE).then_some(Block(i))
    }

    /// The blocks whose immediate post-dominator is the virtual exit, in DFS order.
    pub fn roots(&self) -> &[Block] {
        &self.roots
    }

    /// The blocks given an edge to the virtual exit: those ending in `ret`, in reverse
    /// post-order, then those attached for regions that never return.
    pub fn exit_predecessors(&self) -> &[Block] {
        &self.exit_preds
    }

    pub fn children(&self, b: Block) -> &[Block] {
        &self.children[b.index()]
    }

    /// Depth below the virtual exit: 0 for `roots()`.
    pub fn level(&self, b: Block) -> u32 {
        self.level[b.index()]
    }

    /// Whether the block is in the tree (reachable from the entry).
    pub fn is_reachable(&self, b: Block) -> bool {
        self.pre[b.index()] != NONE
    }

    /// Whether `a` post-dominates `b` (every block post-dominates itself). False for blocks
    /// unreachable from the entry.
    pub fn post_dominates(&self, a: Block, b: Block) -> bool {
        let (pa, pb) = (self.pre[a.index()], self.pre[b.index()]);
        pa != NONE && pb != NONE && pa <= pb && self.post[b.index()] <= self.post[a.index()]
    }

    /// Reachable blocks in tree pre-order (every block after its post-dominators).
    pub fn preorder(&self) -> &[Block] {
        &self.preorder
    }

    /// The nearest common post-dominator of two reachable blocks; `None` when it is the
    /// virtual exit.
    pub fn common_post_dominator(&self, mut a: Block, mut b: Block) -> Option<Block> {
        while self.level(a) > self.level(b) {
            a = self.ipdom(a)?;
        }
        while self.level(b) > self.level(a) {
            b = self.ipdom(b)?;
        }
        while a != b {
            a = self.ipdom(a)?;
            b = self.ipdom(b)?;
        }
        Some(a)
    }
}

/// A depth-first search of the reverse CFG from the virtual exit (vertex number 0), its
/// children being the returning blocks in reverse post-order and then the extra roots.
struct ReverseDfs {
    /// The block of each DFS number (`vertex[0]` stands for the virtual exit).
    vertex: Vec<u32>,
    /// The DFS number of each block, `NONE` outside the search.
    number: Vec<u32>,
    /// The DFS parent of each DFS number.
    parent: Vec<u32>,
    /// Whether the block has an edge from the virtual exit.
    from_exit: Vec<bool>,
}

impl ReverseDfs {
    fn new(f: &Function, cfg: &Cfg, n: usize) -> ReverseDfs {
        let mut dfs = ReverseDfs {
            vertex: vec![NONE],
            number: vec![NONE; n],
            parent: vec![0],
            from_exit: vec![false; n],
        };
        let returns = cfg.rpo().iter().copied().filter(|&b| {
            f.terminator(b)
                .is_some_and(|t| matches!(f.kind(t), InstKind::Ret { .. }))
        });
        let mut stack = Vec::new();
        for b in returns {
            dfs.visit_root(cfg, b, &mut stack);
        }
        for &b in cfg.rpo().iter().rev() {
            dfs.visit_root(cfg, b, &mut stack);
        }
        dfs
    }

    /// Adds the edge from the virtual exit to `root` unless it is already numbered, and
    /// searches from it over predecessors.
    fn visit_root(&mut self, cfg: &Cfg, root: Block, stack: &mut Vec<(Block, usize)>) {
        if self.number[root.index()] != NONE {
            return;
        }
        self.from_exit[root.index()] = true;
        self.enter(root, 0);
        stack.push((root, 0));
        while let Some((b, next)) = stack.last_mut() {
            let b = *b;
            match cfg.preds(b).get(*next) {
                Some(&p) => {
                    *next += 1;
                    if cfg.is_reachable(p) && self.number[p.index()] == NONE {
                        self.enter(p, self.number[b.index()]);
                        stack.push((p, 0));
                    }
                }
                None => {
                    stack.pop();
                }
            }
        }
    }

    fn enter(&mut self, b: Block, parent: u32) {
        self.number[b.index()] = self.vertex.len() as u32;
        self.vertex.push(b.0);
        self.parent.push(parent);
    }
}
