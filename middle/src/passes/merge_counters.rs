//! merge-counters: a loop that carries two counters stepping by the same constant (a rotated
//! `while (i + d < n)` carries `i` and `i + d`, each in a header phi, and computes the next
//! `i + d` from the next `i`) needs only one of them: the other is the kept one plus a value
//! fixed for the loop, the difference of their starts. The kept counter is the one the
//! latch's exit test reads; the others, and the values the loop computes from them by
//! adding values fixed for the loop, become the kept counter plus their own fixed offset:
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
//! must be computed in every round before any exit, or the counters may have been stepped
//! a different number of times when the loop leaves. Every
//! value is exact in wrapping arithmetic: both counters are `{start,+,step}` recurrences
//! (scalar evolution), so their difference is the same in every round.
//!
//! Needs: the loop forest, the dominator tree. Preserves: behaviour, and the CFG unless an
//! exit edge got a block.

use super::arith_writer::ArithWriter;
use crate::analysis::scev::{Invariant, LoopEvolution};
use crate::analysis::{DomTree, Loop, LoopInfo, Preserved};
use crate::fast_hash::FastHashMap;
use crate::ir::{BinaryOp, Block, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;

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

/// A use of a member by an instruction that is not one.
struct Use {
    member: usize,
    user: Inst,
    operand: usize,
    /// Where the value is needed.
    at: Place,
    /// Whether it is the index of an address whose base is fixed for the loop.
    address: bool,
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
    let Some(kept) = exit_counter(f, latch, &counters) else {
        return Preserved::All;
    };
    let (kept_phi, kept_start, step) = counters[kept].clone();
    let mut members: Vec<Member> = counters
        .iter()
        .filter(|&&(phi, _, s)| s == step && phi != kept_phi)
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
    let mut uses: Vec<Use> = Vec::new();
    for (m, member) in members.iter().enumerate() {
        for u in f.uses(Value::Inst(member.inst)) {
            if is_member(u.inst) {
                continue;
            }
            let home = f.inst_block(u.inst).expect("a user is in a block");
            let outside = !loops.contains(k, home);
            if outside && !computed_in_last_round(f, dom, lp, member.inst) {
                return Preserved::All;
            }
            let at = match f.kind(u.inst) {
                InstKind::Phi { blocks, .. } if outside => {
                    let from = blocks[u.index as usize];
                    let edges = f.successors(from).iter().filter(|&&s| s == home).count();
                    if edges != 1 {
                        return Preserved::All;
                    }
                    Place::Edge(from, home)
                }
                InstKind::Phi { blocks, .. } => Place::Block(blocks[u.index as usize]),
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
        let free = u.address || offset(&members[u.member]).is_zero();
        if !free && !adds.contains(&(u.member, u.at)) {
            adds.push((u.member, u.at));
        }
    }
    let after: u32 = adds.iter().map(|&(_, place)| weight(place)).sum();
    if after >= before {
        return Preserved::All;
    }
    rewrite(f, preheader, kept_phi, &members, &uses, offset)
}

/// Whether `v` is computed in every round before the loop leaves, whichever way it leaves:
/// then after the loop it is the kept counter's last value plus its offset.
fn computed_in_last_round(f: &Function, dom: &DomTree, lp: &Loop, v: Inst) -> bool {
    let home = f.inst_block(v).expect("a member is in a block");
    lp.exiting.iter().all(|&x| dom.dominates(home, x))
}

/// Which of the counters the latch's exit test reads, itself or its next value.
fn exit_counter(f: &Function, latch: Block, counters: &[(Inst, Invariant, i32)]) -> Option<usize> {
    let branch = f.terminator(latch)?;
    let InstKind::CondBr { args: [cond], .. } = *f.kind(branch) else {
        return None;
    };
    let InstKind::Icmp { args, .. } = *f.kind(cond.as_inst()?) else {
        return None;
    };
    counters.iter().position(|&(phi, _, _)| {
        let next = f.phi_incoming(phi, latch);
        args.iter()
            .any(|&a| a == Value::Inst(phi) || Some(a) == next)
    })
}

/// Whether operand `index` of `user` is the index of an address whose base is fixed for the
/// loop.
fn address_of(f: &Function, loops: &LoopInfo, k: usize, user: Inst, index: usize) -> bool {
    match *f.kind(user) {
        InstKind::Gep {
            args: [base, _], ..
        } => index == 1 && loops.is_invariant(f, k, base),
        _ => false,
    }
}

fn rewrite(
    f: &mut Function,
    preheader: Block,
    kept: Inst,
    members: &[Member],
    uses: &[Use],
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
    let mut edges: FastHashMap<(Block, Block), Block> = FastHashMap::default();
    let counter = Value::Inst(kept);
    for u in uses {
        let off = offsets[u.member];
        if off == Value::Int(0) {
            f.set_operand(u.user, u.operand, counter);
            continue;
        }
        if u.address {
            let InstKind::Gep {
                args: [base, _],
                stride,
            } = *f.kind(u.user)
            else {
                unreachable!("an address is a gep");
            };
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
    let phis: Vec<Inst> = f.phis(to).collect();
    for phi in phis {
        for incoming in f.kind_mut_targets(phi) {
            if *incoming == from {
                *incoming = mid;
            }
        }
    }
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
