//! IR value types.

use std::fmt;
use sysy_runtime::Scalar;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// No value: the result of a store, a branch or a call to a `void` function.
    Void,
    /// A truth value, produced by comparisons and consumed by `condbr`.
    I1,
    I32,
    F32,
    /// A 32-bit address.
    Ptr,
    /// Four `i32` lanes, a NEON q register.
    V4I32,
    /// Four `f32` lanes, a NEON q register.
    V4F32,
}

impl Type {
    pub const ALL: [Type; 7] = [
        Type::Void,
        Type::I1,
        Type::I32,
        Type::F32,
        Type::Ptr,
        Type::V4I32,
        Type::V4F32,
    ];

    /// The number of lanes of a vector type.
    pub const LANES: u32 = 4;

    /// The type of a SysY value of this scalar type.
    pub fn scalar(s: Scalar) -> Type {
        match s {
            Scalar::Int => Type::I32,
            Scalar::Float => Type::F32,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Type::Void => "void",
            Type::I1 => "i1",
            Type::I32 => "i32",
            Type::F32 => "f32",
            Type::Ptr => "ptr",
            Type::V4I32 => "v4i32",
            Type::V4F32 => "v4f32",
        }
    }

    pub fn from_name(name: &str) -> Option<Type> {
        Type::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Size in memory, in bytes (`i1` is never stored).
    pub fn bytes(self) -> u32 {
        match self {
            Type::Void | Type::I1 => 0,
            Type::I32 | Type::F32 | Type::Ptr => 4,
            Type::V4I32 | Type::V4F32 => 16,
        }
    }

    pub fn is_vector(self) -> bool {
        matches!(self, Type::V4I32 | Type::V4F32)
    }

    /// The type of a vector's lanes (a scalar type is its own).
    pub fn element(self) -> Type {
        match self {
            Type::V4I32 => Type::I32,
            Type::V4F32 => Type::F32,
            t => t,
        }
    }

    /// The vector of four `self` lanes, for `i32` and `f32`.
    pub fn vector(self) -> Option<Type> {
        match self {
            Type::I32 => Some(Type::V4I32),
            Type::F32 => Some(Type::V4F32),
            _ => None,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}
