//! The interference relation of the graph colourer as a set of node pairs, made from the
//! adjacency lists of the built graph and kept in step as coalescing adds edges: a bit
//! matrix while it stays small (up to 2^28 bits, 32 MiB, allocated zeroed so that pages
//! never touched cost nothing), above that each node's neighbours in sorted order,
//! searched by bisection: those found while building in one array of sorted rows, those
//! added later in a sorted list per node. A hash set of pairs cost several times the rest
//! of the graph building: its table misses the cache on nearly every edge.
//!
//! Precoloured nodes (physical registers, below `PHYS_NODES`) have no adjacency lists; the
//! colourer never asks whether two of them interfere.

use super::adj_lists::AdjLists;
use super::liveness::PHYS_NODES;

/// Nodes up to which the matrix is used.
const MATRIX_NODES: usize = 1 << 14;

pub enum AdjSet {
    Matrix(Vec<u64>, usize),
    Sorted {
        /// Node `u`'s neighbours found while building are `built[start[u]..start[u + 1]]`,
        /// ascending.
        start: Vec<u32>,
        built: Vec<u32>,
        /// Per node, the neighbours added since, ascending.
        added: Vec<Vec<u32>>,
    },
}

impl AdjSet {
    /// The relation of `lists` (symmetric, empty for precoloured nodes).
    pub fn new(lists: &AdjLists) -> AdjSet {
        let n = lists.nodes();
        if n <= MATRIX_NODES {
            let mut adj = AdjSet::Matrix(vec![0; (n * n).div_ceil(64)], n);
            for u in 0..n {
                for &v in lists.built(u) {
                    adj.insert(u, v as usize);
                }
            }
            adj
        } else {
            let mut start = Vec::with_capacity(n + 1);
            let mut built = Vec::new();
            start.push(0);
            for u in 0..n {
                let from = built.len();
                built.extend_from_slice(lists.built(u));
                built[from..].sort_unstable();
                start.push(built.len() as u32);
            }
            AdjSet::Sorted {
                start,
                built,
                added: vec![Vec::new(); n],
            }
        }
    }

    pub fn contains(&self, u: usize, v: usize) -> bool {
        match self {
            AdjSet::Matrix(bits, n) => {
                let i = u * n + v;
                bits[i / 64] >> (i % 64) & 1 == 1
            }
            AdjSet::Sorted {
                start,
                built,
                added,
            } => {
                let (a, b) = if u >= PHYS_NODES { (u, v) } else { (v, u) };
                let b = b as u32;
                a < PHYS_NODES
                    || row(start, built, a).binary_search(&b).is_ok()
                    || added[a].binary_search(&b).is_ok()
            }
        }
    }

    /// Adds the pair both ways round.
    pub fn insert(&mut self, u: usize, v: usize) {
        match self {
            AdjSet::Matrix(bits, n) => {
                for i in [u * *n + v, v * *n + u] {
                    bits[i / 64] |= 1 << (i % 64);
                }
            }
            AdjSet::Sorted {
                start,
                built,
                added,
            } => {
                for (a, b) in [(u, v), (v, u)] {
                    let b = b as u32;
                    if a < PHYS_NODES || row(start, built, a).binary_search(&b).is_ok() {
                        continue;
                    }
                    if let Err(k) = added[a].binary_search(&b) {
                        added[a].insert(k, b);
                    }
                }
            }
        }
    }
}

/// Node `a`'s neighbours found while building, in the sorted representation.
fn row<'a>(start: &[u32], built: &'a [u32], a: usize) -> &'a [u32] {
    &built[start[a] as usize..start[a + 1] as usize]
}

#[cfg(test)]
mod tests {
    use super::{AdjLists, AdjSet, MATRIX_NODES, PHYS_NODES};

    #[test]
    fn both_representations_hold_symmetric_pairs() {
        for n in [100, MATRIX_NODES + 1] {
            let (a, b, c) = (PHYS_NODES, PHYS_NODES + 22, n - 1);
            let edges = [(a as u32, c as u32), (a as u32, 3), (c as u32, a as u32)];
            let mut adj = AdjSet::new(&AdjLists::new(n, &edges));
            assert!(matches!(adj, AdjSet::Matrix(..)) == (n <= MATRIX_NODES));
            assert!(adj.contains(a, c) && adj.contains(c, a));
            assert!(adj.contains(a, 3) && adj.contains(3, a));
            assert!(!adj.contains(b, c) && !adj.contains(a, b) && !adj.contains(b, 3));
            adj.insert(b, c);
            adj.insert(5, b);
            adj.insert(a, c);
            assert!(adj.contains(b, c) && adj.contains(c, b));
            assert!(adj.contains(b, 5) && adj.contains(5, b));
            assert!(!adj.contains(a, b));
        }
    }
}
