//! merge-counters: a loop that carries two counters stepping by the same constant (a rotated
//! `while (i + d < n)` carries `i` and `i + d`, each in a header phi, and computes the next
//! `i + d` from the next `i`) needs only one of them: the other is the kept one plus a value
//! fixed for the loop, the difference of their starts. The kept counter is the one the exit
//! test reads (the latch's, or the header's in a loop that was not rotated). When that test
//! reads a value computed from a counter every round (`i + d` in the header of a loop left
//! unrotated by a `break`), the value gets a header phi of its own, stepped in the latch,
//! and is kept. The other counters, and the values the loop computes from them by adding
//! values fixed for the loop, become the kept counter plus their own fixed offset:
//!
//! - an address `gep b, v` with `b` fixed for the loop becomes `gep (gep b, offset), k`, the
//!   inner `gep` computed once in the preheader, so the back end still folds it into the
//!   access;
//! - any other use gets `k + offset`, written once per block before its first use there
//!   (for a phi, at the end of the block the value comes from), so a use on a rare path costs
//!   an add only there;
//! - a phi after the loop gets it in a block of its own on the exit edge, run once.
//!
//! The rewrite happens when it costs fewer adds per round than the chains it removes, with
//! blocks that run every round (those dominating the latch) weighing 4, the loop's other
//! blocks 1, inner loops' blocks 16 and blocks after the loop 0. A value used after the loop
//! was computed in the round the loop left in, as the kept counter's value there was: its
//! block dominates the use (or the exit edge a phi takes it through), so every path from
//! the header to that exit within one round passes it. Every
//! value is exact in wrapping arithmetic: both counters are `{start,+,step}` recurrences
//! (scalar evolution), so their difference is the same in every round.
//!
//! Needs: the loop forest, the dominator tree. Preserves: behaviour, and the CFG unless an
//! exit edge got a block.

use crate::analysis::scev::{Invariant, LoopEvolution};
use crate::analysis::{DomTree, LoopInfo, Preserved};
use crate::fast_hash::FastHashMap;
use crate::ir::{BinaryOp, Block, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::arith_writer::ArithWriter;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let count = cx.analyses.loops(f).loops.len();
    let mut preserved = Preserved::All;
    // Blocks on exit edges leave every loop as it was (same headers, same numbering), but
    // the analyses are taken again after each, to know the new blocks.
    for k in 0..count {
        let (loops, dom) = (cx.analyses.loops(f), cx.analyses.dom(f));
        let done = merge_in_loop(f, &loops, &dom, k);
        cx.analyses.invalidate(done);
        preserved = preserved.meet(done);
    }
    preserved
}

/// A counter of the loop: a header phi or a value computed from one, `start + step * round`.
struct Member {
    inst: Inst,
    start: Invariant,
}

/// Where a use needs its value.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Place {
    /// In this block: the user's, or for a phi in the loop the block the value comes from.
    Block(Block),
    /// On the exit edge from a block of the loop to a phi's block after it.
    Edge(Block, Block),
}

/// The counter the loop keeps: a header phi, or a value that the exit test reads and that
/// steps like the counters but is computed from one every round (`i + d` in a loop that was
/// not rotated), which then gets a phi of its own.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kept {
    Phi(Inst),
    Computed(Inst),
}

/// A use of a member by an instruction that is not one.
struct Use {
    member: usize,
    user: Inst,
    operand: usize,
    /// Where the value is needed.
    at: Place,
    /// When it is the index of an address whose base is fixed for the loop: that base and
    /// the address's stride.
    address: Option<(Value, u32)>,
}

