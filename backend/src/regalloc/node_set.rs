//! A set of graph nodes (small integers below a fixed bound) with constant-time insertion
//! and removal, and iteration in ascending order at a cost proportional to the
//! number of non-empty 64-node words rather than to the bound: a bit per node, plus a
//! summary bit per word telling whether the word has any node.

#[derive(Clone, Debug)]
pub struct NodeSet {
    words: Vec<u64>,
    /// Bit `w` is set iff `words[w]` is not zero.
    summary: Vec<u64>,
}

impl NodeSet {
    pub fn new(bound: usize) -> NodeSet {
        let words = bound.div_ceil(64);
        NodeSet {
            words: vec![0; words],
            summary: vec![0; words.div_ceil(64)],
        }
    }

    /// Adds `node`; returns whether it was new.
    pub fn insert(&mut self, node: usize) -> bool {
        let (w, bit) = (node / 64, 1 << (node % 64));
        let new = self.words[w] & bit == 0;
        self.words[w] |= bit;
        self.summary[w / 64] |= 1 << (w % 64);
        new
    }

    /// Removes `node`; returns whether it was there.
    pub fn remove(&mut self, node: usize) -> bool {
        let (w, bit) = (node / 64, 1 << (node % 64));
        let present = self.words[w] & bit != 0;
        self.words[w] &= !bit;
        if self.words[w] == 0 {
            self.summary[w / 64] &= !(1 << (w % 64));
        }
        present
    }

    /// Removes every node.
    pub fn clear(&mut self) {
        for (s, bits) in self.summary.iter_mut().enumerate() {
            let mut rest = *bits;
            while rest != 0 {
                let w = s * 64 + rest.trailing_zeros() as usize;
                self.words[w] = 0;
                rest &= rest - 1;
            }
            *bits = 0;
        }
    }

    /// The nodes in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.summary.iter().enumerate().flat_map(move |(s, &bits)| {
            ones(bits).flat_map(move |k| {
                let w = s * 64 + k;
                ones(self.words[w]).map(move |bit| w * 64 + bit)
            })
        })
    }
}

/// The positions of the set bits of `bits`, ascending.
fn ones(mut bits: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if bits == 0 {
            return None;
        }
        let bit = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        Some(bit)
    })
}

#[cfg(test)]
mod tests {
    use super::NodeSet;

    #[test]
    fn inserts_removes_and_iterates_in_order() {
        let mut s = NodeSet::new(10_000);
        for n in [9_999, 0, 64, 63, 4_096, 4_095, 5_000] {
            assert!(s.insert(n));
        }
        assert!(!s.insert(64));
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            [0, 63, 64, 4_095, 4_096, 5_000, 9_999]
        );
        assert!(s.remove(64) && s.remove(4_096));
        assert!(!s.remove(7));
        assert_eq!(s.iter().collect::<Vec<_>>(), [0, 63, 4_095, 5_000, 9_999]);
        s.clear();
        assert_eq!(s.iter().count(), 0);
        s.insert(3);
        assert_eq!(s.iter().collect::<Vec<_>>(), [3]);
    }
}
