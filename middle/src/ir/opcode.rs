//! The opcode table: one row of algebraic, memory and code-motion properties per operation
//! of the IR, the single place passes ask what an operation may do.
//!
//! Every integer operation is defined for every input (division by zero gives 0, as ARM's
//! `sdiv` does; see `semantics`), so nothing traps. Only memory accesses can stop the program
//! (an invalid address), and a call can do anything; those are marked `MAY_FAULT`.
//!
//! Float operations are neither associative (each step rounds to single precision) nor
//! commutative bit for bit: an operation with two NaN operands returns the first, so
//! `fadd NaN, -NaN` and `fadd -NaN, NaN` differ in sign. Swapping is exact when one operand
//! is a constant other than NaN; a rule that canonicalises float operands must check that.
//! `and` is the one idempotent operation (`x & x == x`).

use super::entities::Value;
use super::instructions::{BinaryOp, CastOp, InstKind, VectorOp};

/// What an instruction does, without its operands and immediates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Opcode {
    Add,
    Sub,
    Mul,
    SDiv,
    SRem,
    And,
    LShr,
    AShr,
    FAdd,
    FSub,
    FMul,
    FDiv,
    FNeg,
    Ctz,
    Icmp,
    Fcmp,
    Zext,
    SiToFp,
    FpToSi,
    FloatBits,
    Select,
    Load,
    Store,
    VLoad,
    VStore,
    VAdd,
    VSub,
    VMul,
    VSMin,
    VSMax,
    VFAdd,
    VFSub,
    VFMul,
    Splat,
    ExtractLane,
    InsertLane,
    Reduce,
    Gep,
    Alloca,
    Call,
    Phi,
    Br,
    CondBr,
    Ret,
}

/// On which operands of a binary operation a special constant works.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sides {
    /// As either operand.
    Both,
    /// Only as the right operand (`x - 0`, but not `0 - x`).
    Right,
}

/// A constant with a fixed effect on a binary operation: an identity (`x op e == x`) or an
/// absorbing element (`x op z == z`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpecialConst {
    pub value: Value,
    pub sides: Sides,
}

impl SpecialConst {
    /// For `a op b`: the operand other than the constant when the constant stands on a side
    /// where it works.
    pub fn other_operand(self, a: Value, b: Value) -> Option<Value> {
        if b == self.value {
            Some(a)
        } else if a == self.value && self.sides == Sides::Both {
            Some(b)
        } else {
            None
        }
    }
}

/// The properties of one opcode.
#[derive(Clone, Copy, Debug)]
pub struct OpcodeInfo {
    pub opcode: Opcode,
    flags: u16,
    /// `x op e == x` for every `x`, `e` standing where `sides` says.
    pub identity: Option<SpecialConst>,
    /// `x op z == z` for every `x`, `z` standing where `sides` says.
    pub absorbing: Option<SpecialConst>,
}

const COMMUTATIVE: u16 = 1 << 0;
const ASSOCIATIVE: u16 = 1 << 1;
const IDEMPOTENT: u16 = 1 << 2;
const SIDE_EFFECTS: u16 = 1 << 3;
const MAY_FAULT: u16 = 1 << 4;
const READS_MEMORY: u16 = 1 << 5;
const WRITES_MEMORY: u16 = 1 << 6;
const PINNED: u16 = 1 << 7;
const TERMINATOR: u16 = 1 << 8;

/// Flags of memory accesses, calls and control transfers.
const LOAD: u16 = MAY_FAULT | READS_MEMORY | PINNED;
const STORE: u16 = SIDE_EFFECTS | MAY_FAULT | WRITES_MEMORY | PINNED;
const CALL: u16 = STORE | READS_MEMORY;
const CONTROL: u16 = SIDE_EFFECTS | PINNED | TERMINATOR;

const fn row(
    opcode: Opcode,
    flags: u16,
    identity: Option<SpecialConst>,
    absorbing: Option<SpecialConst>,
) -> OpcodeInfo {
    OpcodeInfo {
        opcode,
        flags,
        identity,
        absorbing,
    }
}

const fn both(value: Value) -> Option<SpecialConst> {
    Some(SpecialConst {
        value,
        sides: Sides::Both,
    })
}

const fn right(value: Value) -> Option<SpecialConst> {
    Some(SpecialConst {
        value,
        sides: Sides::Right,
    })
}

const fn int(c: i32) -> Value {
    Value::Int(c)
}

