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
//! instructions (`MAX_LOADING_ARM_INSTS` when one arm loads; never both, whose loads would
//! all run every round): a well-predicted branch around more costs less. Each instruction
//! mentions no physical register and is one of:
//! - a store or a load (not of a stack slot, without writeback), a move, an ALU operation
//!   or a copy: it runs under its arm's condition (`str<c>`, `ldr<c>`, `mov<c>`, `add<c>`,
//!   `vmov<c>.f32`). A conditional load's register holds nothing where the condition
//!   fails, so only its arm may read it;
//! - an instruction whose results only its arm mentions (the `mov t, #1` above), which
//!   runs unconditionally: loads (which may fault), divisions and calls never do.
//!
//! A register an arm writes under a condition keeps its old value otherwise, so it is read
//! there: when it is not live at the branch (a diamond's two arms each give it the join's
//! value), the first write of it runs unconditionally instead.
//!
//! One arm may end in a test of its own, a nested `if` whose stores already run under its
//! condition: `if (du < INF) { nd = du + w[e]; if (nd < dist[v]) dist[v] = nd; }` is `cmp
//! du, inf; ldrlt; add; ldrlt; cmplt nd, d; strlt`. That arm runs last, its compare under
//! the branch's condition `c`: where `c` fails, the flags stay as the branch left them, so
//! what reads them under a condition that implies `c` (`c` itself, or `gt` for `ne`) does
//! not run either. After the test, an instruction reads the flags so, or runs
//! unconditionally; a register the join reads that it writes
//! unconditionally must then hold, where `c` fails, what it would have held without the
//! arm (the copy `changed = changed'` of a `movlt changed', #1`).
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

/// The most instructions the arms of one branch may have when one of them loads: such an
/// arm is the body of a guard (`if (du < INF) { nd = du + w[e]; if (nd < dist[v]) ... }`),
/// a whole step of the round that a branch would split into blocks of their own.
const MAX_LOADING_ARM_INSTS: usize = 10;

