//! Compile-time evaluation of calls: a call whose arguments are all constants, of a function
//! that reads and writes no memory its callers can see and does no I/O, is run by the
//! interpreter and replaced by the constant it returns. The interpreter is the IR's
//! reference semantics, so the constant is what the call computes on the target.
//!
//! Each call may run for `STEPS_PER_CALL` IR instructions and all of them together for
//! `TOTAL_STEPS` (about 0.1 s); a call that needs more, or fails (a stack overflow), stays.
//! Calls with the same callee and arguments are evaluated once.
//!
//! Needs: the module facts (summaries). Preserves: behaviour and every function's CFG.

use crate::analysis::Preserved;
use crate::interp::evaluate_calls;
use crate::ir::{FuncId, Inst, Module, Type, Value};
use crate::passes::ModuleAnalyses;
use indexmap::IndexMap;

const STEPS_PER_CALL: u64 = 4_000_000;
const TOTAL_STEPS: u64 = 10_000_000;

/// A call to evaluate: the callee and its arguments' bits.
type Evaluation = (FuncId, Vec<u32>);

/// A call instruction: its function and itself.
type Site = (FuncId, Inst);

pub fn run(m: &mut Module, am: &mut ModuleAnalyses) -> Preserved {
    let facts = am.facts(m);
    // Each distinct (callee, arguments) with the calls that make it.
    let mut wanted: IndexMap<Evaluation, Vec<Site>> = IndexMap::new();
    for caller in m.function_ids() {
        let f = m.function(caller);
        for (i, g) in f.calls() {
            let s = facts.summary(g);
            let returns_value = matches!(m.function(g).ret, Type::I32 | Type::F32);
            if !returns_value || s.reads_memory || s.writes_memory || s.has_io {
                continue;
            }
            let args = f.kind(i).operands();
            let Some(bits) = args.iter().map(|&a| constant_bits(a)).collect() else {
                continue;
            };
            wanted.entry((g, bits)).or_default().push((caller, i));
        }
    }
    if wanted.is_empty() {
        return Preserved::All;
    }
    let calls: Vec<Evaluation> = wanted.keys().cloned().collect();
    let results = evaluate_calls(m, &calls, STEPS_PER_CALL, TOTAL_STEPS);
    let mut changed = false;
    for (((g, _), sites), result) in wanted.into_iter().zip(results) {
        let Some(bits) = result else { continue };
        let value = match m.function(g).ret {
            Type::F32 => Value::Float(bits),
            _ => Value::Int(bits as i32),
        };
        for (caller, call) in sites {
            let f = m.function_mut(caller);
            f.replace_all_uses(Value::Inst(call), value);
            f.remove_inst(call);
            changed = true;
        }
    }
    Preserved::cfg_if(changed)
}

/// The bits of a constant argument; `None` for any other value.
fn constant_bits(v: Value) -> Option<u32> {
    match v {
        Value::Int(x) => Some(x as u32),
        Value::Float(bits) => Some(bits),
        _ => None,
    }
}
