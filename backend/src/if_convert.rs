//! if-convert: in a loop, a branch around a small arm that stores becomes the arm's
//! instructions under the branch's condition, and the block jumps to the join. `if
//! (reach[k][j]) reach[i][j] = 1;` is `cmp; beq J; mov t, #1; str t, [p]; b J` and becomes
//! `cmp; mov t, #1; strne t, [p]; b J`, which falls through into the join: the round runs
//! as one straight line. if-to-select already turns arms that only compute values into
//! selects where that pays, and stores whose old value is at hand into stores of a select
//! (`conditional_store`); what reaches here are other stores, and the copies of the join's
//! values that go with them.
//!
//! A block that ends in `b<c> T; b F` converts when one target is an arm that only this
//! block enters and that jumps to the other (a triangle), or both are such arms jumping to
//! one join (a diamond); an arm with no instructions is an edge split for phi copies that
//! received none. The arms hold at least one store and at most `MAX_ARM_INSTS`
//! instructions: a well-predicted branch around more costs less. Each instruction sets and
//! reads no flags, mentions no physical register, and is one of:
//! - a store (not to a stack slot, without writeback), a move, an ALU operation or a copy:
//!   it runs under its arm's condition (`str<c>`, `mov<c>`, `add<c>`, `vmov<c>.f32`);
//! - an instruction whose results only its arm mentions (the `mov t, #1` above), which
//!   runs unconditionally: loads (which may fault), divisions and calls never do.
//!
//! A register an arm writes under a condition keeps its old value otherwise, so it is read
//! there: when it is not live at the branch (a diamond's two arms each give it the join's
//! value), the first write of it runs unconditionally instead.
//!
//! A branch whose arms store into the location its test read stays (`settles`): a
//! relaxation of a shortest path or a first visit changes what the test sees next time, and
//! after the first rounds the test rarely passes, so stores run every round cost more than
//! a branch rarely taken (`dijkstra` took 1.011x its cycles, `floyd-2` 1.008x). An
//! exchange, which runs about every other round, converts (`bitonic_sort` 0.937x).
//!
//! Runs before allocation, on virtual registers. Needs: nothing. Preserves: behaviour,
//! and each block's live-in registers.

use crate::mir::*;
use crate::regalloc::liveness::{node, Liveness};
use middle::fast_hash::FastHashMap;

/// The most instructions the arms of one branch may have.
const MAX_ARM_INSTS: usize = 4;

pub fn run(mf: &mut MFunction) {
    if mf.blocks.iter().all(|b| b.loop_depth == 0) {
        return;
    }
    let facts = Facts {
        liveness: [
            Liveness::new(mf, RegClass::Int),
            Liveness::new(mf, RegClass::Float),
        ],
        only_block: only_block_mentioning(mf),
        loaded_from: loaded_from(mf),
    };
    // An arm keeps its one entering block, and no block enters an arm once converted, so
    // the lists stay good for the arms not yet converted.
    let preds = mf.reached_preds();
    for a in mf.layout.clone() {
        convert(mf, a, &facts, &preds);
    }
}

/// What the registers were before any conversion. A conversion only moves an arm's
/// instructions into the block that enters it alone, so both stay true for the arms not
/// yet converted.
struct Facts {
    /// Per register class.
    liveness: [Liveness; 2],
    /// For each virtual register, the one block that mentions it, if only one does.
    only_block: Vec<Option<MBlockId>>,
    /// For each register a load writes, the addresses it is loaded from (arms hold no
    /// loads, so conversions move none).
    loaded_from: FastHashMap<Reg, Vec<Addr>>,
}

impl Facts {
    fn live_in(&self, mf: &MFunction, b: MBlockId, r: Reg) -> bool {
        let class = match mf.class_of(r) {
            RegClass::Int => 0,
            RegClass::Float => 1,
        };
        self.liveness[class].live_in(b).any(|x| x == node(r))
    }

    /// Whether a block other than `x` mentions `r`.
    fn outside(&self, r: Reg, x: MBlockId) -> bool {
        match r {
            Reg::Virt(v) => self.only_block[v.0 as usize] != Some(x),
            Reg::Phys(_) => true,
        }
    }
}

