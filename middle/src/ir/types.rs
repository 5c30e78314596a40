//! IR value types.

use std::fmt;

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
}

impl Type {
    pub fn name(self) -> &'static str {
        match self {
            Type::Void => "void",
            Type::I1 => "i1",
            Type::I32 => "i32",
            Type::F32 => "f32",
            Type::Ptr => "ptr",
        }
    }

    pub fn from_name(name: &str) -> Option<Type> {
        [Type::Void, Type::I1, Type::I32, Type::F32, Type::Ptr]
            .into_iter()
            .find(|t| t.name() == name)
    }

    /// Size in memory, in bytes (`i1` is never stored).
    pub fn bytes(self) -> u32 {
        match self {
            Type::Void | Type::I1 => 0,
            Type::I32 | Type::F32 | Type::Ptr => 4,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}
