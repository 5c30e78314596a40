//! Dead functions: removes every function that `main` cannot reach through calls, and
//! renumbers the calls of those that stay. A module without `main` (a library of IR
//! functions, as tests write) is left alone.
//!
//! Needs: nothing. Preserves: behaviour; the functions that stay keep their order and
//! their bodies, so their analyses would stay valid, but the function numbering changes.

use crate::analysis::Preserved;
use crate::ir::{Callee, FuncId, Module};
use crate::passes::ModuleAnalyses;

pub fn run(m: &mut Module, _: &mut ModuleAnalyses) -> Preserved {
    let Some(main) = m.find_function("main") else {
        return Preserved::All;
    };
    let mut live = vec![false; m.functions.len()];
    live[main.index()] = true;
    let mut worklist = vec![main];
    while let Some(id) = worklist.pop() {
        let f = m.function(id);
        for (_, c) in f.calls() {
            if !live[c.index()] {
                live[c.index()] = true;
                worklist.push(c);
            }
        }
    }
    if live.iter().all(|&l| l) {
        return Preserved::All;
    }
    remove_functions(m, &live);
    Preserved::Nothing
}

/// Removes every function whose `keep` entry is false and renumbers the calls of those that
/// stay, which must not call a removed one.
pub(crate) fn remove_functions(m: &mut Module, keep: &[bool]) {
    let mut new_id = vec![None; keep.len()];
    let mut next = 0;
    for (old, &k) in keep.iter().enumerate() {
        if k {
            new_id[old] = Some(FuncId(next));
            next += 1;
        }
    }
    let mut index = 0;
    m.functions.retain(|_| {
        index += 1;
        keep[index - 1]
    });
    for f in &mut m.functions {
        let calls: Vec<_> = f.calls().collect();
        for (i, c) in calls {
            let to = new_id[c.index()].expect("a function that stays calls only those that stay");
            f.set_callee(i, Callee::Function(to));
        }
    }
}
