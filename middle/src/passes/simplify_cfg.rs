//! Control-flow clean-up: a conditional branch on a constant (or with both targets equal)
//! becomes a jump; blocks unreachable from the entry are deleted; a block whose only
//! predecessor jumps only to it is merged into that predecessor; a block holding nothing but
//! a jump is bypassed when the phis of its target allow it.
//!
//! The work is `transform::cfg_cleanup`, which `loop-unroll` also calls.
//!
//! Needs: nothing. Preserves: behaviour; phis stay consistent with predecessors.

use crate::analysis::Preserved;
use crate::ir::Function;
use crate::passes::FunctionContext;
use crate::transform::cfg_cleanup::clean_up_cfg;

pub fn run(f: &mut Function, _: &mut FunctionContext) -> Preserved {
    Preserved::nothing_if(clean_up_cfg(f))
}
