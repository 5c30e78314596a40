//! Frame layout, decided after register allocation. From the entry sp downwards:
//!
//! ```text
//!   caller's stack arguments    (Incoming slots, above the entry sp)
//!   push {callee-saved r4-r11, lr}
//!   vpush {s16-sN}
//!   local objects (allocas, spill slots)
//!   outgoing stack arguments    (Outgoing slots, at sp)
//! ```
//!
//! sp stays 8-byte aligned where the function calls (AAPCS asks it at every call); a function
//! that calls nothing keeps it 4-byte aligned, which saves reserving a padding word when it
//! pushes an odd number of registers. Everything is addressed from sp; there is no frame
//! pointer.
//! Local objects lie in ascending order of size from the outgoing arguments up, so that
//! spill slots and scalars stay within reach of a load's immediate offset when the frame
//! also holds large arrays.

use crate::imm::fits_offset;
use crate::mir::*;

pub struct Frame {
    /// Core registers to push, ascending, `lr` last if the function calls.
    pub saved_core: Vec<PReg>,
    /// s16 up to s(16 + saved_float - 1) are pushed.
    pub saved_float: u8,
    /// Bytes `sub sp` reserves below the saved registers.
    pub frame_bytes: u32,
    object_offsets: Vec<u32>,
    /// Whether the function's code uses ip as a register of its own.
    pub ip_allocated: bool,
}

impl Frame {
    pub fn new(mf: &MFunction) -> Frame {
        let written = mf.written_registers();
        let mut saved_core: Vec<PReg> = (4..=11)
            .map(PReg)
            .filter(|p| written[p.0 as usize])
            .collect();
        if mf.has_calls() || written[PReg::LR.0 as usize] {
            saved_core.push(PReg::LR);
        }
        let saved_float = (16..32u8)
            .filter(|&n| written[PReg::s(n).0 as usize])
            .map(|n| n - 15)
            .max()
            .unwrap_or(0);
        let mut offset = mf.outgoing_bytes;
        let mut object_offsets = vec![0; mf.objects.len()];
        let mut by_size: Vec<usize> = (0..mf.objects.len()).collect();
        by_size.sort_by_key(|&i| mf.objects[i].size);
        for i in by_size {
            let size = mf.objects[i].size;
            let align = if size >= 8 { 8 } else { 4 };
            offset = offset.next_multiple_of(align);
            object_offsets[i] = offset;
            offset += size;
        }
        let pushed = 4 * (saved_core.len() as u32 + saved_float as u32);
        let stack_align = if mf.has_calls() { 8 } else { 4 };
        let frame_bytes = (pushed + offset).next_multiple_of(stack_align) - pushed;
        Frame {
            saved_core,
            saved_float,
            frame_bytes,
            object_offsets,
            ip_allocated: written[PReg::IP.0 as usize],
        }
    }

    pub fn pushed_bytes(&self) -> u32 {
        4 * (self.saved_core.len() as u32 + self.saved_float as u32)
    }

    /// The offset of a slot from sp (inside the function body).
    pub fn slot_offset(&self, slot: Slot) -> u32 {
        match slot {
            Slot::Outgoing(o) => o,
            Slot::Local(i) => self.object_offsets[i as usize],
            Slot::Incoming(o) => self.frame_bytes + self.pushed_bytes() + o,
        }
    }

    /// The base register and byte offset of an address with an immediate offset (sp for a
    /// stack slot).
    pub fn base_offset(&self, addr: Addr) -> Option<(Reg, i32)> {
        match addr {
            Addr::Imm(base, off) => Some((base, off)),
            Addr::Slot(slot, off) => {
                Some((Reg::Phys(PReg::SP), self.slot_offset(slot) as i32 + off))
            }
            Addr::Index(..) | Addr::IndexDown(..) | Addr::PostIndex(..) | Addr::PreIndex(..) => {
                None
            }
        }
    }

    /// Whether a load or store at `addr` (`float`: `vldr`/`vstr`) cannot take its offset as
    /// an immediate, so that emission builds the address in ip.
    pub fn is_far(&self, addr: Addr, float: bool) -> bool {
        self.base_offset(addr)
            .is_some_and(|(_, off)| !fits_offset(off, float))
    }

    /// Whether some load or store of `mf` is far (`is_far`): then allocation must leave ip
    /// free.
    pub fn needs_ip(&self, mf: &MFunction) -> bool {
        mf.blocks
            .iter()
            .flat_map(|b| &b.insts)
            .any(|inst| match *inst {
                MInst::Ldr { addr, .. } | MInst::Str { addr, .. } => self.is_far(addr, false),
                MInst::VLdr { addr, .. } | MInst::VStr { addr, .. } => self.is_far(addr, true),
                // Two `vldr`/`vstr` of its halves, 8 bytes apart.
                MInst::VecLoad {
                    addr: Addr::Slot(slot, off),
                    ..
                }
                | MInst::VecStore {
                    addr: Addr::Slot(slot, off),
                    ..
                } => self.is_far(Addr::Slot(slot, off + 8), true),
                _ => false,
            })
    }
}

#[cfg(test)]
#[path = "frame_tests.rs"]
mod tests;
