//! hoist-spills: spill code that a loop repeats round after round goes before the loop.
//!
//! **Stores of what the slot already holds.** Where a loop holds another loop with calls,
//! allocation splits the outer loop's values around the inner one: each is stored on the
//! way into the inner loop and reloaded after it. A value the outer loop never changes (a
//! base address) is then stored in every round, although the slot holds it from the round
//! before: the reload after the inner loop read it from there. Such a store `str R, S` in
//! a loop goes to the end of each block entering the loop when, with it there, the slot
//! word `S` holds `R` on every way to the store (a forward must-analysis: a store or load
//! of `R` and `S` makes it so; a write of `R`, a call clobbering it, or another store to
//! `S` undoes it), and the slot's old value is dead where the loop starts (no load of `S`
//! is reachable from the header before a store to it), so storing earlier changes no
//! load's value. The store must be in a block leading into an inner loop, and no way from
//! the header to it may leave the loop: a recursion
//! turned into a loop returns from most first rounds before reaching the store, which the
//! estimated frequencies do not see (`subset_sum` took 1.0007x its cycles). Inner loops go
//! first, so a store can leave a whole nest.
//!
//! **Reloads of what the loop only reads.** The colourer spills a value for the pressure
//! where it lives longest; a small loop that only reads it (the end of a buffer in a fill
//! loop inside a crowded function) then reloads it every round although the loop itself
//! has registers to spare. After allocation those are known: a register of the value's
//! class that no instruction of the loop mentions, that is not live into its header (so it
//! carries nothing through the loop), and that no call in the loop clobbers. It costs
//! nothing where the function's frame saves it already or the convention does not ask
//! for it to be kept (a caller-saved register in a loop without calls); ip is never taken,
//! since emission may need it for a far stack offset. The value is loaded into it at the
//! end of each block entering the loop.
//!
//! Loops are visited outermost first for reloads, so a value the whole nest reads is loaded
//! before the outer loop; a register taken for a loop stays taken in the loops inside it.
//! The slot must be one whose address the code never takes, so that only the loop's own
//! stores could change it, and the loop must store to it nowhere. A reload `ldr rX, slot`
//! goes when the instructions after it in its block that read `rX` can read the new
//! register instead, up to one that defines `rX` outright, with `rX` dead at the block's
//! end if no such definition comes. A slot with a reload that cannot go stays as it is: a
//! copy in its place would take an ALU slot where the load pipe is often idle.
//!
//! Both need each edge into the header to come from a block that leads only there, and
//! the loop's instructions to run more often than those edges (block frequencies).
//!
//! Needs: physical registers only. Preserves: behaviour.

use crate::mir::loops::LoopNest;
use crate::mir::*;
use crate::regalloc::allocatable;
use crate::regalloc::liveness::{node, Liveness};
use middle::fast_hash::FastHashSet;

pub fn run(mf: &mut MFunction) {
    let nest = LoopNest::new(mf);
    let depths = nest.depths();
    let mut headers: Vec<MBlockId> = nest.headers().collect();
    headers.sort_by_key(|h| depths[h.index()]);
    if headers.is_empty() {
        return;
    }
    let loops = Loops {
        preds: mf.preds(),
        nest,
        address_taken: mf.address_taken_slots(),
    };
    for &h in headers.iter().rev() {
        hoist_stores(mf, &loops, h);
    }
    hoist_reloads(mf, &loops, &headers);
}

/// What both halves ask of the function, which moving spill code does not change: its loops,
/// its blocks' predecessors, and the slots whose address the code takes.
struct Loops {
    nest: LoopNest,
    preds: Vec<Vec<MBlockId>>,
    address_taken: FastHashSet<Slot>,
}

impl Loops {
    /// The blocks of the loop headed by `h`, and the blocks entering it when each leads only
    /// to the header (`None` otherwise).
    fn blocks(&self, mf: &MFunction, h: MBlockId) -> Option<(Vec<MBlockId>, Vec<MBlockId>)> {
        let body: Vec<MBlockId> = mf
            .block_ids()
            .filter(|&b| self.nest.contains(h, b))
            .collect();
        let entering: Vec<MBlockId> = self.preds[h.index()]
            .iter()
            .copied()
            .filter(|&p| !self.nest.contains(h, p))
            .collect();
        if entering.is_empty() || entering.iter().any(|&p| mf.succs(p) != [h]) {
            return None;
        }
        Some((body, entering))
    }

    /// Whether slot word `key` is one only direct loads and stores reach: a local slot
    /// whose address the code never takes.
    fn tracked(&self, key: (Slot, i32)) -> bool {
        matches!(key.0, Slot::Local(_)) && !self.address_taken.contains(&key.0)
    }
}

