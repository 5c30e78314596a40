//! Transformations of the IR, one per file.

pub mod split_critical_edges;
