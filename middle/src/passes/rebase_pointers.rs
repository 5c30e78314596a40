//! rebase-pointers: a pointer that a loop steps by a constant (`p = phi [s, preheader],
//! [gep p, c, latch]`), whose accesses sit at constant offsets from it that a load or store
//! cannot all take as its immediate (`ldr` reaches 4095 bytes either way, `vldr` 1020),
//! starts in the middle of them instead: every access then reaches its element from the
//! pointer. A column walk unrolled by four over rows of 2004 bytes reads at 2004 ... 8016
//! bytes from its pointer, two of which the back end computed each round with a constant's
//! move and an add; from 5008 bytes on they are -3004 ... 3008.
//!
//! Offsets spread wider than that go in groups, each around a centre all its accesses
//! reach, the largest group's the pointer's own and each other's an address computed once a
//! round (an add), where that costs fewer adds than the offsets out of reach did: rows of
//! 1280 bytes unrolled by eight read at 0 ... 8960 bytes, seven from the pointer moved by
//! 3840 bytes and one from an address 5120 bytes further.
//!
//! The pointer must serve nothing but those accesses and its step, and the stepped pointer
//! nothing but the phi and equality tests against values fixed for the loop, which move
//! with the pointer (computed in the preheader).
//!
//! Needs: the loop forest. Preserves: behaviour and the CFG.

use crate::analysis::{LoopInfo, Preserved};
use crate::cost_model::{CostModel, OffsetReach};
use crate::ir::{Block, Function, Inst, InstKind, IntPred, Type, Value};
use crate::passes::FunctionContext;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let loops = cx.analyses.loops(f);
    let mut changed = false;
    for k in 0..loops.loops.len() {
        let lp = &loops.loops[k];
        let (Some(preheader), [latch]) = (lp.preheader, &lp.latches[..]) else {
            continue;
        };
        let phis: Vec<Inst> = f.phis(lp.header).collect();
        for phi in phis {
            if let Some(plan) = plan(f, cx.costs, &loops, k, (phi, preheader, *latch)) {
                apply(f, (preheader, lp.header), phi, plan);
                changed = true;
            }
        }
    }
    Preserved::cfg_if(changed)
}

/// What reads the pointer at a constant offset: an address `gep p, c` or an access of `p`
/// itself.
#[derive(Clone, Copy)]
enum Reader {
    Address(Inst),
    Access(Inst),
}

/// One reader with its byte offset from the pointer and how far its accesses reach.
#[derive(Clone, Copy)]
struct Offset {
    reader: Reader,
    bytes: i64,
    reach: OffsetReach,
}

/// How to rebase one pointer: its readers in groups, each around a byte offset its
/// accesses all reach; the pointer moves to the first group's, and each other group reads
/// from an address computed once a round.
struct Plan {
    groups: Vec<(i64, Vec<Offset>)>,
    /// The equality tests of the stepped pointer, with the operand that is fixed.
    tests: Vec<(Inst, usize)>,
}

fn plan(
    f: &Function,
    costs: &dyn CostModel,
    loops: &LoopInfo,
    k: usize,
    (phi, preheader, latch): (Inst, Block, Block),
) -> Option<Plan> {
    let inside = |i: Inst| loops.holds(f, k, i);
    let fixed = |v: Value| loops.is_invariant(f, k, v);
    if f.inst(phi).ty != Type::Ptr {
        return None;
    }
    f.phi_incoming(phi, preheader)?;
    let Value::Inst(next) = f.phi_incoming(phi, latch)? else {
        return None;
    };
    if !inside(next)
        || !matches!(*f.kind(next), InstKind::Gep { args: [b, Value::Int(_)], .. } if b == Value::Inst(phi))
    {
        return None;
    }
    let mut offsets = Vec::new();
    for u in f.uses(Value::Inst(phi)) {
        if u.inst == next {
            continue;
        }
        if !inside(u.inst) {
            return None;
        }
        offsets.push(match *f.kind(u.inst) {
            InstKind::Gep {
                args: [_, Value::Int(c)],
                stride,
            } if u.index == 0 => Offset {
                reader: Reader::Address(u.inst),
                bytes: i64::from(c) * i64::from(stride),
                reach: costs.address_reach(f, Value::Inst(u.inst))?,
            },
            _ => Offset {
                reader: Reader::Access(u.inst),
                bytes: 0,
                reach: costs.access_reach(f, u.inst, u.index)?,
            },
        });
    }
    let mut tests = Vec::new();
    for u in f.uses(Value::Inst(next)) {
        match *f.kind(u.inst) {
            InstKind::Phi { .. } if u.inst == phi => {}
            InstKind::Icmp {
                pred: IntPred::Eq | IntPred::Ne,
                args,
            } if inside(u.inst) && fixed(args[1 - u.index as usize]) => {
                tests.push((u.inst, 1 - u.index as usize));
            }
            _ => return None,
        }
    }
    // Each offset stays a multiple of its access's step (a word's, at most), as the groups'
    // centres, multiples of 4, do.
    if offsets
        .iter()
        .any(|o| o.bytes % o.reach.step != 0 || i32::try_from(o.bytes).is_err())
    {
        return None;
    }
    let far = offsets.iter().filter(|o| !o.reach.takes(o.bytes)).count();
    if far == 0 {
        return None;
    }
    let groups = groups(offsets);
    // Each group past the first costs an add a round; each address out of reach cost one
    // at least (the move of its offset, or an add).
    (groups.len() - 1 < far).then_some(Plan { groups, tests })
}

