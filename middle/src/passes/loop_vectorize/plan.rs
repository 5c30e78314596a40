//! Whether a counted loop of one block vectorises, and the role of each of its
//! instructions there (the module above lists them).

use super::dependences::{independent, Access};
use super::reductions::{picked_extreme, reduction, Reduction};
use crate::analysis::scev::LoopEvolution;
use crate::analysis::{LoopInfo, ModuleFacts};
use crate::ir::{BinaryOp, Block, FuncId, Function, Inst, InstKind, Type, Value, VectorOp};
use crate::transform::loop_frame::uses_after;
use crate::transform::one_block_loop::OneBlockLoop;

/// What an instruction of the loop becomes in the vector loop.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Role {
    /// What only the exit test reads: the vector loop has its own.
    Control,
    /// The compare of a running or lane-wise minimum or maximum, which the lane-wise
    /// operation replaces.
    Replaced,
    /// A value that steps by `step` each round, computed for lane 0.
    Uniform { step: i32 },
    /// `vload` of consecutive elements.
    Load,
    /// `vstore` to consecutive elements.
    Store,
    /// A lane-wise operation (of a binary operation's operands, or a select's two values).
    Lanes(VectorOp),
    /// The step of a reduction: lane-wise on the vector of partial results.
    Reduction(VectorOp),
}

pub(super) struct Plan {
    pub(super) shape: OneBlockLoop,
    /// The counter phi.
    pub(super) counter: Inst,
    /// The body in order, each instruction with its role.
    pub(super) body: Vec<(Inst, Role)>,
    pub(super) reductions: Vec<Reduction>,
    /// The values of the loop used after it that take the last lane (loads and lane-wise
    /// results).
    pub(super) last_lanes: Vec<Inst>,
    /// The pairs of accesses whose order the run decides (`dependences`).
    pub(super) checks: Vec<(Access, Access)>,
}

pub(super) fn plan(
    f: &Function,
    facts: &ModuleFacts,
    func: FuncId,
    loops: &LoopInfo,
    k: usize,
    shape: OneBlockLoop,
) -> Option<Plan> {
    let h = shape.h;
    let InstKind::Binary {
        args: [Value::Inst(counter), _],
        ..
    } = *f.kind(shape.next)
    else {
        return None;
    };
    let mut reductions = Vec::new();
    for phi in f.phis(h) {
        if phi != counter {
            reductions.push(reduction(f, h, phi)?);
        }
    }
    let mut scev = LoopEvolution::new(f, loops, k)?;
    let control = control_insts(f, &shape);
    let extremes: Vec<(Inst, Inst, VectorOp)> = f
        .block_insts(h)
        .filter_map(|i| lane_extreme(f, h, i))
        .collect();
    let compares: Vec<Inst> = reductions
        .iter()
        .filter_map(|r| r.compare)
        .chain(extremes.iter().map(|&(_, c, _)| c))
        .collect();
    let mut body = Vec::new();
    let mut accesses = Vec::new();
    let mut work = false;
    for i in f.block_insts(h) {
        let kind = f.kind(i);
        if kind.is_phi() || kind.is_terminator() {
            continue;
        }
        let role = if control.contains(&i) {
            Role::Control
        } else if compares.contains(&i) {
            Role::Replaced
        } else if let Some(r) = reductions.iter().find(|r| r.next == i) {
            work = true;
            Role::Reduction(r.step)
        } else if let Some(&(_, _, op)) = extremes.iter().find(|&&(x, ..)| x == i) {
            Role::Lanes(op)
        } else {
            role(f, &mut scev, i, &mut accesses)?
        };
        work |= role == Role::Store;
        body.push((i, role));
    }
    if !work {
        return None;
    }
    let checks = independent(f, facts, func, &accesses)?;
    let role_of = |i: Inst| body.iter().find(|(b, _)| *b == i).map(|&(_, r)| r);
    // Lane values feed only lane-wise operations, stores of their value and sums.
    for &(i, role) in &body {
        if matches!(role, Role::Control | Role::Uniform { .. }) {
            for &v in f.kind(i).operands() {
                let lanes = v
                    .as_inst()
                    .and_then(role_of)
                    .is_some_and(|r| matches!(r, Role::Load | Role::Lanes(_) | Role::Reduction(_)));
                if lanes {
                    return None;
                }
            }
        }
    }
    let last_lanes = values_after(f, &shape, counter, &reductions, &role_of)?;
    Some(Plan {
        shape,
        counter,
        body,
        reductions,
        last_lanes,
        checks,
    })
}

