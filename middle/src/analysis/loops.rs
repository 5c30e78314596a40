//! Natural loops: every back edge `b -> h` (where `h` dominates `b`) makes `h` a loop header
//! whose body is every block that reaches `b` without passing through `h`. Back edges to one
//! header form one loop. Gives each block its loop nesting depth.

use super::{Cfg, DomTree};
use crate::ir::{Block, Function};

#[derive(Clone, Debug, PartialEq)]
pub struct Loop {
    pub header: Block,
    /// Every block of the loop, the header first.
    pub blocks: Vec<Block>,
    /// The innermost enclosing loop, by index.
    pub parent: Option<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LoopInfo {
    pub loops: Vec<Loop>,
    depth: Vec<u32>,
    /// The innermost loop of each block.
    innermost: Vec<Option<usize>>,
}

impl LoopInfo {
    pub fn new(f: &Function, cfg: &Cfg, dom: &DomTree) -> LoopInfo {
        let n = f.block_capacity();
        let mut loops: Vec<Loop> = Vec::new();
        // Headers in dominator-tree pre-order put outer loops before inner ones.
        for &h in dom.preorder() {
            let latches: Vec<Block> = cfg
                .preds(h)
                .iter()
                .copied()
                .filter(|&p| dom.dominates(h, p))
                .collect();
            if latches.is_empty() {
                continue;
            }
            let mut in_loop = vec![false; n];
            in_loop[h.index()] = true;
            let mut blocks = vec![h];
            let mut stack = latches;
            while let Some(b) = stack.pop() {
                if in_loop[b.index()] {
                    continue;
                }
                in_loop[b.index()] = true;
                blocks.push(b);
                stack.extend(
                    cfg.preds(b)
                        .iter()
                        .copied()
                        .filter(|&p| cfg.is_reachable(p)),
                );
            }
            loops.push(Loop {
                header: h,
                blocks,
                parent: None,
            });
        }
        let mut depth = vec![0u32; n];
        let mut innermost: Vec<Option<usize>> = vec![None; n];
        // Outer loops come first, so later (inner) loops overwrite the innermost entry.
        for (k, l) in loops.iter().enumerate() {
            for &b in &l.blocks {
                depth[b.index()] += 1;
                innermost[b.index()] = Some(k);
            }
        }
        for k in 0..loops.len() {
            let h = loops[k].header;
            loops[k].parent = loops[..k]
                .iter()
                .rposition(|outer| outer.blocks.contains(&h));
        }
        LoopInfo {
            loops,
            depth,
            innermost,
        }
    }

    /// How many loops contain `b` (0 outside any loop).
    pub fn depth(&self, b: Block) -> u32 {
        self.depth[b.index()]
    }

    pub fn innermost(&self, b: Block) -> Option<usize> {
        self.innermost[b.index()]
    }
}
