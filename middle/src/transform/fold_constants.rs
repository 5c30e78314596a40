//! Folding a whole function: every instruction that `transform::simplify` simplifies (its
//! operands constants, or an identity such as `x + 0`) gives way to its value, and the
//! users of each are revisited. The `const-fold` pass, and `loop-unroll`'s clean-up after
//! writing out rounds whose counters became constants.

use crate::ir::{Function, Inst, Value};
use crate::transform::simplify::simplify;

/// Replaces each instruction that simplifies with its value, to a fixpoint; returns
/// whether it replaced any.
pub fn fold_constants(f: &mut Function) -> bool {
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
    changed
}