/// Instruction `i` of loop block `h` as a lane-wise minimum or maximum: `select c, t, e`
/// with `c` a signed compare of `t` and `e` that only it reads (`a[i] > b[i] ? a[i] :
/// b[i]`), with the compare and the operation.
fn lane_extreme(f: &Function, h: Block, i: Inst) -> Option<(Inst, Inst, VectorOp)> {
    let InstKind::Select {
        args: [Value::Inst(c), t, e],
    } = *f.kind(i)
    else {
        return None;
    };
    if f.inst_block(c) != Some(h) || f.uses(Value::Inst(c)).len() != 1 || t == e {
        return None;
    }
    let op = picked_extreme(f, c, t, e, true)?;
    (f.inst(i).ty == Type::I32).then_some((i, c, op))
}

/// The instructions only the exit test reads: its compare, and the add of a constant to
/// the stepped counter that it may compare. (The stepped counter itself may be read
/// elsewhere: it is a value that steps by 1, computed for lane 0 like the others.)
fn control_insts(f: &Function, shape: &OneBlockLoop) -> Vec<Inst> {
    let mut control = Vec::new();
    let term = f
        .terminator(shape.h)
        .expect("a loop block ends in a branch");
    if let InstKind::CondBr {
        args: [Value::Inst(test)],
        ..
    } = *f.kind(term)
    {
        control.push(test);
        for &v in f.kind(test).operands() {
            if let Some(i) = v.as_inst().filter(|&i| i != shape.next) {
                if f.inst_block(i) == Some(shape.h) && f.uses(v).len() == 1 {
                    control.push(i);
                }
            }
        }
    }
    control
}

/// The role of an instruction that is neither control nor a sum's step, recording the
/// memory accesses; `None` when it cannot run on lanes.
fn role(
    f: &Function,
    scev: &mut LoopEvolution,
    i: Inst,
    accesses: &mut Vec<Access>,
) -> Option<Role> {
    let v = Value::Inst(i);
    match *f.kind(i) {
        InstKind::Gep { .. } => {
            let (_, offset) = scev.address(v)?;
            let step = match offset.coeffs.as_slice() {
                [_] => 0,
                _ => offset.as_affine()?.1,
            };
            Some(Role::Uniform { step })
        }
        InstKind::Load { args: [addr] } => {
            if !matches!(f.inst(i).ty, Type::I32 | Type::F32) {
                return None;
            }
            accesses.push(consecutive(scev, addr, false)?);
            Some(Role::Load)
        }
        InstKind::Store { args: [x, addr] } => {
            if !matches!(f.value_type(x), Type::I32 | Type::F32) {
                return None;
            }
            accesses.push(consecutive(scev, addr, true)?);
            Some(Role::Store)
        }
        InstKind::Binary { op, .. } => {
            if let Some(r) = scev.recurrence(v) {
                match r.coeffs.as_slice() {
                    [_] => return Some(Role::Uniform { step: 0 }),
                    _ => {
                        if let Some((_, step)) = r.as_affine() {
                            return Some(Role::Uniform { step });
                        }
                    }
                }
            }
            match op {
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul => {
                    Some(Role::Lanes(VectorOp::of(op)?))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// An access at `addr`, when `addr` steps by 4 bytes each round.
fn consecutive(scev: &mut LoopEvolution, addr: Value, store: bool) -> Option<Access> {
    let (root, offset) = scev.address(addr)?;
    let (start, step) = offset.as_affine()?;
    (step == 4).then(|| Access {
        store,
        root,
        start: start.clone(),
    })
}

/// The values of the loop read after it: the stepped counter and reductions (which the frame and
/// the reductions give), and loads and lane-wise results, which take their last lane.
/// `None` when another one is (a value for lane 0 only, a phi).
fn values_after(
    f: &Function,
    shape: &OneBlockLoop,
    counter: Inst,
    reductions: &[Reduction],
    role_of: &dyn Fn(Inst) -> Option<Role>,
) -> Option<Vec<Inst>> {
    let h = shape.h;
    let mut read: Vec<Inst> = uses_after(f, &[h]).into_iter().map(|(v, _, _)| v).collect();
    for phi in f.phis(shape.e) {
        if let Some(Value::Inst(v)) = f.phi_incoming(phi, h) {
            if f.inst_block(v) == Some(h) {
                read.push(v);
            }
        }
    }
    let mut last_lanes = Vec::new();
    for v in read {
        if v == shape.next || reductions.iter().any(|r| r.next == v) || last_lanes.contains(&v) {
            continue;
        }
        if v == counter || reductions.iter().any(|r| r.phi == v) {
            return None;
        }
        match role_of(v)? {
            Role::Load | Role::Lanes(_) => last_lanes.push(v),
            _ => return None,
        }
    }
    Some(last_lanes)
}
