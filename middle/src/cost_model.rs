//! The cost model of the target, an ARM Cortex-A72: weights of machine instruction classes
//! (the same as the bench's qemu plugin `scripts/qemu-plugin/insn_cost.c`, which a test
//! compares with this file), their result latencies for scheduling, and estimates for IR
//! instructions, blocks and functions that inlining, unrolling, strength reduction and the
//! register allocator's spill weights share.

use crate::ir::{BinaryOp, Block, CastOp, Function, InstKind, Value};

/// A class of machine instructions with one weight, as the plugin classifies them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CostClass {
    /// ALU operations, moves, compares and branches.
    Alu,
    /// `mul`, `mla`, `mls`, `smull`, ...
    Multiply,
    /// `sdiv`, `udiv`.
    Divide,
    /// A core load, per register.
    Load,
    /// A core store, per register.
    Store,
    /// VFP add, subtract, multiply, negate-multiply.
    VfpArith,
    /// VFP multiply-accumulate (`vmla`, `vfma`, ...).
    VfpMulAcc,
    VfpDivide,
    VfpSqrt,
    /// `vcvt` between integer and float.
    VfpConvert,
    /// A VFP load, per register.
    VfpLoad,
    /// A VFP store, per register.
    VfpStore,
    /// A move between a core and a VFP register, `vmrs`, `vmsr`.
    Transfer,
}

impl CostClass {
    /// Every class, in the plugin's order.
    pub const ALL: [CostClass; 13] = [
        CostClass::Alu,
        CostClass::Multiply,
        CostClass::Divide,
        CostClass::Load,
        CostClass::Store,
        CostClass::VfpArith,
        CostClass::VfpMulAcc,
        CostClass::VfpDivide,
        CostClass::VfpSqrt,
        CostClass::VfpConvert,
        CostClass::VfpLoad,
        CostClass::VfpStore,
        CostClass::Transfer,
    ];

    /// The plugin's weight of one instruction (or one register moved) of this class.
    pub const fn weight(self) -> u32 {
        match self {
            CostClass::Alu => 1,
            CostClass::Multiply => 3,
            CostClass::Divide => 12,
            CostClass::Load => 3,
            CostClass::Store => 2,
            CostClass::VfpArith => 3,
            CostClass::VfpMulAcc => 5,
            CostClass::VfpDivide => 10,
            CostClass::VfpSqrt => 14,
            CostClass::VfpConvert => 3,
            CostClass::VfpLoad => 3,
            CostClass::VfpStore => 2,
            CostClass::Transfer => 2,
        }
    }

    /// Cycles from issue until a dependent instruction can use the result on a Cortex-A72
    /// (its software optimisation guide; the worst case where the latency varies), for
    /// the instruction scheduler. Stores produce no register: 1.
    pub const fn latency(self) -> u32 {
        match self {
            CostClass::Alu => 1,
            CostClass::Multiply => 3,
            CostClass::Divide => 12,
            CostClass::Load => 4,
            CostClass::Store => 1,
            CostClass::VfpArith => 4,
            CostClass::VfpMulAcc => 7,
            CostClass::VfpDivide => 11,
            CostClass::VfpSqrt => 17,
            CostClass::VfpConvert => 3,
            CostClass::VfpLoad => 5,
            CostClass::VfpStore => 1,
            CostClass::Transfer => 5,
        }
    }
}

/// What a call costs besides moving its arguments: the `bl`, and in the callee the
/// `push {r4, lr}` and `pop {r4, pc}` of the link register and one callee-saved register.
pub const CALL_OVERHEAD: u32 =
    CostClass::Alu.weight() + 2 * CostClass::Store.weight() + 2 * CostClass::Load.weight();

/// What the register allocator adds for each definition of a spilled value: a store.
pub const SPILL_STORE_COST: u32 = CostClass::Store.weight();

/// What the register allocator adds for each use of a spilled value: a load.
pub const SPILL_RELOAD_COST: u32 = CostClass::Load.weight();

/// A spilled value with one definition and one use; rematerialising a value pays when
/// recomputing it costs less.
pub const SPILL_COST: u32 = SPILL_STORE_COST + SPILL_RELOAD_COST;

/// Whether the back end selects the integer operation `op` as one instruction that can take
/// a condition (`add`, `sub`, `and`, a shifting `mov`): a select that is its only user then
/// computes it right into its own register, under its condition, for no more than the
/// conditional move it replaces.
pub fn is_predicable(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::Add | BinaryOp::Sub | BinaryOp::And | BinaryOp::LShr | BinaryOp::AShr
    )
}

/// The machine instructions an IR instruction usually becomes, in dependency order (for a
/// call, only the `bl`).
fn lowering(kind: &InstKind) -> &'static [CostClass] {
    use CostClass::*;
    match kind {
        // By a constant other than 0: a multiply-high by the reciprocal, with a constant to
        // load and up to three shifts and adds (`const_division` in the back end), plus an
        // `mls` for a remainder.
        InstKind::Binary {
            op: BinaryOp::SDiv,
            args: [_, Value::Int(d)],
        } if *d != 0 => &[Alu, Multiply, Alu, Alu, Alu],
        InstKind::Binary {
            op: BinaryOp::SRem,
            args: [_, Value::Int(d)],
        } if *d != 0 => &[Alu, Multiply, Alu, Alu, Alu, Multiply],
        InstKind::Binary {
            op: BinaryOp::SRem, ..
        } => &[Divide, Multiply],
        InstKind::Fcmp { .. } => &[Alu, Transfer],
        InstKind::Cast {
            op: CastOp::SiToFp, ..
        } => &[Transfer, VfpConvert],
        InstKind::Cast {
            op: CastOp::FpToSi, ..
        } => &[VfpConvert, Transfer],
        // A variable index times a stride that is no power of two: `mov` the stride, `mul`,
        // `add` (a power of two folds into the `add` as a shift, a constant index into its
        // immediate).
        InstKind::Gep {
            args: [_, index],
            stride,
        } if !index.is_constant() && !stride.is_power_of_two() => &[Alu, Multiply, Alu],
        _ => kind.opcode().info().cost_class.as_slice(),
    }
}

/// The weighted cost of executing an IR instruction once: `sdiv` 12 (by a constant, a
/// multiply and four simple instructions), `srem` an `sdiv` and an `mls`, a call its overhead and one move per argument, a phi nothing.
pub fn inst_cost(kind: &InstKind) -> u32 {
    match kind {
        InstKind::Call { args, .. } => CALL_OVERHEAD + args.len() as u32 * CostClass::Alu.weight(),
        _ => lowering(kind).iter().map(|c| c.weight()).sum(),
    }
}

/// The number of machine instructions an IR instruction becomes, for code size.
pub fn inst_size(kind: &InstKind) -> u32 {
    let own = lowering(kind).len() as u32;
    match kind {
        InstKind::Call { args, .. } => own + args.len() as u32,
        _ => own,
    }
}

/// Cycles until an IR instruction's result is available to its users, for scheduling (a
/// call: its whole cost).
pub fn inst_latency(kind: &InstKind) -> u32 {
    match kind {
        InstKind::Call { .. } => inst_cost(kind),
        _ => lowering(kind).iter().map(|c| c.latency()).sum(),
    }
}

/// The cost of executing block `b` once.
pub fn block_cost(f: &Function, b: Block) -> u32 {
    f.block_insts(b).map(|i| inst_cost(f.kind(i))).sum()
}

/// The size of `f` in machine instructions, for inlining and unrolling budgets.
pub fn function_size(f: &Function) -> u32 {
    f.all_insts().map(|i| inst_size(f.kind(i))).sum()
}
