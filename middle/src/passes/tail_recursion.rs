//! Tail-recursion elimination: a function's calls of itself in tail position become jumps
//! back to its start, so the recursion runs as a loop in one stack frame.
//!
//! A call of the function itself is in tail position when what its block does after it is
//! return its result (`%r = call @f(...); ret %r`, or a void call and `ret`), directly or
//! by jumping to a block that only returns (`ret`, `ret %r`, or `ret %p` of a phi whose
//! incoming value from the call's block is `%r`). Between the call and the return there may
//! be instructions that cannot tell when they run (arithmetic, comparisons, casts, address
//! computations, calls of pure functions by the module's summaries), since they will run
//! before the recursion's work instead of after it, and at most one accumulating operation
//! `%a = op %r, x` (either operand order) whose result is returned instead: an integer
//! operation that is associative and commutative in wrapping 32-bit arithmetic and has a
//! two-sided identity (`add` 0, `mul` 1, `and` -1, from the opcode table; never a float
//! operation, which rounds). The call's and the operation's results may have no other use.
//! `return n * f(n - 1)` computes `n * (m * (... * base))`; the loop computes
//! `((1 * n) * m) * ...` and then `* base`, the same value.
//!
//! The entry block keeps its `alloca`s and jumps to a new header holding the rest of it. The
//! header gets one phi per used parameter (the parameter from the entry, the call's argument
//! from each tail call), which replaces the parameter everywhere, and, when some tail call
//! accumulates, an accumulator phi starting at the operation's identity: a tail call with
//! `%a = op %r, x` passes on `op acc, x` (the operation rewritten to use the accumulator),
//! one without passes the accumulator unchanged, and every other return gives
//! `op acc, v` instead of `v`. Tail calls that accumulate with different operations are
//! left alone (only those that return the call's result directly go). A return block that
//! only tail calls reached is removed.
//!
//! Each level of a recursion has its own stack frame, and a loop reuses one: a function
//! with `alloca`s is transformed only at tail calls whose pointer arguments are addresses
//! of globals or of the caller's memory (parameters, through `gep`s), never of its own
//! slots (a local array passed down must stay distinct from the next level's). In SysY a
//! pointer reaches a call only as an argument, so that is the only way the next level could
//! see this level's slots; and a tail call's level ends when the callee's does.
//!
//! Needs: the module's function summaries. Preserves: behaviour (the order of every effect
//! is unchanged); run `trivial-phis` after it for parameters passed on unchanged.

use crate::analysis::{ModuleFacts, Preserved};
use crate::ir::{BinaryOp, Block, Callee, FuncId, Function, Inst, InstKind, Sides, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::phi_edits::{Edit, PhiEdits};
use crate::transform::remove_blocks::remove_blocks;

/// A call of the function itself in tail position.
struct TailCall {
    call: Inst,
    /// `%a = op %call, x` (either order), returned instead of the call's result.
    accumulates: Option<(Inst, BinaryOp)>,
    /// The block holding only the return that the call's block jumps to, if it jumps.
    return_block: Option<Block>,
}

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let calls = tail_calls(f, cx.id, cx.facts());
    let (calls, op) = with_one_operation(calls);
    if calls.is_empty() {
        return Preserved::All;
    }
    eliminate(f, &calls, op);
    Preserved::Nothing
}

/// The calls of `me` in `f` that can become jumps.
fn tail_calls(f: &Function, me: FuncId, facts: &ModuleFacts) -> Vec<TailCall> {
    let has_slots = f
        .all_insts()
        .any(|i| matches!(f.kind(i), InstKind::Alloca { .. }));
    f.calls()
        .filter(|&(_, g)| g == me)
        .map(|(call, _)| call)
        .filter(|&call| !has_slots || !passes_own_slots(f, call))
        .filter_map(|call| tail_call(f, call, facts))
        .collect()
}

/// Whether a pointer argument of `call` may be an address in the caller's own frame.
fn passes_own_slots(f: &Function, call: Inst) -> bool {
    f.kind(call)
        .operands()
        .iter()
        .any(|&v| f.value_type(v) == Type::Ptr && !outside_frame(f, v))
}

