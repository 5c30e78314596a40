//! Clean-up after register allocation, within each block: a load from a stack slot whose
//! value a register still holds (stored or loaded there since) becomes a copy from that
//! register, and copies of a register to itself disappear. Slots whose address the code
//! takes are never tracked, since a store through a pointer may change them. Then stores to
//! a local slot that nothing loads any more, and whose address the code never takes, go
//! (a spilled value whose every reload became a copy).
//!
//! Needs: physical registers only. Preserves: behaviour.

use crate::mir::*;
use middle::fast_hash::{FastHashMap, FastHashSet};

pub fn run(mf: &mut MFunction) {
    let address_taken: FastHashSet<Slot> = mf
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match i {
            MInst::SlotAddr { slot, .. } => Some(*slot),
            _ => None,
        })
        .collect();
    for block in &mut mf.blocks {
        // (slot, offset) -> the register holding its value.
        let mut holds: FastHashMap<(Slot, i32), Reg> = FastHashMap::default();
        let mut out = Vec::with_capacity(block.insts.len());
        for inst in std::mem::take(&mut block.insts) {
            let slot_access = inst.slot_access();
            let tracked = slot_access.filter(|(_, _, (s, _))| !address_taken.contains(s));
            let replacement = match tracked {
                Some((true, rd, key)) => holds
                    .get(&key)
                    .map(|&held| MInst::Copy { dst: rd, src: held }),
                _ => None,
            };
            let inst = replacement.unwrap_or(inst);
            // Registers this instruction writes no longer hold what they held.
            let mut written: Vec<Reg> = inst
                .regs()
                .into_iter()
                .filter(|(_, role)| *role != Role::Use)
                .map(|(r, _)| r)
                .collect();
            if inst.is_call() {
                written.extend(caller_saved().map(Reg::Phys));
            }
            holds.retain(|_, held| !written.contains(held));
            if let Some((_, r, key)) = tracked {
                holds.insert(key, r);
            }
            if !matches!(inst, MInst::Copy { dst, src } if dst == src) {
                out.push(inst);
            }
        }
        block.insts = out;
    }
    remove_unread_slot_stores(mf, &address_taken);
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
}
