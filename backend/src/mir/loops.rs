//! Loops of machine blocks, for spill costs: nesting depths and estimated execution
//! frequencies. A loop is natural: an edge `b -> h` where `h` dominates `b` makes `h` a
//! header, whose loop holds every block that reaches such a `b` without passing through `h`
//! (edges to one header make one loop); a block's depth is the number of loops holding it.
//! The depths are those of the IR's loop analysis (`middle::analysis::LoopInfo`) on the
//! same graph, found in time near-linear in its size rather than in the sum of the loops'
//! sizes: headers are visited innermost first, and each loop, once found, is merged into
//! its header (union-find), so that an enclosing loop's backward walk steps over it in one
//! step.

use super::dominators::Dominators;
use super::{MBlockId, MFunction, MInst, Reg, Role};
use middle::fast_hash::FastHashMap;

/// The loop nesting depth of each block (0 outside loops and for unreachable blocks).
pub fn loop_depths(mf: &MFunction) -> Vec<u32> {
    LoopNest::new(mf).depths()
}

/// Which loops hold each block.
pub struct LoopNest {
    /// The header of the innermost loop holding each block.
    innermost: Vec<Option<MBlockId>>,
    /// The header of the loop enclosing each header's loop.
    parent: Vec<Option<MBlockId>>,
    /// The depth of each header's loop (1 for an outermost loop).
    header_depth: Vec<u32>,
}

impl LoopNest {
    pub fn new(mf: &MFunction) -> LoopNest {
        let n = mf.blocks.len();
        let dom = Dominators::new(mf);
        let preds = mf.preds();
        // The representative of each block: the header of the outermost loop found so far
        // that holds it, else the block itself.
        let mut merged: Vec<u32> = (0..n as u32).collect();
        fn find(merged: &mut [u32], b: usize) -> usize {
            let mut root = b;
            while merged[root] as usize != root {
                root = merged[root] as usize;
            }
            let mut x = b;
            while merged[x] as usize != root {
                let next = merged[x] as usize;
                merged[x] = root as u32;
                x = next;
            }
            root
        }
        // The header of the innermost loop holding each block, and the enclosing loop's
        // header of each header.
        let mut innermost: Vec<Option<MBlockId>> = vec![None; n];
        let mut parent: Vec<Option<MBlockId>> = vec![None; n];
        let mut in_body = vec![u32::MAX; n];
        let mut headers = Vec::new();
        let order = dom.preorder();
        for &h in order.iter().rev() {
            let latches: Vec<MBlockId> = preds[h.index()]
                .iter()
                .copied()
                .filter(|&p| dom.dominates(h, p))
                .collect();
            if latches.is_empty() {
                continue;
            }
            headers.push(h);
            innermost[h.index()] = Some(h);
            in_body[h.index()] = h.0;
            let mut work: Vec<MBlockId> = Vec::new();
            let mut body = Vec::new();
            for l in latches {
                let r = find(&mut merged, l.index());
                if in_body[r] != h.0 {
                    in_body[r] = h.0;
                    work.push(MBlockId(r as u32));
                }
            }
            while let Some(b) = work.pop() {
                body.push(b);
                for &p in &preds[b.index()] {
                    if !dom.is_reachable(p) {
                        continue;
                    }
                    let r = find(&mut merged, p.index());
                    if in_body[r] != h.0 {
                        in_body[r] = h.0;
                        work.push(MBlockId(r as u32));
                    }
                }
            }
            for b in body {
                if innermost[b.index()] == Some(b) {
                    parent[b.index()] = Some(h);
                } else {
                    innermost[b.index()] = Some(h);
                }
                merged[b.index()] = h.0;
            }
        }
        // Enclosing headers come later in `headers` (found outer after inner).
        let mut header_depth = vec![0u32; n];
        for &h in headers.iter().rev() {
            header_depth[h.index()] = parent[h.index()].map_or(1, |p| header_depth[p.index()] + 1);
        }
        LoopNest {
            innermost,
            parent,
            header_depth,
        }
    }

    /// The loop nesting depth of each block (0 outside loops and for unreachable blocks).
    pub fn depths(&self) -> Vec<u32> {
        self.innermost
            .iter()
            .map(|h| h.map_or(0, |h| self.header_depth[h.index()]))
            .collect()
    }

