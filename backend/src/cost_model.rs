//! The cost model of the target, an ARM Cortex-A72, in the terms of the bench's model of it
//! (`scripts/a72.py`: llvm-mca's tables for the A72, with the divide latencies of Arm's
//! optimisation guide): each machine instruction class's result latency, the issue cycles it
//! takes of its pipelines and which pipeline runs it. The schedulers and `unfold-shifts` use
//! it directly; `ir_costs` builds from it the estimates for IR instructions that the middle
//! end's passes ask for. A test (`scripts/test_tools.py`) compares the table with llvm-mca's.

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
