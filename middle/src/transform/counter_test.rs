//! The exit test of a counted loop: the counter's step, the bound and whether the test is
//! inclusive; the loop's own test and the limit of a block of bodies written from it; the
//! trip count when the start and the bound are constants.

use crate::ir::{BinaryOp, Block, Function, Inst, InstKind, IntPred, Type, Value};

/// The largest counter step the loop passes handle (so that `(k-1)s` stays far from
/// wrapping).
pub const MAX_STEP: i32 = 1 << 16;

/// The exit test of a counted loop: the counter steps by `step` (negative when it counts
/// down), and the loop goes on while `i' + offset < bound` (`<=` when inclusive; `>` and
/// `>=` counting down).
#[derive(Clone, Copy)]
pub struct CounterTest {
    pub step: i32,
    pub bound: Value,
    pub inclusive: bool,
    /// A constant `0 <= offset <= MAX_STEP` (`j + 1 < n` in a loop stepping `j` by 2).
    pub offset: i32,
}

impl CounterTest {
    /// The comparison of a counter with the limit of a block of bodies: `<`, or `>`
    /// counting down.
    pub fn before(&self) -> IntPred {
        if self.step > 0 {
            IntPred::Slt
        } else {
            IntPred::Sgt
        }
    }

    /// The loop's own test of the stepped `counter`, appended to block `b`.
    pub fn append(&self, f: &mut Function, b: Block, counter: Value) -> Inst {
        let pred = match (self.inclusive, self.step > 0) {
            (false, true) => IntPred::Slt,
            (true, true) => IntPred::Sle,
            (false, false) => IntPred::Sgt,
            (true, false) => IntPred::Sge,
        };
        let tested = if self.offset == 0 {
            counter
        } else {
            let kind = InstKind::binary(BinaryOp::Add, counter, Value::Int(self.offset));
            Value::Inst(f.append_inst(b, kind, Type::I32))
        };
        f.append_inst(b, InstKind::icmp(pred, tested, self.bound), Type::I1)
    }

    /// `lim` for `factor` bodies per test, built before `before` in the preheader when the
    /// bound is not a constant: `n - e`, or `n + e` counting down, clamped to the end of
    /// `i32` that it would wrap past.
    pub fn limit(&self, f: &mut Function, factor: u32, before: Inst) -> Value {
        let e = (factor as i64 - 1) * self.step.unsigned_abs() as i64 - self.inclusive as i64
            + self.offset as i64;
        let (delta, end, fits) = if self.step > 0 {
            (-e, i32::MIN, IntPred::Sge)
        } else {
            (e, i32::MAX, IntPred::Sle)
        };
        match self.bound {
            Value::Int(n) => {
                let lim = n as i64 + delta;
                Value::Int(lim.clamp(i32::MIN as i64, i32::MAX as i64) as i32)
            }
            n if e == 0 => n,
            n => {
                let moved = InstKind::binary(BinaryOp::Add, n, Value::Int(delta as i32));
                let moved = Value::Inst(f.insert_inst_before(before, moved, Type::I32));
                let edge = Value::Int((end as i64 - delta) as i32);
                let fits = InstKind::icmp(fits, n, edge);
                let fits = Value::Inst(f.insert_inst_before(before, fits, Type::I1));
                let kind = InstKind::Select {
                    args: [fits, moved, Value::Int(end)],
                };
                Value::Inst(f.insert_inst_before(before, kind, Type::I32))
            }
        }
    }
}

/// Whether a test that goes on while `pred` holds of the stepped counter and the bound is
/// inclusive (`<=`, or `>=` counting down); `None` for a test that does not bound a counter
/// stepping by `step`.
pub fn inclusive_test(pred: IntPred, step: i32) -> Option<bool> {
    match (pred, step > 0) {
        (IntPred::Slt, true) | (IntPred::Sgt, false) => Some(false),
        (IntPred::Sle, true) | (IntPred::Sge, false) => Some(true),
        _ => None,
    }
}

/// The number of times the body runs when the counter starts at a constant and the bound is
/// one, unless the counter would wrap before the test fails.
pub fn constant_trip_count(init: Value, bound: Value, step: i32, inclusive: bool) -> Option<u32> {
    let (Value::Int(init), Value::Int(n)) = (init, bound) else {
        return None;
    };
    // Counting down is counting up the negated counter to the negated bound, where the
    // counter wraps past -MIN instead of MAX.
    let (init, n, step, top) = if step > 0 {
        (init as i64, n as i64, step as i64, i32::MAX as i64)
    } else {
        (
            -(init as i64),
            -(n as i64),
            -(step as i64),
            -(i32::MIN as i64),
        )
    };
    let end = n + inclusive as i64;
    if end - 1 + step > top {
        return None;
    }
    let span = end - init;
    let trips = if span > 0 {
        (span + step - 1) / step
    } else {
        1
    };
    Some(trips.min(u32::MAX as i64) as u32)
}