/// For each register a load writes, the addresses it is loaded from.
fn loaded_from(mf: &MFunction) -> FastHashMap<Reg, Vec<Addr>> {
    let mut loaded: FastHashMap<Reg, Vec<Addr>> = FastHashMap::default();
    for inst in mf.blocks.iter().flat_map(|b| b.insts.iter()) {
        if let MInst::Ldr { rd, addr } = *inst {
            loaded.entry(rd).or_default().push(addr);
        }
    }
    loaded
}

/// For each virtual register, the one block that mentions it, or `None` when several do.
fn only_block_mentioning(mf: &MFunction) -> Vec<Option<MBlockId>> {
    let mut only: Vec<Option<Option<MBlockId>>> = vec![None; mf.vreg_classes.len()];
    for b in mf.block_ids() {
        for inst in &mf.block(b).insts {
            inst.for_each_reg(|r, _| {
                if let Reg::Virt(v) = r {
                    let seen = &mut only[v.0 as usize];
                    *seen = match *seen {
                        None => Some(Some(b)),
                        Some(Some(x)) if x == b => Some(Some(b)),
                        Some(_) => Some(None),
                    };
                }
            });
        }
    }
    only.into_iter().map(Option::flatten).collect()
}

/// Converts the branch that ends block `a`, if it can and it pays.
fn convert(mf: &mut MFunction, a: MBlockId, facts: &Facts, preds: &[Vec<MBlockId>]) {
    let block = mf.block(a);
    if block.loop_depth == 0 {
        return;
    }
    let n = block.insts.len();
    let (Some(MInst::BCond { cond, target: t }), Some(MInst::B { target: f })) = (
        n.checked_sub(2).map(|k| &block.insts[k]),
        block.insts.last(),
    ) else {
        return;
    };
    let (cond, t, f) = (*cond, *t, *f);
    if block.first_branch() != n - 2 || t == f {
        return;
    }
    let arm_join = |x: MBlockId| -> Option<MBlockId> {
        let insts = &mf.block(x).insts;
        match (insts.last(), preds[x.index()].as_slice()) {
            (Some(MInst::B { target }), [p])
                if *p == a && x != a && mf.block(x).first_branch() == insts.len() - 1 =>
            {
                Some(*target)
            }
            _ => None,
        }
    };
    let (arms, join) = match (arm_join(t), arm_join(f)) {
        (Some(j), _) if j == f => (vec![(t, cond)], f),
        (_, Some(j)) if j == t => (vec![(f, cond.invert())], t),
        (Some(j), Some(k)) if j == k => (vec![(t, cond), (f, cond.invert())], j),
        _ => return,
    };
    if join == a {
        return;
    }
    let arm_insts = || arms.iter().flat_map(|&(x, _)| mf.block(x).insts.iter());
    let stores = arm_insts().any(|i| matches!(i, MInst::Str { .. }));
    if !stores
        || arm_insts().count() - arms.len() > MAX_ARM_INSTS
        || settles(facts, &mf.block(a).insts, arm_insts())
    {
        return;
    }
    let live_at_branch = |r: Reg| facts.live_in(mf, t, r) || facts.live_in(mf, f, r);
    let mut converted = Vec::new();
    let mut written: Vec<Reg> = Vec::new();
    for &(x, c) in &arms {
        let body = &mf.block(x).insts;
        for inst in &body[..body.len() - 1] {
            let Some(inst) = arm_inst(mf, facts, inst, x, c, &written, &live_at_branch) else {
                return;
            };
            inst.for_each_reg(|r, role| {
                if role != Role::Use {
                    written.push(r);
                }
            });
            converted.push(inst);
        }
    }
    let block = mf.block_mut(a);
    block.insts.truncate(n - 2);
    block.insts.extend(converted);
    block.insts.push(MInst::B { target: join });
    block.succs = vec![join];
    for &(x, _) in &arms {
        let arm = mf.block_mut(x);
        arm.insts = vec![MInst::B { target: join }];
        arm.succs = vec![join];
    }
}

