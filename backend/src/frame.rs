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
//! sp stays 8-byte aligned. Everything is addressed from sp; there is no frame pointer.

use crate::mir::*;

pub struct Frame {
    /// Core registers to push, ascending, `lr` last if the function calls.
    pub saved_core: Vec<PReg>,
    /// s16 up to s(16 + saved_float - 1) are pushed.
    pub saved_float: u8,
    /// Bytes `sub sp` reserves below the saved registers.
    pub frame_bytes: u32,
    object_offsets: Vec<u32>,
}

impl Frame {
    pub fn new(mf: &MFunction) -> Frame {
        let mut written = [false; 48];
        for inst in mf.blocks.iter().flat_map(|b| &b.insts) {
            inst.clone().visit_regs(|r, role| {
                if let (Reg::Phys(p), Role::Def | Role::UseDef) = (*r, role) {
                    written[p.0 as usize] = true;
                }
            });
        }
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
        let mut object_offsets = Vec::with_capacity(mf.objects.len());
        for obj in &mf.objects {
            let align = if obj.size >= 8 { 8 } else { 4 };
            offset = offset.next_multiple_of(align);
            object_offsets.push(offset);
            offset += obj.size;
        }
        let pushed = 4 * (saved_core.len() as u32 + saved_float as u32);
        let frame_bytes = (pushed + offset).next_multiple_of(8) - pushed;
        Frame {
            saved_core,
            saved_float,
            frame_bytes,
            object_offsets,
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
}
