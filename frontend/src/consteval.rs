//! Compile-time evaluation of SysY's operators with their run-time semantics: each operation
//! is `arith`'s (the one evaluator constant folding and the interpreter use too). Integer
//! division or remainder by zero has no value here: a constant expression must not contain
//! one, so the checker reports it.

use crate::ast::{BinaryOp, UnaryOp};
use sysy_runtime::{arith, Scalar};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstValue {
    Int(i32),
    Float(f32),
}

impl ConstValue {
    pub fn scalar(self) -> Scalar {
        match self {
            ConstValue::Int(_) => Scalar::Int,
            ConstValue::Float(_) => Scalar::Float,
        }
    }

    pub fn zero(ty: Scalar) -> ConstValue {
        match ty {
            Scalar::Int => ConstValue::Int(0),
            Scalar::Float => ConstValue::Float(0.0),
        }
    }

    /// Whether a condition on this value holds (compares with zero).
    pub fn is_true(self) -> bool {
        match self {
            ConstValue::Int(v) => v != 0,
            ConstValue::Float(v) => v != 0.0,
        }
    }

    pub fn is_zero_bits(self) -> bool {
        match self {
            ConstValue::Int(v) => v == 0,
            ConstValue::Float(v) => v.to_bits() == 0,
        }
    }

    /// Converts to `to` with C's implicit-conversion rules.
    pub fn convert(self, to: Scalar) -> ConstValue {
        match (self, to) {
            (ConstValue::Int(v), Scalar::Float) => ConstValue::Float(arith::int_to_float(v)),
            (ConstValue::Float(v), Scalar::Int) => ConstValue::Int(arith::float_to_int(v)),
            (v, _) => v,
        }
    }
}

/// Folds a unary operator; `!` gives an int.
pub fn unary(op: UnaryOp, v: ConstValue) -> ConstValue {
    match (op, v) {
        (UnaryOp::Pos, v) => v,
        (UnaryOp::Neg, ConstValue::Int(x)) => ConstValue::Int(arith::neg(x)),
        (UnaryOp::Neg, ConstValue::Float(x)) => ConstValue::Float(arith::fneg(x)),
        (UnaryOp::Not, v) => ConstValue::Int(!v.is_true() as i32),
    }
}

