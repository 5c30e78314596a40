//! Value-numbering keys: two instructions with equal keys compute the same value, for GVN
//! and other redundancy elimination. A key holds what the instruction computes (opcode,
//! immediates, result type) and its operands' numbers as the pass assigned them, never the
//! instruction itself, so it stays valid while the pass rewrites operands.
//!
//! Keys are canonical where the operation allows: commutative operands are sorted, and a
//! comparison whose operands are out of order swaps them and its predicate (`a < b` and
//! `b > a` share a key).

use super::entities::{Inst, Value};
use super::function::Function;
use super::instructions::{FloatPred, InstKind, IntPred, ReduceOp};
use super::opcode::Opcode;
use super::types::Type;

/// What an instruction computes besides its opcode and operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Immediate {
    None,
    IntPred(IntPred),
    FloatPred(FloatPred),
    Stride(u32),
    /// The lane `extractlane` reads or `insertlane` sets.
    Lane(u8),
    Reduce(ReduceOp),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ValueKey {
    pub opcode: Opcode,
    pub immediate: Immediate,
    pub ty: Type,
    /// The operands' numbers, 0 past the last one. The first two are sorted for commutative
    /// opcodes and for comparisons (whose predicate is then swapped to match).
    pub operands: [u32; 3],
}

/// The key of `inst` with operand numbers from `number`, which must give equal numbers to
/// values the pass knows equal (constants included). `None` for instructions that cannot be
/// merged with an equal-looking one: those the opcode table pins (memory accesses, calls,
/// allocas, phis, terminators).
pub fn value_key(f: &Function, inst: Inst, number: impl FnMut(Value) -> u32) -> Option<ValueKey> {
    if f.kind(inst).opcode().is_pinned() {
        return None;
    }
    Some(key(f, inst, number))
}

/// The key of a load, with the address's number from `number`: two loads with equal keys
/// read the same value only if memory did not change between them, which the caller must
/// know. `None` for other instructions.
pub fn load_key(f: &Function, inst: Inst, number: impl FnMut(Value) -> u32) -> Option<ValueKey> {
    matches!(f.kind(inst), InstKind::Load { .. }).then(|| key(f, inst, number))
}

fn key(f: &Function, inst: Inst, mut number: impl FnMut(Value) -> u32) -> ValueKey {
    let kind = f.kind(inst);
    let opcode = kind.opcode();
    let mut immediate = match *kind {
        InstKind::Icmp { pred, .. } => Immediate::IntPred(pred),
        InstKind::Fcmp { pred, .. } => Immediate::FloatPred(pred),
        InstKind::Gep { stride, .. } => Immediate::Stride(stride),
        InstKind::ExtractLane { lane, .. } | InstKind::InsertLane { lane, .. } => {
            Immediate::Lane(lane)
        }
        InstKind::Reduce { op, .. } => Immediate::Reduce(op),
        _ => Immediate::None,
    };
    let mut operands = [0; 3];
    for (slot, &v) in operands.iter_mut().zip(kind.operands()) {
        *slot = number(v);
    }
    if operands[0] > operands[1] {
        let swappable = match &mut immediate {
            Immediate::IntPred(p) => {
                *p = p.swapped();
                true
            }
            Immediate::FloatPred(p) => {
                *p = p.swapped();
                true
            }
            _ => opcode.is_commutative(),
        };
        if swappable {
            operands.swap(0, 1);
        }
    }
    ValueKey {
        opcode,
        immediate,
        ty: f.inst(inst).ty,
        operands,
    }
}