/// Moves the stores in the loop headed by `h` of what the slot holds anyway before the
/// loop (see the module comment).
fn hoist_stores(mf: &mut MFunction, loops: &Loops, h: MBlockId) {
    let Some((body, entering)) = loops.blocks(mf, h) else {
        return;
    };
    let entry_weight: f64 = entering.iter().map(|&p| mf.block(p).frequency).sum();
    for &b in &body {
        if mf.block(b).frequency <= entry_weight
            || !enters_inner_loop(mf, loops, h, b)
            || may_leave_before(mf, loops, h, b)
        {
            continue;
        }
        let mut i = 0;
        while i < mf.block(b).insts.len() {
            let inst = &mf.block(b).insts[i];
            let Some((false, r, key)) = inst.slot_access().filter(|a| loops.tracked(a.2)) else {
                i += 1;
                continue;
            };
            let store = inst.clone();
            if live_at(mf, h, key) || !held_before(mf, &loops.preds, &entering, (b, i), r, key) {
                i += 1;
                continue;
            }
            mf.block_mut(b).insts.remove(i);
            for &p in &entering {
                let at = mf.block(p).first_branch();
                if at == 0 || mf.block(p).insts[at - 1] != store {
                    mf.block_mut(p).insert_before_branches(store.clone());
                }
            }
        }
    }
}

/// Whether block `b` of the loop headed by `h` leads into a loop inside it: where
/// allocation stores the values it splits around that loop, once per round that reaches
/// it. A store elsewhere (an arm of a test) may run in few of the rounds, fewer than the
/// loop is entered (`binary_search` took 2,001 more cycles).
fn enters_inner_loop(mf: &MFunction, loops: &Loops, h: MBlockId, b: MBlockId) -> bool {
    mf.succs(b)
        .iter()
        .any(|&s| s != h && loops.nest.loops_of(s).next() == Some(s) && !loops.nest.contains(s, b))
}

/// Whether a round of the loop headed by `h` may leave it on its way to block `b`: then
/// many entries may never reach `b` (a recursion turned into a loop, whose first round
/// mostly returns), and a store moved before the loop would run more often than in `b`.
fn may_leave_before(mf: &MFunction, loops: &Loops, h: MBlockId, b: MBlockId) -> bool {
    let mut seen = vec![false; mf.blocks.len()];
    let mut work = vec![b];
    seen[b.index()] = true;
    while let Some(x) = work.pop() {
        if x != b && mf.succs(x).iter().any(|&s| !loops.nest.contains(h, s)) {
            return true;
        }
        if x == h {
            continue;
        }
        for &p in &loops.preds[x.index()] {
            if loops.nest.contains(h, p) && !seen[p.index()] {
                seen[p.index()] = true;
                work.push(p);
            }
        }
    }
    false
}

/// Whether slot word `key` is live at the start of block `h`: a load of it is reachable
/// from there before any store to it.
fn live_at(mf: &MFunction, h: MBlockId, key: (Slot, i32)) -> bool {
    let mut seen = vec![false; mf.blocks.len()];
    let mut work = vec![h];
    seen[h.index()] = true;
    while let Some(b) = work.pop() {
        let first = mf
            .block(b)
            .insts
            .iter()
            .find_map(|inst| match inst.slot_access() {
                Some((load, _, k)) if k == key => Some(load),
                _ => None,
            });
        match first {
            Some(true) => return true,
            Some(false) => {}
            None => {
                for &s in mf.succs(b) {
                    if !seen[s.index()] {
                        seen[s.index()] = true;
                        work.push(s);
                    }
                }
            }
        }
    }
    false
}

