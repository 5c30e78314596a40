//! Trivial phis: removes a phi whose incoming values are all one value, ignoring the phi
//! itself (`%p = phi [%x, bb1], [%p, bb2]` is `%x`), and a phi that only sees undefined
//! values; phis that used a removed one are checked again. A phi that mixes one value with
//! `undef` becomes that value only where the value's definition dominates the phi (elsewhere
//! the phi is the only thing that makes the value available on every path).
//!
//! `mem2reg` calls `remove` on the phis it placed; the pass checks every phi of a function.
//!
//! Needs: the dominator tree. Preserves: behaviour and the CFG.

use crate::analysis::{DomTree, Preserved};
use crate::ir::{Function, Inst, InstKind, Value};
use crate::passes::FunctionContext;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let phis: Vec<Inst> = f.all_insts().filter(|&i| f.kind(i).is_phi()).collect();
    if phis.is_empty() {
        return Preserved::All;
    }
    let dom = cx.analyses.dom(f);
    Preserved::cfg_if(remove(f, &dom, phis))
}

/// Removes phis whose incoming values are all one value (ignoring the phi itself), and
/// phis that only see undefined values, repeating for phis that used them. Returns whether
/// it removed any. A phi waits in the worklist at most once (checking it twice with no
/// change in between would cost its size again: quadratic for a phi of thousands of
/// incoming values that lose them to simplification one by one).
pub fn remove(f: &mut Function, dom: &DomTree, phis: Vec<Inst>) -> bool {
    let mut queued = vec![false; f.inst_capacity()];
    // The last occurrence of each phi is the one checked first.
    let mut worklist: Vec<Inst> = phis
        .into_iter()
        .rev()
        .filter(|p| !std::mem::replace(&mut queued[p.index()], true))
        .collect();
    worklist.reverse();
    let mut removed = false;
    while let Some(phi) = worklist.pop() {
        queued[phi.index()] = false;
        let Some(b) = f.inst_block(phi) else { continue };
        let InstKind::Phi { args, .. } = f.kind(phi) else {
            continue;
        };
        let me = Value::Inst(phi);
        let mut unique: Option<Value> = None;
        let mut has_undef = false;
        let mut trivial = true;
        for &v in args {
            if v == me {
                continue;
            }
            if matches!(v, Value::Undef(_)) {
                has_undef = true;
                continue;
            }
            match unique {
                None => unique = Some(v),
                Some(u) if u == v => {}
                Some(_) => {
                    trivial = false;
                    break;
                }
            }
        }
        if !trivial {
            continue;
        }
        let replacement = match unique {
            None => Value::Undef(f.inst(phi).ty),
            Some(v) => {
                let dominates = match v.as_inst().and_then(|i| f.inst_block(i)) {
                    Some(db) => db != b && dom.dominates(db, b),
                    None => true,
                };
                if has_undef && !dominates {
                    continue;
                }
                v
            }
        };
        let users: Vec<Inst> = f.uses(me).iter().map(|u| u.inst).collect();
        f.replace_all_uses(me, replacement);
        f.remove_inst(phi);
        removed = true;
        for u in users {
            if u != phi && f.kind(u).is_phi() && !std::mem::replace(&mut queued[u.index()], true) {
                worklist.push(u);
            }
        }
    }
    removed
}
