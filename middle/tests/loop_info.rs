//! Loop information on handwritten IR, and against natural loops found by brute force on
//! random control-flow graphs.

mod common;

use common::{random_cfg, Rng};
use middle::analysis::{Cfg, DomTree, LoopInfo};
use middle::ir::parser::parse_module;
use middle::ir::{Block, Function};

fn function(text: &str) -> Function {
    parse_module(text).unwrap().functions.remove(0)
}

fn loops_of(f: &Function) -> LoopInfo {
    let cfg = Cfg::new(f);
    LoopInfo::new(&cfg, &DomTree::new(&cfg))
}

fn blocks(ids: &[u32]) -> Vec<Block> {
    ids.iter().map(|&b| Block(b)).collect()
}

const NESTED: &str = "func @f(%a0: i1) -> void {
bb0:
  br bb1
bb1:
  condbr %a0, bb2, bb5
bb2:
  condbr %a0, bb3, bb4
bb3:
  br bb2
bb4:
  br bb1
bb5:
  ret
}
";

#[test]
fn nested_loops_know_their_shape() {
    let f = function(NESTED);
    let li = loops_of(&f);
    assert_eq!(li.loops.len(), 2);
    let (outer, inner) = (&li.loops[0], &li.loops[1]);
    assert_eq!(outer.header, Block(1));
    assert_eq!(outer.blocks, blocks(&[1, 4]));
    assert_eq!(li.blocks_of(0), blocks(&[1, 4, 2, 3]));
    assert_eq!(outer.latches, blocks(&[4]));
    assert_eq!(outer.exits, blocks(&[5]));
    assert_eq!(outer.exiting, blocks(&[1]));
    assert_eq!(outer.preheader, Some(Block(0)));
    assert_eq!((outer.parent, outer.depth), (None, 1));
    assert_eq!(outer.children, [1]);

    assert_eq!(inner.header, Block(2));
    assert_eq!(inner.blocks, blocks(&[2, 3]));
    assert_eq!(li.blocks_of(1), blocks(&[2, 3]));
    assert_eq!(inner.latches, blocks(&[3]));
    assert_eq!(inner.exits, blocks(&[4]));
    assert_eq!(inner.exiting, blocks(&[2]));
    // bb1 also branches to bb5, so it is no preheader.
    assert_eq!(inner.preheader, None);
    assert_eq!((inner.parent, inner.depth), (Some(0), 2));
    assert!(inner.children.is_empty());

    assert_eq!(li.innermost(Block(3)), Some(1));
    assert_eq!(li.innermost(Block(4)), Some(0));
    assert_eq!(li.innermost(Block(5)), None);
    assert!(li.contains(0, Block(3)));
    assert!(!li.contains(1, Block(4)));
    assert!(!li.contains(0, Block(0)));
    let depths: Vec<u32> = f.blocks().map(|b| li.depth(b)).collect();
    assert_eq!(depths, [0, 1, 2, 2, 1, 0]);
}

#[test]
fn continue_and_break_give_two_latches_and_two_exits() {
    let f = function(
        "func @f(%a0: i1) -> void {
bb0:
  br bb1
bb1:
  condbr %a0, bb2, bb5
bb2:
  condbr %a0, bb1, bb3
bb3:
  condbr %a0, bb6, bb4
bb4:
  br bb1
bb5:
  br bb6
bb6:
  ret
}
",
    );
    let li = loops_of(&f);
    assert_eq!(li.loops.len(), 1);
    let l = &li.loops[0];
    assert_eq!(l.latches, blocks(&[2, 4]));
    assert_eq!(l.blocks, blocks(&[1, 2, 3, 4]));
    assert_eq!(l.exits, blocks(&[5, 6]));
    assert_eq!(l.exiting, blocks(&[1, 3]));
    assert_eq!(l.preheader, Some(Block(0)));
}

#[test]
fn a_self_loop_is_its_own_latch() {
    let f = function(
        "func @f(%a0: i1) -> void {
bb0:
  br bb1
bb1:
  condbr %a0, bb1, bb2
bb2:
  ret
}
",
    );
    let li = loops_of(&f);
    let l = &li.loops[0];
    assert_eq!(
        (&l.blocks, &l.latches, &l.exits, &l.exiting),
        (&blocks(&[1]), &blocks(&[1]), &blocks(&[2]), &blocks(&[1]))
    );
}

#[test]
fn an_edge_out_of_two_loops_is_an_exit_of_both() {
    // The inner loop (bb2, bb3) can leave both loops from bb3, straight to bb5.
    let f = function(
        "func @f(%a0: i1) -> void {
bb0:
  br bb1
bb1:
  condbr %a0, bb2, bb5
bb2:
  condbr %a0, bb3, bb4
bb3:
  condbr %a0, bb2, bb5
bb4:
  br bb1
bb5:
  ret
}
",
    );
    let li = loops_of(&f);
    assert_eq!(li.loops[0].exits, blocks(&[5]));
    assert_eq!(li.loops[0].exiting, blocks(&[1, 3]));
    assert_eq!(li.loops[1].exits, blocks(&[4, 5]));
    assert_eq!(li.loops[1].exiting, blocks(&[2, 3]));
}

