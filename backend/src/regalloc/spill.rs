//! Rewriting after an allocation round chose registers to spill. A register defined only by
//! instructions that can be repeated anywhere (an immediate move, `movw`/`movt`, a symbol
//! or stack address, a load of a stack-passed parameter, whose slot never changes) is
//! rematerialised: those instructions are repeated right before each use.
//! Any other spilled register gets a stack slot, a store after each definition and a load
//! before each use, each into a fresh short-lived register that is never spilled again; a
//! use at most `REUSE_WINDOW` instructions after the last one in its block (with no call
//! between) reads the register that one loaded, recomputed or defined instead of loading
//! or recomputing again. A store that a later one in its block overwrites, with no load of
//! the slot between, goes: a value defined by a move and a predicated move (`mov r1, #0;
//! movgt r1, #1`) is stored once, after the second.

use crate::mir::*;
use middle::fast_hash::{FastHashMap, FastHashSet};

/// How many instructions apart two accesses of a spilled register in one block may be for
/// the second to reuse the first one's register: a longer reach holds more unspillable
/// registers at once.
const REUSE_WINDOW: usize = 3;

fn is_rematerializable(inst: &MInst) -> bool {
    matches!(
        inst,
        MInst::Ldr {
            addr: Addr::Slot(Slot::Incoming(_), _),
            ..
        } | MInst::VLdr {
            addr: Addr::Slot(Slot::Incoming(_), _),
            ..
        } | MInst::Mov {
            cond: None,
            src: Operand2::Imm(_),
            ..
        } | MInst::Mvn {
            src: Operand2::Imm(_),
            ..
        } | MInst::Movw { .. }
            | MInst::Movt { .. }
            | MInst::VMovImm { .. }
            | MInst::LoadSym { .. }
            | MInst::SlotAddr { .. }
    )
}

/// What repeating an instruction at a use costs, against a reload's `LOAD_COST` of 3: 1 for
/// an immediate move or an address on the stack, 3 for a load of a stack-passed parameter
/// and for a symbol's address (`movw` and `movt`, counted as a load: spilling the address of
/// a global that a loop indexes, to keep other values, cost `shuffle` more than it saved);
/// `None` when it cannot be repeated. In the cost model's issue half-cycles instead (a move
/// 1, a load and `movw`/`movt` 2), `bank_queue` took 1.165x and `bitset` 1.017x the modelled
/// cycles, `rec3args` 0.982x: the allocation these ratios were tuned with stays.
fn remat_cost(inst: &MInst) -> Option<u32> {
    if !is_rematerializable(inst) {
        return None;
    }
    Some(match inst {
        MInst::LoadSym { .. } | MInst::Ldr { .. } | MInst::VLdr { .. } => 3,
        _ => 1,
    })
}

/// Per virtual register, what rematerialising it costs at each use, if every instruction
/// defining it can be repeated there.
pub fn remat_costs(mf: &MFunction) -> Vec<Option<u32>> {
    let mut costs = vec![Some(0u32); mf.vreg_classes.len()];
    for inst in mf.blocks.iter().flat_map(|b| &b.insts) {
        let cost = remat_cost(inst);
        inst.for_each_reg(|r, role| {
            if let (Reg::Virt(v), true) = (r, role != Role::Use) {
                let c = &mut costs[v.0 as usize];
                *c = c.zip(cost).map(|(a, b)| a + b);
            }
        });
    }
    costs
}

fn replace(inst: &mut MInst, from: Reg, to: Reg) {
    inst.visit_regs(|r, _| {
        if *r == from {
            *r = to;
        }
    });
}

/// A fresh virtual register, marked unspillable.
fn new_temporary(mf: &mut MFunction, class: RegClass, unspillable: &mut Vec<bool>) -> Reg {
    let t = mf.new_vreg(class);
    unspillable.resize(mf.vreg_classes.len(), false);
    unspillable[mf.vreg_classes.len() - 1] = true;
    t
}

