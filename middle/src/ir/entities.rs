//! Entity references: small copyable indices into a function's or module's arenas.

use super::types::Type;

macro_rules! entity {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

entity!(
    /// An instruction of a function.
    Inst
);
entity!(
    /// A basic block of a function.
    Block
);
entity!(
    /// A function of a module.
    FuncId
);
entity!(
    /// A global variable of a module.
    GlobalId
);

/// An operand: the result of an instruction, a parameter, a constant, a global's address or
/// an undefined value. Constants are immediate, not instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    Inst(Inst),
    Param(u32),
    Int(i32),
    Bool(bool),
    /// A single-precision constant, by its bits (so that values compare exactly).
    Float(u32),
    Global(GlobalId),
    Undef(Type),
}

impl Value {
    pub fn float(v: f32) -> Value {
        Value::Float(v.to_bits())
    }

    pub fn as_inst(self) -> Option<Inst> {
        match self {
            Value::Inst(i) => Some(i),
            _ => None,
        }
    }

    pub fn is_constant(self) -> bool {
        matches!(self, Value::Int(_) | Value::Bool(_) | Value::Float(_))
    }

    pub fn as_int(self) -> Option<i32> {
        match self {
            Value::Int(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_float(self) -> Option<f32> {
        match self {
            Value::Float(bits) => Some(f32::from_bits(bits)),
            _ => None,
        }
    }
}

/// One use of a value: operand `index` of instruction `inst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Use {
    pub inst: Inst,
    pub index: u32,
}
