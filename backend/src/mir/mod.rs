//! Machine IR: A32 and VFP instructions over virtual and physical registers, in blocks of
//! machine functions, with a text form for dumps and a structural verifier.

mod function;
mod inst;
mod printer;
mod regs;
pub mod verifier;

pub use function::*;
pub use inst::*;
pub use regs::*;
#[cfg(test)]
mod tests;
