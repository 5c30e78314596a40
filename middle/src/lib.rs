//! The middle end: the SSA IR, its construction from the checked tree, its analyses and
//! passes, and an interpreter that executes it.

pub mod analysis;
pub mod bitset;
pub mod compare_chain;
pub mod cost_model;
pub mod fast_hash;
pub mod interp;
pub mod ir;
pub mod lower;
pub mod pass_manager;
pub mod passes;
pub mod transform;
