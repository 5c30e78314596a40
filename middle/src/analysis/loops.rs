//! Natural loops and their nesting, from a function's `Cfg` and `DomTree` (the IR's, or
//! machine IR's through the same `Graph` trait): every back edge
//! `b -> h` (where `h` dominates `b`) makes `h` a loop header whose body is every block that
//! reaches `b` without passing through `h`; back edges to one header form one loop.
//!
//! Built as LLVM's `LoopInfo` is: headers are taken in reverse dominator-tree pre-order
//! (inner loops first), and each walks backwards from its latches, claiming unclaimed
//! blocks and stepping over an already-built inner loop in one move, from the outermost
//! loop found so far around the block (a union-find with path compression) to that loop's
//! header. Each block is claimed once, so the work is near-linear in the function size.
//!
//! A loop stores only the blocks whose innermost loop it is (`Loop::blocks`); all of a
//! loop's blocks are one slice of a shared array laid out by the loop tree
//! (`LoopInfo::blocks_of`), and membership is a range check (`LoopInfo::contains`). With
//! 10,000 nested loops, listing every loop's blocks separately would take ~5 * 10^7 entries.
//! Exits and exiting blocks cost what they list: each edge leaving loops is charged to
//! every loop it leaves.

use super::graph::Node;
use super::{Cfg, DomTree};
use crate::ir::{Block, Function, Inst, Value};

const NONE: u32 = u32::MAX;

#[derive(Clone, Debug, PartialEq)]
pub struct Loop<N = Block> {
    pub header: N,
    /// The blocks whose innermost loop this is, in reverse post-order (the header first).
    /// `LoopInfo::blocks_of` gives every block of the loop, inner loops' included.
    pub blocks: Vec<N>,
    /// The innermost enclosing loop, by index.
    pub parent: Option<usize>,
    /// The loops directly inside this one, by ascending index.
    pub children: Vec<usize>,
    /// Nesting depth: 1 for an outermost loop.
    pub depth: u32,
    /// The predecessors of the header inside the loop (sources of back edges), in the
    /// order of the header's predecessors.
    pub latches: Vec<N>,
    /// Blocks outside the loop with a predecessor inside, in reverse post-order.
    pub exits: Vec<N>,
    /// Blocks inside the loop with a successor outside, in reverse post-order.
    pub exiting: Vec<N>,
    /// The header's only predecessor outside the loop (unreachable predecessors count), when
    /// its only successor is the header.
    pub preheader: Option<N>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LoopInfo<N = Block> {
    /// Loops by header in dominator-tree pre-order: a loop comes after the loops around it.
    pub loops: Vec<Loop<N>>,
    /// The innermost loop of each block, `NONE` outside loops.
    innermost: Vec<u32>,
    /// Every loop's blocks: loop `k`'s are `body[range[k].0..range[k].1]`, its own blocks
    /// first, then its children's ranges in order.
    body: Vec<N>,
    range: Vec<(u32, u32)>,
    /// The position of each block in `body`, `NONE` outside loops.
    position: Vec<u32>,
}

impl<N: Node> LoopInfo<N> {
    pub fn new(cfg: &Cfg<N>, dom: &DomTree<N>) -> LoopInfo<N> {
        let n = cfg.capacity();
        let (mut loops, innermost) = discover(cfg, dom, n);
        for &b in cfg.rpo() {
            if innermost[b.index()] != NONE {
                loops[innermost[b.index()] as usize].blocks.push(b);
            }
        }
        for k in 0..loops.len() {
            if let Some(p) = loops[k].parent {
                loops[k].depth = loops[p].depth + 1;
                loops[p].children.push(k);
            } else {
                loops[k].depth = 1;
            }
        }
        let mut info = LoopInfo {
            loops,
            innermost,
            body: Vec::new(),
            range: Vec::new(),
            position: vec![NONE; n],
        };
        info.lay_out();
        info.find_exits(cfg);
        info.find_preheaders(cfg);
        info
    }

    /// Fills `body`, `range` and `position` by a depth-first walk of the loop tree.
    fn lay_out(&mut self) {
        let count = self.loops.len();
        self.range = vec![(0, 0); count];
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for root in 0..count {
            if self.loops[root].parent.is_some() {
                continue;
            }
            self.open(root);
            stack.push((root, 0));
            while let Some((k, next)) = stack.last_mut() {
                let k = *k;
                if let Some(&c) = self.loops[k].children.get(*next) {
                    *next += 1;
                    self.open(c);
                    stack.push((c, 0));
                } else {
                    self.range[k].1 = self.body.len() as u32;
                    stack.pop();
                }
            }
        }
    }

    /// Starts loop `k`'s range with its own blocks.
    fn open(&mut self, k: usize) {
        self.range[k].0 = self.body.len() as u32;
        for &b in &self.loops[k].blocks {
            self.position[b.index()] = self.body.len() as u32;
            self.body.push(b);
        }
    }

