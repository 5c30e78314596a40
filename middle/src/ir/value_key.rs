//! Value-numbering keys: two instructions with equal keys compute the same value, for GVN
//! and other redundancy elimination. A key holds what the instruction computes (opcode,
//! immediates, result type) and its operands' numbers as the pass assigned them, never the
//! instruction itself, so it stays valid while the pass rewrites operands.

use super::entities::{Inst, Value};
use super::function::Function;
use super::instructions::{FloatPred, InstKind, IntPred};
use super::opcode::Opcode;
use super::types::Type;

/// What an instruction computes besides its opcode and operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Immediate {
    None,
    IntPred(IntPred),
    FloatPred(FloatPred),
    Stride(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ValueKey {
    pub opcode: Opcode,
    pub immediate: Immediate,
    pub ty: Type,
    /// The operands' numbers; a unary operation's second is 0. Sorted for commutative
    /// opcodes.
    pub operands: [u32; 2],
}

/// The key of `inst` with operand numbers from `number`, which must give equal numbers to
/// values the pass knows equal (constants included). `None` for instructions that cannot be
/// merged with an equal-looking one: those the opcode table pins (memory accesses, calls,
/// allocas, phis, terminators).
pub fn value_key(f: &Function, inst: Inst, number: impl Fn(Value) -> u32) -> Option<ValueKey> {
    let kind = f.kind(inst);
    let opcode = kind.opcode();
    if opcode.is_pinned() {
        return None;
    }
    let immediate = match *kind {
        InstKind::Icmp { pred, .. } => Immediate::IntPred(pred),
        InstKind::Fcmp { pred, .. } => Immediate::FloatPred(pred),
        InstKind::Gep { stride, .. } => Immediate::Stride(stride),
        _ => Immediate::None,
    };
    let mut operands = [0; 2];
    for (slot, &v) in operands.iter_mut().zip(kind.operands()) {
        *slot = number(v);
    }
    if opcode.is_commutative() {
        operands.sort_unstable();
    }
    Some(ValueKey {
        opcode,
        immediate,
        ty: f.inst(inst).ty,
        operands,
    })
}
