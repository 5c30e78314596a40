//! pointer-induction (strength reduction of addresses, with linear function test
//! replacement): in a loop whose counter `i` starts at `i0` and steps by a constant `s`,
//! the addresses `gep b, i` of an array `b` fixed for the loop become a pointer of their own,
//! `gep b, i0` on entry and `s` elements further each round. When the counter then serves
//! nothing but its own step and the exit test, the test moves onto one of the pointers and
//! the counter goes: `i + 1 < n` becomes `p + 1 != gep b, m`, `m` the counter's value when
//! the loop leaves.
//!
//! Where it pays (a cost model in the back end's terms): an address the back end folds into
//! its access (`ldr r, [b, i, lsl #2]`) costs nothing per round, one it computes (a float
//! access, or a base for constant offsets as in an unrolled body) costs an add. A pointer
//! costs its step, unless the back end folds the step into an access of the latch as a
//! post-indexed load or store (`ldr r, [p], #4`, `vldmia p!, {s0}`). The loop changes when
//! the pointers cost less than what they replace: all of them with the counter's step gone,
//! or else only the arrays whose pointer is cheaper on its own.
//!
//! The exit test: the latch is the only block that leaves, on `i + s` compared with a value
//! `n` fixed for the loop. `m` is `n` for `!=`; for `i + 1 < n` it is `max(i0 + 1, n)` (the
//! first round's test may already fail), or `n` when the branch into the preheader decided
//! `i0 < n`; for steps `±2^k` with such a branch it is `i0` plus the steps needed to pass
//! `n`, and the mirror images for counters that go down. Comparing pointers for equality is
//! exact because the chosen pointer's array is accessed in every round, at most 4096 bytes
//! apart: a loop going round once more than `2^32 / (s * stride)` times would have walked
//! through the whole address space, page zero included, so the addresses of two rounds never
//! meet modulo 2^32 in a program that runs.
//!
//! Needs: the loop forest, the dominator tree. Preserves: behaviour and the CFG.

use crate::analysis::entry_order::less_on_entry;
use crate::analysis::{Cfg, DomTree, LoopInfo, Preserved};
use crate::cost_model::CostModel;
use crate::ir::{BinaryOp, Block, Function, Inst, InstKind, IntPred, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::arith_writer::ArithWriter;
use crate::transform::loop_counter::{counter, Counter};

/// The largest step in bytes of a pointer the exit test may move onto (a page).
const MAX_TEST_STEP: i64 = 4096;

/// The largest post-index immediate of a core load or store.
const MAX_POST_INDEX: i64 = 4095;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let loops = cx.analyses.loops(f);
    let dom = cx.analyses.dom(f);
    let cfg = cx.analyses.cfg(f);
    let mut changed = false;
    for k in 0..loops.loops.len() {
        let lp = &loops.loops[k];
        let (Some(preheader), [latch]) = (lp.preheader, &lp.latches[..]) else {
            continue;
        };
        let shape = LoopShape {
            k,
            header: lp.header,
            preheader,
            latch: *latch,
            single_exit: lp.exiting[..] == [*latch],
        };
        let phis: Vec<Inst> = f.phis(lp.header).collect();
        for phi in phis {
            if let Some(ctr) = counter(f, phi, preheader, *latch) {
                changed |= convert(f, cx.costs, (&loops, &dom, &cfg), &shape, &ctr);
            }
        }
    }
    Preserved::cfg_if(changed)
}

struct LoopShape {
    k: usize,
    header: Block,
    preheader: Block,
    latch: Block,
    single_exit: bool,
}

/// The addresses `gep base, i + c` of one array with one stride, the counter plus constants
/// (`t[k + 1][j]`'s row in a loop over `k`, an unrolled body's rows `k + 1`, `k + 2`, ...):
/// one pointer walks `gep base, i + offset`, and addresses at other constants are that
/// pointer plus a constant.
struct Group {
    base: Value,
    stride: u32,
    offset: i32,
    /// The addresses at `offset` itself.
    geps: Vec<Inst>,
    /// The addresses at other constants, with theirs.
    others: Vec<(Inst, i32)>,
}

/// A use of the counter outside its loop: which instruction, which operand, and whether it
/// is of the stepped value.
struct OutsideUse {
    inst: Inst,
    index: u32,
    stepped: bool,
}