/// Whether the pointer `v` is a global's or a parameter's address, or computed from one by
/// `gep`s.
fn outside_frame(f: &Function, mut v: Value) -> bool {
    loop {
        match v {
            Value::Param(_) | Value::Global(_) => return true,
            Value::Inst(i) => match f.kind(i) {
                InstKind::Gep { args, .. } => v = args[0],
                _ => return false,
            },
            _ => return false,
        }
    }
}

/// `call` as a tail call, if it is in tail position.
fn tail_call(f: &Function, call: Inst, facts: &ModuleFacts) -> Option<TailCall> {
    let result = Value::Inst(call);
    let mut accumulates = None;
    let mut next = f.next_inst(call);
    let terminator = loop {
        let i = next?;
        next = f.next_inst(i);
        match f.kind(i) {
            kind if kind.is_terminator() => break i,
            InstKind::Binary { op, args }
                if accumulates.is_none()
                    && args.contains(&result)
                    && accumulator_identity(*op).is_some() =>
            {
                accumulates = Some((i, *op));
            }
            _ if runs_any_time(f, i, facts) => {}
            _ => return None,
        }
    };
    let block = f.inst_block(call)?;
    let (returned, return_block) = returned_from(f, block, terminator)?;
    let wanted = match accumulates {
        Some((a, _)) => Some(Value::Inst(a)),
        None if f.inst(call).ty == Type::Void => None,
        None => Some(result),
    };
    let single_uses = match accumulates {
        Some((a, _)) => f.uses(result).len() == 1 && f.uses(Value::Inst(a)).len() == 1,
        None => f.uses(result).len() == usize::from(wanted.is_some()),
    };
    (returned == wanted && single_uses).then_some(TailCall {
        call,
        accumulates,
        return_block,
    })
}

/// The identity of `op` as a tail call's accumulating operation: an integer operation that
/// is associative and commutative with an identity on both sides.
fn accumulator_identity(op: BinaryOp) -> Option<Value> {
    let opcode = op.opcode();
    let identity = opcode.identity()?;
    let fits = op.ty() == Type::I32
        && opcode.is_associative()
        && opcode.is_commutative()
        && identity.sides == Sides::Both;
    fits.then_some(identity.value)
}

/// Whether `i` may run before the recursive call instead of after it: it reads and writes
/// no memory, does no I/O and always finishes (pure arithmetic, or a pure function's call).
fn runs_any_time(f: &Function, i: Inst, facts: &ModuleFacts) -> bool {
    match f.kind(i) {
        InstKind::Call {
            callee: Callee::Function(g),
            ..
        } => facts.summary(*g).is_pure(),
        kind => !kind.opcode().is_pinned(),
    }
}

/// Where `terminator`, ending `block`, returns: the value returned on that path (`None` for
/// a void return), and the return block it jumps to if it jumps. `None` when it does not
/// go straight to a return.
fn returned_from(
    f: &Function,
    block: Block,
    terminator: Inst,
) -> Option<(Option<Value>, Option<Block>)> {
    let target = match f.kind(terminator) {
        InstKind::Ret { args } => return Some((*args, None)),
        InstKind::Br { targets: [target] } => *target,
        _ => return None,
    };
    let insts: Vec<Inst> = f.block_insts(target).take(3).collect();
    let returned = match insts.as_slice() {
        [ret] => match f.kind(*ret) {
            InstKind::Ret { args } => *args,
            _ => return None,
        },
        [phi, ret] => match (f.kind(*phi), f.kind(*ret)) {
            (InstKind::Phi { .. }, InstKind::Ret { args: Some(v) }) if *v == Value::Inst(*phi) => {
                Some(f.phi_incoming(*phi, block)?)
            }
            _ => return None,
        },
        _ => return None,
    };
    Some((returned, Some(target)))
}

/// Keeps the tail calls that accumulate only if they all use one operation, which it
/// returns; otherwise only the calls that return their result directly.
fn with_one_operation(calls: Vec<TailCall>) -> (Vec<TailCall>, Option<BinaryOp>) {
    let mut ops = calls.iter().filter_map(|c| c.accumulates.map(|(_, op)| op));
    let first = ops.next();
    if ops.all(|op| Some(op) == first) {
        return (calls, first);
    }
    let direct = calls
        .into_iter()
        .filter(|c| c.accumulates.is_none())
        .collect();
    (direct, None)
}

