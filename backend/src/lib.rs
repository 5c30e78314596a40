//! The ARM back end: instruction selection to machine IR, register allocation, frame layout
//! and GNU assembler text for armv7ve with VFPv4, AAPCS hard-float, run as a list of named
//! passes (`passes`).

pub mod abi;
mod branches;
mod conditional_store;
mod const_division;
pub mod cost_model;
mod dead_definitions;
mod dependences;
mod emit;
mod frame;
pub mod global_layout;
mod hoist_spills;
mod if_convert;
pub mod imm;
pub mod ir_costs;
pub mod isel;
mod jump_tables;
mod load_store_multiple;
pub mod mir;
pub mod parallel_copy;
pub mod passes;
mod peephole;
mod pre_schedule;
pub mod regalloc;
mod repeated_compares;
mod schedule;
mod share_constants;
mod shrink_wrap;
pub mod symbols;
mod tail_calls;
mod unfold_shifts;
mod writeback;
mod zero_compares;

pub use passes::{compile_with, BackendExecution, BackendOptions};

use middle::ir::Module;

/// Compiles a verified module to assembly text with the back-end pipeline of `opt_level`,
/// logging nothing. The module is left as it is (the back end works on a copy).
pub fn compile(m: &Module, opt_level: u8) -> Result<String, String> {
    let options = BackendOptions::new(opt_level);
    compile_with(m.clone(), &options, &mut std::io::sink()).map(|(asm, _)| asm)
}