/// The offsets in groups, each around a centre that every access in it reaches: from the
/// lowest offset left, as many as fit, the largest group first.
fn groups(mut offsets: Vec<Offset>) -> Vec<(i64, Vec<Offset>)> {
    offsets.sort_by_key(|o| o.bytes);
    let mut groups: Vec<(i64, Vec<Offset>)> = Vec::new();
    let mut rest = &offsets[..];
    while let Some(first) = rest.first() {
        let mut taken = 1;
        let mut centre = first.bytes & !3;
        for n in 2..=rest.len() {
            let members = &rest[..n];
            let middle = (members[0].bytes + members[n - 1].bytes).div_euclid(2) & !3;
            if members.iter().all(|o| o.reach.takes(o.bytes - middle)) {
                taken = n;
                centre = middle;
            } else {
                break;
            }
        }
        groups.push((centre, rest[..taken].to_vec()));
        rest = &rest[taken..];
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.1.len()));
    groups
}

fn apply(f: &mut Function, (preheader, header): (Block, Block), phi: Inst, plan: Plan) {
    let shift = plan.groups[0].0 as i32;
    let end = f.terminator(preheader).expect("a preheader ends in a jump");
    let moved = |f: &mut Function, v: Value| {
        let kind = InstKind::Gep {
            args: [v, Value::Int(shift)],
            stride: 1,
        };
        Value::Inst(f.insert_inst_before(end, kind, Type::Ptr))
    };
    let InstKind::Phi { blocks, .. } = f.kind(phi) else {
        unreachable!("the plan takes a phi");
    };
    let from = blocks
        .iter()
        .position(|&b| b == preheader)
        .expect("the plan checked the start");
    let start = moved(f, f.kind(phi).operands()[from]);
    f.set_operand(phi, from, start);
    let first = f
        .block_insts(header)
        .find(|&i| !f.kind(i).is_phi())
        .expect("a header ends in a jump");
    for (centre, members) in plan.groups {
        let centre = centre as i32;
        let base = if centre == shift {
            Value::Inst(phi)
        } else {
            let kind = InstKind::Gep {
                args: [Value::Inst(phi), Value::Int(centre.wrapping_sub(shift))],
                stride: 1,
            };
            Value::Inst(f.insert_inst_before(first, kind, Type::Ptr))
        };
        for o in members {
            let bytes = (o.bytes as i32).wrapping_sub(centre);
            let address = InstKind::Gep {
                args: [base, Value::Int(bytes)],
                stride: 1,
            };
            match o.reader {
                Reader::Address(gep) if bytes == 0 => {
                    f.replace_all_uses(Value::Inst(gep), base);
                    f.remove_inst(gep);
                }
                Reader::Address(gep) => f.replace_kind(gep, address, Type::Ptr),
                Reader::Access(access) => {
                    let to = if bytes == 0 {
                        base
                    } else {
                        Value::Inst(f.insert_inst_before(access, address, Type::Ptr))
                    };
                    let index = f
                        .kind(access)
                        .operands()
                        .iter()
                        .position(|&v| v == Value::Inst(phi))
                        .expect("the access reads the pointer");
                    f.set_operand(access, index, to);
                }
            }
        }
    }
    for (test, index) in plan.tests {
        let bound = f.kind(test).operands()[index];
        let bound = moved(f, bound);
        f.set_operand(test, index, bound);
    }
}
