//! Trivial phis: removes a phi whose incoming values are all one value, ignoring the phi
//! itself (`%p = phi [%x, bb1], [%p, bb2]` is `%x`), and a phi that only sees undefined
//! values; phis that used a removed one are checked again. A phi that mixes one value with
//! `undef` becomes that value only where the value's definition dominates the phi (elsewhere
//! the phi is the only thing that makes the value available on every path).
//!
//! The work is `transform::trivial_phis`: `remove`, which `mem2reg` calls on the phis it
//! placed, and `remove_all`, which checks every phi of a function for the pass and for
//! `loop-unroll`.
//!
//! Needs: the dominator tree. Preserves: behaviour and the CFG.

use crate::analysis::Preserved;
use crate::ir::Function;
use crate::passes::FunctionContext;
use crate::transform::trivial_phis::remove_all;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    Preserved::cfg_if(remove_all(f, cx.analyses))
}
