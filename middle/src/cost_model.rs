//! The cost model of the target, an ARM Cortex-A72, in the terms of the bench's model of it
//! (`scripts/a72.py`: llvm-mca's tables for the A72, with the divide latencies of Arm's
//! optimisation guide): each machine instruction class's result latency and the issue
//! cycles it takes of its pipelines, and from those the estimates for IR instructions and
//! functions that if-to-select, reassociation, unrolling, inlining and the schedulers
//! share. A test (`scripts/test_tools.py`) compares the table with llvm-mca's.

use crate::ir::{BinaryOp, CastOp, Function, Inst, InstKind, Type, Value};

/// A class of machine instructions with one latency and one issue cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CostClass {
    /// ALU operations, moves, compares and branches.
    Alu,
    /// An ALU operation or compare with a shifted register operand (`add r0, r1, r2, lsl
    /// #2`), which the A72 runs in its multi-cycle pipeline; a shift alone is `Alu`.
    ShiftedAlu,
    /// `mul`, `mla`, `mls`, `smull`, ...
    Multiply,
    /// `sdiv`, `udiv`.
    Divide,
    /// A core load.
    Load,
    /// A core store.
    Store,
    /// VFP add, subtract, multiply, negate-multiply.
    VfpArith,
    /// VFP multiply-accumulate (`vmla`, `vfma`, ...).
    VfpMulAcc,
    VfpDivide,
    VfpSqrt,
    /// `vcvt` between integer and float.
    VfpConvert,
    /// A VFP load.
    VfpLoad,
    /// A VFP store.
    VfpStore,
    /// A move between a core and a VFP register, `vcmp`.
    Transfer,
}

impl CostClass {
    /// Every class.
    pub const ALL: [CostClass; 14] = [
        CostClass::Alu,
        CostClass::ShiftedAlu,
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

    /// Cycles from issue until a dependent instruction can use the result (stores produce
    /// no register: 1), for the schedulers: `add` 1 (with a shifted operand 2), `mul` 3,
    /// `sdiv` 12, `ldr` 4, `vadd` 5, `vmla` 9, `vdiv` 11, `vsqrt` 17, `vcvt` 5, `vldr` 5,
    /// `vmov` between a core and a VFP register 5.
    pub const fn latency(self) -> u32 {
        match self {
            CostClass::Alu => 1,
            CostClass::ShiftedAlu => 2,
            CostClass::Multiply => 3,
            CostClass::Divide => 12,
            CostClass::Load => 4,
            CostClass::Store => 1,
            CostClass::VfpArith => 5,
            CostClass::VfpMulAcc => 9,
            CostClass::VfpDivide => 11,
            CostClass::VfpSqrt => 17,
            CostClass::VfpConvert => 5,
            CostClass::VfpLoad => 5,
            CostClass::VfpStore => 1,
            CostClass::Transfer => 5,
        }
    }

    /// Half cycles that an instruction of the class takes of its pipelines: the two integer
    /// pipes take an ALU operation each cycle (1), the one multi-cycle pipe a `mul` or a
    /// shifted-operand ALU operation (2) and a divide for 4 cycles (8), the load and the
    /// store pipe one access each (2), the two VFP pipes an operation each (1; `vdiv` 3,
    /// `vsqrt` 34), a transfer (through the load pipe) 2. A block of independent work takes
    /// at least the greatest sum over one pipeline.
    pub const fn issue(self) -> u32 {
        match self {
            CostClass::Alu => 1,
            CostClass::ShiftedAlu => 2,
            CostClass::Multiply => 2,
            CostClass::Divide => 8,
            CostClass::Load => 2,
            CostClass::Store => 2,
            CostClass::VfpArith => 1,
            CostClass::VfpMulAcc => 1,
            CostClass::VfpDivide => 3,
            CostClass::VfpSqrt => 34,
            CostClass::VfpConvert => 1,
            CostClass::VfpLoad => 2,
            CostClass::VfpStore => 2,
            CostClass::Transfer => 2,
        }
    }

    /// The pipeline that executes the class.
    pub const fn pipe(self) -> Pipe {
        match self {
            CostClass::Alu => Pipe::Integer,
            CostClass::ShiftedAlu | CostClass::Multiply | CostClass::Divide => Pipe::Multi,
            CostClass::Load | CostClass::VfpLoad | CostClass::Transfer => Pipe::Load,
            CostClass::Store | CostClass::VfpStore => Pipe::Store,
            CostClass::VfpArith
            | CostClass::VfpMulAcc
            | CostClass::VfpDivide
            | CostClass::VfpSqrt
            | CostClass::VfpConvert => Pipe::Float,
        }
    }

    /// Cycles an instruction of the class keeps one of its pipeline's slots: a divide 4,
    /// `vdiv` 2, `vsqrt` 17, anything else 1.
    pub const fn occupancy(self) -> u32 {
        match self {
            CostClass::Divide => 4,
            CostClass::VfpDivide => 2,
            CostClass::VfpSqrt => 17,
            _ => 1,
        }
    }
}

/// The Cortex-A72's kinds of execution pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pipe {
    /// Two integer pipes: ALU operations, moves, shifts, compares.
    Integer,
    /// One multi-cycle pipe: multiplies, divides, ALU operations with a shifted operand.
    Multi,
    Load,
    Store,
    /// Two VFP/NEON pipes.
    Float,
}

