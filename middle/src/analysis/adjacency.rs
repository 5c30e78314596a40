//! Lists of blocks, one per block, kept in one flat array (compressed sparse rows): a whole
//! graph costs two allocations rather than one or two per block, which matters for functions
//! of tens of thousands of blocks.

use crate::ir::Block;

#[derive(Clone, Debug, PartialEq)]
pub struct Adjacency {
    /// The list of block `b` is `items[start[b]..start[b + 1]]`.
    start: Vec<u32>,
    items: Vec<Block>,
}

impl Adjacency {
    /// The lists of `n` blocks from (owner, item) pairs, each list in the pairs' order.
    pub fn from_pairs(n: usize, pairs: impl Iterator<Item = (Block, Block)> + Clone) -> Self {
        let mut start = vec![0u32; n + 1];
        for (owner, _) in pairs.clone() {
            start[owner.index() + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut items = vec![Block(0); start[n] as usize];
        for (owner, item) in pairs {
            let slot = &mut next[owner.index()];
            items[*slot as usize] = item;
            *slot += 1;
        }
        Adjacency { start, items }
    }

    pub fn get(&self, b: Block) -> &[Block] {
        &self.items[self.start[b.index()] as usize..self.start[b.index() + 1] as usize]
    }
}
