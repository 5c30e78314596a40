//! Dominators of machine blocks, over the stored successor lists: immediate dominators by
//! the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast Dominance
//! Algorithm", 2001) in reverse post-order, then a pre- and post-order numbering of the
//! dominator tree, so that whether one block dominates another is a constant-time test
//! however deep the tree (deeply nested loops make it as deep as the function is long).
//! Blocks unreachable from the entry dominate and are dominated by nothing.

use super::{MBlockId, MFunction};

pub struct Dominators {
    /// The immediate dominator of each reachable block (the entry's is itself).
    idom: Vec<Option<MBlockId>>,
    /// Numbers of each reachable block on entering and on leaving it in a walk of the tree.
    enter: Vec<u32>,
    leave: Vec<u32>,
}

impl Dominators {
    pub fn new(mf: &MFunction) -> Dominators {
        let n = mf.blocks.len();
        let mut rpo = mf.postorder();
        rpo.reverse();
        let mut rpo_index = vec![usize::MAX; n];
        for (k, b) in rpo.iter().enumerate() {
            rpo_index[b.index()] = k;
        }
        let preds = mf.preds();
        let mut idom: Vec<Option<MBlockId>> = vec![None; n];
        if let Some(&entry) = rpo.first() {
            idom[entry.index()] = Some(entry);
        }
        let intersect = |idom: &[Option<MBlockId>], mut a: MBlockId, mut b: MBlockId| {
            while a != b {
                while rpo_index[a.index()] > rpo_index[b.index()] {
                    a = idom[a.index()].unwrap_or(a);
                }
                while rpo_index[b.index()] > rpo_index[a.index()] {
                    b = idom[b.index()].unwrap_or(b);
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new_idom: Option<MBlockId> = None;
                for &p in &preds[b.index()] {
                    if idom[p.index()].is_none() {
                        continue;
                    }
                    new_idom = Some(match new_idom {
                        None => p,
                        Some(d) => intersect(&idom, p, d),
                    });
                }
                if new_idom.is_some() && new_idom != idom[b.index()] {
                    idom[b.index()] = new_idom;
                    changed = true;
                }
            }
        }
        let mut children = vec![Vec::new(); n];
        for &b in rpo.iter().skip(1) {
            if let Some(d) = idom[b.index()] {
                children[d.index()].push(b);
            }
        }
        let (mut enter, mut leave) = (vec![0; n], vec![0; n]);
        let mut clock = 0;
        let mut stack: Vec<(MBlockId, usize)> = rpo.first().map(|&e| (e, 0)).into_iter().collect();
        while let Some(top) = stack.last_mut() {
            let (b, next) = *top;
            if next == 0 {
                clock += 1;
                enter[b.index()] = clock;
            }
            match children[b.index()].get(next) {
                Some(&c) => {
                    top.1 += 1;
                    stack.push((c, 0));
                }
                None => {
                    clock += 1;
                    leave[b.index()] = clock;
                    stack.pop();
                }
            }
        }
        Dominators { idom, enter, leave }
    }

    pub fn is_reachable(&self, b: MBlockId) -> bool {
        self.idom[b.index()].is_some()
    }

    /// The immediate dominator of a reachable block other than the entry.
    pub fn idom(&self, b: MBlockId) -> Option<MBlockId> {
        self.idom[b.index()].filter(|&d| d != b)
    }

    /// Whether `a` dominates `b` (every block dominates itself).
    pub fn dominates(&self, a: MBlockId, b: MBlockId) -> bool {
        self.is_reachable(a)
            && self.is_reachable(b)
            && self.enter[a.index()] <= self.enter[b.index()]
            && self.leave[b.index()] <= self.leave[a.index()]
    }

    /// Reachable blocks in pre-order of the dominator tree: a block before those it
    /// dominates.
    pub fn preorder(&self) -> Vec<MBlockId> {
        let mut order: Vec<MBlockId> = (0..self.idom.len() as u32)
            .map(MBlockId)
            .filter(|&b| self.is_reachable(b))
            .collect();
        order.sort_by_key(|b| self.enter[b.index()]);
        order
    }
}