/// Folds a binary operator on two operands of the same type. Comparisons and logical
/// operators give an int. `None` when the operation has no defined result: integer division or
/// remainder by zero, or `%` on floats.
pub fn binary(op: BinaryOp, a: ConstValue, b: ConstValue) -> Option<ConstValue> {
    use BinaryOp::*;
    use ConstValue::{Float as F, Int as I};
    let bool_int = |c: bool| Some(I(c as i32));
    match (a, b) {
        (I(x), I(y)) => match op {
            Add => Some(I(arith::add(x, y))),
            Sub => Some(I(arith::sub(x, y))),
            Mul => Some(I(arith::mul(x, y))),
            Div => (y != 0).then(|| I(arith::sdiv(x, y))),
            Rem => (y != 0).then(|| I(arith::srem(x, y))),
            Lt => bool_int(x < y),
            Gt => bool_int(x > y),
            Le => bool_int(x <= y),
            Ge => bool_int(x >= y),
            Eq => bool_int(x == y),
            Ne => bool_int(x != y),
            And => bool_int(x != 0 && y != 0),
            Or => bool_int(x != 0 || y != 0),
        },
        (F(x), F(y)) => match op {
            Add => Some(F(arith::fadd(x, y))),
            Sub => Some(F(arith::fsub(x, y))),
            Mul => Some(F(arith::fmul(x, y))),
            Div => Some(F(arith::fdiv(x, y))),
            Rem => None,
            Lt => bool_int(x < y),
            Gt => bool_int(x > y),
            Le => bool_int(x <= y),
            Ge => bool_int(x >= y),
            Eq => bool_int(x == y),
            Ne => bool_int(x != y),
            And => bool_int(x != 0.0 && y != 0.0),
            Or => bool_int(x != 0.0 || y != 0.0),
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ConstValue::{Float as F, Int as I};

    #[test]
    fn int_arithmetic_wraps_at_32_bits() {
        assert_eq!(binary(BinaryOp::Add, I(i32::MAX), I(1)), Some(I(i32::MIN)));
        assert_eq!(binary(BinaryOp::Sub, I(i32::MIN), I(1)), Some(I(i32::MAX)));
        assert_eq!(binary(BinaryOp::Mul, I(65536), I(65536)), Some(I(0)));
        assert_eq!(
            binary(BinaryOp::Mul, I(123456789), I(1000)),
            Some(I(-1097262584))
        );
        assert_eq!(unary(UnaryOp::Neg, I(i32::MIN)), I(i32::MIN));
        assert_eq!(binary(BinaryOp::Div, I(i32::MIN), I(-1)), Some(I(i32::MIN)));
        assert_eq!(binary(BinaryOp::Rem, I(i32::MIN), I(-1)), Some(I(0)));
    }

    #[test]
    fn division_truncates_and_remainder_follows_the_dividend() {
        assert_eq!(binary(BinaryOp::Div, I(-7), I(2)), Some(I(-3)));
        assert_eq!(binary(BinaryOp::Div, I(7), I(-2)), Some(I(-3)));
        assert_eq!(binary(BinaryOp::Div, I(-7), I(-2)), Some(I(3)));
        assert_eq!(binary(BinaryOp::Rem, I(-7), I(2)), Some(I(-1)));
        assert_eq!(binary(BinaryOp::Rem, I(7), I(-2)), Some(I(1)));
        assert_eq!(binary(BinaryOp::Rem, I(-7), I(-2)), Some(I(-1)));
        assert_eq!(binary(BinaryOp::Div, I(1), I(0)), None);
        assert_eq!(binary(BinaryOp::Rem, I(1), I(0)), None);
    }

    #[test]
    fn float_steps_round_to_single() {
        // 0.1f + 0.2f in single precision is 0.3f exactly, unlike in double.
        assert_eq!(binary(BinaryOp::Add, F(0.1), F(0.2)), Some(F(0.3)));
        // 16777216 + 1 is not representable and rounds back to 16777216.
        assert_eq!(
            binary(BinaryOp::Add, F(16777216.0), F(1.0)),
            Some(F(16777216.0))
        );
        // 1/3 rounded to single, then times 3, rounds to exactly 1.
        let third = binary(BinaryOp::Div, F(1.0), F(3.0)).unwrap();
        assert_eq!(third, F(0.333_333_34));
        assert_eq!(binary(BinaryOp::Mul, third, F(3.0)), Some(F(1.0)));
        assert_eq!(
            binary(BinaryOp::Div, F(1.0), F(0.0)),
            Some(F(f32::INFINITY))
        );
        assert_eq!(binary(BinaryOp::Rem, F(1.0), F(2.0)), None);
    }

    #[test]
    fn conversions_between_int_and_float() {
        assert_eq!(I(16777217).convert(Scalar::Float), F(16777216.0));
        assert_eq!(I(-3).convert(Scalar::Float), F(-3.0));
        assert_eq!(F(2.9).convert(Scalar::Int), I(2));
        assert_eq!(F(-2.9).convert(Scalar::Int), I(-2));
        assert_eq!(F(1e9).convert(Scalar::Int), I(1_000_000_000));
        assert_eq!(F(3e9).convert(Scalar::Int), I(i32::MAX));
        assert_eq!(F(-3e9).convert(Scalar::Int), I(i32::MIN));
        assert_eq!(F(f32::NAN).convert(Scalar::Int), I(0));
    }

    #[test]
    fn comparisons_and_logic_give_ints() {
        assert_eq!(binary(BinaryOp::Lt, F(1.0), F(2.0)), Some(I(1)));
        assert_eq!(binary(BinaryOp::Eq, F(f32::NAN), F(f32::NAN)), Some(I(0)));
        assert_eq!(binary(BinaryOp::And, I(2), I(3)), Some(I(1)));
        assert_eq!(unary(UnaryOp::Not, F(0.0)), I(1));
        assert_eq!(unary(UnaryOp::Not, F(0.5)), I(0));
    }
}
