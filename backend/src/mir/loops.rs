//! Loop nesting depth of machine blocks, for spill costs. A loop is natural: an edge
//! `b -> h` where `h` dominates `b` makes `h` a header, whose loop holds every block that
//! reaches such a `b` without passing through `h` (edges to one header make one loop); a
//! block's depth is the number of loops holding it. The depths are those of the IR's loop
//! analysis (`middle::analysis::LoopInfo`) on the same graph, found in time near-linear in
//! its size rather than in the sum of the loops' sizes: headers are visited innermost
//! first, and each loop, once found, is merged into its header (union-find), so that an
//! enclosing loop's backward walk steps over it in one step.

use super::dominators::Dominators;
use super::{MBlockId, MFunction};

/// The loop nesting depth of each block (0 outside loops and for unreachable blocks).
pub fn loop_depths(mf: &MFunction) -> Vec<u32> {
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
    (0..n)
        .map(|b| innermost[b].map_or(0, |h| header_depth[h.index()]))
        .collect()
}
