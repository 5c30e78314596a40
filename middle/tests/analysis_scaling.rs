//! The control-flow analyses on functions with 10,000 nested loops and 10,000 nested
//! if/else statements: they must finish quickly (the times are printed, not asserted) and
//! give the expected shapes.

use middle::analysis::{Cfg, DomTree, LoopInfo, PostDomTree};
use middle::ir::parser::parse_module;
use middle::ir::{Block, Function};
use std::time::Instant;

const DEPTH: u32 = 10_000;

/// `bb0` enters loop 1; loop `k` (1-based) has header `4k-3`, body entry `4k-2` (entering
/// loop `k+1`), latch `4k-1` and exit `4k` (which goes on to the latch of loop `k-1`).
fn nested_loops(depth: u32) -> Function {
    let mut text = String::from("func @f(%a0: i1) -> void {\nbb0:\n  br bb1\n");
    for k in 1..=depth {
        let (h, body, latch, exit) = (4 * k - 3, 4 * k - 2, 4 * k - 1, 4 * k);
        text += &format!("bb{h}:\n  condbr %a0, bb{body}, bb{exit}\n");
        let inner = if k < depth { h + 4 } else { latch };
        text += &format!("bb{body}:\n  br bb{inner}\n");
        text += &format!("bb{latch}:\n  br bb{h}\n");
        if k == 1 {
            text += &format!("bb{exit}:\n  ret\n");
        } else {
            text += &format!("bb{exit}:\n  br bb{}\n", latch - 4);
        }
    }
    text += "}\n";
    parse_module(&text).unwrap().functions.remove(0)
}

/// Level `k` (1-based) tests in `4k-3`, has its then-branch `4k-2` (holding level `k+1`),
/// its else-branch `4k-1` and its join `4k` (which goes on to the join of level `k-1`).
fn nested_ifs(depth: u32) -> Function {
    let mut text = String::from("func @f(%a0: i1) -> void {\nbb0:\n  br bb1\n");
    for k in 1..=depth {
        let (test, then, other, join) = (4 * k - 3, 4 * k - 2, 4 * k - 1, 4 * k);
        text += &format!("bb{test}:\n  condbr %a0, bb{then}, bb{other}\n");
        let inner = if k < depth { test + 4 } else { join };
        text += &format!("bb{then}:\n  br bb{inner}\n");
        text += &format!("bb{other}:\n  br bb{join}\n");
        if k == 1 {
            text += &format!("bb{join}:\n  ret\n");
        } else {
            text += &format!("bb{join}:\n  br bb{}\n", join - 4);
        }
    }
    text += "}\n";
    parse_module(&text).unwrap().functions.remove(0)
}

fn timed<T>(what: &str, run: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let result = run();
    println!("{what}: {:.2} ms", start.elapsed().as_secs_f64() * 1e3);
    result
}

#[test]
fn ten_thousand_nested_loops() {
    let f = nested_loops(DEPTH);
    let cfg = timed("nested loops: cfg", || Cfg::new(&f));
    let dom = timed("nested loops: dominator tree", || DomTree::new(&cfg));
    let li = timed("nested loops: loop info", || LoopInfo::new(&cfg, &dom));
    let pdom = timed("nested loops: post-dominator tree", || {
        PostDomTree::new(&f, &cfg)
    });
    assert_eq!(li.loops.len(), DEPTH as usize);
    let innermost = &li.loops[DEPTH as usize - 1];
    assert_eq!(innermost.header, Block(4 * DEPTH - 3));
    assert_eq!(innermost.depth, DEPTH);
    assert_eq!(li.depth(Block(4 * DEPTH - 1)), DEPTH);
    assert_eq!(li.blocks_of(0).len(), 4 * DEPTH as usize - 1);
    assert_eq!(li.loops[1].parent, Some(0));
    assert_eq!(li.loops[1].exits, [Block(8)]);
    assert_eq!(li.loops[1].preheader, Some(Block(2)));
    // A loop's header is post-dominated by its exit.
    assert_eq!(pdom.ipdom(Block(5)), Some(Block(8)));
    // Header k, exit k, latch k-1, header k-1, ...: three levels per loop.
    assert_eq!(pdom.level(Block(4 * DEPTH - 3)), 3 * DEPTH - 2);
}

#[test]
fn ten_thousand_nested_ifs() {
    let f = nested_ifs(DEPTH);
    let cfg = timed("nested ifs: cfg", || Cfg::new(&f));
    let dom = timed("nested ifs: dominator tree", || DomTree::new(&cfg));
    let li = timed("nested ifs: loop info", || LoopInfo::new(&cfg, &dom));
    let pdom = timed("nested ifs: post-dominator tree", || {
        PostDomTree::new(&f, &cfg)
    });
    assert!(li.loops.is_empty());
    for k in [1, 2, DEPTH / 2, DEPTH] {
        assert_eq!(pdom.ipdom(Block(4 * k - 3)), Some(Block(4 * k)));
    }
    assert_eq!(pdom.ipdom(Block(8)), Some(Block(4)));
    assert!(pdom.post_dominates(Block(4), Block(4 * DEPTH - 2)));
    assert_eq!(dom.idom(Block(4 * DEPTH)), Some(Block(4 * DEPTH - 3)));
}