impl Pipe {
    /// Every kind of pipeline, in the order that counts per kind use.
    pub const ALL: [Pipe; 5] = [
        Pipe::Integer,
        Pipe::Multi,
        Pipe::Load,
        Pipe::Store,
        Pipe::Float,
    ];

    /// The position of this kind in `ALL`.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// How many instructions the pipelines of this kind start each cycle.
    pub const fn width(self) -> u32 {
        match self {
            Pipe::Integer | Pipe::Float => 2,
            Pipe::Multi | Pipe::Load | Pipe::Store => 1,
        }
    }
}

const _: () = {
    let mut i = 0;
    while i < Pipe::ALL.len() {
        assert!(
            Pipe::ALL[i].index() == i,
            "Pipe::ALL out of declaration order"
        );
        i += 1;
    }
};

/// The most instructions the core dispatches to its pipelines each cycle.
pub const DISPATCH_WIDTH: u32 = 3;

/// What a call costs besides moving its arguments, in half cycles of issue: the `bl`, and in
/// the callee the `push {r4, lr}` and `pop {r4, pc}` of the link register and one
/// callee-saved register.
const CALL_OVERHEAD: u32 =
    2 * CostClass::Alu.issue() + 2 * CostClass::Store.issue() + 2 * CostClass::Load.issue();

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

/// The byte offsets a load or store takes as its immediate: up to 4095 either way for a core
/// register (`ldr`, `str`), multiples of 4 up to 1020 for a float one (`vldr`, `vstr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffsetReach {
    pub max: i64,
    pub float: bool,
}

impl OffsetReach {
    const CORE: OffsetReach = OffsetReach {
        max: 4095,
        float: false,
    };
    const FLOAT: OffsetReach = OffsetReach {
        max: 1020,
        float: true,
    };

    /// Whether the access takes `bytes` as its immediate.
    pub fn takes(self, bytes: i64) -> bool {
        bytes.abs() <= self.max && (!self.float || bytes % 4 == 0)
    }

    /// The offsets both accesses take.
    pub fn and(self, other: OffsetReach) -> OffsetReach {
        OffsetReach {
            max: self.max.min(other.max),
            float: self.float || other.float,
        }
    }
}

/// The immediate offsets of `inst` when its operand `index` is the address it accesses;
/// None when it is no load or store through that operand.
pub fn offset_reach(f: &Function, inst: Inst, index: u32) -> Option<OffsetReach> {
    let float = match *f.kind(inst) {
        InstKind::Load { .. } => f.inst(inst).ty == Type::F32,
        InstKind::Store { args: [x, _] } if index == 1 => f.value_type(x) == Type::F32,
        _ => return None,
    };
    Some(if float {
        OffsetReach::FLOAT
    } else {
        OffsetReach::CORE
    })
}

/// The immediate offsets every access through the address `v` takes; None when something
/// other than a load or store through it uses it.
pub fn address_reach(f: &Function, v: Value) -> Option<OffsetReach> {
    f.uses(v)
        .iter()
        .map(|u| offset_reach(f, u.inst, u.index))
        .try_fold(OffsetReach::CORE, |both, r| Some(both.and(r?)))
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
        // `rbit` and `clz`.
        InstKind::Ctz { .. } => &[Alu, Alu],
        InstKind::Cast {
            op: CastOp::SiToFp, ..
        } => &[Transfer, VfpConvert],
        InstKind::Cast {
            op: CastOp::FpToSi, ..
        } => &[VfpConvert, Transfer],
        InstKind::Cast {
            op: CastOp::FloatBits,
            ..
        } => &[Transfer],
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
        _ => kind.opcode().info().cost_class.as_slice(),
    }
}

/// What executing an IR instruction once costs, in half cycles of issue (`CostClass::issue`):
/// `add` 1, `sdiv` 8 (by a constant, a multiply and four simple instructions, 6), `srem` an
/// `sdiv` and an `mls`, a load 2, a call its overhead and one move per argument, a phi
/// nothing.
pub fn inst_cost(kind: &InstKind) -> u32 {
    match kind {
        InstKind::Call { args, .. } => CALL_OVERHEAD + args.len() as u32 * CostClass::Alu.issue(),
        _ => lowering(kind).iter().map(|c| c.issue()).sum(),
    }
}

/// Cycles from the operands of an IR instruction to its result, its machine instructions
/// taken one after the other (`CostClass::latency`): `add` 1, a load 4, a division by a
/// constant 7.
pub fn inst_latency(kind: &InstKind) -> u32 {
    lowering(kind).iter().map(|c| c.latency()).sum()
}

/// The number of machine instructions an IR instruction becomes, for code size.
pub fn inst_size(kind: &InstKind) -> u32 {
    let own = lowering(kind).len() as u32;
    match kind {
        InstKind::Call { args, .. } => own + args.len() as u32,
        _ => own,
    }
}

/// The size of `f` in machine instructions, for inlining and unrolling budgets.
pub fn function_size(f: &Function) -> u32 {
    f.all_insts().map(|i| inst_size(f.kind(i))).sum()
}
