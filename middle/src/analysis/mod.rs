//! Analyses of a function's control flow.

pub mod cfg;
pub mod dominators;
pub mod idf;
pub mod loops;

pub use cfg::Cfg;
pub use dominators::DomTree;
pub use loops::LoopInfo;