/// Converts the addresses of `ctr`'s loop where the cost model says so; returns whether it
/// changed anything.
fn convert(
    f: &mut Function,
    costs: &dyn CostModel,
    (loops, dom, cfg): (&LoopInfo, &DomTree, &Cfg),
    shape: &LoopShape,
    ctr: &Counter,
) -> bool {
    let inside = |f: &Function, i: Inst| loops.holds(f, shape.k, i);
    let fixed = |f: &Function, v: Value| loops.is_invariant(f, shape.k, v);
    // The addresses found, with their arrays and constants, grouped below.
    let mut found: Vec<(Value, u32, Inst, i32)> = Vec::new();
    let mut outside: Vec<OutsideUse> = Vec::new();
    let mut counter_stays = false;
    let mut address = |f: &Function, gep: Inst, offset: i32| {
        let InstKind::Gep {
            args: [base, _],
            stride,
        } = *f.kind(gep)
        else {
            return false;
        };
        if !fixed(f, base) || !inside(f, gep) {
            return false;
        }
        found.push((base, stride, gep, offset));
        true
    };
    // The counter plus a constant (its stepped value among them) as an index too.
    let is_index = |f: &Function, u: &crate::ir::Use, v: Value| {
        u.index == 1 && matches!(*f.kind(u.inst), InstKind::Gep { args: [b, _], .. } if b != v)
    };
    // Sums `i + c` in the loop that serve addresses only: they go with the counter.
    let mut sums = Vec::new();
    for u in f.uses(Value::Inst(ctr.phi)) {
        match *f.kind(u.inst) {
            _ if u.inst == ctr.next => {}
            _ if !inside(f, u.inst) => outside.push(OutsideUse {
                inst: u.inst,
                index: u.index,
                stepped: false,
            }),
            _ if is_index(f, u, Value::Inst(ctr.phi)) => {
                if !address(f, u.inst, 0) {
                    counter_stays = true;
                }
            }
            InstKind::Binary {
                op: BinaryOp::Add,
                args: [_, Value::Int(c)],
            } if u.index == 0 => {
                let sum = Value::Inst(u.inst);
                let mut only_addresses = true;
                for w in f.uses(sum) {
                    only_addresses &= is_index(f, w, sum) && address(f, w.inst, c);
                }
                if only_addresses {
                    sums.push(u.inst);
                } else {
                    counter_stays = true;
                }
            }
            _ => counter_stays = true,
        }
    }
    // The stepped value's addresses (its other uses are the exit test's or the counter's).
    for w in f.uses(Value::Inst(ctr.next)) {
        if is_index(f, w, Value::Inst(ctr.next)) {
            address(f, w.inst, ctr.step);
        }
    }
    let groups = group(found);
    if groups.is_empty() {
        return false;
    }
    let test = exit_test(f, shape, ctr, &fixed);
    let converted = |i: Inst| {
        groups
            .iter()
            .any(|g| g.geps.contains(&i) || g.others.iter().any(|&(o, _)| o == i))
    };
    if let Some(test) = &test {
        for u in f.uses(Value::Inst(ctr.next)) {
            if u.inst == test.cmp || u.inst == ctr.phi || converted(u.inst) {
                continue;
            }
            if inside(f, u.inst) {
                counter_stays = true;
            } else {
                outside.push(OutsideUse {
                    inst: u.inst,
                    index: u.index,
                    stepped: true,
                });
            }
        }
    }
    let savings: Vec<i64> = groups
        .iter()
        .map(|g| {
            // A pointer used after the loop lives beside its stepped value through the
            // latch: the step cannot write it back in place, as a post-index would.
            let used_after = g
                .geps
                .iter()
                .any(|&gep| f.uses(Value::Inst(gep)).iter().any(|u| !inside(f, u.inst)));
            old_cost(f, costs, g) - new_cost(f, costs, shape, ctr, g, used_after)
        })
        .collect();
    let tested = groups
        .iter()
        .position(|g| g.offset == 0 && can_test_on(f, dom, shape, ctr, g));
    // With the counter gone the loop saves its step as well.
    if let (Some(test), Some(t), false) = (&test, tested, counter_stays) {
        if savings.iter().sum::<i64>() + 1 > 0 {
            if let Some(bound) = exit_bound(f, (cfg, dom), shape, ctr, test) {
                let pointers: Vec<Inst> = groups.iter().map(|g| walk(f, shape, ctr, g)).collect();
                replace_test(f, shape, test, &groups[t], pointers[t], bound);
                replace_outside_uses(f, shape, ctr, &outside, bound);
                for &sum in &sums {
                    f.remove_inst(sum);
                }
                remove_counter(f, ctr);
                return true;
            }
        }
    }
    let mut changed = false;
    for (g, saving) in groups.iter().zip(savings) {
        if saving > 0 {
            walk(f, shape, ctr, g);
            changed = true;
        }
    }
    changed
}

