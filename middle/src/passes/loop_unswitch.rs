//! loop-unswitch: a loop that branches on a condition fixed for the whole loop (`if (flag)`
//! with `flag` computed before it) runs as two loops, one for each value of the condition,
//! and the preheader picks one; in each, the condition is a constant and `simplify-cfg`
//! removes the branch and the side that never runs. Each iteration then makes one test
//! and one branch fewer, and the two bodies optimise separately.
//!
//! ```text
//!   P: br H                       P:  condbr c, H, H'
//!   H..: ... condbr c, T, F       H..:  the loop, with c true
//!   E: phi [v, B]                 H'..: a copy of it, with c false
//!                                 E:  phi [v, B], [v', B']
//! ```
//!
//! The condition is an instruction defined outside the loop, or a parameter, used as the
//! condition of a branch inside it. The loop has a preheader that only jumps to the header.
//! Its values are used after it only by phis of the blocks it leaves to, for edges from the
//! loop, or it leaves from one block to one block of its own: then each value used after it
//! first goes through a phi there (the value dominates all its uses, so it dominates the
//! one way out). Those phis take the copy's values from the copy's blocks too. Every use of the condition inside each loop
//! becomes the constant. A loop of at most `MAX_SIZE` instructions is unswitched, at most
//! `MAX_UNSWITCHED` times per function and run; as each copy has the condition decided, a
//! loop with `n` such conditions may become `2^n` loops only while each stays that small.
//!
//! Which branch, and which loop: the most deeply nested branches first, as they run most
//! often (a test of a value read in the loop around, `if (rik && reach[k][j])`, before the
//! guard of an inner loop), each in the outermost loop around it for which its condition
//! is fixed and that qualifies (`n > 0` guarding an inner loop is then tested once, before
//! the outer one). A branch that only picks a value is left to `if-to-select`, a comparison
//! of constants to folding, and a loop of a few rounds between constants to `loop-unroll`.
//!
//! Needs: the loop forest. Preserves: behaviour (the CFG changes).

use crate::analysis::{Cfg, LoopInfo, Preserved};
use crate::ir::{Block, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::loop_counter::{counter, Counter};
use crate::transform::unroll_limit::MAX_FULL_TRIPS;
use crate::transform::value_map::{copied_block, copy_blocks, copy_insts, mapped};

/// The most instructions a loop may have to be copied.
const MAX_SIZE: usize = 120;
/// The most instructions a side of a branch that only chooses a value computes.
const SMALL_SIDE: usize = 2;
/// The most loops one function has unswitched in one run.
const MAX_UNSWITCHED: usize = 8;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let mut unswitched = 0;
    while unswitched < MAX_UNSWITCHED {
        let cfg = cx.analyses.cfg(f);
        let loops = cx.analyses.loops(f);
        let Some(c) = branches(f, &cfg, &loops)
            .into_iter()
            .find_map(|(b, cond)| place(f, &cfg, &loops, b, cond))
        else {
            break;
        };
        if let Some((exiting, exit)) = c.way_out {
            close(f, &loops, c.k, exiting, exit);
        }
        unswitch(f, &loops, c.k, c.cond);
        unswitched += 1;
        cx.analyses.invalidate(Preserved::Nothing);
    }
    Preserved::nothing_if(unswitched > 0)
}

/// A loop to unswitch.
struct Candidate {
    k: usize,
    /// The invariant condition it branches on.
    cond: Value,
    /// The one block it leaves from and the one it leaves to, when its values need phis
    /// there.
    way_out: Option<(Block, Block)>,
}

/// The blocks inside loops that branch on a condition fixed for their innermost loop, and
/// that condition, the most deeply nested first (they run most often), else in layout
/// order. A branch that only chooses a value is left to `if-to-select`.
fn branches(f: &Function, cfg: &Cfg, loops: &LoopInfo) -> Vec<(Block, Value)> {
    let mut out: Vec<(u32, Block, Value)> = f
        .blocks()
        .filter_map(|b| {
            let k = loops.innermost(b)?;
            let InstKind::CondBr {
                args: [c],
                targets: [yes, no],
            } = *f.kind(f.terminator(b)?)
            else {
                return None;
            };
            let fixed = match c {
                Value::Param(_) => true,
                // A comparison of constants folds: it needs no second loop.
                Value::Inst(i) => {
                    fixed_for(f, loops, k, c)
                        && !f.kind(i).operands().iter().all(|v| v.is_constant())
                }
                _ => false,
            };
            (fixed && yes != no && !is_small_choice(f, cfg, b)).then_some((loops.depth(b), b, c))
        })
        .collect();
    out.sort_by_key(|&(depth, _, _)| std::cmp::Reverse(depth));
    out.into_iter().map(|(_, b, c)| (b, c)).collect()
}

