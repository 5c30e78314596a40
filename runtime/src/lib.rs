//! What a SysY program runs against, as both the front end and the optimiser see it: the
//! runtime library's functions and their signatures (`functions`, the C library beside this
//! crate being `sylib.c`), the target's arithmetic (`arith`), the two value types they speak of
//! (`Scalar`) and how float text reads as a single (`float_text`: C's literals and the
//! runtime's `getfloat` round alike).
//!
//! It depends on nothing, so the IR can use it without the front end.

pub mod arith;
pub mod float_text;
pub mod functions;
mod scalar;

pub use functions::{RuntimeFn, RuntimeParam};
pub use scalar::Scalar;
