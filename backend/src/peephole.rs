//! Clean-up after register allocation: a load from a stack slot whose value a register
//! still holds (stored or loaded there since) becomes a copy from that register, and copies
//! of a register to itself disappear. A value left in a register on every way into the
//! block counts too, when it is the register the load writes: the load then just goes.
//! Slots whose address the code takes are never tracked, since a store through a pointer
//! may change them; across blocks only local slots are, and outgoing ones not past a call
//! (a callee may write its incoming arguments). Then stores to a local slot that nothing loads any more, and whose address
//! the code never takes, go (a spilled value whose every reload became a copy).
//!
//! Needs: physical registers only. Preserves: behaviour.

use crate::mir::*;
use middle::fast_hash::{FastHashMap, FastHashSet};

/// Which register holds the value of each tracked stack slot word, (slot, offset).
type Holds = FastHashMap<(Slot, i32), Reg>;

pub fn run(mf: &mut MFunction) {
    let address_taken = mf.address_taken_slots();
    let entry = held_at_entry(mf, &address_taken);
    for (block, mut holds) in mf.blocks.iter_mut().zip(entry) {
        let mut out = Vec::with_capacity(block.insts.len());
        // The slot words stored or loaded in this block so far.
        let mut accessed: FastHashSet<(Slot, i32)> = FastHashSet::default();
        for inst in std::mem::take(&mut block.insts) {
            let access = tracked(&inst, &address_taken);
            // What a way into the block left in a register replaces a reload only into that
            // same register (the load goes): a copy is one more ALU operation where the
            // load pipe may be idle, and its block is often bound by the ALU pipes.
            let replacement = match access {
                Some((true, rd, key)) => holds
                    .get(&key)
                    .filter(|&&held| held == rd || accessed.contains(&key))
                    .map(|&held| MInst::Copy { dst: rd, src: held }),
                _ => None,
            };
            if let Some((_, _, key)) = access {
                accessed.insert(key);
            }
            step(&mut holds, &inst, &address_taken);
            let inst = replacement.unwrap_or(inst);
            if !matches!(inst, MInst::Copy { dst, src } if dst == src) {
                out.push(inst);
            }
        }
        block.insts = out;
    }
    remove_unread_slot_stores(mf, &address_taken);
}

/// The access an instruction makes to a slot whose address the code never takes: whether
/// it loads, the register, and the slot word.
fn tracked(inst: &MInst, address_taken: &FastHashSet<Slot>) -> Option<(bool, Reg, (Slot, i32))> {
    inst.slot_access()
        .filter(|(_, _, (s, _))| !address_taken.contains(s))
}

/// What the registers hold after `inst`, from what they held before.
fn step(holds: &mut Holds, inst: &MInst, address_taken: &FastHashSet<Slot>) {
    // Registers this instruction writes no longer hold what they held.
    let mut written: Vec<Reg> = inst
        .regs()
        .into_iter()
        .filter(|(_, role)| *role != Role::Use)
        .map(|(r, _)| r)
        .collect();
    if inst.is_call() {
        written.extend(caller_saved().map(Reg::Phys));
        // The callee may write its incoming arguments: our outgoing slots.
        holds.retain(|(s, _), _| !matches!(s, Slot::Outgoing(_)));
    }
    holds.retain(|_, held| !written.contains(held));
    // A store under a condition may or may not change the slot.
    if let MInst::Str {
        cond: Some(_),
        addr: Addr::Slot(slot, _),
        ..
    } = inst
    {
        holds.retain(|(s, _), _| s != slot);
    }
    if let Some((_, r, key)) = tracked(inst, address_taken) {
        holds.insert(key, r);
    }
}

/// Per block, which registers hold local slots' values on entry: what every predecessor
/// leaves holding them (the greatest fixed point, from the entry's nothing). Only local
/// slots: a callee may write its incoming arguments, which are its caller's outgoing slots.
fn held_at_entry(mf: &MFunction, address_taken: &FastHashSet<Slot>) -> Vec<Holds> {
    let n = mf.blocks.len();
    let preds = mf.preds();
    let order: Vec<MBlockId> = mf.postorder().into_iter().rev().collect();
    // What each block leaves; None until the block is first visited (everything).
    let mut leaves: Vec<Option<Holds>> = vec![None; n];
    let entry_of = |b: MBlockId, leaves: &[Option<Holds>]| -> Holds {
        if b == MBlockId::ENTRY {
            return Holds::default();
        }
        let mut known = preds[b.index()]
            .iter()
            .filter_map(|p| leaves[p.index()].as_ref());
        let Some(first) = known.next() else {
            return Holds::default();
        };
        let mut holds: Holds = first
            .iter()
            .filter(|((slot, _), _)| matches!(slot, Slot::Local(_)))
            .map(|(&k, &r)| (k, r))
            .collect();
        for other in known {
            holds.retain(|k, r| other.get(k) == Some(r));
        }
        holds
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order {
            let mut holds = entry_of(b, &leaves);
            for inst in &mf.block(b).insts {
                step(&mut holds, inst, address_taken);
            }
            if leaves[b.index()].as_ref() != Some(&holds) {
                leaves[b.index()] = Some(holds);
                changed = true;
            }
        }
    }
    // A block the entry does not reach has no visited predecessor: it starts with nothing.
    mf.block_ids().map(|b| entry_of(b, &leaves)).collect()
}

