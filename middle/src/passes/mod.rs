//! Transformations of the IR, one per file. The pass manager that runs them, the registry
//! that names them and the pipelines of the levels are `pass_manager`'s; the context a pass
//! gets from it is re-exported here.

pub mod adce;
pub mod bypass_phi_blocks;
pub mod const_fold;
pub mod constant_loads;
pub mod constant_local_arrays;
pub mod dce;
pub mod dead_arguments;
pub mod dead_functions;
pub mod dead_stores;
pub mod divisibility_tests;
pub mod dominating_conditions;
pub mod evaluate_calls;
pub mod gcm;
pub mod gvn;
pub mod if_to_select;
pub mod inline;
pub mod instcombine;
pub mod invariant_bases;
pub mod ipcp;
pub mod jump_threading;
pub mod lcm;
pub mod licm;
pub mod load_elimination;
pub mod loop_closed_form;
pub mod loop_deletion;
pub mod loop_idioms;
pub mod loop_rotate;
pub mod loop_simplify;
pub mod loop_split;
pub mod loop_unroll;
pub mod loop_unswitch;
pub mod mem2reg;
pub mod memoize;
pub mod merge_bound_tests;
pub mod merge_conditions;
pub mod merge_counters;
pub mod merge_functions;
pub mod modular_closed_form;
pub mod pointer_induction;
pub mod power_of_two_divisors;
pub mod predictive_commoning;
pub mod range_simplify;
pub mod reassociate;
pub mod rebase_pointers;
pub mod scalar_promotion;
pub mod sccp;
pub mod simplify_cfg;
pub mod sink_common;
pub mod sink_compares;
pub mod split_critical_edges;
pub mod strength_reduce;
pub mod tail_recursion;
pub mod trivial_phis;

pub use crate::pass_manager::{FunctionContext, ModuleAnalyses};
