//! loop-unroll: a counted loop of one block runs its
//! body `k` times per test, and the original loop finishes the last few iterations; a loop
//! of a few rounds known at compile time becomes its bodies in a row.
//!
//! ```text
//!   P: ...; br H                   P:  ...; lim = n - e, or MIN if that wraps
//!   H: phis; body;                     condbr init < lim, PU, PH
//!      i' = i + s                  PU: br U
//!      condbr i' < n, H, E         U:  phis; body(i); body(i + s); ...; body(i + (k-1)s)
//!   E: ...                             condbr i + ks < lim, U, C
//!                                  C:  condbr i + ks < n, PH, E
//!                                  PH: phis of H's phis, from P and from C; br H
//!                                  H:  unchanged: the remainder, one body per test
//!                                  E:  phis of H's values used after the loop, from H and C
//! ```
//!
//! The loop runs its body, steps its counter `i` by a constant `s > 0` and goes on while
//! `i' < n` (or `i' <= n`: `d = 1`) for an invariant `n`. A block of `k` bodies from `i`
//! skips the tests `i + s < n + d`, ..., `i + (k-1)s < n + d`; they all hold, without
//! wrapping, exactly when `i < n - e` with `e = (k-1)s - d >= 0`. Where `n - e` would wrap
//! below `i32::MIN`, no counter passes and `lim` is `MIN`. `i + ks < lim` implies the
//! loop's own test, so U repeats only when the loop would go on and the next block's
//! skipped tests hold; otherwise C makes the loop's test and H goes on from there.
//! The test may be on `i' + c` for a constant `c > 0` instead (`j + 1 < n` in a loop
//! stepping `j` by 2, which value numbering writes `j + 3` from the phi): `e` grows by `c`,
//! and C adds `c` to the counter before its test.
//!
//! A loop counting down (`s < 0`, going on while `i' > n` or `i' >= n`) is the mirror
//! image: `e = (k-1)|s| - d`, `lim = n + e` (`MAX` where that wraps), and U repeats while
//! `i + ks > lim`.
//!
//! A loop whose start and bound are constants and whose trip count is at most
//! `MAX_FULL_TRIPS` (and its bodies together at most `MAX_FULLY_UNROLLED`) is unrolled
//! fully: P jumps to one block of all its bodies in a row, which jumps to
//! E, and the loop goes; its values after it are the last body's, and later passes fold the
//! now constant counters and addresses.
//!
//! Only innermost loops of one block with a preheader, a single exit that is theirs alone,
//! no call, and a bound that the loops around them do not read from memory qualify,
//! unless the counter starts at a run-time value that the loop around does not change.
//! `k` is 8, 4 or 2 by the body's size in machine instructions (`MAX_UNROLLED` at most in
//! U), at most the trip count when that is a known constant, and a function grows by at
//! most `MAX_GROWTH` instructions. Later passes fold the copies' counters (`i + s + s` is
//! `i + 2s`) and their addresses into immediate offsets.
//!
//! An innermost loop of several blocks (a body that branches: a neighbour skipped, a
//! coordinate wrapped) with such a known count unrolls fully too when its one latch is its
//! only way out: each round's copy of the blocks jumps from its latch to the next round's
//! header, and the last to E. After the first, `MAX_NEST_ROUNDS` rounds of the analysis
//! unroll the loops that this leaves innermost (the `dx` loop around a `dy` loop). Such a
//! loop that can also leave early (a `break`, a `return`, a test at its top) has every
//! round peeled in front of it instead (`early_exits`).
//!
//! Needs: the CFG and the loop forest. Preserves: behaviour (the CFG changes).

mod bounds;
mod branching;
mod copies;
mod early_exits;
mod exit_values;
mod full_blocks;
mod latch_counted;
mod one_block;

use crate::analysis::Preserved;
use crate::ir::{Block, Function};
use crate::passes::FunctionContext;
use crate::transform::canonical_loops::canonicalize_loops;
use crate::transform::cfg_cleanup::clean_up_cfg;
use crate::transform::fold_constants::fold_constants;
use crate::transform::trivial_phis;
use branching::{branching_shape, unroll_branching};
use early_exits::{early_exits_shape, peel_every_round};
use full_blocks::{blocks_shape, unroll_blocks_fully};
use one_block::{shape, unroll, unroll_fully};

