//! The spill worklist of the graph colourer as a lazily updated priority queue: the
//! candidate with the least score (ties to the lower node) comes first. Scores change as
//! the graph does; an entry may be out of date, and is checked against the node's current
//! score when it reaches the top: dropped if the node left the worklist, re-queued if its
//! score rose. A score that falls must be pushed anew, which keeps every waiting node's
//! least entry at or below its current score, so the first up-to-date entry found is the
//! true minimum.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

#[derive(Clone, Copy)]
struct Entry {
    score: f64,
    node: u32,
}

impl Ord for Entry {
    fn cmp(&self, other: &Entry) -> Ordering {
        self.score
            .total_cmp(&other.score)
            .then(self.node.cmp(&other.node))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Entry) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Entry) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Entry {}

#[derive(Default)]
pub struct SpillQueue {
    heap: BinaryHeap<Reverse<Entry>>,
}

impl SpillQueue {
    /// Queues `node` with its current score: when it joins the worklist, and whenever its
    /// score falls.
    pub fn push(&mut self, node: usize, score: f64) {
        self.heap.push(Reverse(Entry {
            score,
            node: node as u32,
        }));
    }

    /// Removes and returns the waiting node of least current score, where `current(node)`
    /// is the node's score while it waits and `None` once it has left the worklist.
    pub fn pop_min(&mut self, current: impl Fn(usize) -> Option<f64>) -> Option<usize> {
        while let Some(Reverse(top)) = self.heap.pop() {
            let node = top.node as usize;
            match current(node) {
                None => {}
                Some(score) if score.total_cmp(&top.score).is_eq() => return Some(node),
                Some(score) => self.push(node, score),
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::SpillQueue;

    #[test]
    fn yields_the_least_current_score_and_skips_departed_nodes() {
        let mut scores = vec![Some(5.0), Some(1.0), Some(1.0), Some(f64::INFINITY)];
        let mut q = SpillQueue::default();
        for (n, s) in scores.iter().enumerate() {
            q.push(n, s.unwrap_or(0.0));
        }
        // Node 1's score rises past node 0's; node 2 leaves.
        scores[1] = Some(7.0);
        scores[2] = None;
        let snapshot = scores.clone();
        assert_eq!(q.pop_min(|n| snapshot[n]), Some(0));
        scores[0] = None;
        // Node 3's score falls, so it is pushed again.
        scores[3] = Some(2.0);
        q.push(3, 2.0);
        let snapshot = scores.clone();
        assert_eq!(q.pop_min(|n| snapshot[n]), Some(3));
        scores[3] = None;
        let snapshot = scores.clone();
        assert_eq!(q.pop_min(|n| snapshot[n]), Some(1));
        scores[1] = None;
        assert_eq!(q.pop_min(|n| scores[n]), None);
    }
}
