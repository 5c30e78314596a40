//! The control-flow analyses on a graph that is not an IR function (as the back end runs
//! them on machine IR): random graphs of plain successor lists, with repeated successors,
//! edges back to the entry and unreachable nodes. Dominators and loop depths agree with
//! their definitions, found by brute force.

mod common;

use common::Rng;
use middle::analysis::{Cfg, DomTree, Graph, LoopInfo, Node};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Vertex(u32);

impl Node for Vertex {
    fn index(self) -> usize {
        self.0 as usize
    }

    fn from_index(index: usize) -> Vertex {
        Vertex(index as u32)
    }
}

/// Successor lists; vertex 0 is the entry.
struct Edges(Vec<Vec<Vertex>>);

impl Graph for Edges {
    type Node = Vertex;

    fn capacity(&self) -> usize {
        self.0.len()
    }

    fn entry(&self) -> Option<Vertex> {
        (!self.0.is_empty()).then_some(Vertex(0))
    }

    fn nodes(&self) -> impl Iterator<Item = Vertex> + '_ {
        (0..self.0.len() as u32).map(Vertex)
    }

    fn successors(&self, n: Vertex) -> &[Vertex] {
        &self.0[n.index()]
    }
}

/// `n` vertices with 0 to 2 successors each, any vertex a possible target (the entry too).
fn random_graph(rng: &mut Rng, n: usize) -> Edges {
    Edges(
        (0..n)
            .map(|_| {
                let count = rng.below(3);
                (0..count).map(|_| Vertex(rng.below(n) as u32)).collect()
            })
            .collect(),
    )
}

/// Whether `to` can be reached from the entry without passing `avoid`.
fn reaches_avoiding(g: &Edges, to: Vertex, avoid: Option<Vertex>) -> bool {
    let mut seen = vec![false; g.0.len()];
    let mut stack = vec![Vertex(0)];
    while let Some(x) = stack.pop() {
        if Some(x) == avoid || seen[x.index()] {
            continue;
        }
        seen[x.index()] = true;
        if x == to {
            return true;
        }
        stack.extend(&g.0[x.index()]);
    }
    false
}

/// Whether `a` dominates `b`, by definition: `b` is reachable, and not without `a`.
fn dominates(g: &Edges, a: Vertex, b: Vertex) -> bool {
    reaches_avoiding(g, b, None) && (a == b || !reaches_avoiding(g, b, Some(a)))
}

/// Per vertex, how many natural loops hold it: for each back edge target `h` (a reachable
/// edge `p -> h` where `h` dominates `p`), the vertices that reach such a `p` without
/// passing through `h`, and `h`.
fn loop_depths(g: &Edges) -> Vec<u32> {
    let n = g.0.len();
    let vertices = || (0..n as u32).map(Vertex);
    let mut depth = vec![0; n];
    for h in vertices() {
        let latches = vertices().filter(|&p| g.0[p.index()].contains(&h) && dominates(g, h, p));
        let mut stack: Vec<Vertex> = latches.collect();
        if stack.is_empty() {
            continue;
        }
        let mut body = vec![false; n];
        body[h.index()] = true;
        while let Some(b) = stack.pop() {
            if !body[b.index()] {
                body[b.index()] = true;
                let preds = vertices().filter(|&p| g.0[p.index()].contains(&b));
                stack.extend(preds.filter(|&p| reaches_avoiding(g, p, None)));
            }
        }
        for (d, inside) in depth.iter_mut().zip(body) {
            *d += inside as u32;
        }
    }
    depth
}

#[test]
fn dominators_and_loops_match_their_definitions_on_plain_graphs() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut deepest = 0;
    for _ in 0..300 {
        let n = 1 + rng.below(20);
        let g = random_graph(&mut rng, n);
        let cfg = Cfg::new(&g);
        let dom = DomTree::new(&cfg);
        let vertices: Vec<Vertex> = (0..n as u32).map(Vertex).collect();
        for &b in &vertices {
            assert_eq!(dom.is_reachable(b), reaches_avoiding(&g, b, None));
            for &a in &vertices {
                assert_eq!(dom.dominates(a, b), dominates(&g, a, b), "{a:?} {b:?}");
            }
            if let Some(i) = dom.idom(b) {
                let strict = vertices.iter().filter(|&&a| a != b && dominates(&g, a, b));
                assert!(strict.clone().any(|&a| a == i));
                assert!(strict.into_iter().all(|&a| dominates(&g, a, i)));
            }
        }
        let loops = LoopInfo::new(&cfg, &dom);
        let depths: Vec<u32> = vertices.iter().map(|&b| loops.depth(b)).collect();
        assert_eq!(depths, loop_depths(&g));
        deepest = deepest.max(depths.into_iter().max().unwrap_or(0));
    }
    assert!(deepest >= 2, "the graphs nest loops");
}
