//! Instructions: opcodes, their operands and their block targets.
//!
//! Operands live in fixed arrays (or vectors for calls and phis) so that every instruction
//! exposes them as one slice: use lists, cloning and value numbering treat all instructions
//! alike, while passes still match on named variants.

use super::entities::{Block, Value};
use super::types::Type;
use sysy_runtime::RuntimeFn;

macro_rules! named_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($variant),*
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),*
                }
            }

            pub fn from_name(s: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|v| v.name() == s)
            }
        }
    };
}

named_enum!(
    /// Two-operand arithmetic. Integer operations wrap; `sdiv` truncates toward zero and
    /// `srem` takes the dividend's sign; `and` is bitwise; `lshr` and `ashr` shift right,
    /// filling with zeros or with the sign bit, by the low byte of their second operand (32
    /// or more shifts every bit out), as ARM's shifts by a register do (the front end never
    /// produces these three: they come from rewrites such as division by a power of two).
    /// Float operations round to single precision.
    BinaryOp {
        Add = "add",
        Sub = "sub",
        Mul = "mul",
        SDiv = "sdiv",
        SRem = "srem",
        And = "and",
        LShr = "lshr",
        AShr = "ashr",
        FAdd = "fadd",
        FSub = "fsub",
        FMul = "fmul",
        FDiv = "fdiv",
    }
);

impl BinaryOp {
    /// The type of both operands and of the result.
    pub fn ty(self) -> Type {
        match self {
            BinaryOp::FAdd | BinaryOp::FSub | BinaryOp::FMul | BinaryOp::FDiv => Type::F32,
            _ => Type::I32,
        }
    }

    /// Whether `a op b == b op a` bit for bit (see the opcode table: not the float ones).
    pub fn is_commutative(self) -> bool {
        self.opcode().is_commutative()
    }
}

named_enum!(
    /// Integer comparison predicates (signed and unsigned).
    IntPred {
        Eq = "eq",
        Ne = "ne",
        Slt = "slt",
        Sle = "sle",
        Sgt = "sgt",
        Sge = "sge",
        Ult = "ult",
        Ule = "ule",
        Ugt = "ugt",
        Uge = "uge",
    }
);

impl IntPred {
    /// The predicate that holds for `(b, a)` exactly when `self` holds for `(a, b)`.
    pub fn swapped(self) -> IntPred {
        use IntPred::*;
        match self {
            Slt => Sgt,
            Sgt => Slt,
            Sle => Sge,
            Sge => Sle,
            Ult => Ugt,
            Ugt => Ult,
            Ule => Uge,
            Uge => Ule,
            Eq | Ne => self,
        }
    }

    /// The predicate that holds exactly when `self` does not.
    pub fn inverse(self) -> IntPred {
        use IntPred::*;
        match self {
            Eq => Ne,
            Ne => Eq,
            Slt => Sge,
            Sge => Slt,
            Sgt => Sle,
            Sle => Sgt,
            Ult => Uge,
            Uge => Ult,
            Ugt => Ule,
            Ule => Ugt,
        }
    }
}

named_enum!(
    /// Float comparison predicates: `o..` are false when either operand is NaN, `u..` true.
    FloatPred {
        Oeq = "oeq",
        One = "one",
        Olt = "olt",
        Ole = "ole",
        Ogt = "ogt",
        Oge = "oge",
        Ord = "ord",
        Ueq = "ueq",
        Une = "une",
        Ult = "ult",
        Ule = "ule",
        Ugt = "ugt",
        Uge = "uge",
        Uno = "uno",
    }
);

impl FloatPred {
    /// The predicate that gives the same result with the operands swapped, NaN operands
    /// included (`a olt b` is `b ogt a`: both false when either is NaN).
    pub fn swapped(self) -> FloatPred {
        match self {
            FloatPred::Oeq | FloatPred::One | FloatPred::Ord => self,
            FloatPred::Ueq | FloatPred::Une | FloatPred::Uno => self,
            FloatPred::Olt => FloatPred::Ogt,
            FloatPred::Ogt => FloatPred::Olt,
            FloatPred::Ole => FloatPred::Oge,
            FloatPred::Oge => FloatPred::Ole,
            FloatPred::Ult => FloatPred::Ugt,
            FloatPred::Ugt => FloatPred::Ult,
            FloatPred::Ule => FloatPred::Uge,
            FloatPred::Uge => FloatPred::Ule,
        }
    }
}