const fn float(x: f32) -> Value {
    Value::Float(x.to_bits())
}

use Opcode::*;

/// Indexed by `Opcode as usize` (checked at compile time below).
#[rustfmt::skip]
static TABLE: [OpcodeInfo; 44] = [
    //  opcode   flags                      identity           absorbing
    row(Add,     COMMUTATIVE | ASSOCIATIVE, both(int(0)),      None),
    row(Sub,     0,                         right(int(0)),     None),
    row(Mul,     COMMUTATIVE | ASSOCIATIVE, both(int(1)),      both(int(0))),
    row(SDiv,    0,                         right(int(1)),     None),
    row(SRem,    0,                         None,              None),
    row(And,     COMMUTATIVE | ASSOCIATIVE | IDEMPOTENT,
                                            both(int(-1)),     both(int(0))),
    row(LShr,    0,                         right(int(0)),     None),
    row(AShr,    0,                         right(int(0)),     None),
    // x + -0.0 is x for every x, -0.0 included (but -0.0 + +0.0 is +0.0).
    row(FAdd,    0,                         both(float(-0.0)), None),
    row(FSub,    0,                         right(float(0.0)), None),
    // No float zero absorbs: NaN * 0 is NaN, inf * 0 is NaN, -1 * 0 is -0.0.
    row(FMul,    0,                         both(float(1.0)),  None),
    row(FDiv,    0,                         right(float(1.0)), None),
    row(FNeg,    0,                         None,              None),
    row(Ctz,     0,                         None,              None),
    row(Icmp,    0,                         None,              None),
    row(Fcmp,    0,                         None,              None),
    row(Zext,    0,                         None,              None),
    row(SiToFp,  0,                         None,              None),
    row(FpToSi,  0,                         None,              None),
    row(FloatBits, 0,                       None,              None),
    row(Select,  0,                         None,              None),
    row(Load,    LOAD,                      None,              None),
    row(Store,   STORE,                     None,              None),
    row(VLoad,   LOAD,                      None,              None),
    row(VStore,  STORE,                     None,              None),
    row(VAdd,    COMMUTATIVE | ASSOCIATIVE, None,              None),
    row(VSub,    0,                         None,              None),
    row(VMul,    COMMUTATIVE | ASSOCIATIVE, None,              None),
    row(VSMin,   COMMUTATIVE | ASSOCIATIVE | IDEMPOTENT,
                                            None,              None),
    row(VSMax,   COMMUTATIVE | ASSOCIATIVE | IDEMPOTENT,
                                            None,              None),
    row(VFAdd,   0,                         None,              None),
    row(VFSub,   0,                         None,              None),
    row(VFMul,   0,                         None,              None),
    row(Splat,   0,                         None,              None),
    row(ExtractLane, 0,                     None,              None),
    row(InsertLane, 0,                      None,              None),
    row(Reduce,  0,                         None,              None),
    row(Gep,     0,                         None,              None),
    row(Alloca,  PINNED,                    None,              None),
    row(Call,    CALL,                      None,              None),
    row(Phi,     PINNED,                    None,              None),
    row(Br,      CONTROL,                   None,              None),
    row(CondBr,  CONTROL,                   None,              None),
    row(Ret,     CONTROL,                   None,              None),
];

const _: () = {
    let mut i = 0;
    while i < TABLE.len() {
        assert!(
            TABLE[i].opcode as usize == i,
            "TABLE rows out of Opcode order"
        );
        i += 1;
    }
};

impl Opcode {
    /// Every opcode, in table order.
    #[rustfmt::skip]
    pub const ALL: [Opcode; 44] = [
        Add, Sub, Mul, SDiv, SRem, And, LShr, AShr, FAdd, FSub, FMul, FDiv, FNeg, Ctz, Icmp, Fcmp,
        Zext, SiToFp, FpToSi, FloatBits, Select, Load, Store, VLoad, VStore, VAdd, VSub, VMul,
        VSMin, VSMax, VFAdd, VFSub, VFMul, Splat, ExtractLane, InsertLane, Reduce, Gep, Alloca,
        Call, Phi, Br, CondBr, Ret,
    ];

