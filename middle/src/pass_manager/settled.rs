//! Which function passes are known to change nothing on a function as it now is, so that the
//! pass manager can skip running them again.
//!
//! Each function carries a version, renewed whenever a pass changes it, and the module one,
//! renewed whenever anything changes. A pass that changed nothing on a function is settled
//! there at that function's version (and, if it reads module facts, at the module's): run
//! again while neither has moved, it sees the same input and, being deterministic, changes
//! nothing again. Pipelines repeat the clean-up passes many times, and on a function that
//! an earlier round left alone each repeat is a full sweep that finds nothing to do.

use crate::ir::FuncId;
use indexmap::IndexMap;

/// The versions a pass saw when it last changed nothing on a function.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Seen {
    function: u64,
    module: Option<u64>,
}

#[derive(Default)]
pub struct Settled {
    /// The newest version handed out.
    clock: u64,
    /// The module's version.
    module: u64,
    /// Each function's version.
    versions: Vec<u64>,
    /// Per function, the passes settled on it and the versions they saw.
    passes: Vec<IndexMap<&'static str, Seen>>,
}

impl Settled {
    /// Makes room for `count` functions; a function seen for the first time has a fresh
    /// version.
    pub fn fit(&mut self, count: usize) {
        while self.versions.len() < count {
            self.clock += 1;
            self.versions.push(self.clock);
            self.passes.push(IndexMap::new());
        }
    }

    /// Forgets everything: functions were added or removed, so indices may name others.
    pub fn clear(&mut self) {
        self.versions.clear();
        self.passes.clear();
        self.changed_module();
    }

    /// The module's version: a pass that reads module facts sees those of the module at the
    /// version current when it starts, as the manager computes them once per execution.
    pub fn module(&self) -> u64 {
        self.module
    }

    /// Whether `pass` changed nothing when it last ran on function `id` as it is now (and on
    /// the module at version `module`, for a pass that reads module facts).
    pub fn is_settled(&self, pass: &'static str, id: FuncId, module: Option<u64>) -> bool {
        self.passes[id.index()].get(pass) == Some(&self.seen(id, module))
    }

    /// Records that `pass` ran on function `id` (seeing the module at version `module`, if
    /// it reads module facts) and changed it or not.
    pub fn ran(&mut self, pass: &'static str, id: FuncId, module: Option<u64>, changed: bool) {
        if changed {
            self.clock += 1;
            self.module = self.clock;
            self.versions[id.index()] = self.clock;
        } else {
            let seen = self.seen(id, module);
            self.passes[id.index()].insert(pass, seen);
        }
    }

    /// Records that a module pass changed something, in any function.
    pub fn changed_module(&mut self) {
        self.clock += 1;
        self.module = self.clock;
        for version in &mut self.versions {
            *version = self.clock;
        }
    }

    fn seen(&self, id: FuncId, module: Option<u64>) -> Seen {
        Seen {
            function: self.versions[id.index()],
            module,
        }
    }
}
