//! Analyses of a function's control flow and of a module's calls and memory effects, and
//! the manager that caches them for passes. The control-flow analyses (`cfg`, `dominators`,
//! `idf`, `loops`) work on any `graph::Graph`: the back end runs them on machine IR.

mod adjacency;
pub mod alias;
pub mod call_graph;
pub mod cfg;
pub mod dominators;
pub mod entry_order;
pub mod graph;
pub mod idf;
pub mod loops;
pub mod manager;
pub mod memoizable;
pub mod module_facts;
pub mod orders;
pub mod postdom;
pub mod ranges;
pub mod scev;
mod semi_nca;

pub use call_graph::CallGraph;
pub use cfg::Cfg;
pub use dominators::{DomTree, ScopedState};
pub use graph::{Graph, Node};
pub use loops::{Loop, LoopInfo};
pub use manager::{FunctionAnalyses, FunctionAnalysis, Preserved};
pub use module_facts::{FunctionSummary, ModuleFacts};
pub use postdom::PostDomTree;