fn remove_unread_slot_stores(mf: &mut MFunction, address_taken: &FastHashSet<Slot>) {
    let read: FastHashSet<Slot> = mf
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match i.slot_access() {
            Some((true, _, (slot, _))) => Some(slot),
            _ => None,
        })
        .collect();
    let unread = |slot: Slot| {
        matches!(slot, Slot::Local(_)) && !read.contains(&slot) && !address_taken.contains(&slot)
    };
    for block in &mut mf.blocks {
        block
            .insts
            .retain(|i| !matches!(i.slot_access(), Some((false, _, (slot, _))) if unread(slot)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::test_build::r;

    fn store(rs: Reg, slot: Slot) -> MInst {
        MInst::Str {
            cond: None,
            rs,
            addr: Addr::Slot(slot, 0),
        }
    }

    fn load(rd: Reg, slot: Slot) -> MInst {
        MInst::Ldr {
            cond: None,
            rd,
            addr: Addr::Slot(slot, 0),
        }
    }

    fn run_on(insts: Vec<MInst>) -> Vec<MInst> {
        let mut mf = crate::mir::test_build::func(&[], vec![insts]);
        run(&mut mf);
        mf.blocks[0].insts.clone()
    }

    #[test]
    fn a_spill_whose_reload_became_a_copy_is_not_stored() {
        let spill = Slot::Local(0);
        let out = run_on(vec![
            store(r(4), spill),
            load(r(5), spill),
            MInst::Ret { uses: vec![r(5)] },
        ]);
        assert_eq!(
            out,
            vec![
                MInst::Copy {
                    dst: r(5),
                    src: r(4)
                },
                MInst::Ret { uses: vec![r(5)] }
            ]
        );
    }

    #[test]
    fn stores_that_something_may_read_stay() {
        // The call clobbers r1, so the reload stays a load; the array's address is taken and
        // the outgoing argument is the callee's to read.
        let (reloaded, array, outgoing) = (Slot::Local(0), Slot::Local(1), Slot::Outgoing(0));
        let insts = vec![
            store(r(1), reloaded),
            store(r(1), array),
            store(r(1), outgoing),
            MInst::SlotAddr {
                rd: r(6),
                slot: array,
                offset: 0,
            },
            MInst::Bl {
                sym: "f".into(),
                uses: vec![r(6)],
                defs: vec![],
            },
            load(r(5), reloaded),
            MInst::Ret { uses: vec![r(5)] },
        ];
        let out = run_on(insts.clone());
        assert_eq!(out.len(), insts.len());
        assert_eq!(out[..3], insts[..3]);
    }

    /// Runs the pass on a function of these blocks; each block's instructions after it.
    fn run_on_blocks(blocks: Vec<Vec<MInst>>) -> Vec<Vec<MInst>> {
        let mut mf = crate::mir::test_build::func(&[], blocks);
        run(&mut mf);
        mf.blocks.into_iter().map(|b| b.insts).collect()
    }

    fn loads(insts: &[MInst]) -> usize {
        insts
            .iter()
            .filter(|i| i.slot_access().is_some_and(|(load, ..)| load))
            .count()
    }

    #[test]
    fn a_reload_after_a_join_uses_the_register_every_way_in_left_holding_it() {
        use crate::mir::test_build::{b, bcond};
        let spill = Slot::Local(0);
        // Both ways into block 3 leave r4 holding the slot: its reload goes. Block 4 is
        // also reached from block 1, which wrote r4 after its store: its reload stays.
        let blocks = vec![
            vec![store(r(4), spill), bcond(Cond::Eq, 2), b(1)],
            vec![
                MInst::Copy {
                    dst: r(4),
                    src: r(0),
                },
                bcond(Cond::Eq, 4),
                b(3),
            ],
            vec![b(3)],
            vec![load(r(4), spill), b(4)],
            vec![load(r(5), spill), MInst::Ret { uses: vec![r(5)] }],
        ];
        let out = run_on_blocks(blocks);
        assert_eq!(loads(&out[3]), 1, "{out:?}");
        assert_eq!(loads(&out[4]), 1, "{out:?}");
        // Without that write, the reload into r4 goes; one into r5 would take a copy,
        // which the join leaves a load.
        for (into, kept) in [(4, 0), (5, 1)] {
            let blocks = vec![
                vec![store(r(4), spill), bcond(Cond::Eq, 2), b(1)],
                vec![bcond(Cond::Eq, 3), b(2)],
                vec![b(3)],
                vec![
                    load(r(into), spill),
                    MInst::Ret {
                        uses: vec![r(into)],
                    },
                ],
            ];
            let out = run_on_blocks(blocks);
            assert_eq!(loads(&out[3]), kept, "{out:?}");
            assert_eq!(out[3].len(), kept + 1, "{out:?}");
        }
    }

    #[test]
    fn a_loop_header_reloads_nothing_its_latch_and_entry_left_in_the_register() {
        use crate::mir::test_build::{b, bcond};
        let (counter, other) = (Slot::Local(0), Slot::Local(1));
        // The entry and the latch store the counter from r1: the header's reload goes. The
        // other slot is reloaded after a call, which clobbers r2: that stays.
        let blocks = vec![
            vec![store(r(1), counter), store(r(2), other), b(1)],
            vec![
                load(r(1), counter),
                MInst::Bl {
                    sym: "f".into(),
                    uses: vec![],
                    defs: vec![],
                },
                load(r(2), other),
                bcond(Cond::Eq, 3),
                b(2),
            ],
            vec![store(r(1), counter), store(r(2), other), b(1)],
            vec![MInst::Ret { uses: vec![r(0)] }],
        ];
        let out = run_on_blocks(blocks);
        assert!(matches!(out[1][0], MInst::Bl { .. }), "{out:?}");
        assert_eq!(loads(&out[1]), 1, "{out:?}");
        // Nothing reads the counter's slot any more: its stores go too.
        assert!(out[2]
            .iter()
            .all(|i| i.slot_access().is_none_or(|(_, _, (s, _))| s != counter)));
    }
}
