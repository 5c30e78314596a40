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
use super::{MBlockId, MFunction};

/// The loop nesting depth of each block (0 outside loops and for unreachable blocks).
pub fn loop_depths(mf: &MFunction) -> Vec<u32> {
    let nest = LoopNest::new(mf);
    (0..mf.blocks.len())
        .map(|b| nest.innermost[b].map_or(0, |h| nest.header_depth[h.index()]))
        .collect()
}

/// Which loops hold each block.
struct LoopNest {
    /// The header of the innermost loop holding each block.
    innermost: Vec<Option<MBlockId>>,
    /// The header of the loop enclosing each header's loop.
    parent: Vec<Option<MBlockId>>,
    /// The depth of each header's loop (1 for an outermost loop).
    header_depth: Vec<u32>,
}

impl LoopNest {
    fn new(mf: &MFunction) -> LoopNest {
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

    /// The headers of the loops holding `b`, innermost first.
    fn loops_of(&self, b: MBlockId) -> impl Iterator<Item = MBlockId> + '_ {
        std::iter::successors(self.innermost[b.index()], |h| self.parent[h.index()])
    }

    fn contains(&self, header: MBlockId, b: MBlockId) -> bool {
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

/// Estimated executions of each block per call of the function, for spill costs (0 for
/// unreachable blocks): a block inside loops runs as often as its innermost loop's header,
/// which runs `ROUNDS` times what enters the loop; other blocks run once. What enters a
/// loop follows the edges from the entry: a block passes what reaches it to its successors
/// inside the loops it is in, shared evenly among them and its edges back to a header, and
/// the edges leaving a loop share evenly what entered it; the edges into a loop (to its
/// header or to a block leading only there) take all of a block's flow, as the test
/// guarding a rotated loop mostly enters it. So a loop entered past two other tests in an outer loop
/// weighs a quarter of what it would on the outer loop's every round: what a static weight
/// of 10 per loop depth overstates in a recursive search, whose inner loops run only for
/// the moves that pass the outer loop's tests. Within a loop, both arms of a test keep the
/// header's weight: which one runs more is not known.
pub fn block_frequencies(mf: &MFunction) -> Vec<f64> {
    let n = mf.blocks.len();
    let nest = LoopNest::new(mf);
    // Per header: what entered its loop, and how many edges leave it.
    let mut entered = vec![0.0f64; n];
    let mut exits = vec![0u32; n];
    for b in mf.block_ids() {
        for &s in mf.succs(b) {
            if let Some(h) = nest.left(b, s) {
                exits[h.index()] += 1;
            }
        }
    }
    // What reaches each block along the edges, and what it passes on.
    let mut inflow = vec![0.0f64; n];
    let mut flow = vec![0.0f64; n];
    if n > 0 {
        inflow[0] = 1.0;
    }
    let is_header = |b: MBlockId| nest.innermost[b.index()] == Some(b);
    let order: Vec<MBlockId> = mf.postorder().into_iter().rev().collect();
    for &b in &order {
        flow[b.index()] = if nest.innermost[b.index()] == Some(b) {
            entered[b.index()] = inflow[b.index()];
            inflow[b.index()] * ROUNDS
        } else {
            inflow[b.index()]
        };
        let enters_loop = |s: MBlockId| {
            is_header(s) || matches!(mf.succs(s), [h] if is_header(*h) && !nest.contains(*h, s))
        };
        // The successors in b's loops that share its flow: those entering a loop if any.
        let inside: Vec<MBlockId> = mf
            .succs(b)
            .iter()
            .copied()
            .filter(|&s| nest.left(b, s).is_none())
            .collect();
        let entering = inside.iter().filter(|&&s| enters_loop(s)).count();
        let sharing = if entering > 0 { entering } else { inside.len() };
        for &s in mf.succs(b) {
            let back = is_header(s) && nest.contains(s, b);
            if back {
                continue;
            }
            inflow[s.index()] += match nest.left(b, s) {
                Some(h) => entered[h.index()] / exits[h.index()] as f64,
                None if entering == 0 || enters_loop(s) => flow[b.index()] / sharing as f64,
                None => 0.0,
            };
        }
    }
    let mut freq = vec![0.0f64; n];
    for &b in &order {
        freq[b.index()] = match nest.innermost[b.index()] {
            Some(h) => flow[h.index()],
            None => 1.0,
        };
    }
    freq
}
