//! The graph the control-flow analyses need of a function: numbered nodes, an entry and
//! each node's successors. The IR's functions provide it here and the back end's machine
//! functions in their own crate, so that one `Cfg` (predecessors, reverse post-order), one
//! dominator tree, one iterated-dominance-frontier walk and one loop forest serve both.
//! The analyses are generic over the node type, not boxed: each kind of graph gets its own
//! compiled copy.

use crate::ir::{Block, Function};
use std::fmt::Debug;

/// A node of a graph: a small index into the graph's arrays.
pub trait Node: Copy + Ord + Debug {
    fn index(self) -> usize;
    fn from_index(index: usize) -> Self;
}

/// A directed graph with an entry, whose nodes have indices below `capacity`.
pub trait Graph {
    type Node: Node;
    /// One more than the largest node index.
    fn capacity(&self) -> usize;
    /// Where every path starts; `None` for an empty graph.
    fn entry(&self) -> Option<Self::Node>;
    /// Every node, in the order in which each node's predecessors are to be listed.
    fn nodes(&self) -> impl Iterator<Item = Self::Node> + '_;
    /// The node's successors in order; a node may appear more than once.
    fn successors(&self, n: Self::Node) -> &[Self::Node];
}

impl Node for Block {
    fn index(self) -> usize {
        self.0 as usize
    }

    fn from_index(index: usize) -> Block {
        Block(index as u32)
    }
}

/// A function's blocks in layout order, with its terminators' targets as successors.
impl Graph for Function {
    type Node = Block;

    fn capacity(&self) -> usize {
        self.block_capacity()
    }

    fn entry(&self) -> Option<Block> {
        Function::entry(self)
    }

    fn nodes(&self) -> impl Iterator<Item = Block> + '_ {
        self.blocks()
    }

    fn successors(&self, b: Block) -> &[Block] {
        Function::successors(self, b)
    }
}
