//! The Cortex-A72's answers to the middle end's questions about costs (`CortexA72`, the
//! back end's `middle::cost_model::CostModel`): each IR instruction as the machine
//! instructions it usually becomes (`lowering`), costed by the A72's table (`cost_model`),
//! which operations instruction selection can put under a condition, and the immediate
//! offsets of `ldr`/`str` and `vldr`/`vstr`. The driver hands this model to the pass manager.

use crate::cost_model::CostClass;
use middle::cost_model::{CostModel, OffsetReach};
use middle::ir::{BinaryOp, CastOp, InstKind, Type, Value};

/// The Cortex-A72 as the middle end's passes see it.
pub struct CortexA72;

impl CostModel for CortexA72 {
    /// `add` 1, `sdiv` 8 (by a constant, a multiply and four simple instructions, 6), `srem`
    /// an `sdiv` and an `mls`, a load 2, a call its overhead and one move per argument, a phi
    /// nothing (`CostClass::issue`).
    fn inst_cost(&self, kind: &InstKind) -> u32 {
        match kind {
            InstKind::Call { args, .. } => {
                CALL_OVERHEAD + args.len() as u32 * CostClass::Alu.issue()
            }
            _ => lowering(kind).iter().map(|c| c.issue()).sum(),
        }
    }

    /// The machine instructions taken one after the other (`CostClass::latency`): `add` 1,
    /// a load 4, a division by a constant 7.
    fn inst_latency(&self, kind: &InstKind) -> u32 {
        lowering(kind).iter().map(|c| c.latency()).sum()
    }

    /// A call's `bl` and a move per argument.
    fn inst_size(&self, kind: &InstKind) -> u32 {
        let own = lowering(kind).len() as u32;
        match kind {
            InstKind::Call { args, .. } => own + args.len() as u32,
            _ => own,
        }
    }

    fn is_predicable(&self, op: BinaryOp) -> bool {
        is_predicable(op)
    }

    /// Up to 4095 bytes either way for a core register (`ldr`, `str`), multiples of 4 up to
    /// 1020 for a float one (`vldr`, `vstr`).
    fn offset_reach(&self, ty: Type) -> OffsetReach {
        if ty == Type::F32 {
            OffsetReach { max: 1020, step: 4 }
        } else {
            OffsetReach { max: 4095, step: 1 }
        }
    }
}

/// Whether instruction selection emits the integer operation `op` as one instruction that
/// can take a condition (`add`, `sub`, `and`, a shifting `mov`).
pub fn is_predicable(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::And | BinaryOp::LShr | BinaryOp::AShr
    )
}

/// What a call costs besides moving its arguments, in half cycles of issue: the `bl`, and in
/// the callee the `push {r4, lr}` and `pop {r4, pc}` of the link register and one
/// callee-saved register.
const CALL_OVERHEAD: u32 =
    2 * CostClass::Alu.issue() + 2 * CostClass::Store.issue() + 2 * CostClass::Load.issue();

/// The machine instructions an IR instruction usually becomes, in dependency order (for a
/// call, only the `bl`; for a stack slot or a phi, whose copies the register allocator mostly
/// removes, none).
fn lowering(kind: &InstKind) -> &'static [CostClass] {
    use CostClass::*;
    match kind {
        InstKind::Binary {
            op,
            args: [_, divisor],
        } => binary(*op, *divisor),
        // `vneg` weighs as an ALU instruction in the plugin.
        InstKind::FNeg { .. } => &[Alu],
        // `rbit` and `clz`.
        InstKind::Ctz { .. } => &[Alu, Alu],
        InstKind::Icmp { .. } => &[Alu],
        // `vcmp` and `vmrs`.
        InstKind::Fcmp { .. } => &[Alu, Transfer],
        InstKind::Cast { op, .. } => match op {
            CastOp::Zext => &[Alu],
            CastOp::SiToFp => &[Transfer, VfpConvert],
            CastOp::FpToSi => &[VfpConvert, Transfer],
            // `vmov r, s`.
            CastOp::FloatBits => &[Transfer],
        },
        // A variable index times a stride that is no power of two: `mov` the stride, `mul`,
        // `add` (a power of two folds into the `add` as a shift, a constant index into its
        // immediate).
        InstKind::Gep {
            args: [_, index],
            stride,
        } if !index.is_constant() && !stride.is_power_of_two() => &[Alu, Multiply, Alu],
        // A power of two: an `add` with the index shifted (an address the access folds
        // costs nothing more, which this estimate does not see).
        InstKind::Gep {
            args: [_, index],
            stride,
        } if !index.is_constant() && *stride > 1 => &[ShiftedAlu],
        InstKind::Gep { .. } => &[Alu],
        // A move and a conditional move, after the comparison the condition needs anyway.
        InstKind::Select { .. } => &[Alu],
        InstKind::Load { .. } => &[Load],
        InstKind::Store { .. } => &[Store],
        // Vectors weigh as the VFP instructions that run in the same pipelines: `vld1`,
        // `vst1`, lane-wise arithmetic (`isel::vectors`); `vdup` and the lane moves cross
        // between the core and the vector registers; a reduction is pairwise steps and a
        // move to a core register.
        InstKind::VLoad { .. } => &[VfpLoad],
        InstKind::VStore { .. } => &[VfpStore],
        InstKind::VBinary { .. } => &[VfpArith],
        InstKind::Splat { .. } | InstKind::ExtractLane { .. } | InstKind::InsertLane { .. } => {
            &[Transfer]
        }
        InstKind::Reduce { .. } => &[VfpArith, VfpArith, Transfer],
        // The `bl`; `inst_cost` adds the call's overhead.
        InstKind::Call { .. } => &[Alu],
        InstKind::Br { .. } | InstKind::CondBr { .. } | InstKind::Ret { .. } => &[Alu],
        InstKind::Alloca { .. } | InstKind::Phi { .. } => &[],
    }
}

/// `lowering` of a binary operation, whose right operand is `divisor` for a division.
fn binary(op: BinaryOp, divisor: Value) -> &'static [CostClass] {
    use CostClass::*;
    let by_constant = matches!(divisor, Value::Int(d) if d != 0);
    match op {
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::And | BinaryOp::LShr | BinaryOp::AShr => &[Alu],
        BinaryOp::Mul => &[Multiply],
        // By a constant other than 0: a multiply-high by the reciprocal, with a constant to
        // load and up to three shifts and adds (`const_division`), plus an `mls` for a
        // remainder.
        BinaryOp::SDiv if by_constant => &[Alu, Multiply, Alu, Alu, Alu],
        BinaryOp::SRem if by_constant => &[Alu, Multiply, Alu, Alu, Alu, Multiply],
        BinaryOp::SDiv => &[Divide],
        BinaryOp::SRem => &[Divide, Multiply],
        BinaryOp::FAdd | BinaryOp::FSub | BinaryOp::FMul => &[VfpArith],
        BinaryOp::FDiv => &[VfpDivide],
    }
}
