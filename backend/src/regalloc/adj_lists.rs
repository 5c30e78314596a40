//! The neighbour lists of the graph colourer's interference graph, each in order of
//! discovery without repetitions: the edges found while building are grouped by node into
//! one array (compressed rows), and the neighbours coalescing adds later go into a short
//! list per node after them. A growable list per node from the start cost an allocation or
//! more per node to build and one to free, most of the building on a function of a million
//! registers.
//!
//! Precoloured nodes (physical registers) get no neighbours: the builder leaves them out.

pub struct AdjLists {
    /// Node `u`'s neighbours found while building are `built[start[u]..start[u + 1]]`.
    start: Vec<u32>,
    built: Vec<u32>,
    /// Per node, the neighbours added after building, in order.
    added: Vec<Vec<u32>>,
}

impl AdjLists {
    /// The lists of `n` nodes from `edges`, (node, neighbour) pairs in order of discovery,
    /// perhaps repeated: each list keeps the first occurrence of each neighbour.
    pub fn new(n: usize, edges: &[(u32, u32)]) -> AdjLists {
        let mut start = vec![0u32; n + 1];
        for &(u, _) in edges {
            start[u as usize + 1] += 1;
        }
        for u in 0..n {
            start[u + 1] += start[u];
        }
        let mut next = start.clone();
        let mut built = vec![0u32; edges.len()];
        for &(u, v) in edges {
            built[next[u as usize] as usize] = v;
            next[u as usize] += 1;
        }
        // Drop repeats, moving each list down over the room they took.
        let mut last_seen = vec![u32::MAX; n];
        let mut kept = 0;
        for u in 0..n {
            let (from, to) = (start[u] as usize, start[u + 1] as usize);
            start[u] = kept as u32;
            for k in from..to {
                let v = built[k];
                if std::mem::replace(&mut last_seen[v as usize], u as u32) != u as u32 {
                    built[kept] = v;
                    kept += 1;
                }
            }
        }
        start[n] = kept as u32;
        built.truncate(kept);
        AdjLists {
            start,
            built,
            added: vec![Vec::new(); n],
        }
    }

    /// How many nodes there are.
    pub fn nodes(&self) -> usize {
        self.added.len()
    }

    /// The neighbours of `u` found while building.
    pub fn built(&self, u: usize) -> &[u32] {
        &self.built[self.start[u] as usize..self.start[u + 1] as usize]
    }

    /// The length of `u`'s list.
    pub fn len(&self, u: usize) -> usize {
        (self.start[u + 1] - self.start[u]) as usize + self.added[u].len()
    }

    /// The `k`-th neighbour of `u`.
    pub fn get(&self, u: usize, k: usize) -> usize {
        let built = (self.start[u + 1] - self.start[u]) as usize;
        if k < built {
            self.built[self.start[u] as usize + k] as usize
        } else {
            self.added[u][k - built] as usize
        }
    }

    /// Appends `v` to `u`'s list; the caller knows it is not there yet.
    pub fn push(&mut self, u: usize, v: usize) {
        self.added[u].push(v as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::AdjLists;

    #[test]
    fn lists_keep_first_occurrences_in_order_then_additions() {
        let edges = [(3, 1), (1, 3), (3, 0), (3, 1), (0, 3), (3, 2), (1, 3)];
        let mut lists = AdjLists::new(4, &edges);
        let list = |l: &AdjLists, u| (0..l.len(u)).map(|k| l.get(u, k)).collect::<Vec<_>>();
        assert_eq!(list(&lists, 3), [1, 0, 2]);
        assert_eq!(list(&lists, 1), [3]);
        assert_eq!(list(&lists, 0), [3]);
        assert_eq!(list(&lists, 2), []);
        lists.push(2, 0);
        lists.push(1, 0);
        assert_eq!(list(&lists, 1), [3, 0]);
        assert_eq!(list(&lists, 2), [0]);
        assert_eq!(lists.built(3), [1, 0, 2]);
        assert_eq!(lists.nodes(), 4);
    }
}
