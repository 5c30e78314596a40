//! strength-reduce (induction variables for products): in a loop whose
//! counter `i` starts at `a` and steps by a constant `s`, a product `i * x` of the counter
//! and a value `x` fixed for the loop is carried as a value of its own, `a * x` on entry
//! and `s * x` more each round, so the loop adds where it multiplied (a transpose's
//! `j * colsize + i` becomes an add of `colsize` per round instead of an `mla`).
//!
//! The counter is a header phi taking `a` from the preheader and `i + s` from the single
//! latch. The product's other factor is defined outside the loop, or a constant that the
//! back end would multiply by (not 0, ±1, 2^k or 2^k ± 1, which are shifts and adds). The
//! carried value is a new header phi, stepped right after the counter, so it is `i * x` in
//! every round, wrapping as the product does; `a * x` and `s * x` are computed in the
//! preheader. A product used only by an addition of a value fixed for the loop (`j * n + i`)
//! is carried with that value added, so the addition goes too. Products of one counter by
//! one factor (plus one value) share a carried value.
//!
//! Needs: the loop forest. Preserves: behaviour and the CFG.

use crate::analysis::{LoopInfo, Preserved};
use crate::ir::{BinaryOp, Block, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::arith_writer::ArithWriter;
use crate::transform::loop_counter::{counter, Counter};

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let loops = cx.analyses.loops(f);
    let mut changed = false;
    for k in 0..loops.loops.len() {
        changed |= reduce_loop(f, &loops, k);
    }
    Preserved::cfg_if(changed)
}

/// What a carried value is: a counter (its phi) times a factor, plus a value fixed for the
/// loop if any.
type Carried = (Inst, Value, Option<Value>);

/// Reduces the products of loop `k`'s own blocks (inner loops reduce their own); returns
/// whether it changed anything.
fn reduce_loop(f: &mut Function, loops: &LoopInfo, k: usize) -> bool {
    let lp = &loops.loops[k];
    let (Some(preheader), [latch]) = (lp.preheader, &lp.latches[..]) else {
        return false;
    };
    let counters: Vec<Counter> = f
        .phis(lp.header)
        .filter_map(|phi| counter(f, phi, preheader, *latch))
        .collect();
    if counters.is_empty() {
        return false;
    }
    let outside = |f: &Function, v: Value| match v {
        Value::Inst(d) => f.inst_block(d).is_none_or(|b| !loops.contains(k, b)),
        Value::Int(c) => !cheap_factor(c),
        _ => false,
    };
    let mut carried: Vec<(Carried, Inst)> = Vec::new();
    let mut changed = false;
    for &b in &lp.blocks {
        let insts: Vec<Inst> = f.block_insts(b).collect();
        for i in insts {
            let InstKind::Binary {
                op: BinaryOp::Mul,
                args: [a, c],
            } = *f.kind(i)
            else {
                continue;
            };
            let found = counters.iter().find_map(|ctr| {
                let iv = Value::Inst(ctr.phi);
                match (a == iv, c == iv) {
                    (true, false) if outside(f, c) => Some((ctr, c)),
                    (false, true) if outside(f, a) => Some((ctr, a)),
                    _ => None,
                }
            });
            let Some((ctr, x)) = found else {
                continue;
            };
            // A product only added to a value fixed for the loop is carried with it.
            let (target, offset) = match f.uses(Value::Inst(i)) {
                [u] => match *f.kind(u.inst) {
                    InstKind::Binary {
                        op: BinaryOp::Add,
                        args: [p, q],
                    } if f.inst_block(u.inst).is_some_and(|ub| loops.contains(k, ub)) => {
                        let y = if p == Value::Inst(i) { q } else { p };
                        if y != Value::Inst(i) && (outside(f, y) || y.is_constant()) {
                            (u.inst, Some(y))
                        } else {
                            (i, None)
                        }
                    }
                    _ => (i, None),
                },
                _ => (i, None),
            };
            let key = (ctr.phi, x, offset);
            let value = match carried.iter().find(|&&(key2, _)| key2 == key) {
                Some(&(_, phi)) => phi,
                None => {
                    let phi = carry(f, preheader, *latch, lp.header, ctr, x, offset);
                    carried.push((key, phi));
                    phi
                }
            };
            f.replace_all_uses(Value::Inst(target), Value::Inst(value));
            f.remove_inst(target);
            if target != i {
                f.remove_inst(i);
            }
            changed = true;
        }
    }
    changed
}

/// Whether multiplying by `c` costs no more than an add: 0, ±1, 2^k, 2^k ± 1.
fn cheap_factor(c: i32) -> bool {
    let u = c.unsigned_abs();
    u <= 1 || u.is_power_of_two() || (u - 1).is_power_of_two() || (u + 1).is_power_of_two()
}

/// A new header phi carrying `counter * x + offset`: `start * x + offset` from the
/// preheader, stepped by `step * x` right after the counter's own step.
fn carry(
    f: &mut Function,
    preheader: Block,
    latch: Block,
    header: Block,
    counter: &Counter,
    x: Value,
    offset: Option<Value>,
) -> Inst {
    let end = f.terminator(preheader).expect("a preheader ends in a jump");
    // Constants fold as they are written, so that the passes right after see a constant
    // step.
    let mut w = ArithWriter::new(f, end);
    let mut first = w.binary(BinaryOp::Mul, counter.start, x);
    if let Some(y) = offset {
        first = w.binary(BinaryOp::Add, first, y);
    }
    let stride = w.binary(BinaryOp::Mul, Value::Int(counter.step), x);
    let kind = InstKind::Phi {
        args: vec![first, first],
        blocks: vec![preheader, latch],
    };
    let phi = f.prepend_inst(header, kind, Type::I32);
    let after = f
        .next_inst(counter.next)
        .expect("a step is followed by the terminator");
    let step = InstKind::binary(BinaryOp::Add, Value::Int(0), stride);
    let next = f.insert_inst_before(after, step, Type::I32);
    f.set_operand(next, 0, Value::Inst(phi));
    f.set_operand(phi, 1, Value::Inst(next));
    phi
}
