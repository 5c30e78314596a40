//! The SysY runtime library's functions (`sylib.h`): the names programs call them by, their
//! linker symbols and their signatures, as the checker checks calls and the IR verifier
//! checks them again.

use crate::Scalar;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuntimeFn {
    GetInt,
    GetCh,
    GetFloat,
    GetArray,
    GetFArray,
    PutInt,
    PutCh,
    PutFloat,
    PutArray,
    PutFArray,
    Putf,
    /// `starttime()`, called as `_sysy_starttime(line)`.
    StartTime,
    /// `stoptime()`, called as `_sysy_stoptime(line)`.
    StopTime,
}

/// How a runtime parameter accepts arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuntimeParam {
    Scalar(Scalar),
    /// An array of any rank with this element type; its first element's address is passed.
    AnyArray(Scalar),
}

impl RuntimeFn {
    pub const ALL: [RuntimeFn; 13] = [
        RuntimeFn::GetInt,
        RuntimeFn::GetCh,
        RuntimeFn::GetFloat,
        RuntimeFn::GetArray,
        RuntimeFn::GetFArray,
        RuntimeFn::PutInt,
        RuntimeFn::PutCh,
        RuntimeFn::PutFloat,
        RuntimeFn::PutArray,
        RuntimeFn::PutFArray,
        RuntimeFn::Putf,
        RuntimeFn::StartTime,
        RuntimeFn::StopTime,
    ];

    /// The name a SysY program calls it by.
    pub fn source_name(self) -> &'static str {
        match self {
            RuntimeFn::GetInt => "getint",
            RuntimeFn::GetCh => "getch",
            RuntimeFn::GetFloat => "getfloat",
            RuntimeFn::GetArray => "getarray",
            RuntimeFn::GetFArray => "getfarray",
            RuntimeFn::PutInt => "putint",
            RuntimeFn::PutCh => "putch",
            RuntimeFn::PutFloat => "putfloat",
            RuntimeFn::PutArray => "putarray",
            RuntimeFn::PutFArray => "putfarray",
            RuntimeFn::Putf => "putf",
            RuntimeFn::StartTime => "starttime",
            RuntimeFn::StopTime => "stoptime",
        }
    }

    /// The linker symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            RuntimeFn::StartTime => "_sysy_starttime",
            RuntimeFn::StopTime => "_sysy_stoptime",
            other => other.source_name(),
        }
    }

    pub fn lookup(name: &str) -> Option<RuntimeFn> {
        RuntimeFn::ALL.into_iter().find(|f| f.source_name() == name)
    }

    /// The type of the value it returns; `None` for a `void` function.
    pub fn ret(self) -> Option<Scalar> {
        match self {
            RuntimeFn::GetInt | RuntimeFn::GetCh | RuntimeFn::GetArray | RuntimeFn::GetFArray => {
                Some(Scalar::Int)
            }
            RuntimeFn::GetFloat => Some(Scalar::Float),
            _ => None,
        }
    }

    /// The declared parameters (for `putf`, those after the format string; more may follow).
    pub fn params(self) -> &'static [RuntimeParam] {
        use RuntimeParam::{AnyArray, Scalar as S};
        match self {
            RuntimeFn::GetArray => &[AnyArray(Scalar::Int)],
            RuntimeFn::GetFArray => &[AnyArray(Scalar::Float)],
            RuntimeFn::PutInt | RuntimeFn::PutCh => &[S(Scalar::Int)],
            RuntimeFn::PutFloat => &[S(Scalar::Float)],
            RuntimeFn::PutArray => &[S(Scalar::Int), AnyArray(Scalar::Int)],
            RuntimeFn::PutFArray => &[S(Scalar::Int), AnyArray(Scalar::Float)],
            _ => &[],
        }
    }
}