/// The addresses by array and stride, each group's pointer at its constant 0 if it has one,
/// else at its smallest.
fn group(found: Vec<(Value, u32, Inst, i32)>) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for &(base, stride, _, _) in &found {
        if groups.iter().any(|g| g.base == base && g.stride == stride) {
            continue;
        }
        let offsets = found
            .iter()
            .filter(|&&(b, s, _, _)| b == base && s == stride)
            .map(|&(_, _, _, c)| c);
        let offset = if offsets.clone().any(|c| c == 0) {
            0
        } else {
            offsets.min().expect("the group has an address")
        };
        let mut g = Group {
            base,
            stride,
            offset,
            geps: Vec::new(),
            others: Vec::new(),
        };
        for &(b, s, gep, c) in &found {
            if (b, s) != (base, stride) {
                continue;
            }
            if c == offset {
                g.geps.push(gep);
            } else {
                g.others.push((gep, c));
            }
        }
        groups.push(g);
    }
    groups
}

/// What the back end spends per round on a group's addresses: the instructions of each
/// address it cannot fold into its accesses (an add, and for a stride that is no power of
/// two the move of the stride and a multiply too).
fn old_cost(f: &Function, costs: &dyn CostModel, g: &Group) -> i64 {
    let folds = |gep: Inst| {
        g.stride.is_power_of_two()
            && f.uses(Value::Inst(gep))
                .iter()
                .all(|u| match f.kind(u.inst) {
                    InstKind::Load { .. } => f.inst(u.inst).ty != Type::F32,
                    InstKind::Store { args: [x, _] } => {
                        u.index == 1 && f.value_type(*x) != Type::F32
                    }
                    _ => false,
                })
    };
    g.geps
        .iter()
        .chain(g.others.iter().map(|(gep, _)| gep))
        .filter(|&&gep| !folds(gep))
        .map(|&gep| i64::from(costs.inst_size(f.kind(gep))))
        .sum()
}

/// Whether every access through `gep` takes `bytes` more as its immediate offset.
fn offset_folds(f: &Function, costs: &dyn CostModel, gep: Inst, bytes: i64) -> bool {
    costs
        .address_reach(f, Value::Inst(gep))
        .is_some_and(|r| r.takes(bytes))
}

/// What a group's pointer costs per round: its step, unless an access of the latch at the
/// pointer itself can take the step as a post-index (not when the pointer is `used_after`
/// the loop), and an add for each address at another constant whose accesses cannot take
/// the distance as their offset.
fn new_cost(
    f: &Function,
    costs: &dyn CostModel,
    shape: &LoopShape,
    ctr: &Counter,
    g: &Group,
    used_after: bool,
) -> i64 {
    let apart = g
        .others
        .iter()
        .filter(|&&(gep, c)| {
            let bytes = i64::from(c - g.offset) * i64::from(g.stride);
            !offset_folds(f, costs, gep, bytes)
        })
        .count() as i64;
    let bytes = i64::from(ctr.step) * i64::from(g.stride);
    let post_indexed = !used_after
        && g.geps.iter().any(|&gep| {
            f.inst_block(gep) == Some(shape.latch)
                && f.uses(Value::Inst(gep)).iter().any(|u| {
                    let float = match *f.kind(u.inst) {
                        InstKind::Load { .. } => f.inst(u.inst).ty == Type::F32,
                        InstKind::Store { args: [x, _] } if u.index == 1 => {
                            f.value_type(x) == Type::F32
                        }
                        _ => return false,
                    };
                    if float {
                        bytes == 4
                    } else {
                        bytes.abs() <= MAX_POST_INDEX
                    }
                })
        });
    i64::from(!post_indexed) + apart
}