named_enum!(
    /// Conversions: `zext` widens an i1 to an i32; `sitofp` and `fptosi` convert between
    /// i32 and f32 (`fptosi` truncates toward zero and saturates, NaN giving 0);
    /// `floatbits` is the i32 of an f32's bits (a memo table's key).
    CastOp {
        Zext = "zext",
        SiToFp = "sitofp",
        FpToSi = "fptosi",
        FloatBits = "floatbits",
    }
);

impl CastOp {
    pub fn types(self) -> (Type, Type) {
        match self {
            CastOp::Zext => (Type::I1, Type::I32),
            CastOp::SiToFp => (Type::I32, Type::F32),
            CastOp::FpToSi | CastOp::FloatBits => (Type::F32, Type::I32),
        }
    }
}

named_enum!(
    /// Lane-wise operations on vectors: each lane is the scalar operation of the same lanes
    /// of the operands (`vsmin` and `vsmax` take the signed minimum and maximum). The integer
    /// ones work on `v4i32`, the float ones on `v4f32`.
    VectorOp {
        Add = "vadd",
        Sub = "vsub",
        Mul = "vmul",
        SMin = "vsmin",
        SMax = "vsmax",
        FAdd = "vfadd",
        FSub = "vfsub",
        FMul = "vfmul",
    }
);

impl VectorOp {
    /// The type of both operands and of the result.
    pub fn ty(self) -> Type {
        match self {
            VectorOp::FAdd | VectorOp::FSub | VectorOp::FMul => Type::V4F32,
            _ => Type::V4I32,
        }
    }

    /// The lane-wise operation of a scalar one, where vectors have it.
    pub fn of(op: BinaryOp) -> Option<VectorOp> {
        Some(match op {
            BinaryOp::Add => VectorOp::Add,
            BinaryOp::Sub => VectorOp::Sub,
            BinaryOp::Mul => VectorOp::Mul,
            BinaryOp::FAdd => VectorOp::FAdd,
            BinaryOp::FSub => VectorOp::FSub,
            BinaryOp::FMul => VectorOp::FMul,
            _ => return None,
        })
    }
}

named_enum!(
    /// The combination of a `v4i32`'s four lanes into one `i32`: their wrapping sum, or
    /// their signed minimum or maximum. All three are exact in any order.
    ReduceOp {
        Add = "add",
        SMin = "smin",
        SMax = "smax",
    }
);

/// What a call calls.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Callee {
    Function(super::entities::FuncId),
    Runtime(RuntimeFn),
    /// `putf` with the module's format string of this index.
    Putf(u32),
    /// libc `memset(ptr, byte, bytes)`.
    Memset,
    /// libc `memcpy(dst, src, bytes)`: the two ranges never overlap.
    Memcpy,
}

#[derive(Clone, Debug, PartialEq)]
pub enum InstKind {
    /// Stack memory for `count` elements of `elem`; the result is its address.
    Alloca {
        elem: Type,
        count: u32,
    },
    /// `[ptr]`; the result type is the instruction's type.
    Load {
        args: [Value; 1],
    },
    /// `[value, ptr]`.
    Store {
        args: [Value; 2],
    },
    /// `[ptr]`: the four consecutive elements from `ptr` on, as a vector of the
    /// instruction's type.
    VLoad {
        args: [Value; 1],
    },
    /// `[vector, ptr]`: the vector's lanes into the four consecutive elements from `ptr` on.
    VStore {
        args: [Value; 2],
    },
    /// `[base, index]`: the address `base + index * stride`.
    Gep {
        args: [Value; 2],
        stride: u32,
    },
    Binary {
        op: BinaryOp,
        args: [Value; 2],
    },
    VBinary {
        op: VectorOp,
        args: [Value; 2],
    },
    /// `[scalar]`: a vector with the scalar in every lane.
    Splat {
        args: [Value; 1],
    },
    /// `[vector]`: lane `lane` of the vector.
    ExtractLane {
        lane: u8,
        args: [Value; 1],
    },
    /// `[vector, scalar]`: the vector with lane `lane` replaced by the scalar.
    InsertLane {
        lane: u8,
        args: [Value; 2],
    },
    /// `[vector]`: the vector's lanes combined into one scalar.
    Reduce {
        op: ReduceOp,
        args: [Value; 1],
    },
    FNeg {
        args: [Value; 1],
    },
    /// The number of zero bits below the lowest set bit of an `i32`, 32 for 0: the shift
    /// that divides by a power of two.
    Ctz {
        args: [Value; 1],
    },
    Icmp {
        pred: IntPred,
        args: [Value; 2],
    },
    Fcmp {
        pred: FloatPred,
        args: [Value; 2],
    },
    Cast {
        op: CastOp,
        args: [Value; 1],
    },
    /// `[cond, a, b]`: `a` when `cond` holds, else `b`.
    Select {
        args: [Value; 3],
    },
    Call {
        callee: Callee,
        args: Vec<Value>,
    },
    /// `args[i]` flows in from `blocks[i]`.
    Phi {
        args: Vec<Value>,
        blocks: Vec<Block>,
    },
    Br {
        targets: [Block; 1],
    },
    /// `[cond]`: to `targets[0]` when true, else `targets[1]`.
    CondBr {
        args: [Value; 1],
        targets: [Block; 2],
    },
    Ret {
        args: Option<Value>,
    },
}

