//! loop-vectorize: a counted innermost loop of one block whose rounds read and write
//! consecutive integers runs four rounds at a time in vectors (`v4i32`, `v4f32` for floats
//! that are only moved), and the original loop finishes the last rounds.
//!
//! ```text
//!   P: ...; br H                   P:  lim = n - 3 (see `CounterTest::limit`)
//!   H: phis; body;                     condbr init < lim, PV, PH
//!      i' = i + 1                  PV: splats of the values fixed for the loop; br V
//!      condbr i' < n, H, E         V:  i4 = phi [init, PV], [i4 + 4, V]; sums' vector phis
//!   E: ...                             the body on four lanes: round i4 + k in lane k
//!                                      condbr i4 + 4 < lim, V, C
//!                                  C:  sums reduced, lanes 3 of values used after the loop
//!                                      condbr i4 + 4 < n, PH, E
//!                                  PH: phis of H's phis, from P and from C; br H
//!                                  H:  unchanged: the remainder, one round per test
//!                                  E:  phis of H's values used after the loop, from H and C
//! ```
//!
//! The frame is loop-unroll's (`transform::loop_frame`), with four rounds per block. The
//! counter steps by 1. Every instruction of the body has a role (`plan`):
//!
//! - the exit test stays scalar: the vector loop has its own;
//! - a value that steps by a constant each round (the counter plus a value fixed for the
//!   loop, an address `a + 4i`: an affine recurrence, from scalar evolution) is computed
//!   once per block for lane 0; where a lane-wise operation reads it, its lanes are
//!   lane 0's value plus 0, 1, 2 and 3 steps;
//! - a load or store whose address steps by the element's 4 bytes becomes `vload` or
//!   `vstore`; `add`, `sub` and `mul` of integers become lane-wise, and so does a select
//!   of the larger or smaller of two values by a signed compare of them (`vsmax`,
//!   `vsmin`: `a[i] > b[i] ? a[i] : b[i]`, a clamp `x > 199 ? 200 : x`); a value fixed for
//!   the loop that they read is a splat, built once in PV;
//! - a sum carried round to round (`s = s + x`, `s = s - x`) keeps a vector of four
//!   partial sums, lane 0 starting from `s`'s first value and the others from 0, reduced
//!   after the vector loop: wrapping addition gives the same sum in any order; a running
//!   maximum or minimum (`if (x > m) m = x;`, a select by then) keeps four, each lane
//!   starting from `m`'s first value (`reductions`).
//!
//! Anything else (float arithmetic, whose lanes flush subnormals as scalar code does not;
//! divisions; other compares and selects; calls; other carried values) leaves the loop
//! scalar.
//! So do accesses that rounds less than four apart could reorder (`dependences`): a store
//! to `a[i + 1]` read as `a[i]` a round later. Where only the run knows how far apart two
//! accesses are (two array parameters), P tests it, and the original loop runs every round
//! when they are too close.
//!
//! The loop vectorises when it is worth it: its trip count, when known, is more than
//! `MAX_FULL_TRIPS` (loop-unroll writes shorter loops out in full, which leaves no loop,
//! where a vector loop would leave its remainder's), and it stores or reduces.
//!
//! Needs: loop-simplified loops (preheaders, one latch), the loop forest, scalar evolution.
//! Preserves: behaviour (the CFG changes).

mod dependences;
mod plan;
mod reductions;
mod widen;

use crate::analysis::Preserved;
use crate::ir::Function;
use crate::passes::FunctionContext;
use crate::transform::one_block_loop::one_block_loop;
use crate::transform::unroll_limit::MAX_FULL_TRIPS;

/// The lanes of a vector: rounds per block.
const LANES: u32 = 4;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let cfg = cx.analyses.cfg(f);
    let loops = cx.analyses.loops(f);
    let facts = cx.facts();
    let mut plans = Vec::new();
    for k in 0..loops.loops.len() {
        let Some(shape) = one_block_loop(f, &cfg, &loops, k) else {
            continue;
        };
        if shape.test.step != 1 || shape.trips.is_some_and(|t| t <= MAX_FULL_TRIPS) {
            continue;
        }
        if let Some(plan) = plan::plan(f, facts, cx.id, &loops, k, shape) {
            plans.push(plan);
        }
    }
    let changed = !plans.is_empty();
    for plan in plans {
        widen::vectorize(f, plan);
    }
    Preserved::nothing_if(changed)
}
