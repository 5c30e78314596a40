//! The interference relation of the graph colourer as a set of node pairs, made from the
//! adjacency lists of the built graph and kept in step as coalescing adds edges: a bit
//! matrix while it stays small (up to 2^28 bits, 32 MiB, allocated zeroed so that pages
//! never touched cost nothing), above that each node's neighbours in a sorted list,
//! searched by bisection. A hash set of pairs cost several times the rest of the graph
//! building: its table misses the cache on nearly every edge.
//!
//! Precoloured nodes (physical registers, below `PHYS_NODES`) have no adjacency lists; the
//! colourer never asks whether two of them interfere.

use super::liveness::PHYS_NODES;

/// Nodes up to which the matrix is used.
const MATRIX_NODES: usize = 1 << 14;

pub enum AdjSet {
    Matrix(Vec<u64>, usize),
    Sorted(Vec<Vec<u32>>),
}

impl AdjSet {
    /// The relation of `lists`, the neighbours of each node (symmetric, without
    /// repetitions, empty for precoloured nodes).
    pub fn new(lists: &[Vec<u32>]) -> AdjSet {
        let n = lists.len();
        if n <= MATRIX_NODES {
            let mut adj = AdjSet::Matrix(vec![0; (n * n).div_ceil(64)], n);
            for (u, list) in lists.iter().enumerate() {
                for &v in list {
                    adj.insert(u, v as usize);
                }
            }
            adj
        } else {
            let mut sorted = lists.to_vec();
            for list in &mut sorted {
                list.sort_unstable();
            }
            AdjSet::Sorted(sorted)
        }
    }

    pub fn contains(&self, u: usize, v: usize) -> bool {
        match self {
            AdjSet::Matrix(bits, n) => {
                let i = u * n + v;
                bits[i / 64] >> (i % 64) & 1 == 1
            }
            AdjSet::Sorted(lists) => {
                let (a, b) = if u >= PHYS_NODES { (u, v) } else { (v, u) };
                a < PHYS_NODES || lists[a].binary_search(&(b as u32)).is_ok()
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
            AdjSet::Sorted(lists) => {
                for (a, b) in [(u, v), (v, u)] {
                    if a >= PHYS_NODES {
                        if let Err(k) = lists[a].binary_search(&(b as u32)) {
                            lists[a].insert(k, b as u32);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{AdjSet, MATRIX_NODES, PHYS_NODES};

    #[test]
    fn both_representations_hold_symmetric_pairs() {
        for n in [100, MATRIX_NODES + 1] {
            let (a, b, c) = (PHYS_NODES, PHYS_NODES + 22, n - 1);
            let mut lists = vec![Vec::new(); n];
            lists[a] = vec![c as u32, 3];
            lists[c] = vec![a as u32];
            let mut adj = AdjSet::new(&lists);
            assert!(matches!(adj, AdjSet::Matrix(..)) == (n <= MATRIX_NODES));
            assert!(adj.contains(a, c) && adj.contains(c, a));
            assert!(adj.contains(a, 3) && adj.contains(3, a));
            assert!(!adj.contains(b, c) && !adj.contains(a, b) && !adj.contains(b, 3));
            adj.insert(b, c);
            adj.insert(5, b);
            assert!(adj.contains(b, c) && adj.contains(c, b));
            assert!(adj.contains(b, 5) && adj.contains(5, b));
            assert!(!adj.contains(a, b));
        }
    }
}
