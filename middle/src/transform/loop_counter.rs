//! A loop's counter as the loop passes that rewrite counters see it: a header phi that
//! starts at a value from the preheader and steps by a nonzero constant from the single
//! latch, `i = phi [start, preheader], [i + step, latch]`.

use crate::ir::{BinaryOp, Block, Function, Inst, InstKind, Type, Value};

pub struct Counter {
    pub phi: Inst,
    pub start: Value,
    pub step: i32,
    /// The stepped value, `phi + step`.
    pub next: Inst,
}

/// `phi` as a counter of the loop with this preheader and latch.
pub fn counter(f: &Function, phi: Inst, preheader: Block, latch: Block) -> Option<Counter> {
    if f.inst(phi).ty != Type::I32 {
        return None;
    }
    let start = f.phi_incoming(phi, preheader)?;
    let Value::Inst(next) = f.phi_incoming(phi, latch)? else {
        return None;
    };
    let InstKind::Binary {
        op: BinaryOp::Add,
        args: [base, Value::Int(step)],
    } = *f.kind(next)
    else {
        return None;
    };
    (base == Value::Inst(phi) && step != 0).then_some(Counter {
        phi,
        start,
        step,
        next,
    })
}
