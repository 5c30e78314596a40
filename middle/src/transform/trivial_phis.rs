//! Removing trivial phis: those whose incoming values are all one value (ignoring the phi
//! itself), and those that only see undefined values, for the `trivial-phis` pass, for
//! `mem2reg`'s new phis and for `loop-unroll`'s clean-up.

use crate::analysis::{DomTree, FunctionAnalyses};
use crate::ir::{Function, Inst, InstKind, Value};

/// Removes the trivial phis among all of `f`'s (`remove`); returns whether it removed any.
pub fn remove_all(f: &mut Function, analyses: &mut FunctionAnalyses) -> bool {
    let phis: Vec<Inst> = f.all_insts().filter(|&i| f.kind(i).is_phi()).collect();
    if phis.is_empty() {
        return false;
    }
    let dom = analyses.dom(f);
    remove(f, &dom, phis)
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
