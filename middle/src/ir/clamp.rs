//! Saturation: two `select`s that clamp a value into `0..=2^k - 1`, which ARM computes in
//! one `usat` instruction. if-to-select builds them from the branches of
//! `if (x < 0) x = 0; else if (x > 255) x = 255;`, and instruction selection emits them.

use super::{Function, InstKind, IntPred, Value};

/// Which end of the range a comparison tests, and the value it clamps to there.
#[derive(Clone, Copy, PartialEq, Eq)]
enum End {
    /// `x < 0`: the value is 0.
    Low,
    /// `x > c`: the value is `c`.
    High(i32),
}

/// The value clamped and the bit count `k` (1 to 31) when `select cond, a, b` is
/// `x < 0 ? 0 : (x > 2^k - 1 ? 2^k - 1 : x)` or `x > 2^k - 1 ? 2^k - 1 : (x < 0 ? 0 : x)`,
/// each test written any way round: the inner select is `a` or `b` of the outer one.
pub fn unsigned_clamp(f: &Function, cond: Value, a: Value, b: Value) -> Option<(Value, u8)> {
    let (x, outer, inner) = clamp_step(f, cond, a, b)?;
    let InstKind::Select {
        args: [cond2, a2, b2],
    } = *f.kind(inner.as_inst()?)
    else {
        return None;
    };
    let (y, end, rest) = clamp_step(f, cond2, a2, b2)?;
    if y != x || rest != x {
        return None;
    }
    let high = match (outer, end) {
        (End::Low, End::High(c)) | (End::High(c), End::Low) => c,
        _ => return None,
    };
    let size = (high as u32).wrapping_add(1);
    (high > 0 && size.is_power_of_two()).then_some((x, size.trailing_zeros() as u8))
}

/// For `select cond, a, b` that picks the value of one end of a clamp when `x` lies past
/// it: `x`, the end, and the value picked otherwise.
fn clamp_step(f: &Function, cond: Value, a: Value, b: Value) -> Option<(Value, End, Value)> {
    let InstKind::Icmp { pred, args: [l, r] } = *f.kind(cond.as_inst()?) else {
        return None;
    };
    let (x, pred, c) = match (l, r) {
        (x, Value::Int(c)) => (x, pred, c),
        (Value::Int(c), x) => (x, pred.swapped(), c),
        _ => return None,
    };
    // The end tested, and whether the comparison holds when `x` lies past it.
    let (end, past_when) = match (pred, c) {
        (IntPred::Slt, 0) | (IntPred::Sle, -1) => (End::Low, true),
        (IntPred::Sge, 0) | (IntPred::Sgt, -1) => (End::Low, false),
        (IntPred::Sgt, c) => (End::High(c), true),
        (IntPred::Sge, c) => (End::High(c.checked_sub(1)?), true),
        (IntPred::Sle, c) => (End::High(c), false),
        (IntPred::Slt, c) => (End::High(c.checked_sub(1)?), false),
        _ => return None,
    };
    let (picked, other) = if past_when { (a, b) } else { (b, a) };
    let expected = match end {
        End::Low => 0,
        End::High(c) => c,
    };
    (picked == Value::Int(expected)).then_some((x, end, other))
}
