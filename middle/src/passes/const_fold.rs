//! Constant folding and algebraic simplification: an instruction whose operands are
//! constants becomes its value (as `ir::semantics` defines it), and identities such as
//! `x + 0`, `x * 1`, `x * 0` and `x - x` give an operand or a constant
//! (`transform/simplify.rs`, which `sccp` and `instcombine` use too). Users of a simplified
//! instruction are revisited. (Phis are the `trivial-phis` pass's.)
//!
//! The work is `transform::fold_constants`, which `loop-unroll` also calls.
//!
//! Needs: nothing. Preserves: behaviour and the CFG.

use crate::analysis::Preserved;
use crate::ir::Function;
use crate::passes::FunctionContext;
use crate::transform::fold_constants::fold_constants;

pub fn run(f: &mut Function, _: &mut FunctionContext) -> Preserved {
    Preserved::cfg_if(fold_constants(f))
}
