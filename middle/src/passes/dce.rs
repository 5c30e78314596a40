//! Dead code elimination: removes instructions whose results are unused and that do
//! nothing else (no store, call or control transfer), then whatever only they used.
//!
//! Needs: nothing. Preserves: behaviour and the CFG.

use crate::analysis::Preserved;
use crate::ir::{Function, Inst, Value};
use crate::passes::FunctionContext;

pub fn run(f: &mut Function, _: &mut FunctionContext) -> Preserved {
    let mut changed = false;
    let mut worklist: Vec<Inst> = f.all_insts().collect();
    while let Some(i) = worklist.pop() {
        if f.inst_block(i).is_none()
            || f.kind(i).has_side_effects()
            || !f.uses(Value::Inst(i)).is_empty()
        {
            continue;
        }
        let operands: Vec<Inst> = f
            .kind(i)
            .operands()
            .iter()
            .filter_map(|v| v.as_inst())
            .collect();
        f.remove_inst(i);
        worklist.extend(operands);
        changed = true;
    }
    Preserved::cfg_if(changed)
}
