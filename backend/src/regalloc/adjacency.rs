//! The interference relation of the graph colourer as a set of node pairs with constant-time
//! membership: a bit matrix while it stays small (up to 2^28 bits, 32 MiB), above that a
//! hash set of pairs with a multiplicative hash (the default SipHash costs more than the
//! rest of the graph building together).

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// Nodes up to which the matrix is used.
const MATRIX_NODES: usize = 1 << 14;

pub enum AdjSet {
    Matrix(Vec<u64>, usize),
    Hash(HashSet<u64, BuildHasherDefault<PairHasher>>),
}

impl AdjSet {
    pub fn new(n: usize) -> AdjSet {
        if n <= MATRIX_NODES {
            AdjSet::Matrix(vec![0; (n * n).div_ceil(64)], n)
        } else {
            AdjSet::Hash(HashSet::default())
        }
    }

    pub fn contains(&self, u: usize, v: usize) -> bool {
        match self {
            AdjSet::Matrix(bits, n) => {
                let i = u * n + v;
                bits[i / 64] >> (i % 64) & 1 == 1
            }
            AdjSet::Hash(set) => set.contains(&pair(u, v)),
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
            AdjSet::Hash(set) => {
                set.insert(pair(u, v));
                set.insert(pair(v, u));
            }
        }
    }
}

fn pair(u: usize, v: usize) -> u64 {
    (u as u64) << 32 | v as u64
}

/// Hashes a pair key by a multiplication by an odd constant (the golden ratio), then
/// folds the well-mixed high half into the low half, which alone would depend only on the
/// key's low half and which the hash table uses to pick a bucket.
#[derive(Default)]
pub struct PairHasher(u64);

impl Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0 ^ self.0 >> 32
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

#[cfg(test)]
mod tests {
    use super::AdjSet;

    #[test]
    fn both_representations_hold_symmetric_pairs() {
        for n in [100, (1 << 14) + 1] {
            let mut adj = AdjSet::new(n);
            assert!(matches!(adj, AdjSet::Matrix(..)) == (n <= 1 << 14));
            adj.insert(3, n - 1);
            adj.insert(70, 2);
            assert!(adj.contains(3, n - 1) && adj.contains(n - 1, 3));
            assert!(adj.contains(2, 70) && adj.contains(70, 2));
            assert!(!adj.contains(3, 2) && !adj.contains(n - 1, n - 1));
        }
    }
}