/// The operand slice of an instruction kind, by reference or by mutable reference: `$empty`
/// is the empty slice and `$as_slice` turns `Ret`'s optional value into a slice.
macro_rules! operand_slice {
    ($kind:expr, $empty:expr, $as_slice:ident) => {
        match $kind {
            InstKind::Alloca { .. } | InstKind::Br { .. } => $empty,
            InstKind::Load { args }
            | InstKind::VLoad { args }
            | InstKind::Splat { args }
            | InstKind::ExtractLane { args, .. }
            | InstKind::Reduce { args, .. }
            | InstKind::FNeg { args }
            | InstKind::Ctz { args }
            | InstKind::Cast { args, .. }
            | InstKind::CondBr { args, .. } => args,
            InstKind::Store { args }
            | InstKind::VStore { args }
            | InstKind::InsertLane { args, .. }
            | InstKind::Gep { args, .. }
            | InstKind::Binary { args, .. }
            | InstKind::VBinary { args, .. }
            | InstKind::Icmp { args, .. }
            | InstKind::Fcmp { args, .. } => args,
            InstKind::Select { args } => args,
            InstKind::Call { args, .. } | InstKind::Phi { args, .. } => args,
            InstKind::Ret { args } => args.$as_slice(),
        }
    };
}

impl InstKind {
    /// `op a, b`.
    pub fn binary(op: BinaryOp, a: Value, b: Value) -> InstKind {
        InstKind::Binary { op, args: [a, b] }
    }

    /// `icmp pred a, b`.
    pub fn icmp(pred: IntPred, a: Value, b: Value) -> InstKind {
        InstKind::Icmp { pred, args: [a, b] }
    }

    /// A phi with no incoming pairs yet, for a pass to fill once the values exist.
    pub fn empty_phi() -> InstKind {
        InstKind::Phi {
            args: Vec::new(),
            blocks: Vec::new(),
        }
    }

    pub fn operands(&self) -> &[Value] {
        operand_slice!(self, &[], as_slice)
    }

    pub fn operands_mut(&mut self) -> &mut [Value] {
        operand_slice!(self, &mut [], as_mut_slice)
    }

    /// Successor blocks of a terminator; empty for other instructions.
    pub fn targets(&self) -> &[Block] {
        match self {
            InstKind::Br { targets } => targets,
            InstKind::CondBr { targets, .. } => targets,
            _ => &[],
        }
    }

    pub fn targets_mut(&mut self) -> &mut [Block] {
        match self {
            InstKind::Br { targets } => targets,
            InstKind::CondBr { targets, .. } => targets,
            _ => &mut [],
        }
    }

    pub fn is_terminator(&self) -> bool {
        self.opcode().is_terminator()
    }

    pub fn is_phi(&self) -> bool {
        matches!(self, InstKind::Phi { .. })
    }

    /// Whether the instruction does something besides producing its result: writes memory,
    /// calls, or transfers control. Such instructions stay even when their result is unused.
    pub fn has_side_effects(&self) -> bool {
        self.opcode().has_side_effects()
    }
}

/// An instruction: what it does and the type of its result.
#[derive(Clone, Debug, PartialEq)]
pub struct InstData {
    pub kind: InstKind,
    pub ty: Type,
}