/// Turns `calls` into jumps to a loop header after the entry's `alloca`s, accumulating with
/// `op` if given.
fn eliminate(f: &mut Function, calls: &[TailCall], op: Option<BinaryOp>) {
    let entry = f.entry().expect("a function with calls has an entry block");
    let header = f.split_entry();
    let params = parameter_phis(f, entry, header);
    let accumulator = op.map(|op| accumulator_phi(f, op, entry, header));
    let mut edits = PhiEdits::new(f.block_capacity());
    for tail in calls {
        let block = f
            .inst_block(tail.call)
            .expect("a tail call is in the function");
        let InstKind::Call { args, .. } = f.kind(tail.call) else {
            unreachable!("a tail call is a call");
        };
        for (phi, arg) in params.iter().zip(args.clone()) {
            if let Some(phi) = phi {
                f.add_phi_incoming(*phi, arg, block);
            }
        }
        if let Some(acc) = accumulator {
            let passed_on = match tail.accumulates {
                Some((a, _)) => {
                    f.replace_all_uses(Value::Inst(tail.call), Value::Inst(acc));
                    a
                }
                None => acc,
            };
            f.add_phi_incoming(acc, Value::Inst(passed_on), block);
        }
        if let Some(target) = tail.return_block {
            edits.queue(f, target, Edit::Remove(block));
        }
        let terminator = f.terminator(block).expect("a block ends in a terminator");
        f.replace_kind(terminator, InstKind::Br { targets: [header] }, Type::Void);
    }
    edits.flush_all(f);
    for tail in calls {
        f.remove_inst(tail.call);
    }
    remove_unreached_return_blocks(f, calls);
    if let (Some(op), Some(acc)) = (op, accumulator) {
        accumulate_returns(f, op, acc);
    }
}

/// A phi in `header` for each used parameter, taking the parameter from `entry` and
/// replacing it everywhere else (`None` for unused parameters).
fn parameter_phis(f: &mut Function, entry: Block, header: Block) -> Vec<Option<Inst>> {
    let first = f.first_inst(header).expect("the header holds a terminator");
    (0..f.params.len())
        .map(|p| {
            let param = Value::Param(p as u32);
            if f.uses(param).is_empty() {
                return None;
            }
            let phi = f.insert_inst_before(first, InstKind::empty_phi(), f.params[p]);
            f.replace_all_uses(param, Value::Inst(phi));
            f.add_phi_incoming(phi, param, entry);
            Some(phi)
        })
        .collect()
}

/// The accumulator: a phi in `header` starting at `op`'s identity.
fn accumulator_phi(f: &mut Function, op: BinaryOp, entry: Block, header: Block) -> Inst {
    let identity = accumulator_identity(op).expect("an accumulating operation has an identity");
    let first = f
        .block_insts(header)
        .find(|&i| !f.kind(i).is_phi())
        .expect("the header holds a terminator");
    let phi = f.insert_inst_before(first, InstKind::empty_phi(), Type::I32);
    f.add_phi_incoming(phi, identity, entry);
    phi
}

/// Removes the return blocks of `calls` that no block jumps to any more.
fn remove_unreached_return_blocks(f: &mut Function, calls: &[TailCall]) {
    let mut reached = vec![false; f.block_capacity()];
    for b in f.blocks() {
        for &s in f.successors(b) {
            reached[s.index()] = true;
        }
    }
    let mut unreached: Vec<Block> = calls
        .iter()
        .filter_map(|c| c.return_block)
        .filter(|b| !reached[b.index()])
        .collect();
    unreached.sort_unstable();
    unreached.dedup();
    remove_blocks(f, &unreached);
}

/// Makes every remaining `ret v` return `op acc, v` (`acc` when `v` is the identity).
fn accumulate_returns(f: &mut Function, op: BinaryOp, acc: Inst) {
    let identity = accumulator_identity(op);
    let returns: Vec<(Inst, Value)> = f
        .blocks()
        .filter_map(|b| f.terminator(b))
        .filter_map(|t| match f.kind(t) {
            InstKind::Ret { args: Some(v) } => Some((t, *v)),
            _ => None,
        })
        .collect();
    for (ret, v) in returns {
        let total = if Some(v) == identity {
            acc
        } else {
            let args = [Value::Inst(acc), v];
            f.insert_inst_before(ret, InstKind::Binary { op, args }, Type::I32)
        };
        f.set_operand(ret, 0, Value::Inst(total));
    }
}
