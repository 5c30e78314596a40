//! Analyses of a function's control flow.

pub mod cfg;
pub mod dominators;

pub use cfg::Cfg;
pub use dominators::DomTree;
