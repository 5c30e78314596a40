//! Trivial phis: removes a phi whose incoming values are all one value, ignoring the phi
//! itself (`%p = phi [%x, bb1], [%p, bb2]` is `%x`), and a phi that only sees undefined
//! values; phis that used a removed one are checked again. A phi that mixes one value with
//! `undef` becomes that value only where the value's definition dominates the phi (elsewhere
//! the phi is the only thing that makes the value available on every path).
//!
//! The work is `transform::trivial_phis::remove`, which `mem2reg` calls on the phis it
//! placed; the pass checks every phi of a function.
//!
//! Needs: the dominator tree. Preserves: behaviour and the CFG.

use crate::analysis::Preserved;
use crate::ir::{Function, Inst};
use crate::passes::FunctionContext;
use crate::transform::trivial_phis::remove;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let phis: Vec<Inst> = f.all_insts().filter(|&i| f.kind(i).is_phi()).collect();
    if phis.is_empty() {
        return Preserved::All;
    }
    let dom = cx.analyses.dom(f);
    Preserved::cfg_if(remove(f, &dom, phis))
}