    /// This opcode's row of the table.
    pub fn info(self) -> &'static OpcodeInfo {
        &TABLE[self as usize]
    }

    fn has(self, flag: u16) -> bool {
        self.info().flags & flag != 0
    }

    /// `a op b == b op a` for all operands, bit for bit.
    pub fn is_commutative(self) -> bool {
        self.has(COMMUTATIVE)
    }

    /// `(a op b) op c == a op (b op c)` for all operands, bit for bit.
    pub fn is_associative(self) -> bool {
        self.has(ASSOCIATIVE)
    }

    /// `x op x == x` for every `x` (`and`).
    pub fn is_idempotent(self) -> bool {
        self.has(IDEMPOTENT)
    }

    /// Does something besides producing its result (writes memory, calls, or transfers
    /// control), so it stays even when its result is unused.
    pub fn has_side_effects(self) -> bool {
        self.has(SIDE_EFFECTS)
    }

    /// May stop the program where it would not have stopped: an access to an invalid
    /// address, or a call. Such an instruction cannot be executed speculatively.
    pub fn may_fault(self) -> bool {
        self.has(MAY_FAULT)
    }

    pub fn reads_memory(self) -> bool {
        self.has(READS_MEMORY)
    }

    pub fn writes_memory(self) -> bool {
        self.has(WRITES_MEMORY)
    }

    /// Cannot move to another block by code motion (GCM, LICM): phis and terminators
    /// belong to their block, allocas to the entry, and memory accesses and calls keep
    /// their order relative to each other unless a pass proves more.
    pub fn is_pinned(self) -> bool {
        self.has(PINNED)
    }

    pub fn is_terminator(self) -> bool {
        self.has(TERMINATOR)
    }

    /// `x op e == x`, if the operation has such an `e`.
    pub fn identity(self) -> Option<SpecialConst> {
        self.info().identity
    }

    /// `x op z == z`, if the operation has such a `z`.
    pub fn absorbing(self) -> Option<SpecialConst> {
        self.info().absorbing
    }
}

impl BinaryOp {
    pub fn opcode(self) -> Opcode {
        match self {
            BinaryOp::Add => Add,
            BinaryOp::Sub => Sub,
            BinaryOp::Mul => Mul,
            BinaryOp::SDiv => SDiv,
            BinaryOp::SRem => SRem,
            BinaryOp::And => And,
            BinaryOp::LShr => LShr,
            BinaryOp::AShr => AShr,
            BinaryOp::FAdd => FAdd,
            BinaryOp::FSub => FSub,
            BinaryOp::FMul => FMul,
            BinaryOp::FDiv => FDiv,
        }
    }
}

impl VectorOp {
    pub fn opcode(self) -> Opcode {
        match self {
            VectorOp::Add => VAdd,
            VectorOp::Sub => VSub,
            VectorOp::Mul => VMul,
            VectorOp::SMin => VSMin,
            VectorOp::SMax => VSMax,
            VectorOp::FAdd => VFAdd,
            VectorOp::FSub => VFSub,
            VectorOp::FMul => VFMul,
        }
    }
}

impl CastOp {
    pub fn opcode(self) -> Opcode {
        match self {
            CastOp::Zext => Zext,
            CastOp::SiToFp => SiToFp,
            CastOp::FpToSi => FpToSi,
            CastOp::FloatBits => FloatBits,
        }
    }
}

impl InstKind {
    pub fn opcode(&self) -> Opcode {
        match self {
            InstKind::Alloca { .. } => Alloca,
            InstKind::Load { .. } => Load,
            InstKind::Store { .. } => Store,
            InstKind::VLoad { .. } => VLoad,
            InstKind::VStore { .. } => VStore,
            InstKind::VBinary { op, .. } => op.opcode(),
            InstKind::Splat { .. } => Splat,
            InstKind::ExtractLane { .. } => ExtractLane,
            InstKind::InsertLane { .. } => InsertLane,
            InstKind::Reduce { .. } => Reduce,
            InstKind::Gep { .. } => Gep,
            InstKind::Binary { op, .. } => op.opcode(),
            InstKind::FNeg { .. } => FNeg,
            InstKind::Ctz { .. } => Ctz,
            InstKind::Icmp { .. } => Icmp,
            InstKind::Fcmp { .. } => Fcmp,
            InstKind::Cast { op, .. } => op.opcode(),
            InstKind::Select { .. } => Select,
            InstKind::Call { .. } => Call,
            InstKind::Phi { .. } => Phi,
            InstKind::Br { .. } => Br,
            InstKind::CondBr { .. } => CondBr,
            InstKind::Ret { .. } => Ret,
        }
    }
}
