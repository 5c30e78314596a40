//! Removing functions from a module: those a pass found dead or merged into another, with
//! the calls of the rest renumbered.

use crate::ir::{Callee, FuncId, Module};

/// Removes every function whose `keep` entry is false and renumbers the calls of those that
/// stay, which must not call a removed one.
pub fn remove_functions(m: &mut Module, keep: &[bool]) {
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
