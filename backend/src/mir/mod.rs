//! Machine IR: A32, VFP and NEON instructions over virtual and physical registers, in
//! blocks of machine functions, with one printer of instructions (for assembly and for a
//! text form of dumps that parses back), a structural verifier, and the loop nesting depths
//! and frequencies of blocks.

mod cond;
pub mod frame_placement;
mod function;
mod inst;
pub mod inst_text;
pub mod loops;
pub mod operand_classes;
mod operands;
mod parse_inst;
pub mod parser;
mod printer;
mod regs;
#[cfg(test)]
pub mod test_build;
pub mod verifier;

pub use cond::*;
pub use function::*;
pub use inst::*;
pub use operands::*;
pub use regs::*;
#[cfg(test)]
mod tests;