/// Whether `c` is computed outside loop `k`.
fn fixed_for(f: &Function, loops: &LoopInfo, k: usize, c: Value) -> bool {
    match c {
        Value::Inst(i) => f.inst_block(i).is_some_and(|b| !loops.contains(k, b)),
        _ => true,
    }
}

/// The loop to unswitch for the branch of block `b` on `cond`: the outermost loop around
/// `b` for which `cond` is fixed and that qualifies, so that one test before it decides
/// every round of it and of the loops inside it; else the next one in.
fn place(f: &Function, cfg: &Cfg, loops: &LoopInfo, b: Block, cond: Value) -> Option<Candidate> {
    let mut around = Vec::new();
    let mut k = loops.innermost(b);
    while let Some(l) = k.filter(|&l| fixed_for(f, loops, l, cond)) {
        around.push(l);
        k = loops.loops[l].parent;
    }
    around
        .into_iter()
        .rev()
        .find_map(|k| qualify(f, cfg, loops, k, cond))
}

/// Loop `k` unswitched on `cond`, if the loop qualifies.
fn qualify(f: &Function, cfg: &Cfg, loops: &LoopInfo, k: usize, cond: Value) -> Option<Candidate> {
    let lp = &loops.loops[k];
    let p = lp.preheader?;
    if !matches!(
        f.terminator(p).map(|t| f.kind(t)),
        Some(InstKind::Br { .. })
    ) || runs_few_times(f, loops, k)
    {
        return None;
    }
    // Every block holds an instruction: a loop of more blocks is too large, and a loop
    // nest costs time linear in its size.
    let blocks = loops.blocks_of(k);
    if blocks.len() > MAX_SIZE
        || blocks
            .iter()
            .map(|&b| f.block_insts(b).count())
            .sum::<usize>()
            > MAX_SIZE
    {
        return None;
    }
    let inside = |i: Inst| f.inst_block(i).is_some_and(|b| loops.contains(k, b));
    // Values of the loop used after it only by the phis of the blocks it leaves to, for
    // edges from inside it, or a single way out.
    let closed = blocks.iter().all(|&b| {
        f.block_insts(b).all(|i| {
            f.uses(Value::Inst(i)).iter().all(|u| {
                inside(u.inst)
                    || match f.kind(u.inst) {
                        InstKind::Phi { blocks, .. } => loops.contains(k, blocks[u.index as usize]),
                        _ => false,
                    }
            })
        })
    });
    let way_out = match (lp.exits.as_slice(), lp.exiting.as_slice()) {
        _ if closed => None,
        (&[exit], &[exiting]) if cfg.preds(exit) == [exiting] => Some((exiting, exit)),
        _ => return None,
    };
    Some(Candidate { k, cond, way_out })
}

/// Whether the branch ending `h` only chooses a value: each side it may take is a block
/// that `h` alone enters, computes at most `SMALL_SIDE` instructions of arithmetic and goes
/// on to where the other side goes. `if-to-select` makes such a branch a conditional move,
/// which costs less than a copy of the loop.
fn is_small_choice(f: &Function, cfg: &Cfg, h: Block) -> bool {
    let Some(&InstKind::CondBr {
        targets: [yes, no], ..
    }) = f.terminator(h).map(|t| f.kind(t))
    else {
        return false;
    };
    let side_exit = |s: Block| -> Option<Block> {
        if s == h || cfg.preds(s) != [h] {
            return None;
        }
        let body: Vec<Inst> = f
            .block_insts(s)
            .filter(|&i| !f.kind(i).is_terminator())
            .collect();
        let pure = body.iter().all(|&i| {
            let opcode = f.kind(i).opcode();
            !f.kind(i).is_phi()
                && !opcode.has_side_effects()
                && !opcode.may_fault()
                && !matches!(f.kind(i), InstKind::Load { .. } | InstKind::Call { .. })
        });
        match *f.kind(f.terminator(s)?) {
            InstKind::Br { targets: [j] } if pure && body.len() <= SMALL_SIDE => Some(j),
            _ => None,
        }
    };
    match (side_exit(yes), side_exit(no)) {
        (Some(j), Some(k)) => j == k,
        (Some(j), None) => j == no,
        (None, Some(k)) => k == yes,
        (None, None) => false,
    }
}

