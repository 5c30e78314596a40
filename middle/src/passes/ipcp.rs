//! Interprocedural constant propagation: a parameter that every call site passes the same
//! constant or the same global array (a self-call passing the parameter on in its own place
//! counts as passing that value) is that value inside the function, where alias analysis
//! then tells the arrays apart; a function whose every `ret` returns the
//! same constant gives that constant at every call site (the calls stay for their effects,
//! `adce` removes those without any). `main` and functions nobody calls are left alone.
//! `dead-arguments` then drops the parameters left unused.
//!
//! Needs: nothing. Preserves: behaviour and every function's CFG.

use crate::analysis::call_graph::call_sites;
use crate::analysis::Preserved;
use crate::ir::{FuncId, Inst, InstKind, Module, Value};
use crate::passes::ModuleAnalyses;

pub fn run(m: &mut Module, _: &mut ModuleAnalyses) -> Preserved {
    let sites = call_sites(m);
    let main = m.find_function("main");
    let mut changed = false;
    for g in m.function_ids() {
        if Some(g) == main || sites[g.index()].is_empty() {
            continue;
        }
        for p in 0..m.function(g).params.len() as u32 {
            if let Some(c) = constant_argument(m, g, p, &sites[g.index()]) {
                let f = m.function_mut(g);
                if !f.uses(Value::Param(p)).is_empty() {
                    f.replace_all_uses(Value::Param(p), c);
                    changed = true;
                }
            }
        }
        if let Some(c) = constant_return(m, g) {
            for &(caller, call) in &sites[g.index()] {
                let f = m.function_mut(caller);
                if !f.uses(Value::Inst(call)).is_empty() {
                    f.replace_all_uses(Value::Inst(call), c);
                    changed = true;
                }
            }
        }
    }
    Preserved::cfg_if(changed)
}

/// The constant or global every call of `g` passes as parameter `p`, if there is one.
fn constant_argument(m: &Module, g: FuncId, p: u32, sites: &[(FuncId, Inst)]) -> Option<Value> {
    let mut found = None;
    for &(caller, call) in sites {
        let arg = m.function(caller).kind(call).operands()[p as usize];
        if caller == g && arg == Value::Param(p) {
            continue;
        }
        let fixed = arg.is_constant() || matches!(arg, Value::Global(_));
        if !fixed || found.is_some_and(|c| c != arg) {
            return None;
        }
        found = Some(arg);
    }
    found
}

/// The constant every `ret` of `g` returns, if there is one.
fn constant_return(m: &Module, g: FuncId) -> Option<Value> {
    let f = m.function(g);
    let mut found = None;
    for b in f.blocks() {
        let Some(t) = f.terminator(b) else { continue };
        if let InstKind::Ret { args } = f.kind(t) {
            let v = (*args)?;
            if !v.is_constant() || found.is_some_and(|c| c != v) {
                return None;
            }
            found = Some(v);
        }
    }
    found
}
