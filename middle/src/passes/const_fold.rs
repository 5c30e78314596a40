//! Constant folding and algebraic simplification: an instruction whose operands are
//! constants becomes its value (as `ir::semantics` defines it), and identities such as
//! `x + 0`, `x * 1`, `x * 0` and `x - x` give an operand or a constant
//! (`transform/simplify.rs`, which `sccp` and `instcombine` use too). Users of a simplified
//! instruction are revisited. (Phis are the `trivial-phis` pass's.)
//!
//! Needs: nothing. Preserves: behaviour and the CFG.

use crate::analysis::Preserved;
use crate::ir::{Function, Inst, Value};
use crate::passes::FunctionContext;
use crate::transform::simplify::simplify;

pub fn run(f: &mut Function, _: &mut FunctionContext) -> Preserved {
    let mut changed = false;
    let mut worklist: Vec<Inst> = f.all_insts().collect();
    worklist.reverse();
    while let Some(i) = worklist.pop() {
        if f.inst_block(i).is_none() {
            continue;
        }
        let Some(v) = simplify(f, i) else { continue };
        let users: Vec<Inst> = f.uses(Value::Inst(i)).iter().map(|u| u.inst).collect();
        f.replace_all_uses(Value::Inst(i), v);
        f.remove_inst(i);
        worklist.extend(users);
        changed = true;
    }
    Preserved::cfg_if(changed)
}
