//! The two value types of SysY, which the runtime's functions take and return and the
//! checker builds its array and pointer types from.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    Int,
    Float,
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Scalar::Int => "int",
            Scalar::Float => "float",
        })
    }
}