#[test]
fn sibling_loops_share_a_parent_and_a_header_with_two_entries_has_no_preheader() {
    let f = function(
        "func @f(%a0: i1) -> void {
bb0:
  condbr %a0, bb1, bb2
bb1:
  br bb2
bb2:
  condbr %a0, bb3, bb4
bb3:
  condbr %a0, bb3, bb2
bb4:
  condbr %a0, bb4, bb5
bb5:
  condbr %a0, bb2, bb6
bb6:
  ret
}
",
    );
    let li = loops_of(&f);
    let headers: Vec<Block> = li.loops.iter().map(|l| l.header).collect();
    assert_eq!(headers, blocks(&[2, 4, 3]));
    assert_eq!(li.loops[0].children, [1, 2]);
    assert_eq!(li.loops[1].parent, Some(0));
    assert_eq!(li.loops[2].parent, Some(0));
    assert_eq!(li.loops[0].preheader, None);
    assert_eq!(li.loops[0].latches, blocks(&[3, 5]));
    assert_eq!(li.loops[1].preheader, None);
    assert_eq!(li.loops[2].preheader, None);
    assert_eq!(li.blocks_of(0).len(), 4);
}

#[test]
fn unreachable_cycles_are_no_loops() {
    let f = function(
        "func @f() -> void {
bb0:
  ret
bb1:
  br bb2
bb2:
  br bb1
}
",
    );
    let li = loops_of(&f);
    assert!(li.loops.is_empty());
    assert_eq!(li.depth(Block(1)), 0);
}

#[test]
fn a_recomputed_loop_info_is_equal() {
    let f = function(NESTED);
    assert_eq!(loops_of(&f), loops_of(&f));
}

fn random_function(rng: &mut Rng, n: usize) -> Function {
    function(&random_cfg(rng, n, 8))
}

/// Natural loops the obvious way: for each header in dominator-tree pre-order, the set of
/// blocks reaching a latch without passing through the header.
fn brute_force(f: &Function, cfg: &Cfg, dom: &DomTree) -> Vec<(Block, Vec<bool>)> {
    let n = f.block_capacity();
    let mut loops = Vec::new();
    for &h in dom.preorder() {
        let mut stack: Vec<Block> = cfg
            .preds(h)
            .iter()
            .copied()
            .filter(|&p| dom.dominates(h, p))
            .collect();
        if stack.is_empty() {
            continue;
        }
        let mut set = vec![false; n];
        set[h.index()] = true;
        while let Some(b) = stack.pop() {
            if !set[b.index()] {
                set[b.index()] = true;
                stack.extend(cfg.preds(b).iter().filter(|p| cfg.is_reachable(**p)));
            }
        }
        loops.push((h, set));
    }
    loops
}

#[test]
fn loops_match_brute_force_on_random_graphs() {
    let mut rng = Rng(11);
    let mut seen_loops = 0;
    for round in 0..300 {
        let n = 2 + rng.below(25);
        let f = random_function(&mut rng, n);
        let cfg = Cfg::new(&f);
        let dom = DomTree::new(&cfg);
        let li = LoopInfo::new(&cfg, &dom);
        let expected = brute_force(&f, &cfg, &dom);
        assert_eq!(li.loops.len(), expected.len(), "round {round}");
        seen_loops += expected.len();
        for (k, (h, set)) in expected.iter().enumerate() {
            let l = &li.loops[k];
            assert_eq!(l.header, *h, "round {round}");
            assert_eq!(li.blocks_of(k)[0], *h);
            let mut got = vec![false; f.block_capacity()];
            for &b in li.blocks_of(k) {
                assert!(!got[b.index()], "round {round}: {b:?} listed twice");
                got[b.index()] = true;
            }
            assert_eq!(&got, set, "round {round}: blocks of loop {k}");
            // The parent is the innermost earlier loop holding the header.
            let parent = expected[..k].iter().rposition(|(_, s)| s[h.index()]);
            assert_eq!(l.parent, parent, "round {round}");
            let inside = |b: Block| set[b.index()];
            let mut exits: Vec<Block> = Vec::new();
            let mut exiting: Vec<Block> = Vec::new();
            for &u in cfg.rpo().iter().filter(|&&u| inside(u)) {
                for &s in cfg.succs(u).iter().filter(|&&s| !inside(s)) {
                    if !exits.contains(&s) {
                        exits.push(s);
                    }
                    if !exiting.contains(&u) {
                        exiting.push(u);
                    }
                }
            }
            exits.sort_by_key(|&b| cfg.rpo_index(b));
            assert_eq!(l.exits, exits, "round {round}");
            assert_eq!(l.exiting, exiting, "round {round}");
            let latches: Vec<Block> = cfg
                .preds(*h)
                .iter()
                .copied()
                .filter(|&p| inside(p))
                .collect();
            assert_eq!(l.latches, latches, "round {round}");
        }
        for &b in cfg.rpo() {
            let holding = expected.iter().filter(|(_, s)| s[b.index()]).count();
            assert_eq!(li.depth(b) as usize, holding, "round {round}");
        }
    }
    assert!(
        seen_loops > 300,
        "the graphs should have loops: {seen_loops}"
    );
}
