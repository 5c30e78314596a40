//! Clean-up after register allocation, within each block: a load from a stack slot whose
//! value a register still holds (stored or loaded there since) becomes a copy from that
//! register, and copies of a register to itself disappear. Slots whose address the code
//! takes are never tracked, since a store through a pointer may change them.
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
}