/// Rewrites the function so that the `spilled` registers live in stack slots or are
/// recomputed; the temporaries this creates are marked in `unspillable` (by vreg index).
pub fn rewrite(mf: &mut MFunction, spilled: &[VReg], unspillable: &mut Vec<bool>) {
    let order: Vec<Reg> = spilled.iter().map(|&v| Reg::Virt(v)).collect();
    let spilled: FastHashSet<Reg> = order.iter().copied().collect();
    // The defining instructions of each spilled register, in order.
    let mut defs: FastHashMap<Reg, Vec<MInst>> = FastHashMap::default();
    for inst in mf.blocks.iter().flat_map(|b| &b.insts) {
        inst.for_each_reg(|r, role| {
            if role != Role::Use && spilled.contains(&r) {
                let list = defs.entry(r).or_default();
                if list.last() != Some(inst) {
                    list.push(inst.clone());
                }
            }
        });
    }
    let remat: FastHashSet<Reg> = order
        .iter()
        .copied()
        .filter(|r| {
            defs.get(r)
                .is_some_and(|d| d.iter().all(is_rematerializable))
        })
        .collect();
    // Slots are numbered in the order of `spilled`, never in hash order.
    let slots: FastHashMap<Reg, u32> = order
        .iter()
        .filter(|r| !remat.contains(r))
        .map(|&r| (r, mf.new_object(mf.class_of(r).bytes())))
        .collect();
    let slot_numbers: FastHashSet<u32> = slots.values().copied().collect();
    for b in 0..mf.blocks.len() {
        let insts = std::mem::take(&mut mf.blocks[b].insts);
        let mut out = Vec::with_capacity(insts.len());
        // The temporary that last held each spilled register in this block, and at which
        // of the block's instructions.
        let mut held: FastHashMap<Reg, (Reg, usize)> = FastHashMap::default();
        for (at, mut inst) in insts.into_iter().enumerate() {
            if matches!(inst, MInst::Bl { .. }) {
                held.clear();
            }
            // The spilled registers this instruction reads and writes, in operand order.
            let mut mentioned: Vec<(Reg, bool, bool)> = Vec::new();
            inst.for_each_reg(|r, role| {
                if !spilled.contains(&r) {
                    return;
                }
                let (used, defined) = (role != Role::Def, role != Role::Use);
                match mentioned.iter_mut().find(|m| m.0 == r) {
                    Some(m) => {
                        m.1 |= used;
                        m.2 |= defined;
                    }
                    None => mentioned.push((r, used, defined)),
                }
            });
            let mut after = Vec::new();
            let mut drop = false;
            for (v, used, defined) in mentioned {
                let class = mf.class_of(v);
                // The temporary that holds v since an access at most `REUSE_WINDOW` ago.
                let recent = held
                    .get(&v)
                    .filter(|&&(_, last)| at - last <= REUSE_WINDOW)
                    .map(|&(t, _)| t);
                if remat.contains(&v) {
                    if defined {
                        // The original definitions go; each use recomputes the value.
                        drop = true;
                        continue;
                    }
                    let t = recent.unwrap_or_else(|| {
                        let t = new_temporary(mf, class, unspillable);
                        for d in &defs[&v] {
                            let mut copy = d.clone();
                            replace(&mut copy, v, t);
                            out.push(copy);
                        }
                        t
                    });
                    held.insert(v, (t, at));
                    replace(&mut inst, v, t);
                    continue;
                }
                let addr = Addr::Slot(Slot::Local(slots[&v]), 0);
                let t = match recent {
                    Some(t) => t,
                    None => {
                        let t = new_temporary(mf, class, unspillable);
                        if used {
                            out.push(class.reload(t, addr));
                        }
                        t
                    }
                };
                held.insert(v, (t, at));
                if defined {
                    after.push(class.spill(t, addr));
                }
                replace(&mut inst, v, t);
            }
            if !drop {
                out.push(inst);
            }
            out.extend(after);
        }
        drop_overwritten_stores(&mut out, &slot_numbers);
        mf.blocks[b].insts = out;
    }
}

/// Removes from a block's instructions each store to one of the spill slots `slots` that a
/// later store to the same slot overwrites with no load of it between.
fn drop_overwritten_stores(insts: &mut Vec<MInst>, slots: &FastHashSet<u32>) {
    let mut overwritten: FastHashSet<u32> = FastHashSet::default();
    let mut dead = vec![false; insts.len()];
    for (k, inst) in insts.iter().enumerate().rev() {
        let Some((load, _, (Slot::Local(n), _))) = inst.slot_access() else {
            continue;
        };
        if !slots.contains(&n) {
            continue;
        }
        if load {
            overwritten.remove(&n);
        } else if !overwritten.insert(n) {
            dead[k] = true;
        }
    }
    let mut k = 0;
    insts.retain(|_| {
        k += 1;
        !dead[k - 1]
    });
}