/// Merges the counters of loop `k`; returns what that preserved.
fn merge_in_loop(f: &mut Function, loops: &LoopInfo, dom: &DomTree, k: usize) -> Preserved {
    let lp = &loops.loops[k];
    let (Some(preheader), &[latch]) = (lp.preheader, lp.latches.as_slice()) else {
        return Preserved::All;
    };
    let Some(mut ev) = LoopEvolution::new(f, loops, k) else {
        return Preserved::All;
    };
    let phis: Vec<Inst> = f.phis(lp.header).collect();
    let mut counters: Vec<(Inst, Invariant, i32)> = Vec::new();
    for &phi in &phis {
        if let Some(r) = ev.recurrence(Value::Inst(phi)) {
            if let Some((start, step)) = r.as_affine() {
                counters.push((phi, start.clone(), step));
            }
        }
    }
    let Some((test, in_latch)) = exit_test(f, lp.header, latch) else {
        return Preserved::All;
    };
    let is_next =
        |a: Value, phi: Inst| a == Value::Inst(phi) || f.phi_incoming(phi, latch) == Some(a);
    let read = counters
        .iter()
        .find(|&&(phi, _, _)| test.iter().any(|&a| is_next(a, phi)));
    let (kept, kept_start, step) = match read {
        Some((phi, start, step)) => (Kept::Phi(*phi), start.clone(), *step),
        None => {
            let computed = test.iter().find_map(|&a| {
                let i = a.as_inst()?;
                let in_loop = f
                    .inst_block(i)
                    .is_some_and(|b| loops.innermost(b) == Some(k));
                let r = ev.recurrence(a).filter(|_| in_loop && !phis.contains(&i))?;
                let (start, step) = r.as_affine()?;
                Some((i, start.clone(), step))
            });
            let Some((i, start, step)) = computed else {
                return Preserved::All;
            };
            // A latch tests the value after the round's step: the counter kept is the
            // value one step behind, whose step the tested value then is.
            let start = match in_latch {
                true => start.add(&Invariant::constant(step.wrapping_neg())),
                false => start,
            };
            (Kept::Computed(i), start, step)
        }
    };
    let mut members: Vec<Member> = counters
        .iter()
        .filter(|&&(phi, _, s)| s == step && kept != Kept::Phi(phi))
        .map(|(phi, start, _)| Member {
            inst: *phi,
            start: start.clone(),
        })
        .collect();
    if members.is_empty() {
        return Preserved::All;
    }
    // The values computed from the counters by adding or subtracting, in an order where
    // definitions come before uses.
    for &b in dom.preorder() {
        if loops.innermost(b) != Some(k) {
            continue;
        }
        for i in f.block_insts(b).collect::<Vec<_>>() {
            let InstKind::Binary {
                op: BinaryOp::Add | BinaryOp::Sub,
                args,
            } = *f.kind(i)
            else {
                continue;
            };
            if !args
                .iter()
                .any(|&a| members.iter().any(|m| Value::Inst(m.inst) == a))
            {
                continue;
            }
            let Some(r) = ev.recurrence(Value::Inst(i)) else {
                continue;
            };
            if let Some((start, s)) = r.as_affine() {
                if s == step {
                    members.push(Member {
                        inst: i,
                        start: start.clone(),
                    });
                }
            }
        }
    }
    let is_member = |i: Inst| members.iter().any(|m| m.inst == i);
    if let Kept::Computed(x) = kept {
        if !is_member(x) {
            return Preserved::All;
        }
    }
    let mut uses: Vec<Use> = Vec::new();
    for (m, member) in members.iter().enumerate() {
        for u in f.uses(Value::Inst(member.inst)) {
            if is_member(u.inst) {
                continue;
            }
            let home = f.inst_block(u.inst).expect("a user is in a block");
            let at = match f.kind(u.inst) {
                InstKind::Phi { blocks, .. } => {
                    let from = blocks[u.index as usize];
                    if loops.contains(k, home) || !loops.contains(k, from) {
                        Place::Block(from)
                    } else if f.successors(from).iter().filter(|&&s| s == home).count() == 1 {
                        Place::Edge(from, home)
                    } else {
                        return Preserved::All;
                    }
                }
                _ => Place::Block(home),
            };
            uses.push(Use {
                member: m,
                user: u.inst,
                operand: u.index as usize,
                at,
                address: address_of(f, loops, k, u.inst, u.index as usize),
            });
        }
    }
    let block_weight = |b: Block| match loops.innermost(b) {
        _ if !loops.contains(k, b) => 0,
        Some(inner) if inner != k => 16,
        _ if dom.dominates(b, latch) => 4,
        _ => 1,
    };
    let weight = |place: Place| match place {
        Place::Edge(..) => 0,
        Place::Block(b) => block_weight(b),
    };
    let offset = |m: &Member| m.start.add(&kept_start.scale(-1));
    let before: u32 = members
        .iter()
        .filter(|m| !phis.contains(&m.inst))
        .map(|m| block_weight(f.inst_block(m.inst).expect("a member is in a block")))
        .sum();
    let mut adds: Vec<(usize, Place)> = Vec::new();
    for u in &uses {
        let free = u.address.is_some() || offset(&members[u.member]).is_zero();
        if !free && !adds.contains(&(u.member, u.at)) {
            adds.push((u.member, u.at));
        }
    }
    let mut after: u32 = adds.iter().map(|&(_, place)| weight(place)).sum();
    if matches!(kept, Kept::Computed(_)) && !in_latch {
        after += block_weight(latch);
    }
    if after >= before {
        return Preserved::All;
    }
    let (counter, stepped) = match kept {
        Kept::Phi(phi) => (phi, None),
        Kept::Computed(x) => {
            // Stepped where the test reads it in a latch, else at the latch's end.
            let at = match in_latch {
                true => first_use(f, x, latch),
                false => f.terminator(latch).expect("a latch ends in a jump"),
            };
            let (phi, next) = new_counter(f, preheader, lp.header, latch, &kept_start, step, at);
            let member = members.iter().position(|m| m.inst == x);
            let stepped = member
                .filter(|_| in_latch)
                .map(|m| (m, Place::Block(latch), next));
            (phi, stepped)
        }
    };
    rewrite(f, preheader, counter, &members, &uses, stepped, offset)
}

