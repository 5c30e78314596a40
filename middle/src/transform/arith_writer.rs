//! Integer arithmetic written before one instruction, for the passes that compute values
//! scalar evolution describes (a loop's closed forms, the first iteration's address, a
//! strength-reduced product's start and step):
//! constants folded, `x + 0`, `x - 0` and `x * 1` as `x`, constants on the right of commutative
//! operations, and each distinct operation written once.

use crate::analysis::scev::Invariant;
use crate::fast_hash::FastHashMap;
use crate::ir::{semantics, BinaryOp, Function, Inst, InstKind, Type, Value};

pub struct ArithWriter<'f> {
    pub f: &'f mut Function,
    /// What the arithmetic goes before.
    pub at: Inst,
    written: FastHashMap<(BinaryOp, Value, Value), Value>,
}

impl<'f> ArithWriter<'f> {
    pub fn new(f: &'f mut Function, at: Inst) -> ArithWriter<'f> {
        ArithWriter {
            f,
            at,
            written: FastHashMap::default(),
        }
    }

    pub fn binary(&mut self, op: BinaryOp, a: Value, b: Value) -> Value {
        let (a, b) = match (a, b) {
            (Value::Int(_), b) if !b.is_constant() && op.is_commutative() => (b, a),
            _ => (a, b),
        };
        if let (Value::Int(x), Value::Int(y)) = (a, b) {
            return Value::Int(semantics::binary(op, x as u32, y as u32) as i32);
        }
        match (op, b) {
            (BinaryOp::Add | BinaryOp::Sub, Value::Int(0)) | (BinaryOp::Mul, Value::Int(1)) => {
                return a
            }
            (BinaryOp::Mul, Value::Int(0)) => return Value::Int(0),
            _ => {}
        }
        if let Some(&v) = self.written.get(&(op, a, b)) {
            return v;
        }
        let kind = InstKind::Binary { op, args: [a, b] };
        let v = Value::Inst(self.f.insert_inst_before(self.at, kind, Type::I32));
        self.written.insert((op, a, b), v);
        v
    }

    /// The terms first, then the constant.
    pub fn invariant(&mut self, i: &Invariant) -> Value {
        let mut sum = Value::Int(0);
        for &(v, c) in &i.terms {
            let term = self.binary(BinaryOp::Mul, v, Value::Int(c));
            sum = self.binary(BinaryOp::Add, sum, term);
        }
        self.binary(BinaryOp::Add, sum, Value::Int(i.constant))
    }
}
