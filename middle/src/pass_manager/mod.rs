//! The pass manager and what surrounds it: the context a pass gets, the registry that names
//! every pass, the pipeline syntax of `--passes`, the pipelines of the levels, the compile-time
//! budget, the record of passes settled on a function, and bisection.
//!
//! A function pass rewrites one function at a time; it asks its context for analyses (the
//! manager caches them), module facts and the target's costs, and returns what its changes
//! preserved. A module pass sees the whole module. Both kinds are named in `REGISTRY`, so
//! `--passes` can list either, grouped by `fixpoint(...)` and `repeat(N, ...)` (see
//! `pipeline`).

pub mod bisect;
mod budget;
pub mod levels;
mod manager;
pub mod pipeline;
mod registry;
mod settled;

pub use levels::{phases, pipeline, Phase};
pub use manager::{Execution, ModuleAnalyses, PassManager, PrintAfter};
pub use pipeline::Step;
pub use registry::{find, REGISTRY};

use crate::analysis::{FunctionAnalyses, ModuleFacts, Preserved};
use crate::cost_model::CostModel;
use crate::ir::{FuncId, Function, Module};
use std::rc::Rc;

/// What a function pass gets besides the function: the function's analyses and the
/// module's facts, both kept by the manager, and the target's cost model.
pub struct FunctionContext<'a> {
    /// Which function of the module is being rewritten.
    pub id: FuncId,
    pub analyses: &'a mut FunctionAnalyses,
    pub(crate) facts: Option<Rc<ModuleFacts>>,
    pub costs: &'a dyn CostModel,
}

impl FunctionContext<'_> {
    /// Facts about the whole module (constant globals, function summaries, the call
    /// graph), as they were when the pass started. Only for passes registered with
    /// `needs_facts`, since computing them costs a sweep over the module.
    pub fn facts(&self) -> &ModuleFacts {
        self.facts
            .as_deref()
            .expect("a pass that reads module facts is registered with needs_facts")
    }
}

/// How a pass runs.
#[derive(Clone, Copy)]
pub enum PassKind {
    /// Runs on every function in turn.
    Function(fn(&mut Function, &mut FunctionContext) -> Preserved),
    /// Runs once on the whole module; whatever it does not preserve is dropped in every
    /// function (everything, when it adds or removes functions).
    Module(fn(&mut Module, &mut ModuleAnalyses) -> Preserved),
}

/// A named transformation.
#[derive(Clone, Copy)]
pub struct Pass {
    pub name: &'static str,
    pub description: &'static str,
    pub kind: PassKind,
    /// Whether a function pass reads `FunctionContext::facts`.
    pub needs_facts: bool,
}