/// Whether, with a store of `r` to slot word `key` at the end of each block `entering` the
/// loop, the slot holds `r` on every way to the instruction at `at`.
fn held_before(
    mf: &MFunction,
    preds: &[Vec<MBlockId>],
    entering: &[MBlockId],
    at: (MBlockId, usize),
    r: Reg,
    key: (Slot, i32),
) -> bool {
    // What an instruction does to the fact "the slot holds r": makes it so, undoes it, or
    // leaves it.
    let effect = |inst: &MInst| -> Option<bool> {
        match inst.slot_access() {
            // A load into another register leaves the slot as it is.
            Some((true, x, k)) if k == key => return (x == r).then_some(true),
            Some((false, x, k)) if k == key => return Some(x == r),
            _ => {}
        }
        let clobbers = inst.is_call() && caller_saved().any(|p| Reg::Phys(p) == r);
        (clobbers || inst.writes(r) && !is_self_copy(inst, r)).then_some(false)
    };
    let transfer = |b: MBlockId, mut holds: bool, upto: usize| {
        for inst in &mf.block(b).insts[..upto] {
            if let Some(now) = effect(inst) {
                holds = now;
            }
        }
        holds
    };
    let n = mf.blocks.len();
    let mut out = vec![true; n];
    let mut changed = true;
    let in_of = |b: MBlockId, out: &[bool]| {
        b != MBlockId::ENTRY && preds[b.index()].iter().all(|p| out[p.index()])
    };
    while changed {
        changed = false;
        for b in mf.block_ids() {
            let len = mf.block(b).insts.len();
            let mut now = transfer(b, in_of(b, &out), len);
            if entering.contains(&b) {
                now = true;
            }
            if now != out[b.index()] {
                out[b.index()] = now;
                changed = true;
            }
        }
    }
    transfer(at.0, in_of(at.0, &out), at.1)
}

/// Moves the reloads in each loop of a slot it only reads before it, into a register it
/// leaves free (see the module comment); `headers` holds the loops outermost first.
fn hoist_reloads(mf: &mut MFunction, loops: &Loops, headers: &[MBlockId]) {
    let liveness = [RegClass::Int, RegClass::Float].map(|class| Liveness::new(mf, class));
    let mut written = mf.written_registers();
    let has_calls = mf.has_calls();
    // The registers taken for each loop so far, by header.
    let mut taken: Vec<(MBlockId, PReg)> = Vec::new();
    for &h in headers {
        let Some((body, entering)) = loops.blocks(mf, h) else {
            continue;
        };
        let reloads = reloaded_slots(mf, loops, &body);
        if reloads.is_empty() {
            continue;
        }
        let entry_weight: f64 = entering.iter().map(|&p| mf.block(p).frequency).sum();
        let mut free = free_registers(mf, &body, h, &liveness, &written, has_calls);
        free.retain(|&p| {
            !taken
                .iter()
                .any(|&(t, q)| q == p && loops.nest.contains(t, h))
        });
        for (key, class, weight) in reloads {
            if weight <= entry_weight {
                continue;
            }
            let Some(at) = free.iter().position(|p| p.class() == class) else {
                continue;
            };
            let liveness = &liveness[class.index()];
            if !every_reload_renames(mf, liveness, &body, key) {
                continue;
            }
            let reg = free.remove(at);
            taken.push((h, reg));
            written[reg.0 as usize] = true;
            hoist(mf, liveness, &body, &entering, key, reg);
        }
    }
}

/// The slot words loaded in the loop of blocks `body` and stored nowhere in it, with their
/// register class and the summed frequency of their loads, the most loaded first.
fn reloaded_slots(
    mf: &MFunction,
    loops: &Loops,
    body: &[MBlockId],
) -> Vec<((Slot, i32), RegClass, f64)> {
    let mut loads: Vec<((Slot, i32), RegClass, f64)> = Vec::new();
    let mut stored: FastHashSet<Slot> = FastHashSet::default();
    for &b in body {
        let block = mf.block(b);
        for inst in &block.insts {
            let Some((load, r, key)) = inst.slot_access() else {
                continue;
            };
            let class = mf.class_of(r);
            if !load {
                stored.insert(key.0);
            }
            // Vector reloads stay where they are: loops that hold vectors have few.
            if !load || class == RegClass::Vector || !loops.tracked(key) {
                continue;
            }
            match loads.iter_mut().find(|(k, ..)| *k == key) {
                Some(load) => load.2 += block.frequency,
                None => loads.push((key, class, block.frequency)),
            }
        }
    }
    loads.retain(|(key, ..)| !stored.contains(&key.0));
    loads.sort_by(|a, b| b.2.total_cmp(&a.2));
    loads
}

/// The registers that the loop of blocks `body` and header `h` leaves free and that cost
/// no save they did not already cost, preferring those the convention lets the function
/// clobber.
fn free_registers(
    mf: &MFunction,
    body: &[MBlockId],
    h: MBlockId,
    liveness: &[Liveness; 2],
    written: &[bool; PHYS_REGS],
    function_calls: bool,
) -> Vec<PReg> {
    let mut mentioned = [false; PHYS_REGS];
    let mut loop_calls = false;
    for &b in body {
        for inst in &mf.block(b).insts {
            loop_calls |= inst.is_call();
            inst.for_each_reg(|r, _| {
                if let Reg::Phys(p) = r {
                    mentioned[p.0 as usize] = true;
                }
            });
        }
    }
    let live: FastHashSet<usize> = liveness.iter().flat_map(|l| l.live_in(h)).collect();
    let caller_saved: Vec<PReg> = caller_saved().collect();
    [RegClass::Int, RegClass::Float]
        .into_iter()
        .flat_map(allocatable)
        .filter(|&p| {
            p != PReg::IP && !mentioned[p.0 as usize] && !live.contains(&node(Reg::Phys(p)))
        })
        .filter(|&p| {
            let clobbered = caller_saved.contains(&p);
            if p == PReg::LR {
                !loop_calls && (function_calls || written[p.0 as usize])
            } else if clobbered {
                !loop_calls
            } else {
                written[p.0 as usize]
            }
        })
        .collect()
}

