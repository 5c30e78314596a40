//! The compile-time budget of very large functions: on a function that has ever held more
//! than `HUGE_FUNCTION` instructions, each function pass runs once, and the pipeline's
//! later rounds of the same pass skip it.
//!
//! Pipelines repeat the clean-up passes (four rounds of `gvn`, five of `instcombine`) to
//! tidy what the passes between them leave; on a function of a million lines of straight
//! code each round is a sweep of a quarter of a second or so for little gain. Like gcc's
//! limits on its global passes for huge functions, the budget keeps such a compile within
//! a couple of seconds while every ordinary function gets the whole pipeline (the largest
//! of the contest suites, 100,000 unused locals, creates 200,005 instructions; 10,000
//! nested loops create 220,000). The test is on the number of instructions ever created,
//! which only grows and costs nothing to read.

use crate::ir::{FuncId, Function};
use indexmap::IndexSet;

/// The size, in instructions ever created, above which a function gets one run of each
/// pass.
pub const HUGE_FUNCTION: usize = 500_000;

/// The passes that have run on each huge function.
#[derive(Default)]
pub struct Budget {
    ran: Vec<IndexSet<&'static str>>,
}

impl Budget {
    /// Makes room for `count` functions.
    pub fn fit(&mut self, count: usize) {
        self.ran
            .resize_with(count.max(self.ran.len()), IndexSet::new);
    }

    /// Forgets everything: functions were added or removed, so indices may name others.
    pub fn clear(&mut self) {
        self.ran.clear();
    }

    /// Whether `pass` may run on function `id`, `f`: always on a function of ordinary
    /// size, and on a huge one if it has not run there yet. Records the run.
    pub fn allows(&mut self, pass: &'static str, id: FuncId, f: &Function) -> bool {
        f.inst_capacity() <= HUGE_FUNCTION || self.ran[id.index()].insert(pass)
    }
}