/// Whether the arms settle the test that ends `block`: store into a location whose old
/// value, loaded anywhere in the function, the test read, without storing that old value
/// elsewhere, as an exchange does.
/// Relaxations (`if (nd < dist[v]) { dist[v] = nd; pred[v] = u; }`) and first visits (`if
/// (t[x] < 0) t[x] = d;`) change what their test sees next time, and after the first rounds
/// their tests rarely pass: a branch that is rarely taken costs less than stores run every
/// round. An exchange (`if (x > y) { a[i] = y; a[l] = x; }`) runs about every other round.
fn settles<'a>(
    facts: &Facts,
    block: &[MInst],
    arms: impl Iterator<Item = &'a MInst> + Clone,
) -> bool {
    let Some(test) = block.iter().rev().find(|i| i.sets_flags()) else {
        return false;
    };
    let tested = test.regs();
    let stored = |r: Reg| {
        arms.clone()
            .any(|i| matches!(*i, MInst::Str { rs, .. } if rs == r))
    };
    arms.clone().any(|i| {
        let MInst::Str { addr, .. } = *i else {
            return false;
        };
        tested.iter().any(|&(r, _)| {
            facts
                .loaded_from
                .get(&r)
                .is_some_and(|from| from.contains(&addr))
                && !stored(r)
        })
    })
}

/// `inst` of arm `x` as it runs where the branch was, when it can: under `c`, or as it is.
/// `written` holds the registers the arms' earlier instructions write.
fn arm_inst(
    mf: &MFunction,
    facts: &Facts,
    inst: &MInst,
    x: MBlockId,
    c: Cond,
    written: &[Reg],
    live_at_branch: &impl Fn(Reg) -> bool,
) -> Option<MInst> {
    let regs = inst.regs();
    if inst.sets_flags()
        || inst.flags_read().is_some()
        || regs.iter().any(|(r, _)| matches!(r, Reg::Phys(_)))
    {
        return None;
    }
    let defs: Vec<Reg> = regs
        .iter()
        .filter(|(_, role)| *role != Role::Use)
        .map(|&(r, _)| r)
        .collect();
    let stores = matches!(inst, MInst::Str { .. });
    if !stores && is_speculable(inst) {
        // Results only this arm reads, or a first write of a register that is not live at
        // the branch: nothing reads the old value.
        let unread = |r: Reg| !facts.outside(r, x) || (!live_at_branch(r) && !written.contains(&r));
        if defs.iter().all(|&r| unread(r)) {
            return Some(inst.clone());
        }
    }
    predicated(mf, inst, c)
}

/// Whether `inst` may run where its arm would not: it only computes its results, and
/// cheaply (a division stays behind its branch).
fn is_speculable(inst: &MInst) -> bool {
    inst.is_pure() && !matches!(inst, MInst::SDiv { .. })
}

/// `inst` under condition `c`, if the instruction has a conditional form here.
fn predicated(mf: &MFunction, inst: &MInst, c: Cond) -> Option<MInst> {
    Some(match *inst {
        MInst::Mov {
            cond: None,
            rd,
            src,
        } => MInst::Mov {
            cond: Some(c),
            rd,
            src,
        },
        MInst::Alu {
            cond: None,
            op,
            rd,
            rn,
            src,
        } => MInst::Alu {
            cond: Some(c),
            op,
            rd,
            rn,
            src,
        },
        MInst::Str {
            cond: None,
            rs,
            addr: addr @ (Addr::Imm(..) | Addr::Index(..) | Addr::IndexDown(..)),
        } => MInst::Str {
            cond: Some(c),
            rs,
            addr,
        },
        MInst::Copy { dst, src } => match mf.class_of(dst) {
            RegClass::Int => MInst::Mov {
                cond: Some(c),
                rd: dst,
                src: Operand2::Reg(src),
            },
            RegClass::Float => MInst::VMovIf {
                cond: c,
                sd: dst,
                sm: src,
            },
        },
        _ => return None,
    })
}

#[cfg(test)]
#[path = "if_convert_tests.rs"]
mod tests;