    /// Charges every edge to each loop it leaves.
    fn find_exits(&mut self, cfg: &Cfg<N>) {
        let count = self.loops.len();
        let mut exits: Vec<Vec<N>> = (0..count).map(|_| Vec::new()).collect();
        for &u in cfg.rpo() {
            for &v in cfg.succs(u) {
                let mut k = self.innermost(u);
                while let Some(l) = k.filter(|&l| !self.contains(l, v)) {
                    exits[l].push(v);
                    if self.loops[l].exiting.last() != Some(&u) {
                        self.loops[l].exiting.push(u);
                    }
                    k = self.loops[l].parent;
                }
            }
        }
        for (l, mut list) in exits.into_iter().enumerate() {
            list.sort_unstable_by_key(|&b| cfg.rpo_index(b));
            list.dedup();
            self.loops[l].exits = list;
        }
    }

    fn find_preheaders(&mut self, cfg: &Cfg<N>) {
        for k in 0..self.loops.len() {
            let h = self.loops[k].header;
            let mut outside = cfg.preds(h).iter().filter(|&&p| !self.contains(k, p));
            if let (Some(&p), None) = (outside.next(), outside.next()) {
                if cfg.succs(p) == [h] {
                    self.loops[k].preheader = Some(p);
                }
            }
        }
    }

    /// How many loops contain `b` (0 outside any loop).
    pub fn depth(&self, b: N) -> u32 {
        self.innermost(b).map_or(0, |k| self.loops[k].depth)
    }

    /// The innermost loop containing `b`, by index.
    pub fn innermost(&self, b: N) -> Option<usize> {
        let k = self.innermost[b.index()];
        (k != NONE).then_some(k as usize)
    }

    /// Every block of loop `k`, the header first.
    pub fn blocks_of(&self, k: usize) -> &[N] {
        let (start, end) = self.range[k];
        &self.body[start as usize..end as usize]
    }

    /// Whether `b` existed when the loops were found (a pass that adds blocks while it
    /// walks the loops must not ask about newer ones).
    pub fn knows(&self, b: N) -> bool {
        b.index() < self.innermost.len()
    }

    /// Whether loop `k` contains `b`, in constant time.
    pub fn contains(&self, k: usize, b: N) -> bool {
        let (start, end) = self.range[k];
        let pos = self.position[b.index()];
        pos != NONE && start <= pos && pos < end
    }
}

impl LoopInfo<Block> {
    /// Whether instruction `i` of `f` lies in loop `k`.
    pub fn holds(&self, f: &Function, k: usize, i: Inst) -> bool {
        f.inst_block(i).is_some_and(|b| self.contains(k, b))
    }

    /// Whether `v` is fixed for loop `k`: a constant, parameter or global, or an
    /// instruction outside the loop.
    pub fn is_invariant(&self, f: &Function, k: usize, v: Value) -> bool {
        v.as_inst().is_none_or(|i| !self.holds(f, k, i))
    }
}

/// Finds the loops (headers, parents, latches) and each block's innermost loop, numbering
/// loops by their headers' dominator-tree pre-order.
fn discover<N: Node>(cfg: &Cfg<N>, dom: &DomTree<N>, n: usize) -> (Vec<Loop<N>>, Vec<u32>) {
    let mut loops: Vec<Loop<N>> = Vec::new();
    let mut innermost = vec![NONE; n];
    // For each loop, its parent once known, and a union-find link towards the outermost
    // loop found so far around it.
    let mut top: Vec<u32> = Vec::new();
    let mut stack = Vec::new();
    for &h in dom.preorder().iter().rev() {
        let latches: Vec<N> = cfg
            .preds(h)
            .iter()
            .copied()
            .filter(|&p| dom.dominates(h, p))
            .collect();
        if latches.is_empty() {
            continue;
        }
        let l = loops.len() as u32;
        top.push(l);
        innermost[h.index()] = l;
        stack.extend_from_slice(&latches);
        while let Some(b) = stack.pop() {
            let claimed = innermost[b.index()];
            if claimed == NONE {
                innermost[b.index()] = l;
                stack.extend(cfg.preds(b).iter().filter(|&&p| cfg.is_reachable(p)));
                continue;
            }
            let sub = find(&mut top, claimed);
            if sub == l {
                continue;
            }
            top[sub as usize] = l;
            let sub_loop: &mut Loop<N> = &mut loops[sub as usize];
            sub_loop.parent = Some(l as usize);
            let sub_header = sub_loop.header;
            stack.extend(
                cfg.preds(sub_header)
                    .iter()
                    .filter(|&&p| cfg.is_reachable(p)),
            );
        }
        loops.push(Loop {
            header: h,
            blocks: Vec::new(),
            parent: None,
            children: Vec::new(),
            depth: 0,
            latches,
            exits: Vec::new(),
            exiting: Vec::new(),
            preheader: None,
        });
    }
    // Discovered inner loops first; number them outer first instead.
    let last = loops.len().saturating_sub(1);
    loops.reverse();
    for l in &mut loops {
        l.parent = l.parent.map(|p| last - p);
    }
    for k in &mut innermost {
        if *k != NONE {
            *k = last as u32 - *k;
        }
    }
    (loops, innermost)
}

/// The outermost loop found so far around loop `k`, compressing the path.
fn find(top: &mut [u32], k: u32) -> u32 {
    let mut root = k;
    while top[root as usize] != root {
        root = top[root as usize];
    }
    let mut x = k;
    while top[x as usize] != root {
        let next = top[x as usize];
        top[x as usize] = root;
        x = next;
    }
    root
}
