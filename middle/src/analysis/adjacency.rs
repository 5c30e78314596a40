//! Lists of nodes, one per node, kept in one flat array (compressed sparse rows): a whole
//! graph costs two allocations rather than one or two per node, which matters for functions
//! of tens of thousands of blocks.

use super::graph::Node;

#[derive(Clone, Debug, PartialEq)]
pub struct Adjacency<N> {
    /// The list of node `b` is `items[start[b]..start[b + 1]]`.
    start: Vec<u32>,
    items: Vec<N>,
}

impl<N: Node> Adjacency<N> {
    /// The lists of `n` nodes from (owner, item) pairs, each list in the pairs' order.
    pub fn from_pairs(n: usize, pairs: impl Iterator<Item = (N, N)> + Clone) -> Self {
        let mut start = vec![0u32; n + 1];
        for (owner, _) in pairs.clone() {
            start[owner.index() + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut items = vec![N::from_index(0); start[n] as usize];
        for (owner, item) in pairs {
            let slot = &mut next[owner.index()];
            items[*slot as usize] = item;
            *slot += 1;
        }
        Adjacency { start, items }
    }

    pub fn get(&self, b: N) -> &[N] {
        &self.items[self.start[b.index()] as usize..self.start[b.index() + 1] as usize]
    }
}
