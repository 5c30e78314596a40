//! Dead functions: removes every function that `main` cannot reach through calls, and
//! renumbers the calls of those that stay. A module without `main` (a library of IR
//! functions, as tests write) is left alone.
//!
//! Needs: nothing. Preserves: behaviour; the functions that stay keep their order and
//! their bodies, so their analyses would stay valid, but the function numbering changes.

use crate::analysis::Preserved;
use crate::ir::Module;
use crate::passes::ModuleAnalyses;
use crate::transform::remove_functions::remove_functions;

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
