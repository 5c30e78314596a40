//! The simplest correct allocator: every virtual register lives in its own stack slot. Each
//! instruction loads its operands into scratch registers (r4-r6, s16-s18) just before and
//! stores its results just after. No value stays in a register between instructions.

use crate::mir::*;
use std::collections::HashMap;

const INT_SCRATCH: [PReg; 3] = [PReg(4), PReg(5), PReg(6)];
const FLOAT_SCRATCH: [PReg; 3] = [PReg(32), PReg(33), PReg(34)];

pub fn allocate(mf: &mut MFunction) {
    let slots: Vec<u32> = (0..mf.vreg_classes.len())
        .map(|_| mf.new_object(4))
        .collect();
    let classes = mf.vreg_classes.clone();
    for block in &mut mf.blocks {
        let mut out = Vec::with_capacity(block.insts.len() * 2);
        for mut inst in std::mem::take(&mut block.insts) {
            // (vreg, read, written) in order of first appearance.
            let mut seen: Vec<(VReg, bool, bool)> = Vec::new();
            inst.visit_regs(|r, role| {
                if let Reg::Virt(v) = *r {
                    let read = role != Role::Def;
                    let written = role != Role::Use;
                    match seen.iter_mut().find(|s| s.0 == v) {
                        Some(s) => {
                            s.1 |= read;
                            s.2 |= written;
                        }
                        None => seen.push((v, read, written)),
                    }
                }
            });
            // Values read get distinct scratch registers; values only written may share
            // them, since every instruction reads its operands before writing.
            let mut assigned: HashMap<VReg, PReg> = HashMap::new();
            let (mut next_int, mut next_float) = (0, 0);
            for &(v, read, _) in &seen {
                if read {
                    assigned.insert(
                        v,
                        pick(classes[v.0 as usize], &mut next_int, &mut next_float),
                    );
                }
            }
            let (mut def_int, mut def_float) = (0, 0);
            for &(v, read, _) in &seen {
                if !read {
                    assigned.insert(v, pick(classes[v.0 as usize], &mut def_int, &mut def_float));
                }
            }
            for &(v, read, _) in &seen {
                if read {
                    out.push(slot_access(
                        classes[v.0 as usize],
                        assigned[&v],
                        slots[v.0 as usize],
                        true,
                    ));
                }
            }
            inst.visit_regs(|r, _| {
                if let Reg::Virt(v) = *r {
                    *r = Reg::Phys(assigned[&v]);
                }
            });
            out.push(inst);
            for &(v, _, written) in &seen {
                if written {
                    out.push(slot_access(
                        classes[v.0 as usize],
                        assigned[&v],
                        slots[v.0 as usize],
                        false,
                    ));
                }
            }
        }
        block.insts = out;
    }
    mf.vreg_classes.clear();
}

fn pick(class: RegClass, next_int: &mut usize, next_float: &mut usize) -> PReg {
    match class {
        RegClass::Int => {
            *next_int += 1;
            INT_SCRATCH[*next_int - 1]
        }
        RegClass::Float => {
            *next_float += 1;
            FLOAT_SCRATCH[*next_float - 1]
        }
    }
}

fn slot_access(class: RegClass, reg: PReg, obj: u32, load: bool) -> MInst {
    let addr = Addr::Slot(Slot::Local(obj), 0);
    let r = Reg::Phys(reg);
    match (class, load) {
        (RegClass::Int, true) => MInst::Ldr { rd: r, addr },
        (RegClass::Int, false) => MInst::Str { rs: r, addr },
        (RegClass::Float, true) => MInst::VLdr { sd: r, addr },
        (RegClass::Float, false) => MInst::VStr { ss: r, addr },
    }
}
