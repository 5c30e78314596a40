//! The post-dominator tree on handwritten IR, and against post-dominator sets computed by
//! brute force on random control-flow graphs.

mod common;

use common::{random_cfg, Rng};
use middle::analysis::{Cfg, PostDomTree};
use middle::ir::parser::parse_module;
use middle::ir::{Block, Function, Module};

fn parse(text: &str) -> Module {
    parse_module(text).unwrap()
}

fn tree(m: &Module) -> PostDomTree {
    let f = &m.functions[0];
    PostDomTree::new(f, &Cfg::new(f))
}

const DIAMOND: &str = "func @f(%a0: i1) -> void {
bb0:
  condbr %a0, bb1, bb2
bb1:
  br bb3
bb2:
  br bb3
bb3:
  ret
}
";

#[test]
fn a_diamond_is_post_dominated_by_its_join() {
    let m = parse(DIAMOND);
    let t = tree(&m);
    assert_eq!(t.ipdom(Block(0)), Some(Block(3)));
    assert_eq!(t.ipdom(Block(1)), Some(Block(3)));
    assert_eq!(t.ipdom(Block(2)), Some(Block(3)));
    assert_eq!(t.ipdom(Block(3)), None);
    assert_eq!(t.roots(), [Block(3)]);
    assert!(t.post_dominates(Block(3), Block(0)));
    assert!(t.post_dominates(Block(0), Block(0)));
    assert!(!t.post_dominates(Block(1), Block(0)));
    assert!(!t.post_dominates(Block(0), Block(3)));
    assert_eq!(t.level(Block(3)), 0);
    assert_eq!(t.level(Block(1)), 1);
    assert_eq!(t.children(Block(3)), [Block(1), Block(0), Block(2)]);
    assert_eq!(t.preorder()[0], Block(3));
    assert_eq!(t.preorder().len(), 4);
    assert_eq!(t.common_post_dominator(Block(1), Block(2)), Some(Block(3)));
}

#[test]
fn separate_returns_meet_only_at_the_virtual_exit() {
    let m = parse(
        "func @f(%a0: i1) -> void {
bb0:
  condbr %a0, bb1, bb2
bb1:
  ret
bb2:
  ret
}
",
    );
    let t = tree(&m);
    assert_eq!(t.ipdom(Block(0)), None);
    assert_eq!(t.ipdom(Block(1)), None);
    assert_eq!(t.exit_predecessors(), [Block(2), Block(1)]);
    assert_eq!(t.roots(), [Block(2), Block(0), Block(1)]);
    assert!(!t.post_dominates(Block(1), Block(0)));
    assert_eq!(t.common_post_dominator(Block(1), Block(2)), None);
}

#[test]
fn a_while_loop_header_post_dominates_its_body() {
    let m = parse(
        "func @f(%a0: i1) -> void {
bb0:
  br bb1
bb1:
  condbr %a0, bb2, bb3
bb2:
  br bb1
bb3:
  ret
}
",
    );
    let t = tree(&m);
    assert_eq!(t.ipdom(Block(2)), Some(Block(1)));
    assert_eq!(t.ipdom(Block(1)), Some(Block(3)));
    assert_eq!(t.ipdom(Block(0)), Some(Block(1)));
    assert!(t.post_dominates(Block(1), Block(2)));
    assert!(t.post_dominates(Block(3), Block(2)));
    assert!(!t.post_dominates(Block(2), Block(1)));
    assert_eq!(t.level(Block(2)), 2);
}

#[test]
fn an_infinite_loop_is_attached_at_the_end_of_its_body() {
    let m = parse(
        "func @f() -> void {
bb0:
  br bb1
bb1:
  br bb2
bb2:
  br bb1
}
",
    );
    let t = tree(&m);
    assert_eq!(t.roots(), [Block(2)]);
    assert_eq!(t.exit_predecessors(), [Block(2)]);
    assert_eq!(t.ipdom(Block(1)), Some(Block(2)));
    assert_eq!(t.ipdom(Block(0)), Some(Block(1)));
    assert!(t.post_dominates(Block(2), Block(0)));
}

