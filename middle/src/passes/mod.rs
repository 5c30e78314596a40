//! Transformations of the IR, one per file, the registry that names them, and the pass
//! manager that runs them.
//!
//! A function pass rewrites one function at a time; it asks its context for analyses (the
//! manager caches them) and module facts, and returns what its changes preserved. A module
//! pass sees the whole module. Both kinds are named in `REGISTRY`, so `--passes` can list
//! either, grouped by `fixpoint(...)` and `repeat(N, ...)` (see `pipeline`).

pub mod bisect;
pub mod const_fold;
pub mod dce;
mod manager;
pub mod mem2reg;
mod phi_edits;
pub mod pipeline;
pub mod simplify_cfg;
pub mod split_critical_edges;
mod var_liveness;

pub use manager::{Execution, ModuleAnalyses, PassManager, PrintAfter};
pub use pipeline::Step;

use crate::analysis::{FunctionAnalyses, Preserved};
use crate::ir::{FuncId, Function, Module};

/// What a function pass gets besides the function: the function's analyses and the
/// module's facts, both kept by the manager.
pub struct FunctionContext<'a> {
    /// Which function of the module is being rewritten.
    pub id: FuncId,
    pub analyses: &'a mut FunctionAnalyses,
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
}

/// Every pass the command line can name.
pub const REGISTRY: &[Pass] = &[
    Pass {
        name: "mem2reg",
        description: "promote scalar stack variables to SSA values",
        kind: PassKind::Function(mem2reg::run),
    },
    Pass {
        name: "const-fold",
        description: "fold constants and algebraic identities",
        kind: PassKind::Function(const_fold::run),
    },
    Pass {
        name: "dce",
        description: "remove unused side-effect-free instructions",
        kind: PassKind::Function(dce::run),
    },
    Pass {
        name: "simplify-cfg",
        description: "fold constant branches, delete unreachable blocks, merge blocks",
        kind: PassKind::Function(simplify_cfg::run),
    },
    Pass {
        name: "split-critical-edges",
        description: "give every critical edge a block of its own",
        kind: PassKind::Function(split_critical_edges::run),
    },
];

pub fn find(name: &str) -> Option<Pass> {
    REGISTRY.iter().copied().find(|p| p.name == name)
}

/// The pipeline of an optimisation level, in the syntax of `--passes`.
pub fn pipeline(level: u8) -> &'static str {
    match level {
        0 => "",
        1 => "mem2reg,const-fold,dce,simplify-cfg",
        _ => "mem2reg,const-fold,simplify-cfg,const-fold,dce,simplify-cfg",
    }
}
