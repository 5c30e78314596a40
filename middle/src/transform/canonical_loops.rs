//! Putting a function's loops in the canonical form the loop passes expect: a preheader,
//! a single latch and dedicated exits, each made by sending edges through a new block. For
//! the `loop-simplify` pass, which says what each form is for, and for `loop-unroll`'s
//! clean-up.
//!
//! Each time the target's phis take, from the new block, the value they took from the
//! redirected blocks: that value itself when it is the same from all of them, else a new
//! phi in the new block. (The entry block has no predecessors, so it heads no loop and a
//! header always has a block before it.) `simplify-cfg` removes the new blocks again when they
//! are still empty and nothing needs them.
//!
//! Preheaders and latches are made on the analyses taken at the start: a new block only
//! ever gains the header of one loop as its successor, so the predecessors of other loops'
//! headers do not change. Exits are split on fresh analyses, innermost loops first: an exit
//! block made for an inner loop lies inside every loop around that one, and edges already
//! redirected no longer count.

use crate::analysis::{FunctionAnalyses, Preserved};
use crate::ir::{Block, Function, Inst, InstKind, Type, Value};

/// Gives every loop of `f` a preheader, a single latch and exits of its own; returns
/// whether it changed anything.
pub fn canonicalize_loops(f: &mut Function, analyses: &mut FunctionAnalyses) -> bool {
    let cfg = analyses.cfg(f);
    let loops = analyses.loops(f);
    let mut changed = false;
    for (k, lp) in loops.loops.iter().enumerate() {
        let h = lp.header;
        let (inside, outside): (Vec<Block>, Vec<Block>) =
            cfg.preds(h).iter().partition(|&&p| loops.contains(k, p));
        if lp.preheader.is_none() && !outside.is_empty() {
            let before = f.prev_block(h).expect("a header is not the entry");
            redirect(f, h, &outside, before);
            changed = true;
        }
        if inside.len() > 1 {
            let last = *inside
                .iter()
                .max_by_key(|&&b| cfg.rpo_index(b))
                .expect("several latches");
            redirect(f, h, &inside, last);
            changed = true;
        }
    }
    if changed {
        analyses.invalidate(Preserved::Nothing);
    }
    let cfg = analyses.cfg(f);
    let loops = analyses.loops(f);
    // Blocks made below that jump to each exit, with the loop they were made for: they
    // are inside every loop that contains that one.
    let mut made: Vec<Vec<(Block, usize)>> = vec![Vec::new(); f.block_capacity()];
    for k in (0..loops.loops.len()).rev() {
        let inside_k = |j: usize| loops.contains(k, loops.loops[j].header);
        for &e in &loops.loops[k].exits {
            let jumps_to_e = |p: &Block| f.successors(*p).contains(&e);
            let (mut inside, mut outside): (Vec<Block>, Vec<Block>) = cfg
                .preds(e)
                .iter()
                .filter(|p| jumps_to_e(p))
                .partition(|&&p| loops.contains(k, p));
            for &(b, j) in &made[e.index()] {
                if inside_k(j) {
                    &mut inside
                } else {
                    &mut outside
                }
                .push(b);
            }
            if inside.is_empty() || outside.is_empty() {
                continue;
            }
            let last = *inside
                .last()
                .expect("a block of the loop jumps to its exit");
            let n = redirect(f, e, &inside, last);
            made[e.index()].retain(|&(b, _)| !inside.contains(&b));
            made[e.index()].push((n, k));
            changed = true;
        }
    }
    changed
}

/// Sends the edges from `preds` to `h` through a new block placed after `after`, which it
/// returns.
fn redirect(f: &mut Function, h: Block, preds: &[Block], after: Block) -> Block {
    let mut sorted = preds.to_vec();
    sorted.sort_unstable();
    let n = f.create_block();
    f.insert_block_after(n, after);
    for &p in preds {
        let Some(term) = f.terminator(p) else {
            continue;
        };
        f.replace_target(term, h, n);
    }
    let phis: Vec<Inst> = f.phis(h).collect();
    for phi in phis {
        let InstKind::Phi { args, blocks } = f.kind(phi) else {
            unreachable!("a phi");
        };
        let mut kept: Vec<(Value, Block)> = Vec::with_capacity(args.len());
        let mut moved: Vec<(Value, Block)> = Vec::new();
        for (&v, &b) in args.iter().zip(blocks) {
            if sorted.binary_search(&b).is_ok() {
                moved.push((v, b));
            } else {
                kept.push((v, b));
            }
        }
        let ty = f.inst(phi).ty;
        let first = moved.first().map_or(Value::Undef(ty), |&(v, _)| v);
        let value = if moved.iter().all(|&(v, _)| v == first) {
            first
        } else {
            let (args, blocks) = moved.into_iter().unzip();
            Value::Inst(f.append_inst(n, InstKind::Phi { args, blocks }, ty))
        };
        kept.push((value, n));
        let (args, blocks) = kept.into_iter().unzip();
        f.replace_kind(phi, InstKind::Phi { args, blocks }, ty);
    }
    f.append_inst(n, InstKind::Br { targets: [h] }, Type::Void);
    n
}