#[test]
fn a_branch_to_an_infinite_loop_or_a_return_has_the_virtual_exit_as_post_dominator() {
    let m = parse(
        "func @f(%a0: i1) -> void {
bb0:
  condbr %a0, bb1, bb3
bb1:
  br bb2
bb2:
  br bb1
bb3:
  ret
}
",
    );
    let t = tree(&m);
    assert_eq!(t.exit_predecessors(), [Block(3), Block(2)]);
    assert_eq!(t.roots(), [Block(3), Block(0), Block(2)]);
    assert_eq!(t.ipdom(Block(0)), None);
    assert_eq!(t.ipdom(Block(1)), Some(Block(2)));
    assert!(!t.post_dominates(Block(3), Block(0)));
}

#[test]
fn unreachable_blocks_are_outside_the_tree() {
    let m = parse(
        "func @f() -> void {
bb0:
  br bb2
bb1:
  br bb2
bb2:
  ret
}
",
    );
    let t = tree(&m);
    assert!(!t.is_reachable(Block(1)));
    assert_eq!(t.ipdom(Block(1)), None);
    assert!(!t.post_dominates(Block(2), Block(1)));
    assert_eq!(t.children(Block(2)), [Block(0)]);
}

#[test]
fn a_recomputed_tree_is_equal() {
    let m = parse(DIAMOND);
    assert_eq!(tree(&m), tree(&m));
}

/// A function of `n` blocks, each ending in `ret` (about one in six), `br` or `condbr` to
/// random blocks other than the entry.
fn random_function(rng: &mut Rng, n: usize) -> Function {
    parse(&random_cfg(rng, n, 6)).functions.remove(0)
}

/// Post-dominator sets by the textbook dataflow over reachable blocks, with the tree's
/// exit predecessors as the blocks leading to the virtual exit: `pdom(b) = {b} ∪ ⋂ pdom(successors)`.
fn brute_force(f: &Function, cfg: &Cfg, roots: &[Block]) -> Vec<Vec<bool>> {
    let n = f.block_capacity();
    let mut sets = vec![vec![true; n]; n];
    let mut changed = true;
    while changed {
        changed = false;
        for &b in cfg.rpo().iter().rev() {
            let mut set = vec![!roots.contains(&b); n];
            for &s in cfg.succs(b) {
                for (x, y) in set.iter_mut().zip(&sets[s.index()]) {
                    *x &= *y;
                }
            }
            set[b.index()] = true;
            if set != sets[b.index()] {
                sets[b.index()] = set;
                changed = true;
            }
        }
    }
    sets
}

#[test]
fn post_dominance_matches_brute_force_on_random_graphs() {
    let mut rng = Rng(7);
    for round in 0..300 {
        let n = 2 + rng.below(25);
        let f = random_function(&mut rng, n);
        let cfg = Cfg::new(&f);
        let t = PostDomTree::new(&f, &cfg);
        let sets = brute_force(&f, &cfg, t.exit_predecessors());
        for &b in cfg.rpo() {
            for &a in cfg.rpo() {
                assert_eq!(
                    t.post_dominates(a, b),
                    sets[b.index()][a.index()],
                    "round {round}: does {a:?} post-dominate {b:?}?"
                );
            }
            // The immediate post-dominator is the nearest strict one.
            if let Some(p) = t.ipdom(b) {
                assert!(sets[b.index()][p.index()] && p != b);
                assert_eq!(t.level(b), t.level(p) + 1);
            }
        }
        // Exactly the returning blocks come first among the exit predecessors.
        let returns: Vec<Block> = cfg
            .rpo()
            .iter()
            .copied()
            .filter(|&b| cfg.succs(b).is_empty())
            .collect();
        assert_eq!(t.exit_predecessors()[..returns.len()], returns[..]);
        assert_eq!(t.preorder().len(), cfg.rpo().len());
    }
}
