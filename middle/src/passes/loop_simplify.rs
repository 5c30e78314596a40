//! loop-simplify: puts loops in the canonical form the loop passes expect: a preheader, a
//! single latch and dedicated exits.
//!
//! - Preheader: when the header has several predecessors outside the loop, or one that
//!   branches elsewhere too, those edges go to a new block that jumps to the header, placed
//!   just before it. Code hoisted out of the loop then has a block that runs exactly once
//!   before each entry.
//! - Single latch: when several blocks of the loop jump back to the header (`continue`),
//!   their edges go to a new block that jumps to the header, placed after the last of them.
//!   `loop-rotate` then has one latch to test in.
//! - Dedicated exits: when a block the loop exits to is also reached from outside the loop,
//!   the loop's edges to it go through a new block first, so each loop has exits of its own
//!   (loops that left to one shared block kept each other from being rotated).
//!
//! The work is `transform::canonical_loops`, which `loop-unroll` also calls.
//!
//! Needs: the CFG and the loop forest. Preserves: behaviour (the CFG changes).

use crate::analysis::Preserved;
use crate::ir::Function;
use crate::passes::FunctionContext;
use crate::transform::canonical_loops::canonicalize_loops;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    Preserved::nothing_if(canonicalize_loops(f, cx.analyses))
}
