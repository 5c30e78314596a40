//! SysY types as the checker sees them, built from the two value types (`Scalar`).

use std::fmt;
use sysy_runtime::Scalar;

/// The type of a variable or an expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// The result of calling a `void` function.
    Void,
    Int,
    Float,
    /// A whole array, with every dimension.
    Array(Scalar, Vec<u32>),
    /// A pointer to the first element of an array whose rows have the given dimensions;
    /// with no dimensions, a pointer to a scalar. Array parameters and arrays passed as
    /// arguments have this type.
    Pointer(Scalar, Vec<u32>),
}

impl Type {
    pub fn scalar(s: Scalar) -> Type {
        match s {
            Scalar::Int => Type::Int,
            Scalar::Float => Type::Float,
        }
    }

    pub fn as_scalar(&self) -> Option<Scalar> {
        match self {
            Type::Int => Some(Scalar::Int),
            Type::Float => Some(Scalar::Float),
            _ => None,
        }
    }

    /// The type of `self[i]`, if `self` can be indexed.
    pub fn index(&self) -> Option<Type> {
        let (elem, rest) = match self {
            Type::Array(elem, dims) => (*elem, &dims[1..]),
            Type::Pointer(elem, dims) => (*elem, &dims[..]),
            _ => return None,
        };
        Some(if rest.is_empty() {
            Type::scalar(elem)
        } else {
            Type::Array(elem, rest.to_vec())
        })
    }

    /// What an array turns into when passed as an argument: a pointer to its first row.
    pub fn decay(&self) -> Type {
        match self {
            Type::Array(elem, dims) => Type::Pointer(*elem, dims[1..].to_vec()),
            other => other.clone(),
        }
    }

    /// Element type of an array or pointer.
    pub fn element(&self) -> Option<Scalar> {
        match self {
            Type::Array(e, _) | Type::Pointer(e, _) => Some(*e),
            _ => None,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Type::Void => f.write_str("void"),
            Type::Int => f.write_str("int"),
            Type::Float => f.write_str("float"),
            Type::Array(e, dims) => {
                write!(f, "{e}")?;
                dims.iter().try_for_each(|d| write!(f, "[{d}]"))
            }
            Type::Pointer(e, dims) => {
                write!(f, "{e}[]")?;
                dims.iter().try_for_each(|d| write!(f, "[{d}]"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexing_and_decay() {
        let a = Type::Array(Scalar::Int, vec![2, 3]);
        assert_eq!(a.index(), Some(Type::Array(Scalar::Int, vec![3])));
        assert_eq!(a.decay(), Type::Pointer(Scalar::Int, vec![3]));
        assert_eq!(a.index().and_then(|t| t.index()), Some(Type::Int));
        let p = Type::Pointer(Scalar::Float, vec![]);
        assert_eq!(p.index(), Some(Type::Float));
        assert_eq!(Type::Int.index(), None);
        assert_eq!(a.to_string(), "int[2][3]");
        assert_eq!(a.decay().to_string(), "int[][3]");
    }
}
