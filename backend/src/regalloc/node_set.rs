//! A set of graph nodes (small integers below a fixed bound) with constant-time insertion
//! and removal, and iteration in ascending order at a cost proportional to the number of
//! non-empty 64-node words rather than to the bound: a bit per node, a summary bit per word
//! telling whether the word has any node, and a top bit per summary word likewise (so that
//! a set over a million nodes that is iterated after every instruction does not scan a
//! summary of thousands of bits each time).

#[derive(Clone, Debug)]
pub struct NodeSet {
    words: Vec<u64>,
    /// Bit `w` is set iff `words[w]` is not zero.
    summary: Vec<u64>,
    /// Bit `s` is set iff `summary[s]` is not zero.
    top: Vec<u64>,
}

impl NodeSet {
    pub fn new(bound: usize) -> NodeSet {
        let words = bound.div_ceil(64);
        let summary = words.div_ceil(64);
        NodeSet {
            words: vec![0; words],
            summary: vec![0; summary],
            top: vec![0; summary.div_ceil(64)],
        }
    }

    /// Adds `node`; returns whether it was new.
    pub fn insert(&mut self, node: usize) -> bool {
        let (w, bit) = (node / 64, 1 << (node % 64));
        let new = self.words[w] & bit == 0;
        self.words[w] |= bit;
        self.summary[w / 64] |= 1 << (w % 64);
        self.top[w / 4096] |= 1 << (w / 64 % 64);
        new
    }

    /// Removes `node`; returns whether it was there.
    pub fn remove(&mut self, node: usize) -> bool {
        let (w, bit) = (node / 64, 1 << (node % 64));
        let present = self.words[w] & bit != 0;
        self.words[w] &= !bit;
        if self.words[w] == 0 {
            self.summary[w / 64] &= !(1 << (w % 64));
            if self.summary[w / 64] == 0 {
                self.top[w / 4096] &= !(1 << (w / 64 % 64));
            }
        }
        present
    }

    /// Removes every node.
    pub fn clear(&mut self) {
        for t in 0..self.top.len() {
            for s in ones(std::mem::take(&mut self.top[t])).map(|k| t * 64 + k) {
                for w in ones(std::mem::take(&mut self.summary[s])).map(|k| s * 64 + k) {
                    self.words[w] = 0;
                }
            }
        }
    }

    /// The nodes in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.top.iter().enumerate().flat_map(move |(t, &bits)| {
            ones(bits).flat_map(move |k| {
                let s = t * 64 + k;
                ones(self.summary[s]).flat_map(move |k| {
                    let w = s * 64 + k;
                    ones(self.words[w]).map(move |bit| w * 64 + bit)
                })
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
        let mut s = NodeSet::new(1_000_000);
        for n in [999_999, 0, 64, 63, 4_096, 4_095, 5_000, 262_144, 300_000] {
            assert!(s.insert(n));
        }
        assert!(!s.insert(64));
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            [0, 63, 64, 4_095, 4_096, 5_000, 262_144, 300_000, 999_999]
        );
        assert!(s.remove(64) && s.remove(4_096) && s.remove(262_144));
        assert!(!s.remove(7));
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            [0, 63, 4_095, 5_000, 300_000, 999_999]
        );
        s.clear();
        assert_eq!(s.iter().count(), 0);
        s.insert(3);
        assert_eq!(s.iter().collect::<Vec<_>>(), [3]);
    }
}