/// Whether every reload of slot word `key` in the loop of blocks `body` can go, its reads
/// reading a hoisted register instead (see `renamed_reads`).
fn every_reload_renames(
    mf: &MFunction,
    liveness: &Liveness,
    body: &[MBlockId],
    key: (Slot, i32),
) -> bool {
    body.iter().all(|&b| {
        let live_out = liveness.live_out(mf, b);
        let insts = &mf.block(b).insts;
        insts
            .iter()
            .enumerate()
            .all(|(i, inst)| match inst.slot_access() {
                Some((true, rx, k)) if k == key => {
                    renamed_reads(&insts[i + 1..], rx, &live_out).is_some()
                }
                _ => true,
            })
    })
}

/// Loads slot word `key` into `reg` at the end of each block `entering` the loop of blocks
/// `body`, and makes the loop's reloads of it read `reg` (`every_reload_renames` holds).
fn hoist(
    mf: &mut MFunction,
    liveness: &Liveness,
    body: &[MBlockId],
    entering: &[MBlockId],
    key: (Slot, i32),
    reg: PReg,
) {
    let r = Reg::Phys(reg);
    let addr = Addr::Slot(key.0, key.1);
    let load = reg.class().reload(r, addr);
    for &p in entering {
        mf.block_mut(p).insert_before_branches(load.clone());
    }
    for &b in body {
        let live_out = liveness.live_out(mf, b);
        let insts = &mut mf.block_mut(b).insts;
        let mut i = 0;
        while i < insts.len() {
            match insts[i].slot_access() {
                Some((true, rx, k)) if k == key => {
                    let end = renamed_reads(&insts[i + 1..], rx, &live_out)
                        .expect("every reload renames");
                    let mut reads: Vec<MInst> = insts.drain(i..i + 1 + end).skip(1).collect();
                    reads.retain(|inst| !is_self_copy(inst, rx));
                    for inst in &mut reads {
                        inst.visit_regs(|x, role| {
                            if *x == rx && role == Role::Use {
                                *x = r;
                            }
                        });
                    }
                    insts.splice(i..i, reads);
                }
                _ => i += 1,
            }
        }
    }
}

/// Whether `inst` copies `rx` to itself (a copy that allocation coalesced, which
/// `peephole` removes).
fn is_self_copy(inst: &MInst, rx: Reg) -> bool {
    matches!(inst, MInst::Copy { dst, src } if *dst == rx && *src == rx)
}

/// How many of the instructions `after` a reload into `rx` must read the hoisted register
/// instead for the reload to go: those up to one that defines `rx` outright, or all when `rx` is dead at the
/// block's end (`live_out`). `None` when `rx` stays live past the block, when an
/// instruction reads and keeps it (a predicated definition), or when one reads it where
/// the register is fixed (a call's or a return's argument, a list of registers).
fn renamed_reads(after: &[MInst], rx: Reg, live_out: &[usize]) -> Option<usize> {
    for (j, inst) in after.iter().enumerate() {
        if is_self_copy(inst, rx) {
            continue;
        }
        let roles = inst.regs();
        let reads = roles.iter().any(|&(x, role)| x == rx && role != Role::Def);
        let fixed = matches!(
            inst,
            MInst::Bl { .. }
                | MInst::Ret { .. }
                | MInst::TailCall { .. }
                | MInst::Ldm { .. }
                | MInst::Stm { .. }
                | MInst::VLdm { .. }
                | MInst::VStm { .. }
        );
        if reads && fixed
            || roles
                .iter()
                .any(|&(x, role)| x == rx && role == Role::UseDef)
        {
            return None;
        }
        if roles.iter().any(|&(x, role)| x == rx && role == Role::Def) {
            return Some(j + 1);
        }
    }
    (!live_out.contains(&node(rx))).then_some(after.len())
}

#[cfg(test)]
#[path = "hoist_spills_tests.rs"]
mod tests;