/// The most machine instructions the bodies of an unrolled loop may take together.
const MAX_UNROLLED: u32 = 128;
/// The most instructions unrolling may add to one function.
const MAX_GROWTH: u32 = 4_000;
/// The largest factor for a loop whose bound the loops around compute afresh: its limit
/// and extra tests are paid on every entry, and four bodies already take most of the gain.
const MAX_FACTOR_CHANGING_BOUND: u32 = 4;
/// The most machine instructions the bodies of a fully unrolled loop may take together:
/// more than `MAX_UNROLLED`, as the copies' counters and addresses become constants.
const MAX_FULLY_UNROLLED: u32 = 256;
/// How many levels of a nest of small loops of several blocks unroll in one run.
const MAX_NEST_ROUNDS: usize = 3;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let mut growth = 0;
    let mut changed = unroll_one_block_loops(f, cx, &mut growth);
    let mut nests = false;
    // Loops of several blocks, innermost first: a nest of small loops unrolls level by
    // level, each round seeing the loops the last one left.
    for _ in 0..MAX_NEST_ROUNDS {
        if changed {
            cx.analyses.invalidate(Preserved::Nothing);
        }
        let cfg = cx.analyses.cfg(f);
        let dom = cx.analyses.dom(f);
        let loops = cx.analyses.loops(f);
        let mut unrolled = false;
        for k in 0..loops.loops.len() {
            if let Some(s) = blocks_shape(f, cx.costs, &cfg, &loops, k) {
                let added = s.size * (s.trips - 1);
                if growth + added > MAX_GROWTH {
                    continue;
                }
                growth += added;
                unroll_blocks_fully(f, &loops, k, &s);
                unrolled = true;
            } else if let Some(s) = early_exits_shape(f, cx.costs, &cfg, &dom, &loops, k) {
                let added = s.size * s.rounds;
                if growth + added > MAX_GROWTH {
                    continue;
                }
                growth += added;
                peel_every_round(f, &s);
                unrolled = true;
            }
        }
        if !unrolled {
            break;
        }
        changed = true;
        nests = true;
    }
    if nests {
        clean_up(f, cx);
    }
    changed |= unroll_branching_loops(f, cx, &mut growth);
    Preserved::nothing_if(changed)
}

/// Unrolls by a factor the counted loops whose bodies branch; returns whether it changed
/// anything.
fn unroll_branching_loops(f: &mut Function, cx: &mut FunctionContext, growth: &mut u32) -> bool {
    let cfg = cx.analyses.cfg(f);
    let dom = cx.analyses.dom(f);
    let loops = cx.analyses.loops(f);
    let facts = cx.facts();
    let mut changed = false;
    // The exits of the loops unrolled so far, which have new predecessors (the copies)
    // that the CFG does not know of.
    let mut entered: Vec<Block> = Vec::new();
    for k in 0..loops.loops.len() {
        if loops.loops[k].exits.iter().any(|x| entered.contains(x)) {
            continue;
        }
        let Some(s) = branching_shape(f, facts, cx.costs, &cfg, &dom, &loops, k) else {
            continue;
        };
        let added = s.size * s.factor;
        if *growth + added > MAX_GROWTH {
            continue;
        }
        *growth += added;
        entered.extend(&loops.loops[k].exits);
        unroll_branching(f, s);
        changed = true;
    }
    changed
}

/// After loops of several blocks unrolled: each round's counter is a constant now, so fold
/// it and the tests it decides, drop the arms that no longer run and the phis left with one
/// value, and give the loops left their preheaders again. Functions without such loops
/// are left as they are.
fn clean_up(f: &mut Function, cx: &mut FunctionContext) {
    cx.analyses.invalidate(Preserved::Nothing);
    let folded = fold_constants(f);
    cx.analyses.invalidate(Preserved::cfg_if(folded));
    let cleaned = clean_up_cfg(f);
    cx.analyses.invalidate(Preserved::nothing_if(cleaned));
    let removed = trivial_phis::remove_all(f, cx.analyses);
    cx.analyses.invalidate(Preserved::cfg_if(removed));
    let canonical = canonicalize_loops(f, cx.analyses);
    cx.analyses.invalidate(Preserved::nothing_if(canonical));
}

/// Unrolls the loops of one block (partly, or fully for a small known count); returns
/// whether it changed anything.
fn unroll_one_block_loops(f: &mut Function, cx: &mut FunctionContext, growth: &mut u32) -> bool {
    let cfg = cx.analyses.cfg(f);
    let loops = cx.analyses.loops(f);
    let mut changed = false;
    for k in 0..loops.loops.len() {
        let Some(s) = shape(f, cx.costs, &cfg, &loops, k) else {
            continue;
        };
        let added = s.body_size * (s.factor - 1);
        if *growth + added > MAX_GROWTH {
            continue;
        }
        *growth += added;
        if s.full {
            unroll_fully(f, &s);
        } else {
            unroll(f, &s);
        }
        changed = true;
    }
    changed
}
