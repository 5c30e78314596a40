//! Immediate dominators by the Semi-NCA algorithm (Georgiadis; as LLVM computes them):
//! semidominators from a depth-first numbering as in Lengauer and Tarjan (evaluation over
//! a forest with path compression), then each block's immediate dominator as the nearest
//! ancestor of its depth-first parent, in the tree built so far, not numbered above its
//! semidominator. Near-linear where the iterative algorithm of Cooper, Harvey and Kennedy
//! is quadratic: there a loop header with thousands of `continue` predecessors walks the
//! tree from each of them on every pass. `by_number` is the algorithm over any
//! depth-first numbering: the post-dominator tree runs it on the reverse graph.

use super::graph::Node;
use super::Cfg;

const NONE: u32 = u32::MAX;

/// The immediate dominator's index of each node, by node index: the entry's is itself, and
/// unreachable nodes have `u32::MAX`.
pub fn immediate_dominators<N: Node>(cfg: &Cfg<N>) -> Vec<u32> {
    let capacity = cfg.capacity();
    let mut result = vec![NONE; capacity];
    let Some(&entry) = cfg.rpo().first() else {
        return result;
    };
    // Depth-first pre-order: `vertex[v]` is the block numbered `v`, `parent[v]` the
    // number of its parent in the depth-first tree.
    let mut number = vec![NONE; capacity];
    let mut vertex = vec![entry];
    let mut parent = vec![0u32];
    number[entry.index()] = 0;
    let mut stack = vec![(entry, 0usize)];
    while let Some((b, next)) = stack.last_mut() {
        let b = *b;
        let Some(&s) = cfg.succs(b).get(*next) else {
            stack.pop();
            continue;
        };
        *next += 1;
        if number[s.index()] == NONE {
            number[s.index()] = vertex.len() as u32;
            parent.push(number[b.index()]);
            vertex.push(s);
            stack.push((s, 0));
        }
    }
    let idom = by_number(parent, |w| {
        cfg.preds(vertex[w]).iter().map(|p| number[p.index()])
    });
    for (v, &b) in vertex.iter().enumerate() {
        result[b.index()] = vertex[idom[v] as usize].index() as u32;
    }
    result
}

/// The immediate dominator of each vertex of a depth-first numbering, by number (the root,
/// 0, is its own), given each vertex's parent in the depth-first tree and the numbers of
/// its predecessors (`u32::MAX` for those outside the numbering, which are ignored).
pub fn by_number<I: IntoIterator<Item = u32>>(
    parent: Vec<u32>,
    preds: impl Fn(usize) -> I,
) -> Vec<u32> {
    let n = parent.len();
    let mut forest = Forest {
        semi: (0..n as u32).collect(),
        label: (0..n as u32).collect(),
        ancestor: vec![NONE; n],
        path: Vec::new(),
    };
    for w in (1..n).rev() {
        for v in preds(w) {
            if v == NONE {
                continue;
            }
            let u = forest.eval(v);
            let candidate = forest.semi[u as usize];
            if candidate < forest.semi[w] {
                forest.semi[w] = candidate;
            }
        }
        forest.ancestor[w] = parent[w];
    }
    let mut idom = parent;
    for w in 1..n {
        let mut d = idom[w];
        while d > forest.semi[w] {
            d = idom[d as usize];
        }
        idom[w] = d;
    }
    idom
}

/// The forest of processed vertices, each linked to its depth-first parent.
struct Forest {
    /// Semidominator of each vertex (its number until computed).
    semi: Vec<u32>,
    /// A vertex of minimal semidominator on the compressed path above each vertex.
    label: Vec<u32>,
    ancestor: Vec<u32>,
    path: Vec<u32>,
}

impl Forest {
    /// The vertex of minimal semidominator on the path from `v` up to (not including) the
    /// root of its tree; `v` itself for a root. Compresses the path.
    fn eval(&mut self, v: u32) -> u32 {
        if self.ancestor[v as usize] == NONE {
            return v;
        }
        self.path.clear();
        let mut x = v;
        while self.ancestor[self.ancestor[x as usize] as usize] != NONE {
            self.path.push(x);
            x = self.ancestor[x as usize];
        }
        for &y in self.path.iter().rev() {
            let a = self.ancestor[y as usize] as usize;
            if self.semi[self.label[a] as usize] < self.semi[self.label[y as usize] as usize] {
                self.label[y as usize] = self.label[a];
            }
            self.ancestor[y as usize] = self.ancestor[a];
        }
        self.label[v as usize]
    }
}
