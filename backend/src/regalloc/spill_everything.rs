//! The -O0 allocator, the simplest correct one: every virtual register lives in a stack
//! slot. Each instruction loads its operands into scratch registers (r4-r6, s16-s18,
//! q9-q11) just
//! before and stores its results just after; no value stays in a register between
//! instructions. It needs no liveness, so it also serves as the reference the graph
//! allocator is tested against (differential runs compare -O0 with -O2).
//!
//! Slots are shared so that frames stay small on deep recursion: a value whose every
//! occurrence is in one block and whose first occurrence writes it is never live across a
//! block boundary, so its live range is the stretch between its first and last occurrence;
//! such values get 4-byte slots from a pool reused by every block, assigned greedily by
//! interval. Every other value, and every vector, has a slot of its own.

use crate::mir::*;

const INT_SCRATCH: [PReg; 3] = [PReg(4), PReg(5), PReg(6)];
const FLOAT_SCRATCH: [PReg; 3] = [PReg(32), PReg(33), PReg(34)];
const VECTOR_SCRATCH: [PReg; 3] = [PReg::q(9), PReg::q(10), PReg::q(11)];

pub fn allocate(mf: &mut MFunction) {
    let slots = assign_slots(mf);
    let classes = std::mem::take(&mut mf.vreg_classes);
    for block in &mut mf.blocks {
        let mut out = Vec::with_capacity(block.insts.len() * 2);
        for inst in std::mem::take(&mut block.insts) {
            rewrite(inst, &classes, &slots, &mut out);
        }
        block.insts = out;
    }
}

/// Where a virtual register occurs: the block, the first and last instruction index in it,
/// and whether it is confined there. Registers that never occur get no slot.
#[derive(Clone, Copy)]
struct Range {
    block: usize,
    first: usize,
    last: usize,
    local: bool,
}

fn assign_slots(mf: &mut MFunction) -> Vec<u32> {
    let mut ranges: Vec<Option<Range>> = vec![None; mf.vreg_classes.len()];
    for (b, block) in mf.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            // Uses come before defs, so a value read by the instruction that first
            // writes it is not local: it is live on entry to the block.
            inst.for_each_reg(|r, role| {
                let Reg::Virt(v) = r else { return };
                let range = &mut ranges[v.0 as usize];
                match range {
                    None => {
                        *range = Some(Range {
                            block: b,
                            first: i,
                            last: i,
                            local: role == Role::Def,
                        })
                    }
                    Some(range) => {
                        range.local &= range.block == b;
                        range.last = i;
                    }
                }
            });
        }
    }
    let mut slots = vec![u32::MAX; ranges.len()];
    let mut by_block: Vec<Vec<(usize, usize, usize)>> = vec![Vec::new(); mf.blocks.len()];
    for (v, range) in ranges.iter().enumerate() {
        match range {
            Some(r) if r.local && mf.vreg_classes[v] != RegClass::Vector => {
                by_block[r.block].push((r.first, r.last, v))
            }
            Some(_) => slots[v] = mf.new_object(mf.vreg_classes[v].bytes()),
            None => {}
        }
    }
    let mut pool: Vec<u32> = Vec::new();
    for mut intervals in by_block {
        intervals.sort_unstable();
        // (last occurrence, pool index) of the slots in use, and the free pool indices.
        let mut busy: Vec<(usize, usize)> = Vec::new();
        let mut free: Vec<usize> = (0..pool.len()).rev().collect();
        for (first, last, v) in intervals {
            busy.retain(|&(end, index)| {
                let ended = end < first;
                if ended {
                    free.push(index);
                }
                !ended
            });
            let index = free.pop().unwrap_or_else(|| {
                pool.push(mf.new_object(4));
                pool.len() - 1
            });
            busy.push((last, index));
            slots[v] = pool[index];
        }
    }
    slots
}

/// A virtual register of one instruction: whether it is read and written there, and the
/// scratch register standing in for it.
struct Operand {
    vreg: VReg,
    read: bool,
    written: bool,
    scratch: PReg,
}

/// Appends `inst` to `out` with its virtual registers replaced by scratch registers,
/// surrounded by the loads and stores of their slots.
fn rewrite(mut inst: MInst, classes: &[RegClass], slots: &[u32], out: &mut Vec<MInst>) {
    let mut operands: Vec<Operand> = Vec::new();
    inst.for_each_reg(|r, role| {
        let Reg::Virt(vreg) = r else { return };
        let (read, written) = (role != Role::Def, role != Role::Use);
        match operands.iter_mut().find(|o| o.vreg == vreg) {
            Some(o) => {
                o.read |= read;
                o.written |= written;
            }
            None => operands.push(Operand {
                vreg,
                read,
                written,
                scratch: PReg(0),
            }),
        }
    });
    // Values read get distinct scratch registers; values only written may reuse them,
    // since every instruction reads its operands before writing. Indexed [read][class].
    let mut next = [[0usize; 3]; 2];
    for o in &mut operands {
        let class = classes[o.vreg.0 as usize];
        let scratch = match class {
            RegClass::Int => &INT_SCRATCH,
            RegClass::Float => &FLOAT_SCRATCH,
            RegClass::Vector => &VECTOR_SCRATCH,
        };
        let k = &mut next[o.read as usize][class.index()];
        o.scratch = scratch[*k];
        *k += 1;
    }
    let access = |o: &Operand, load: bool| {
        let addr = Addr::Slot(Slot::Local(slots[o.vreg.0 as usize]), 0);
        let r = Reg::Phys(o.scratch);
        let class = classes[o.vreg.0 as usize];
        if load {
            class.reload(r, addr)
        } else {
            class.spill(r, addr)
        }
    };
    out.extend(operands.iter().filter(|o| o.read).map(|o| access(o, true)));
    inst.visit_regs(|r, _| {
        if let Reg::Virt(v) = *r {
            let o = operands.iter().find(|o| o.vreg == v);
            *r = Reg::Phys(o.expect("every operand was seen").scratch);
        }
    });
    out.push(inst);
    out.extend(
        operands
            .iter()
            .filter(|o| o.written)
            .map(|o| access(o, false)),
    );
}