/// Whether loop `k` counts from a constant to a constant in at most the rounds that
/// `loop-unroll` writes out whole (`MAX_FULL_TRIPS`): a counter phi that starts at a
/// constant, and a way out that compares it (or its next value) with a constant. Written
/// out, each round's conditions fold; copied for unswitching, the loop would be too large
/// to write out.
fn runs_few_times(f: &Function, loops: &LoopInfo, k: usize) -> bool {
    let lp = &loops.loops[k];
    let (Some(p), &[latch]) = (lp.preheader, lp.latches.as_slice()) else {
        return false;
    };
    let counters: Vec<Counter> = f
        .phis(lp.header)
        .filter_map(|phi| counter(f, phi, p, latch))
        .collect();
    lp.exiting.iter().any(|&b| {
        let Some(InstKind::CondBr {
            args: [Value::Inst(c)],
            ..
        }) = f.terminator(b).map(|t| f.kind(t))
        else {
            return false;
        };
        let InstKind::Icmp { args: [x, y], .. } = *f.kind(*c) else {
            return false;
        };
        let ((v, Value::Int(bound)) | (Value::Int(bound), v)) = (x, y) else {
            return false;
        };
        counters.iter().any(|ctr| {
            let Value::Int(start) = ctr.start else {
                return false;
            };
            let counts = v == Value::Inst(ctr.phi) || v == Value::Inst(ctr.next);
            let rounds = (bound as i64 - start as i64) / ctr.step as i64;
            counts && (0..=i64::from(MAX_FULL_TRIPS)).contains(&rounds)
        })
    })
}

/// Makes every value of loop `k` used after it go through a phi in `exit`, which only
/// `exiting` enters.
fn close(f: &mut Function, loops: &LoopInfo, k: usize, exiting: Block, exit: Block) {
    let blocks: Vec<Block> = loops.blocks_of(k).to_vec();
    let first = f.first_inst(exit).expect("a block ends in a terminator");
    for &b in &blocks {
        let insts: Vec<Inst> = f.block_insts(b).collect();
        for i in insts {
            let users: Vec<(Inst, u32)> = f
                .uses(Value::Inst(i))
                .iter()
                .filter(|u| {
                    f.inst_block(u.inst)
                        .is_some_and(|ub| !loops.contains(k, ub) && ub != exit)
                        || f.inst_block(u.inst) == Some(exit) && !f.kind(u.inst).is_phi()
                })
                .map(|u| (u.inst, u.index))
                .collect();
            if users.is_empty() {
                continue;
            }
            let ty = f.inst(i).ty;
            let kind = InstKind::Phi {
                args: vec![Value::Inst(i)],
                blocks: vec![exiting],
            };
            let phi = f.insert_inst_before(first, kind, ty);
            for (user, index) in users {
                f.set_operand(user, index as usize, Value::Inst(phi));
            }
        }
    }
}

fn unswitch(f: &mut Function, loops: &LoopInfo, k: usize, cond: Value) {
    let lp = &loops.loops[k];
    let p = lp.preheader.expect("a qualifying loop has a preheader");
    let blocks: Vec<Block> = loops.blocks_of(k).to_vec();
    let exits = lp.exits.clone();

    // The copy, after the loop's last block in the layout.
    let last = f
        .blocks()
        .filter(|b| blocks.contains(b))
        .last()
        .expect("a loop has blocks");
    let copy_of = copy_blocks(f, &blocks, last);
    let block_of = |b: Block| copied_block(&copy_of, b);
    let map = copy_insts(f, &copy_of);

    // The blocks the loop leaves to take the copy's values from the copy's blocks.
    for e in exits {
        let phis: Vec<Inst> = f.phis(e).collect();
        for phi in phis {
            let InstKind::Phi { args, blocks: from } = f.kind(phi).clone() else {
                unreachable!("a phi");
            };
            for (v, b) in args.into_iter().zip(from) {
                if blocks.contains(&b) {
                    f.add_phi_incoming(phi, mapped(v, &map), block_of(b));
                }
            }
        }
    }

    // Each loop has the condition decided.
    let users: Vec<(Inst, u32)> = f.uses(cond).iter().map(|u| (u.inst, u.index)).collect();
    for (user, index) in users {
        let Some(b) = f.inst_block(user) else {
            continue;
        };
        if blocks.contains(&b) {
            f.set_operand(user, index as usize, Value::Bool(true));
        } else if copy_of.iter().any(|&(_, c)| c == b) {
            f.set_operand(user, index as usize, Value::Bool(false));
        }
    }

    // The preheader picks the loop.
    let jump = f.terminator(p).expect("a preheader ends in a jump");
    f.remove_inst(jump);
    let header = lp.header;
    let branch = InstKind::CondBr {
        args: [cond],
        targets: [header, block_of(header)],
    };
    f.append_inst(p, branch, Type::Void);
}