    /// The header of every loop, in storage order.
    pub fn headers(&self) -> impl Iterator<Item = MBlockId> + '_ {
        self.innermost
            .iter()
            .enumerate()
            .filter(|&(b, h)| h.is_some_and(|h| h.index() == b))
            .map(|(b, _)| MBlockId(b as u32))
    }

    /// The header of the loop enclosing the loop whose header is `header`, if any.
    pub fn parent(&self, header: MBlockId) -> Option<MBlockId> {
        self.parent[header.index()]
    }

    /// The headers of the loops holding `b`, innermost first.
    pub fn loops_of(&self, b: MBlockId) -> impl Iterator<Item = MBlockId> + '_ {
        std::iter::successors(self.innermost[b.index()], |h| self.parent[h.index()])
    }

    /// Whether the loop whose header is `header` holds block `b`.
    pub fn contains(&self, header: MBlockId, b: MBlockId) -> bool {
        self.loops_of(b).any(|h| h == header)
    }

    /// The outermost loop that holds `from` but not `to`, if the edge leaves a loop.
    fn left(&self, from: MBlockId, to: MBlockId) -> Option<MBlockId> {
        self.loops_of(from)
            .take_while(|&h| !self.contains(h, to))
            .last()
    }
}

/// Rounds a loop is taken to run each time it is entered.
const ROUNDS: f64 = 10.0;

/// Estimated executions of each block per call of the function whose loops are `nest`, for
/// spill costs (0 for unreachable blocks). A block outside loops runs once; a block in a
/// loop runs as often as its innermost loop's header. A loop outside loops runs `ROUNDS`
/// times; a loop inside another runs `ROUNDS` times per round of the outer loop that enters
/// it, which depends on the tests on the way from the outer header: a test of data
/// (`tests_data`) passes half of what reaches it to each arm, any other test passes all of
/// it to both (the guard of a rotated loop, the choice between an unrolled loop and its
/// remainder: the way into the loop is the usual one), and a way through an inner loop
/// passes on what entered it. So where a static weight of 10 per loop depth makes every
/// inner loop ten times its outer one, an inner loop behind three tests of board cells in a
/// recursive search weighs 1.25 times its outer loop: it runs only for the moves that pass
/// them.
pub fn block_frequencies(mf: &MFunction, nest: &LoopNest) -> Vec<f64> {
    let n = mf.blocks.len();
    let data = tests_data(mf);
    let is_header = |b: MBlockId| nest.innermost[b.index()] == Some(b);
    // The share of a round of the innermost enclosing loop (or of the call) that reaches
    // each block, at most 1.
    let mut reach = vec![0.0f64; n];
    // What reached each header from outside its loop.
    let mut entered = vec![0.0f64; n];
    let mut freq = vec![0.0f64; n];
    if n > 0 {
        reach[0] = 1.0;
    }
    for b in mf.postorder().into_iter().rev() {
        let share = reach[b.index()].min(1.0);
        freq[b.index()] = match nest.innermost[b.index()] {
            Some(h) if h == b => {
                entered[b.index()] = share;
                match nest.parent[b.index()] {
                    Some(outer) => freq[outer.index()] * ROUNDS * share,
                    None => ROUNDS,
                }
            }
            Some(h) => freq[h.index()],
            None => 1.0,
        };
        // A header starts a round of its own loop.
        let passed = if is_header(b) { 1.0 } else { share };
        let inside = mf
            .succs(b)
            .iter()
            .filter(|&&s| nest.left(b, s).is_none())
            .count();
        for &s in mf.succs(b) {
            if is_header(s) && nest.contains(s, b) {
                continue;
            }
            reach[s.index()] += match nest.left(b, s) {
                Some(h) => entered[h.index()],
                None if data[b.index()] => passed / inside as f64,
                None => passed,
            };
        }
    }
    freq
}

/// Per block, whether it ends in a test of a value read from memory, directly or through
/// one more operation (a board cell, a flag in an array): such a test may go either way,
/// where tests of counters and bounds mostly go one way.
fn tests_data(mf: &MFunction) -> Vec<bool> {
    let mut defs: FastHashMap<Reg, &MInst> = FastHashMap::default();
    for inst in mf.blocks.iter().flat_map(|b| &b.insts) {
        for (r, role) in inst.regs() {
            if role != Role::Use && matches!(r, Reg::Virt(_)) {
                defs.entry(r).or_insert(inst);
            }
        }
    }
    fn loaded(defs: &FastHashMap<Reg, &MInst>, r: Reg, depth: u32) -> bool {
        match defs.get(&r) {
            Some(MInst::Ldr { .. } | MInst::VLdr { .. }) => true,
            Some(inst) if depth > 0 => inst
                .regs()
                .into_iter()
                .any(|(u, role)| role == Role::Use && loaded(defs, u, depth - 1)),
            _ => false,
        }
    }
    mf.blocks
        .iter()
        .map(|block| {
            let last_test = block.insts.iter().rev().find(|i| i.sets_flags());
            last_test.is_some_and(|test| {
                test.regs()
                    .into_iter()
                    .any(|(r, role)| role == Role::Use && loaded(&defs, r, 1))
            })
        })
        .collect()
}