/// A new header phi stepping from `start` by `step` in the latch, before `at`; the phi and
/// its stepped value.
fn new_counter(
    f: &mut Function,
    preheader: Block,
    header: Block,
    latch: Block,
    start: &Invariant,
    step: i32,
    at: Inst,
) -> (Inst, Value) {
    let end = f.terminator(preheader).expect("a preheader ends in a jump");
    let first = ArithWriter::new(f, end).invariant(start);
    let kind = InstKind::Phi {
        args: vec![first, first],
        blocks: vec![preheader, latch],
    };
    let phi = f.prepend_inst(header, kind, Type::I32);
    let next = InstKind::binary(BinaryOp::Add, Value::Inst(phi), Value::Int(step));
    let next = Value::Inst(f.insert_inst_before(at, next, Type::I32));
    f.set_operand(phi, 1, next);
    (phi, next)
}

/// The operands of the loop's exit test: the latch's comparison, or the header's when the
/// latch only jumps back (a loop that was not rotated); and whether it is the latch's.
fn exit_test(f: &Function, header: Block, latch: Block) -> Option<([Value; 2], bool)> {
    let test = |b: Block| {
        let InstKind::CondBr { args: [cond], .. } = *f.kind(f.terminator(b)?) else {
            return None;
        };
        match *f.kind(cond.as_inst()?) {
            InstKind::Icmp { args, .. } => Some(args),
            _ => None,
        }
    };
    match test(latch) {
        Some(args) => Some((args, true)),
        None => Some((test(header)?, false)),
    }
}

