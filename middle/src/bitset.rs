//! A fixed-size set of small integers, one bit each.

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    pub fn new(size: usize) -> BitSet {
        BitSet {
            words: vec![0; size.div_ceil(64)],
        }
    }

    pub fn contains(&self, i: usize) -> bool {
        self.words
            .get(i / 64)
            .is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    /// Adds `i`; returns whether it was new.
    pub fn insert(&mut self, i: usize) -> bool {
        let w = &mut self.words[i / 64];
        let bit = 1u64 << (i % 64);
        let new = *w & bit == 0;
        *w |= bit;
        new
    }

    pub fn remove(&mut self, i: usize) {
        self.words[i / 64] &= !(1u64 << (i % 64));
    }

    /// Adds every element of `other`; returns whether anything was new.
    pub fn union_with(&mut self, other: &BitSet) -> bool {
        let mut changed = false;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            let new = *a | b;
            changed |= new != *a;
            *a = new;
        }
        changed
    }

    /// Removes every element of `other`.
    pub fn subtract(&mut self, other: &BitSet) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= !b;
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(k, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let bit = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(k * 64 + bit)
            })
        })
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::BitSet;

    #[test]
    fn set_operations() {
        let mut a = BitSet::new(200);
        assert!(a.insert(3) && a.insert(64) && a.insert(199));
        assert!(!a.insert(3));
        let mut b = BitSet::new(200);
        b.insert(64);
        b.insert(100);
        assert!(a.union_with(&b));
        assert!(!a.union_with(&b));
        assert_eq!(a.iter().collect::<Vec<_>>(), [3, 64, 100, 199]);
        a.subtract(&b);
        assert_eq!(a.iter().collect::<Vec<_>>(), [3, 199]);
        a.remove(3);
        assert!(!a.contains(3) && a.contains(199));
        assert!(BitSet::new(10).is_empty());
    }
}
