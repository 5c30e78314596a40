//! Analyses of a function's control flow, and the manager that caches them for passes.

mod adjacency;
pub mod cfg;
pub mod dominators;
pub mod idf;
pub mod loops;
pub mod manager;
mod semi_nca;

pub use cfg::Cfg;
pub use dominators::DomTree;
pub use loops::LoopInfo;
pub use manager::{FunctionAnalyses, FunctionAnalysis, Preserved};