/// Whether the exit test may move onto `g`'s pointer: an access through it in every round,
/// with a step of at most `MAX_TEST_STEP` bytes.
fn can_test_on(f: &Function, dom: &DomTree, shape: &LoopShape, ctr: &Counter, g: &Group) -> bool {
    let bytes = i64::from(ctr.step) * i64::from(g.stride);
    let every_round = |i: Inst| {
        f.inst_block(i)
            .is_some_and(|b| dom.dominates(b, shape.latch))
    };
    let accessed = |addr: Inst| {
        f.uses(Value::Inst(addr)).iter().any(|u| {
            let access = match f.kind(u.inst) {
                InstKind::Load { .. } => true,
                InstKind::Store { .. } => u.index == 1,
                _ => false,
            };
            access && every_round(u.inst)
        })
    };
    let offset_accessed = |gep: Inst| {
        f.uses(Value::Inst(gep)).iter().any(|u| {
            u.index == 0
                && matches!(
                    f.kind(u.inst),
                    InstKind::Gep {
                        args: [_, Value::Int(_)],
                        ..
                    }
                )
                && accessed(u.inst)
        })
    };
    bytes.abs() <= MAX_TEST_STEP
        && g.geps
            .iter()
            .any(|&gep| accessed(gep) || offset_accessed(gep))
}

/// The loop's exit test on the counter: the loop goes on while `next pred bound`.
struct ExitTest {
    cmp: Inst,
    pred: IntPred,
    bound: Value,
    /// Whether the branch's first target is the header.
    on_true: bool,
}

fn exit_test(
    f: &Function,
    shape: &LoopShape,
    ctr: &Counter,
    fixed: &dyn Fn(&Function, Value) -> bool,
) -> Option<ExitTest> {
    if !shape.single_exit {
        return None;
    }
    let term = f.terminator(shape.latch)?;
    let InstKind::CondBr {
        args: [Value::Inst(cmp)],
        targets: [t, e],
    } = *f.kind(term)
    else {
        return None;
    };
    let on_true = t == shape.header;
    if on_true == (e == shape.header) {
        return None;
    }
    let InstKind::Icmp { pred, args: [a, b] } = *f.kind(cmp) else {
        return None;
    };
    let next = Value::Inst(ctr.next);
    let (pred, bound) = match (a == next, b == next) {
        (true, false) => (pred, b),
        (false, true) => (pred.swapped(), a),
        _ => return None,
    };
    let pred = if on_true { pred } else { pred.inverse() };
    let only_branch = f.uses(Value::Inst(cmp)).iter().all(|u| u.inst == term);
    (fixed(f, bound) && only_branch).then_some(ExitTest {
        cmp,
        pred,
        bound,
        on_true,
    })
}

/// The counter's value when the loop leaves, written in the preheader, for the tests whose
/// exit value has a formula (see the header).
fn exit_bound(
    f: &mut Function,
    (cfg, dom): (&Cfg, &DomTree),
    shape: &LoopShape,
    ctr: &Counter,
    test: &ExitTest,
) -> Option<Value> {
    let (start, n, s) = (ctr.start, test.bound, ctr.step);
    let up = s > 0;
    let (lo, hi) = if up { (start, n) } else { (n, start) };
    let decided = less_on_entry(f, cfg, dom, shape.preheader, lo, hi);
    let (pred, n) = match (test.pred, n) {
        (IntPred::Sle, Value::Int(c)) if c < i32::MAX => (IntPred::Slt, Value::Int(c + 1)),
        (IntPred::Sge, Value::Int(c)) if c > i32::MIN => (IntPred::Sgt, Value::Int(c - 1)),
        (p, n) => (p, n),
    };
    let toward = if up { IntPred::Slt } else { IntPred::Sgt };
    let end = f.terminator(shape.preheader)?;
    if pred == IntPred::Ne {
        return Some(n);
    }
    if pred != toward {
        return None;
    }
    if s.unsigned_abs() == 1 {
        if decided || n == Value::Int(if up { i32::MAX } else { i32::MIN }) {
            return Some(n);
        }
        // The first round's test may fail already: the bound is at least one step away.
        let mut w = ArithWriter::new(f, end);
        let first = w.binary(BinaryOp::Add, start, Value::Int(s));
        let kind = InstKind::Icmp {
            pred: toward,
            args: [first, n],
        };
        let before = f.insert_inst_before(end, kind, Type::I1);
        let kind = InstKind::Select {
            args: [Value::Inst(before), n, first],
        };
        return Some(Value::Inst(f.insert_inst_before(end, kind, Type::I32)));
    }
    if !decided || !s.unsigned_abs().is_power_of_two() {
        return None;
    }
    // `start` is on the right side of `n`: the loop goes round ceil(|n - start| / |s|) times.
    let shift = s.unsigned_abs().trailing_zeros() as i32;
    let mut w = ArithWriter::new(f, end);
    let distance = if up {
        w.binary(BinaryOp::Sub, n, start)
    } else {
        w.binary(BinaryOp::Sub, start, n)
    };
    let less = w.binary(BinaryOp::Add, distance, Value::Int(-1));
    let rounds = w.binary(BinaryOp::LShr, less, Value::Int(shift));
    let rounds = w.binary(BinaryOp::Add, rounds, Value::Int(1));
    let travel = w.binary(BinaryOp::Mul, rounds, Value::Int(s));
    Some(w.binary(BinaryOp::Add, start, travel))
}