pub fn run(mf: &mut MFunction) {
    if mf.blocks.iter().all(|b| b.loop_depth == 0) {
        return;
    }
    let facts = Facts {
        liveness: RegClass::ALL.map(|class| Liveness::new(mf, class)),
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
    liveness: [Liveness; RegClass::ALL.len()],
    /// For each virtual register, the one block that mentions it, if only one does.
    only_block: Vec<Option<MBlockId>>,
    /// For each register a load writes, the addresses it is loaded from (arms hold no
    /// loads, so conversions move none).
    loaded_from: FastHashMap<Reg, Vec<Addr>>,
}

impl Facts {
    fn live_in(&self, mf: &MFunction, b: MBlockId, r: Reg) -> bool {
        self.liveness[mf.class_of(r).index()]
            .live_in(b)
            .any(|x| x == node(r))
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
        if let MInst::Ldr { rd, addr, .. } = *inst {
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
    let loads = |x: MBlockId| {
        mf.block(x)
            .insts
            .iter()
            .any(|i| matches!(i, MInst::Ldr { .. }))
    };
    let max = match arms.iter().filter(|&&(x, _)| loads(x)).count() {
        0 => MAX_ARM_INSTS,
        1 => MAX_LOADING_ARM_INSTS,
        // Both arms' loads would run every round.
        _ => return,
    };
    if !stores
        || arm_insts().count() - arms.len() > max
        || settles(facts, &mf.block(a).insts, arm_insts())
    {
        return;
    }
    let live_at_branch = |r: Reg| facts.live_in(mf, t, r) || facts.live_in(mf, f, r);
    let tests = |x: MBlockId| mf.block(x).insts.iter().filter(|i| i.sets_flags()).count();
    let mut arms = arms;
    match arms
        .iter()
        .map(|&(x, _)| tests(x))
        .collect::<Vec<_>>()
        .as_slice()
    {
        [0] | [1] | [0, 0] | [0, 1] => {}
        // The arm with a test of its own runs last: the other one's instructions read the
        // branch's flags.
        [1, 0] => arms.swap(0, 1),
        _ => return,
    }
    let mut conversion = Conversion::default();
    for (k, &(x, c)) in arms.iter().enumerate() {
        let last = k + 1 == arms.len();
        if conversion
            .arm(mf, facts, x, c, last, &live_at_branch)
            .is_none()
        {
            return;
        }
    }
    let live_at_join = |r: Reg| facts.live_in(mf, join, r);
    if !conversion.keeps_skipped_values(&live_at_join) {
        return;
    }
    let converted = conversion.insts;
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

/// What a value is where the last arm's condition fails: what a register held at the
/// branch, a constant, or anything.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Skipped {
    Held(Reg),
    Const(u32),
    Unknown,
}

/// The arms' instructions as they run where the branch was, built arm by arm.
#[derive(Default)]
struct Conversion {
    insts: Vec<MInst>,
    /// The registers the arms' instructions converted so far write.
    written: Vec<Reg>,
    /// What the registers written so far hold where the last arm's condition fails: after
    /// the other arm ran (`required`), and after the last arm's unconditional instructions
    /// ran too (`skipped`).
    required: FastHashMap<Reg, Skipped>,
    skipped: FastHashMap<Reg, Skipped>,
    /// Registers outside the last arm that it writes unconditionally after its own test.
    late_writes: Vec<Reg>,
}

impl Conversion {
    /// Converts arm `x` (its instructions but the closing jump) under condition `c`.
    /// Only the `last` arm may have a test of its own (`cmp` under `c`): the instructions
    /// after it read its flags under `c`, as they did, or run unconditionally, which
    /// `keeps_skipped_values` checks.
    fn arm(
        &mut self,
        mf: &MFunction,
        facts: &Facts,
        x: MBlockId,
        c: Cond,
        last: bool,
        live_at_branch: &impl Fn(Reg) -> bool,
    ) -> Option<()> {
        if last {
            self.required = self.skipped.clone();
        }
        let body = &mf.block(x).insts;
        let mut tested = false;
        for inst in &body[..body.len() - 1] {
            if inst.regs().iter().any(|(r, _)| matches!(r, Reg::Phys(_))) {
                return None;
            }
            let converted = if inst.sets_flags() {
                // The arm's own test, under the branch's condition: where `c` fails, the
                // flags stay as the branch left them, so that what reads them under `c`
                // does not run either.
                if tested || !last || !inst.is_compare() {
                    return None;
                }
                tested = true;
                predicated(mf, inst, c)?
            } else if tested {
                self.after_test(facts, inst, x, c)?
            } else {
                arm_inst(mf, facts, inst, x, c, &self.written, live_at_branch)?
            };
            if !last || converted.flags_read().is_none() {
                self.record_skipped(&converted);
            }
            converted.for_each_reg(|r, role| {
                if role != Role::Use {
                    self.written.push(r);
                }
            });
            self.insts.push(converted);
        }
        Some(())
    }

    /// `inst`, after the arm's own test: as it was, under a condition that implies the
    /// branch's `c`, or unconditionally when it only computes its results.
    fn after_test(&mut self, facts: &Facts, inst: &MInst, x: MBlockId, c: Cond) -> Option<MInst> {
        match inst.flags_read() {
            // Where `c` fails, `d` fails too on the flags the branch left.
            Some(d) if d.implies(c) => Some(inst.clone()),
            Some(_) => None,
            None if is_speculable(inst) => {
                inst.for_each_reg(|r, role| {
                    if role != Role::Use && facts.outside(r, x) {
                        self.late_writes.push(r);
                    }
                });
                Some(inst.clone())
            }
            None => None,
        }
    }

    /// Follows what `inst`, which runs where the last arm's condition fails, leaves in the
    /// registers it writes.
    fn record_skipped(&mut self, inst: &MInst) {
        let value = |r: Reg| held(&self.skipped, r);
        let moved = match *inst {
            MInst::Copy { src, .. }
            | MInst::Mov {
                src: Operand2::Reg(src),
                ..
            } => Some(value(src)),
            MInst::Mov {
                src: Operand2::Imm(k),
                ..
            } => Some(Skipped::Const(k)),
            _ => None,
        };
        inst.for_each_reg(|r, role| {
            if role != Role::Use {
                self.skipped.insert(r, moved.unwrap_or(Skipped::Unknown));
            }
        });
    }

    /// Whether the registers the last arm writes unconditionally after its test, where the
    /// join reads them, hold where its condition fails what they would have without it.
    fn keeps_skipped_values(&self, live_at_join: &impl Fn(Reg) -> bool) -> bool {
        self.late_writes.iter().all(|&r| {
            let skipped = held(&self.skipped, r);
            !live_at_join(r) || (skipped == held(&self.required, r) && skipped != Skipped::Unknown)
        })
    }
}

/// What `r` holds by `values`: what it held at the branch unless they say otherwise.
fn held(values: &FastHashMap<Reg, Skipped>, r: Reg) -> Skipped {
    values.get(&r).copied().unwrap_or(Skipped::Held(r))
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
    if inst.flags_read().is_some() {
        return None;
    }
    let defs: Vec<Reg> = regs
        .iter()
        .filter(|(_, role)| *role != Role::Use)
        .map(|&(r, _)| r)
        .collect();
    if let MInst::Ldr { rd, .. } = *inst {
        // Where `c` fails, the register holds nothing: only this arm may read it.
        if facts.outside(rd, x) || facts.live_in(mf, x, rd) {
            return None;
        }
    }
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
        MInst::Ldr {
            cond: None,
            rd,
            addr: addr @ (Addr::Imm(..) | Addr::Index(..) | Addr::IndexDown(..)),
        } => MInst::Ldr {
            cond: Some(c),
            rd,
            addr,
        },
        MInst::Cmp {
            cond: None,
            rn,
            src,
        } => MInst::Cmp {
            cond: Some(c),
            rn,
            src,
        },
        MInst::Cmn {
            cond: None,
            rn,
            src,
        } => MInst::Cmn {
            cond: Some(c),
            rn,
            src,
        },
        MInst::Tst {
            cond: None,
            rn,
            src,
        } => MInst::Tst {
            cond: Some(c),
            rn,
            src,
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
            // NEON instructions take no condition.
            RegClass::Vector => return None,
        },
        _ => return None,
    })
}

#[cfg(test)]
#[path = "if_convert_tests.rs"]
mod tests;
