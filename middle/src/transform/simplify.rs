//! What an instruction simplifies to without looking past its operands: its value when they
//! are constants (as `ir::semantics` defines it), or an operand or a constant by an identity
//! such as `x + 0`, `x * 1`, `x * 0` and `x - x`.

use crate::ir::semantics;
use crate::ir::{BinaryOp, Function, Inst, InstKind, Type, Value};

fn bits(v: Value) -> Option<u32> {
    match v {
        Value::Int(x) => Some(x as u32),
        Value::Float(b) => Some(b),
        Value::Bool(b) => Some(b as u32),
        _ => None,
    }
}

fn typed(ty: Type, bits: u32) -> Value {
    match ty {
        Type::F32 => Value::Float(bits),
        Type::I1 => Value::Bool(bits != 0),
        _ => Value::Int(bits as i32),
    }
}

/// The value `i` can be replaced with, if any.
pub fn simplify(f: &Function, i: Inst) -> Option<Value> {
    simplify_kind(f.kind(i), f.inst(i).ty)
}

/// The value an instruction doing `kind` with result type `ty` can be replaced with, if
/// any: for a pass that knows some operands to be constants the instruction does not show
/// yet (sccp) and builds the kind with them in place.
pub fn simplify_kind(kind: &InstKind, ty: Type) -> Option<Value> {
    match *kind {
        InstKind::Binary { op, args: [a, b] } => {
            if let (Some(x), Some(y)) = (bits(a), bits(b)) {
                return Some(typed(ty, semantics::binary(op, x, y)));
            }
            identity(op, a, b)
        }
        InstKind::FNeg { args: [a] } => bits(a).map(|x| typed(ty, semantics::fneg(x))),
        InstKind::Ctz { args: [a] } => bits(a).map(|x| typed(ty, semantics::ctz(x))),
        InstKind::Icmp { pred, args: [a, b] } => {
            let (x, y) = (bits(a)?, bits(b)?);
            Some(Value::Bool(semantics::icmp(pred, x, y)))
        }
        InstKind::Fcmp { pred, args: [a, b] } => {
            let (x, y) = (bits(a)?, bits(b)?);
            Some(Value::Bool(semantics::fcmp(pred, x, y)))
        }
        InstKind::Cast { op, args: [a] } => bits(a).map(|x| typed(ty, semantics::cast(op, x))),
        InstKind::Select { args: [c, a, b] } => match (c, a, b) {
            (Value::Bool(true), _, _) => Some(a),
            (Value::Bool(false), _, _) => Some(b),
            _ if a == b => Some(a),
            // A truth value picking true or false is itself.
            (_, Value::Bool(true), Value::Bool(false)) => Some(c),
            _ => None,
        },
        _ => None,
    }
}

/// Identities that hold for every value of the non-constant operand: the opcode table's
/// identity and absorbing constants, `x op x == x` for idempotent operations, `x - x == 0`,
/// and `x % 1 == x % -1 == 0`.
fn identity(op: BinaryOp, a: Value, b: Value) -> Option<Value> {
    let opcode = op.opcode();
    if opcode.is_idempotent() && a == b {
        return Some(a);
    }
    if let Some(x) = opcode.identity().and_then(|e| e.other_operand(a, b)) {
        return Some(x);
    }
    if let Some(z) = opcode.absorbing() {
        if z.other_operand(a, b).is_some() {
            return Some(z.value);
        }
    }
    let is = |v: Value, c: i32| v == Value::Int(c);
    match op {
        BinaryOp::Sub if a == b => Some(Value::Int(0)),
        BinaryOp::SRem if is(b, 1) || is(b, -1) => Some(Value::Int(0)),
        _ => None,
    }
}
