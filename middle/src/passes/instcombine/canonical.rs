//! instcombine's canonical form, rewritten in place: constants to the right of commutative
//! operations and comparisons, `x - c` as `x + (-c)`, a float division by a power of two
//! as the multiplication by its exact reciprocal, and `x <= c` as `x < c + 1` (`x >= c` as
//! `x > c - 1`) where that does not wrap.

use crate::ir::{BinaryOp, Function, Inst, InstKind, IntPred, Value};

/// Rewrites `i` in place into canonical form; returns whether it changed.
pub(super) fn canonicalize(f: &mut Function, i: Inst) -> bool {
    let ty = f.inst(i).ty;
    let kind = match *f.kind(i) {
        InstKind::Binary { op, args: [a, b] }
            if a.is_constant() && !b.is_constant() && swappable(op, a) =>
        {
            InstKind::Binary { op, args: [b, a] }
        }
        InstKind::Binary {
            op: BinaryOp::Sub,
            args: [a, Value::Int(c)],
        } => InstKind::Binary {
            op: BinaryOp::Add,
            args: [a, Value::Int(c.wrapping_neg())],
        },
        InstKind::Binary {
            op: BinaryOp::FDiv,
            args: [a, Value::Float(bits)],
        } => match exact_reciprocal(f32::from_bits(bits)) {
            Some(r) => InstKind::Binary {
                op: BinaryOp::FMul,
                args: [a, Value::float(r)],
            },
            None => return false,
        },
        InstKind::Icmp { pred, args: [a, b] } if a.is_constant() && !b.is_constant() => {
            InstKind::Icmp {
                pred: pred.swapped(),
                args: [b, a],
            }
        }
        InstKind::Icmp {
            pred,
            args: [a, Value::Int(c)],
        } => match (pred, c) {
            (IntPred::Sle, c) if c != i32::MAX => InstKind::Icmp {
                pred: IntPred::Slt,
                args: [a, Value::Int(c + 1)],
            },
            (IntPred::Sge, c) if c != i32::MIN => InstKind::Icmp {
                pred: IntPred::Sgt,
                args: [a, Value::Int(c - 1)],
            },
            _ => return false,
        },
        _ => return false,
    };
    f.replace_kind(i, kind, ty);
    true
}

/// Whether `c op x == x op c` for every `x`: integer operations the opcode table calls
/// commutative, and float addition and multiplication by a constant that is not NaN (with
/// one NaN operand the result is that NaN, whichever side it is on).
fn swappable(op: BinaryOp, c: Value) -> bool {
    match op {
        BinaryOp::FAdd | BinaryOp::FMul => c.as_float().is_some_and(|x| !x.is_nan()),
        _ => op.is_commutative(),
    }
}

/// `1 / x` when `x` is a power of two (positive or negative) whose reciprocal is a normal
/// float: dividing by `x` and multiplying by that reciprocal then round the same exact
/// quotient, so they agree for every dividend.
fn exact_reciprocal(x: f32) -> Option<f32> {
    let bits = x.to_bits();
    let mantissa = bits & 0x007f_ffff;
    let exponent = (bits >> 23) & 0xff;
    // A normal power of two with exponent e (biased 1..=254) has reciprocal 2^-(e-127),
    // normal when its biased exponent 254 - e is in 1..=254.
    if mantissa != 0 || !(1..=253).contains(&exponent) {
        return None;
    }
    Some(1.0 / x)
}
