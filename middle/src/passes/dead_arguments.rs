//! Dead arguments: a parameter that its function never uses, or uses only to pass itself on
//! in the same place of a self-call, is removed from the function and from every call of it
//! (SysY has no function pointers, so every caller is known). The arguments' computations
//! are left to `dce`/`adce`. `main` keeps its signature.
//!
//! Needs: nothing. Preserves: behaviour and every function's CFG.

use crate::analysis::call_graph::call_sites;
use crate::analysis::Preserved;
use crate::ir::{Callee, FuncId, Function, InstKind, Module, Value};
use crate::passes::ModuleAnalyses;

pub fn run(m: &mut Module, _: &mut ModuleAnalyses) -> Preserved {
    let main = m.find_function("main");
    // Removing arguments keeps every call where it is, so the sites stay valid.
    let sites = call_sites(m);
    let mut changed = false;
    for g in m.function_ids() {
        if Some(g) == main {
            continue;
        }
        let dead: Vec<u32> = (0..m.function(g).params.len() as u32)
            .filter(|&p| is_dead(m.function(g), g, p))
            .collect();
        if dead.is_empty() {
            continue;
        }
        for &(caller, call) in &sites[g.index()] {
            let f = m.function_mut(caller);
            let InstKind::Call { callee, args } = f.kind(call).clone() else {
                unreachable!("a call site is a call");
            };
            let args = args
                .into_iter()
                .enumerate()
                .filter(|&(k, _)| !dead.contains(&(k as u32)))
                .map(|(_, a)| a)
                .collect();
            let ty = f.inst(call).ty;
            f.replace_kind(call, InstKind::Call { callee, args }, ty);
        }
        let f = m.function_mut(g);
        for &p in dead.iter().rev() {
            f.remove_param(p);
        }
        changed = true;
    }
    Preserved::cfg_if(changed)
}

/// Whether parameter `p` of `f` (function `g`) is unused but for passing itself on as
/// argument `p` of calls of `g`.
fn is_dead(f: &Function, g: FuncId, p: u32) -> bool {
    f.uses(Value::Param(p)).iter().all(|u| {
        u.index == p
            && matches!(f.kind(u.inst), InstKind::Call { callee: Callee::Function(c), .. } if *c == g)
    })
}
