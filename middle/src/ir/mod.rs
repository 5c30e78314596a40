//! The SSA intermediate representation.

pub mod clamp;
mod entities;
mod function;
mod instructions;
mod module;
mod opcode;
pub mod parser;
pub mod pattern;
pub mod printer;
pub mod semantics;
mod types;
mod value_key;
pub mod verifier;

pub use entities::{Block, FuncId, GlobalId, Inst, Use, Value};
pub use function::Function;
pub use instructions::{
    BinaryOp, Callee, CastOp, FloatPred, InstData, InstKind, IntPred, ReduceOp, VectorOp,
};
pub use module::{Global, Module};
pub use opcode::{Opcode, OpcodeInfo, Sides, SpecialConst};
pub use types::Type;
pub use value_key::{load_key, value_key, Immediate, ValueKey};
