//! Values of a loop computed after it by formula, for the passes that skip or remove loops
//! (`loop-closed-form`, `loop-idioms`, `modular-closed-form`): which values a loop without
//! effects leaves to be used after it, its exit count as a value, and polynomials in the
//! binomial basis evaluated at that count.
//!
//! The arithmetic wraps exactly as the loop's does: the binomials are taken modulo 2^32
//! without dividing a wrapped product, `C(n,2)` as `(n >> 1) * (n - 1 + (n & 1))` (the half
//! is taken of whichever of `n` and `n - 1` is even) and `C(n,3)` as `C(n,2) * (n - 2)`
//! times the inverse of 3 modulo 2^32, exact because that product is a multiple of 3.

use crate::analysis::scev::{odd_inverse, ExitCount, Invariant, Recurrence};
use crate::analysis::{Cfg, LoopInfo, ModuleFacts};
use crate::ir::{BinaryOp, Block, Function, Inst, InstKind, Type, Value};
use crate::transform::arith_writer::ArithWriter;
use crate::transform::delete_loop::has_effect;

/// Loops of more blocks than this (their inner loops' included) are left alone.
pub const MAX_BLOCKS: usize = 64;

/// What replaces loop `k`'s results.
pub struct Plan {
    pub exit: Block,
    pub count: ExitCount,
    /// Values of the loop used after it, with their evolutions.
    pub results: Vec<(Value, Recurrence)>,
}

/// Loop `k`'s exiting block, its exit block and the instructions used after it, when the
/// loop has one exiting block and an exit reached only from there, at most `MAX_BLOCKS`
/// blocks and `max_instructions` instructions, and no effect.
pub fn results_of(
    f: &Function,
    cfg: &Cfg,
    loops: &LoopInfo,
    facts: &ModuleFacts,
    k: usize,
    max_instructions: usize,
) -> Option<(Block, Block, Vec<Inst>)> {
    let l = &loops.loops[k];
    let (&[exiting], &[exit]) = (l.exiting.as_slice(), l.exits.as_slice()) else {
        return None;
    };
    if cfg.preds(exit) != [exiting] || loops.blocks_of(k).len() > MAX_BLOCKS {
        return None;
    }
    let mut used_after = Vec::new();
    let mut size = 0;
    for &b in loops.blocks_of(k) {
        for i in f.block_insts(b) {
            size += 1;
            if size > max_instructions || has_effect(f, facts, i) {
                return None;
            }
            if used_outside(f, loops, k, i) {
                used_after.push(i);
            }
        }
    }
    Some((exiting, exit, used_after))
}

/// Computes each of `plan.results` by formula at the start of the exit block and uses that
/// after the loop.
pub fn apply(f: &mut Function, loops: &LoopInfo, k: usize, plan: Plan) {
    fold_exit_phis(f, plan.exit);
    let at = f
        .first_inst(plan.exit)
        .expect("an exit block ends in a terminator");
    let mut emit = ArithWriter::new(f, at);
    let n = exit_count(&mut emit, &plan.count);
    let degree = plan.results.iter().map(|(_, r)| r.degree()).max();
    let binomials = binomials(&mut emit, n, degree.unwrap_or(0));
    for (v, r) in &plan.results {
        let closed = evaluate(&mut emit, r, &binomials);
        let uses: Vec<_> = emit.f.uses(*v).to_vec();
        for u in uses {
            let block = emit.f.inst_block(u.inst).expect("users are in blocks");
            if !loops.contains(k, block) {
                emit.f.set_operand(u.inst, u.index as usize, closed);
            }
        }
    }
}

/// Replaces the phis of `exit`, which has one predecessor, by their incoming values.
pub fn fold_exit_phis(f: &mut Function, exit: Block) {
    let phis: Vec<Inst> = f.phis(exit).collect();
    for phi in phis {
        let value = f.kind(phi).operands()[0];
        f.replace_all_uses(Value::Inst(phi), value);
        f.remove_inst(phi);
    }
}

/// The number of times the loop goes on, as a value: 0 where the count's guard fails.
pub fn exit_count(w: &mut ArithWriter, count: &ExitCount) -> Value {
    let n = w.invariant(&count.count);
    let Some((pred, start, bound)) = &count.guard else {
        return n;
    };
    let (start, bound) = (w.invariant(start), w.invariant(bound));
    let test = InstKind::Icmp {
        pred: *pred,
        args: [start, bound],
    };
    let test = w.f.insert_inst_before(w.at, test, Type::I1);
    let select = InstKind::Select {
        args: [Value::Inst(test), n, Value::Int(0)],
    };
    Value::Inst(w.f.insert_inst_before(w.at, select, Type::I32))
}

/// Two factors whose product is `C(n,2)`, neither a wrapped product: the half of whichever
/// of `n` and `n - 1` is even (`n >> 1`), and the other (`n - 1 + (n & 1)`).
pub fn pair_factors(w: &mut ArithWriter, n: Value) -> (Value, Value) {
    let half = w.binary(BinaryOp::LShr, n, Value::Int(1));
    let n_minus_1 = w.binary(BinaryOp::Add, n, Value::Int(-1));
    let odd = w.binary(BinaryOp::And, n, Value::Int(1));
    let other = w.binary(BinaryOp::Add, n_minus_1, odd);
    (half, other)
}

/// `C(n,j)` modulo 2^32 for `j` up to `degree` (at most `MAX_DEGREE`).
pub fn binomials(w: &mut ArithWriter, n: Value, degree: usize) -> Vec<Value> {
    if degree < 2 {
        return vec![Value::Int(1), n];
    }
    let (half, other) = pair_factors(w, n);
    let c2 = w.binary(BinaryOp::Mul, half, other);
    if degree < 3 {
        return vec![Value::Int(1), n, c2];
    }
    let n_minus_2 = w.binary(BinaryOp::Add, n, Value::Int(-2));
    let triple = w.binary(BinaryOp::Mul, c2, n_minus_2);
    let c3 = w.binary(BinaryOp::Mul, triple, Value::Int(odd_inverse(3)));
    vec![Value::Int(1), n, c2, c3]
}

pub fn evaluate(w: &mut ArithWriter, r: &Recurrence, binomials: &[Value]) -> Value {
    if let Some(n) = binomials[1].as_int() {
        // A constant count: the sum is a sum of multiples of the coefficients' values.
        let mut sum = Invariant::constant(0);
        for (j, c) in r.coeffs.iter().enumerate() {
            sum = sum.add(&c.scale(binomial(n as u32, j)));
        }
        return w.invariant(&sum);
    }
    let mut sum = Value::Int(0);
    for (c, &b) in r.coeffs.iter().zip(binomials) {
        let c = w.invariant(c);
        let term = w.binary(BinaryOp::Mul, c, b);
        sum = w.binary(BinaryOp::Add, sum, term);
    }
    sum
}

/// `C(n,j)` modulo 2^32.
fn binomial(n: u32, j: usize) -> i32 {
    let n = n as u128;
    let c = match j {
        0 => 1,
        1 => n,
        2 => n * n.saturating_sub(1) / 2,
        _ => n * n.saturating_sub(1) * n.saturating_sub(2) / 6,
    };
    c as u32 as i32
}

/// Whether something outside loop `k` uses `i`'s value.
pub fn used_outside(f: &Function, loops: &LoopInfo, k: usize, i: Inst) -> bool {
    f.uses(Value::Inst(i))
        .iter()
        .any(|u| f.inst_block(u.inst).is_none_or(|ub| !loops.contains(k, ub)))
}
