//! Where a function's frame is up. A function without a `Prologue` instruction sets its
//! frame up on entry, so it is up everywhere. With them (`shrink-wrap` places them), the
//! entry starts without a frame and each `Prologue` sets it up: the code before one must
//! not need the frame (no call, no stack slot, no `sp`, `lr` or `pc` operand, no write to
//! a register the prologue saves), every block must start in the same state from all its
//! predecessors, and no path sets the frame up twice. A return without the frame is
//! `bx lr`.

use super::{Addr, MBlockId, MFunction, MInst, PReg, Reg, Role};

/// Whether `inst` may only run with the frame up: a call, an access to or the address of a
/// stack slot, an operand `sp`, `lr` or `pc` (`lr` holds the return address until the
/// prologue saves it).
pub fn needs_frame(inst: &MInst) -> bool {
    let slot = match inst {
        MInst::Ldr { addr, .. }
        | MInst::Str { addr, .. }
        | MInst::VLdr { addr, .. }
        | MInst::VStr { addr, .. }
        | MInst::VecLoad { addr, .. }
        | MInst::VecStore { addr, .. } => matches!(addr, Addr::Slot(..)),
        MInst::SlotAddr { .. } | MInst::Bl { .. } => true,
        _ => false,
    };
    let mut special = false;
    inst.for_each_reg(|r, _| {
        special |= matches!(r, Reg::Phys(p) if p.0 >= PReg::SP.0 && p.0 <= PReg::PC.0)
    });
    slot || special
}

/// Whether the prologue saves `p` when the function writes it: the registers a call must
/// keep (AAPCS: r4-r11, s16-s31) and `lr`, which holds the return address.
pub fn is_saved(p: PReg) -> bool {
    (4..=11).contains(&p.0) || p == PReg::LR || (p.0 >= PReg::s(16).0 && p.0 < PReg::Q8.0)
}

/// For each block in storage order, whether the frame is up when it starts (blocks the
/// entry does not reach count as up), or the first block where the placement breaks one
/// of the rules above, with the rule.
pub fn frame_up_at_start(mf: &MFunction) -> Result<Vec<bool>, String> {
    let n = mf.blocks.len();
    let placed = mf
        .blocks
        .iter()
        .any(|b| b.insts.iter().any(|i| matches!(i, MInst::Prologue)));
    if !placed || n == 0 {
        return Ok(vec![true; n]);
    }
    let mut up: Vec<Option<bool>> = vec![None; n];
    up[MBlockId::ENTRY.index()] = Some(false);
    let mut stack = vec![MBlockId::ENTRY];
    while let Some(b) = stack.pop() {
        let mut state = up[b.index()] == Some(true);
        for inst in &mf.block(b).insts {
            match inst {
                MInst::Prologue if state => return Err(format!("{b}: a second prologue")),
                MInst::Prologue => state = true,
                _ if !state && needs_frame(inst) => {
                    return Err(format!("{b}: `{inst}` runs without the frame"));
                }
                _ if !state && writes_saved(inst) => {
                    return Err(format!(
                        "{b}: `{inst}` writes a register the prologue saves, without the frame"
                    ));
                }
                _ => {}
            }
        }
        for &s in mf.succs(b) {
            match up[s.index()] {
                None => {
                    up[s.index()] = Some(state);
                    stack.push(s);
                }
                Some(known) if known != state => {
                    return Err(format!("{s} starts with and without the frame"));
                }
                Some(_) => {}
            }
        }
    }
    Ok(up.into_iter().map(|u| u.unwrap_or(true)).collect())
}

fn writes_saved(inst: &MInst) -> bool {
    let mut writes = false;
    inst.for_each_reg(|r, role| {
        writes |= role != Role::Use && matches!(r, Reg::Phys(p) if is_saved(p));
    });
    writes
}

#[cfg(test)]
#[path = "frame_placement_tests.rs"]
mod tests;