/// When operand `index` of `user` is the index of an address whose base is fixed for the
/// loop: that base and the address's stride.
fn address_of(
    f: &Function,
    loops: &LoopInfo,
    k: usize,
    user: Inst,
    index: usize,
) -> Option<(Value, u32)> {
    match *f.kind(user) {
        InstKind::Gep {
            args: [base, _],
            stride,
        } if index == 1 && loops.is_invariant(f, k, base) => Some((base, stride)),
        _ => None,
    }
}

fn rewrite(
    f: &mut Function,
    preheader: Block,
    kept: Inst,
    members: &[Member],
    uses: &[Use],
    stepped: Option<(usize, Place, Value)>,
    offset: impl Fn(&Member) -> Invariant,
) -> Preserved {
    let end = f.terminator(preheader).expect("a preheader ends in a jump");
    let mut w = ArithWriter::new(f, end);
    // Only the offsets of members used by something else are written.
    let offsets: Vec<Value> = members
        .iter()
        .enumerate()
        .map(|(m, member)| match uses.iter().any(|u| u.member == m) {
            true => w.invariant(&offset(member)),
            false => Value::Int(0),
        })
        .collect();
    let mut bases: FastHashMap<(Value, Value, u32), Value> = FastHashMap::default();
    let mut sums: FastHashMap<(usize, Place), Value> = FastHashMap::default();
    // The new counter's step is already the tested value's sum in the latch.
    sums.extend(stepped.map(|(m, place, next)| ((m, place), next)));
    let mut edges: FastHashMap<(Block, Block), Block> = FastHashMap::default();
    let counter = Value::Inst(kept);
    for u in uses {
        let off = offsets[u.member];
        if off == Value::Int(0) {
            f.set_operand(u.user, u.operand, counter);
            continue;
        }
        if let Some((base, stride)) = u.address {
            let inner = *bases.entry((base, off, stride)).or_insert_with(|| {
                let kind = InstKind::Gep {
                    args: [base, off],
                    stride,
                };
                Value::Inst(f.insert_inst_before(end, kind, Type::Ptr))
            });
            f.set_operand(u.user, 0, inner);
            f.set_operand(u.user, 1, counter);
            continue;
        }
        let sum = *sums.entry((u.member, u.at)).or_insert_with(|| {
            let before = match u.at {
                Place::Block(b) => first_use(f, members[u.member].inst, b),
                Place::Edge(from, to) => {
                    let mid = *edges
                        .entry((from, to))
                        .or_insert_with(|| split_edge(f, from, to));
                    f.terminator(mid).expect("an edge block ends in a jump")
                }
            };
            let kind = InstKind::binary(BinaryOp::Add, counter, off);
            Value::Inst(f.insert_inst_before(before, kind, Type::I32))
        });
        f.set_operand(u.user, u.operand, sum);
    }
    for m in members.iter().rev() {
        f.replace_all_uses(Value::Inst(m.inst), Value::Undef(Type::I32));
        f.remove_inst(m.inst);
    }
    if edges.is_empty() {
        Preserved::Cfg
    } else {
        Preserved::Nothing
    }
}

/// A new block on the only edge from `from` to `to`, which the phis of `to` now name.
fn split_edge(f: &mut Function, from: Block, to: Block) -> Block {
    let mid = f.create_block();
    f.insert_block_after(mid, from);
    f.append_inst(mid, InstKind::Br { targets: [to] }, Type::Void);
    let branch = f.terminator(from).expect("a block ends in a terminator");
    for target in f.kind_mut_targets(branch) {
        if *target == to {
            *target = mid;
        }
    }
    f.rename_in_successors(from, mid);
    mid
}

/// Where a value needed in block `b` goes: before the first instruction of `b` that is not
/// a phi and uses `v`, else before the terminator.
fn first_use(f: &Function, v: Inst, b: Block) -> Inst {
    f.block_insts(b)
        .find(|&i| {
            !matches!(f.kind(i), InstKind::Phi { .. })
                && f.kind(i).operands().contains(&Value::Inst(v))
        })
        .or_else(|| f.terminator(b))
        .expect("a block ends in a terminator")
}
