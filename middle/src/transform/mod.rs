//! Utilities the IR passes share to rewrite what they change: arithmetic written before an
//! instruction, loops put in canonical form, the clean-up of a function's control flow,
//! closed forms of a loop's values, folding a function's constants, phi edits, copies of
//! blocks with their value maps, positions within blocks, a loop's counter, a counted loop
//! of one block with its exit test and the frame that runs its rounds in blocks, the
//! liveness of stack variables, a loop's memory accesses and its register pressure, removing blocks,
//! loops and functions, what code motion leaves in place, what an instruction simplifies
//! to, trivial phis, how far loops unroll, stack variables promoted to SSA values. None of
//! them is a pass; passes import them, never each other's.

pub mod arith_writer;
pub mod canonical_loops;
pub mod cfg_cleanup;
pub mod closed_form;
pub mod counter_test;
pub mod delete_loop;
pub mod fold_constants;
pub mod loop_accesses;
pub mod loop_counter;
pub mod loop_frame;
pub mod loop_pressure;
pub mod one_block_loop;
pub mod phi_edits;
pub mod pinned;
pub mod positions;
pub mod promote;
pub mod remove_blocks;
pub mod remove_functions;
pub mod simplify;
pub mod trivial_phis;
pub mod unroll_limit;
pub mod value_map;
pub mod var_liveness;
