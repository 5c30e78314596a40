//! Liveness of registers on machine IR, one register class at a time. Registers are
//! numbered as nodes: physical register p is node p, virtual register v is node 48 + v.
//! A call defines (clobbers) every caller-saved register.

use crate::mir::*;
use middle::bitset::BitSet;

pub const PHYS_NODES: usize = 48;

pub fn node(r: Reg) -> usize {
    match r {
        Reg::Phys(p) => p.0 as usize,
        Reg::Virt(v) => PHYS_NODES + v.0 as usize,
    }
}

pub fn reg_of(node: usize) -> Reg {
    if node < PHYS_NODES {
        Reg::Phys(PReg(node as u8))
    } else {
        Reg::Virt(VReg((node - PHYS_NODES) as u32))
    }
}

/// The registers of class `class` an instruction defines and uses (a read-and-written
/// register is in both).
pub fn defs_uses(mf: &MFunction, inst: &MInst, class: RegClass) -> (Vec<usize>, Vec<usize>) {
    let (mut defs, mut uses) = (Vec::new(), Vec::new());
    inst.for_each_reg(|r, role| {
        if mf.class_of(r) != class {
            return;
        }
        if role != Role::Use {
            defs.push(node(r));
        }
        if role != Role::Def {
            uses.push(node(r));
        }
    });
    if inst.is_call() {
        defs.extend(
            caller_saved()
                .filter(|p| p.class() == class)
                .map(|p| p.0 as usize),
        );
    }
    (defs, uses)
}

/// Registers of the class live at the end of each block.
pub fn live_out(mf: &MFunction, class: RegClass) -> Vec<BitSet> {
    let n = PHYS_NODES + mf.vreg_classes.len();
    let blocks = mf.blocks.len();
    let mut gen = vec![BitSet::new(n); blocks];
    let mut kill = vec![BitSet::new(n); blocks];
    for (b, block) in mf.blocks.iter().enumerate() {
        for inst in block.insts.iter().rev() {
            let (defs, uses) = defs_uses(mf, inst, class);
            for d in defs {
                kill[b].insert(d);
                gen[b].remove(d);
            }
            for u in uses {
                gen[b].insert(u);
            }
        }
    }
    let mut live_in = vec![BitSet::new(n); blocks];
    let mut live_out = vec![BitSet::new(n); blocks];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..blocks).rev() {
            for &s in &mf.blocks[b].succs {
                changed |= live_out[b].union_with(&live_in[s.index()]);
            }
            let mut inside = live_out[b].clone();
            inside.subtract(&kill[b]);
            inside.union_with(&gen[b]);
            if inside != live_in[b] {
                live_in[b] = inside;
                changed = true;
            }
        }
    }
    live_out
}