/// Gives `g` its pointer: a header phi from `gep base, start` in the preheader, stepped at
/// the end of the latch; the group's addresses become it. Returns the stepped pointer.
fn walk(f: &mut Function, shape: &LoopShape, ctr: &Counter, g: &Group) -> Inst {
    let end = f
        .terminator(shape.preheader)
        .expect("a preheader ends in a jump");
    let mut w = ArithWriter::new(f, end);
    let index = w.binary(BinaryOp::Add, ctr.start, Value::Int(g.offset));
    let first = if index == Value::Int(0) {
        g.base
    } else {
        let kind = InstKind::Gep {
            args: [g.base, index],
            stride: g.stride,
        };
        Value::Inst(f.insert_inst_before(end, kind, Type::Ptr))
    };
    let kind = InstKind::Phi {
        args: vec![first, first],
        blocks: vec![shape.preheader, shape.latch],
    };
    let phi = f.prepend_inst(shape.header, kind, Type::Ptr);
    let branch = f.terminator(shape.latch).expect("a latch ends in a branch");
    let kind = InstKind::Gep {
        args: [Value::Inst(phi), Value::Int(ctr.step)],
        stride: g.stride,
    };
    let next = f.insert_inst_before(branch, kind, Type::Ptr);
    f.set_operand(phi, 1, Value::Inst(next));
    for &gep in &g.geps {
        f.replace_all_uses(Value::Inst(gep), Value::Inst(phi));
        f.remove_inst(gep);
    }
    for &(gep, c) in &g.others {
        let kind = InstKind::Gep {
            args: [Value::Inst(phi), Value::Int(c - g.offset)],
            stride: g.stride,
        };
        let at = f.insert_inst_before(gep, kind, Type::Ptr);
        f.replace_all_uses(Value::Inst(gep), Value::Inst(at));
        f.remove_inst(gep);
    }
    next
}

/// Makes the latch branch on `next != gep base, bound` (the test group's pointer).
fn replace_test(
    f: &mut Function,
    shape: &LoopShape,
    test: &ExitTest,
    g: &Group,
    next: Inst,
    bound: Value,
) {
    let end = f
        .terminator(shape.preheader)
        .expect("a preheader ends in a jump");
    let kind = InstKind::Gep {
        args: [g.base, bound],
        stride: g.stride,
    };
    let last = f.insert_inst_before(end, kind, Type::Ptr);
    let branch = f.terminator(shape.latch).expect("a latch ends in a branch");
    let kind = InstKind::Icmp {
        pred: if test.on_true {
            IntPred::Ne
        } else {
            IntPred::Eq
        },
        args: [Value::Inst(next), Value::Inst(last)],
    };
    let cmp = f.insert_inst_before(branch, kind, Type::I1);
    f.set_operand(branch, 0, Value::Inst(cmp));
    f.remove_inst(test.cmp);
}

/// Gives the counter's uses after the loop its value there: `bound` once stepped, one step
/// short of it before.
fn replace_outside_uses(
    f: &mut Function,
    shape: &LoopShape,
    ctr: &Counter,
    outside: &[OutsideUse],
    bound: Value,
) {
    let end = f
        .terminator(shape.preheader)
        .expect("a preheader ends in a jump");
    let mut w = ArithWriter::new(f, end);
    for u in outside {
        let v = if u.stepped {
            bound
        } else {
            w.binary(BinaryOp::Sub, bound, Value::Int(ctr.step))
        };
        w.f.set_operand(u.inst, u.index as usize, v);
    }
}

/// Removes the counter, now used by its own step only.
fn remove_counter(f: &mut Function, ctr: &Counter) {
    f.replace_all_uses(Value::Inst(ctr.next), Value::Undef(Type::I32));
    f.remove_inst(ctr.next);
    f.remove_inst(ctr.phi);
}
