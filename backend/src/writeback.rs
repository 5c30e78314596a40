//! writeback: a pointer bump `add p, p, #c` (or `sub p, p, #c`, a bump by `-c`) folds into
//! a load or store at `[p]` of its block, which then writes the new pointer back itself.
//!
//! - Post-index, the access before the bump: `ldr r, [p]` ... `add p, p, #8` becomes
//!   `ldr r, [p], #8`. The accesses between at `[p, #off]` (an unrolled body's other
//!   elements) are left at `[p, #off - c]`; nothing else between may read or write `p`.
//! - Pre-index, the access after the bump: `add p, p, #4` ... `ldr r, [p]` becomes
//!   `ldr r, [p, #4]!`; the accesses between at `[p, #off]` are left at `[p, #off + c]`.
//! - `vldr`/`vstr` have no indexed form, but a one-register `vldmia p!` steps by 4 after
//!   and `vldmdb p!` by -4 before: `vldr s0, [p]` ... `add p, p, #4` becomes
//!   `vldmia p!, {s0}`, and `sub p, p, #4` ... `vldr s0, [p]` becomes `vldmdb p!, {s0}`.
//! - A load or store multiple at `p` without writeback takes a bump by exactly what its
//!   writeback adds (`ldmia p, {r1, r2}` ... `add p, p, #8` is `ldmia p!, {r1, r2}`), or,
//!   before it, a bump that another mode's writeback adds reaching the same words
//!   (`sub p, p, #8` ... `ldmia p, {r1, r2}` is `ldmdb p!, {r1, r2}`). So this pass runs
//!   after `load-store-multiple`, whose lists it would otherwise break up.
//!
//! A store under a condition (`strgt r, [p]`) never takes the bump, which would then happen
//! only under that condition; its offset moves like the others'.
//!
//! A store of a value its block computes takes no bump: its writeback would wait for that
//! value, and the next round's accesses through the pointer with it.
//!
//! The bump is unpredicated and sets no flags (`add`, never `adds`), so dropping it keeps
//! the flags; `p` is neither `sp` nor `pc`. The transferred register differs from `p`
//! (the hardware leaves such an access unpredictable), and every offset written encodes
//! (`-4095..=4095` for `ldr`/`str` and their indexed forms, multiples of 4 up to 1020 for
//! `vldr`/`vstr`). The access is at most `MAX_DISTANCE` instructions from the bump, with
//! no call or branch between. Stack slots are never indexed (they are resolved against sp
//! when emitting).
//!
//! Needs: physical registers (after `regalloc`); runs before `schedule`, which then sees
//! the access's new definition of `p`. Preserves: behaviour, blocks and successors.

use crate::imm::{fits_ldr_offset, fits_offset};
use crate::mir::*;

/// How far from a bump the access taking it may be.
const MAX_DISTANCE: usize = 64;

pub fn run(mf: &mut MFunction) {
    for block in &mut mf.blocks {
        let mut folded = Vec::new();
        for k in 0..block.insts.len() {
            let Some((p, c)) = pointer_bump(&block.insts[k]) else {
                continue;
            };
            if fold_after(&mut block.insts, k, p, c) || fold_before(&mut block.insts, k, p, c) {
                folded.push(k);
            }
        }
        if !folded.is_empty() {
            let mut index = 0;
            block.insts.retain(|_| {
                index += 1;
                folded.binary_search(&(index - 1)).is_err()
            });
        }
    }
}

/// `add p, p, #c` as `(p, c)`, `sub p, p, #c` as `(p, -c)`.
fn pointer_bump(inst: &MInst) -> Option<(Reg, i32)> {
    let MInst::Alu {
        cond: None,
        op,
        rd,
        rn,
        src: Operand2::Imm(v),
    } = *inst
    else {
        return None;
    };
    if rd != rn || matches!(rd, Reg::Phys(PReg::SP | PReg::PC)) {
        return None;
    }
    let v = i32::try_from(v).ok()?;
    match op {
        AluOp::Add => Some((rd, v)),
        AluOp::Sub => Some((rd, -v)),
        _ => None,
    }
}

/// Folds the bump at `k` into an access to `[p]` before it (post-index).
fn fold_after(insts: &mut [MInst], k: usize, p: Reg, c: i32) -> bool {
    let start = k.saturating_sub(MAX_DISTANCE);
    fold(
        insts,
        (start..k).rev(),
        p,
        |inst| post_indexed(inst, p, c),
        -c,
    )
}

/// Folds the bump at `k` into an access to `[p]` after it (pre-index).
fn fold_before(insts: &mut [MInst], k: usize, p: Reg, c: i32) -> bool {
    let end = insts.len().min(k + 1 + MAX_DISTANCE);
    fold(insts, k + 1..end, p, |inst| pre_indexed(inst, p, c), c)
}

/// Walks `order` away from the bump to the first access that `indexed` rewrites; the
/// accesses passed on the way at `[p, #off]` move to `[p, #off + shift]`, and anything
/// else passed must leave `p` alone.
fn fold(
    insts: &mut [MInst],
    order: impl Iterator<Item = usize>,
    p: Reg,
    indexed: impl Fn(&MInst) -> Option<MInst>,
    shift: i32,
) -> bool {
    let mut shifted = Vec::new();
    for j in order {
        let inst = &insts[j];
        if let Some(new) = indexed(inst).filter(|_| !waits_on_its_block(insts, j)) {
            insts[j] = new;
            for s in shifted {
                shift_offset(&mut insts[s], shift);
            }
            return true;
        }
        if let Some(off) = offset_access(inst, p) {
            let Some(new) = off.checked_add(shift) else {
                return false;
            };
            if !offset_fits(inst, new) {
                return false;
            }
            shifted.push(j);
            continue;
        }
        if inst.is_call() || inst.is_terminator() || touches(inst, p) {
            return false;
        }
    }
    false
}

/// Whether the access at `j` is a store of a value its block computes before it: the new
/// pointer it wrote back would wait for that value (an indexed access writes its base when
/// it issues, once all its operands are ready), and the next round's accesses through the
/// pointer with it (`str r10, [r6], #4` after `mla r10, ...`: the next `ldr` of `c[i]`
/// waits for this round's `mla`). The bump then stays an `add`, which waits for nothing.
fn waits_on_its_block(insts: &[MInst], j: usize) -> bool {
    let stored: Vec<Reg> = match &insts[j] {
        MInst::Str { rs, .. } => vec![*rs],
        MInst::VStr { ss, .. } => vec![*ss],
        MInst::Stm { regs, .. } | MInst::VStm { regs, .. } => regs.clone(),
        _ => return false,
    };
    insts[..j].iter().any(|inst| {
        let mut defines = false;
        inst.for_each_reg(|r, role| defines |= role != Role::Use && stored.contains(&r));
        defines
    })
}

/// Whether `inst` reads or writes `r`.
fn touches(inst: &MInst, r: Reg) -> bool {
    let mut found = false;
    inst.for_each_reg(|x, _| found |= x == r);
    found
}

/// The offset of a single load or store at `[p, #off]` that uses `p` only as its base.
fn offset_access(inst: &MInst, p: Reg) -> Option<i32> {
    match *inst {
        MInst::Ldr {
            rd: r,
            addr: Addr::Imm(b, off),
            ..
        }
        | MInst::Str {
            rs: r,
            addr: Addr::Imm(b, off),
            ..
        }
        | MInst::VLdr {
            sd: r,
            addr: Addr::Imm(b, off),
        }
        | MInst::VStr {
            ss: r,
            addr: Addr::Imm(b, off),
        } if b == p && r != p => Some(off),
        _ => None,
    }
}

/// Whether `inst`, an access of `offset_access`, encodes with offset `off`.
fn offset_fits(inst: &MInst, off: i32) -> bool {
    fits_offset(off, matches!(inst, MInst::VLdr { .. } | MInst::VStr { .. }))
}

/// Adds `shift` to the offset of an access of `offset_access`.
fn shift_offset(inst: &mut MInst, shift: i32) {
    match inst {
        MInst::Ldr { addr, .. }
        | MInst::Str { addr, .. }
        | MInst::VLdr { addr, .. }
        | MInst::VStr { addr, .. } => {
            if let Addr::Imm(_, off) = addr {
                *off += shift;
            }
        }
        _ => unreachable!("only single accesses are shifted"),
    }
}

/// `inst` at `[p]` followed by `p += c`, as one instruction.
fn post_indexed(inst: &MInst, p: Reg, c: i32) -> Option<MInst> {
    if offset_access(inst, p) == Some(0) {
        return match *inst {
            MInst::Ldr { cond: None, rd, .. } if fits_ldr_offset(c) => Some(MInst::Ldr {
                cond: None,
                rd,
                addr: Addr::PostIndex(p, c),
            }),
            MInst::Str { cond: None, rs, .. } if fits_ldr_offset(c) => Some(MInst::Str {
                cond: None,
                rs,
                addr: Addr::PostIndex(p, c),
            }),
            MInst::VLdr { sd, .. } if c == 4 => Some(single_vfp(true, BlockMode::Ia, p, sd)),
            MInst::VStr { ss, .. } if c == 4 => Some(single_vfp(false, BlockMode::Ia, p, ss)),
            _ => None,
        };
    }
    let (mode, n) = multiple_at(inst, p)?;
    (mode.writeback_delta(n) == c).then(|| with_writeback(inst, mode))
}

/// `p += c` followed by `inst` at `[p]`, as one instruction.
fn pre_indexed(inst: &MInst, p: Reg, c: i32) -> Option<MInst> {
    if offset_access(inst, p) == Some(0) {
        return match *inst {
            MInst::Ldr { cond: None, rd, .. } if fits_ldr_offset(c) => Some(MInst::Ldr {
                cond: None,
                rd,
                addr: Addr::PreIndex(p, c),
            }),
            MInst::Str { cond: None, rs, .. } if fits_ldr_offset(c) => Some(MInst::Str {
                cond: None,
                rs,
                addr: Addr::PreIndex(p, c),
            }),
            MInst::VLdr { sd, .. } if c == -4 => Some(single_vfp(true, BlockMode::Db, p, sd)),
            MInst::VStr { ss, .. } if c == -4 => Some(single_vfp(false, BlockMode::Db, p, ss)),
            _ => None,
        };
    }
    let (mode, n) = multiple_at(inst, p)?;
    let float = matches!(inst, MInst::VLdm { .. } | MInst::VStm { .. });
    BlockMode::ALL
        .into_iter()
        .find(|m| {
            m.writeback_delta(n) == c
                && m.lowest_offset(n) == c + mode.lowest_offset(n)
                && (!float || m.exists_for_vfp(true))
        })
        .map(|m| with_writeback(inst, m))
}

/// A one-register `vldm`/`vstm` of `s` at `p` with writeback.
fn single_vfp(load: bool, mode: BlockMode, p: Reg, s: Reg) -> MInst {
    let regs = vec![s];
    if load {
        MInst::VLdm {
            mode,
            base: p,
            writeback: true,
            regs,
        }
    } else {
        MInst::VStm {
            mode,
            base: p,
            writeback: true,
            regs,
        }
    }
}

/// The mode and length of a load or store multiple at `p` without writeback whose list
/// leaves `p` out (a store's list may hold it, but not with writeback).
fn multiple_at(inst: &MInst, p: Reg) -> Option<(BlockMode, usize)> {
    match inst {
        MInst::Ldm {
            mode,
            base,
            writeback: false,
            regs,
        }
        | MInst::Stm {
            mode,
            base,
            writeback: false,
            regs,
        }
        | MInst::VLdm {
            mode,
            base,
            writeback: false,
            regs,
        }
        | MInst::VStm {
            mode,
            base,
            writeback: false,
            regs,
        } if *base == p && !regs.contains(&p) => Some((*mode, regs.len())),
        _ => None,
    }
}

/// A load or store multiple of `multiple_at` in `mode` with writeback.
fn with_writeback(inst: &MInst, mode: BlockMode) -> MInst {
    let mut new = inst.clone();
    match &mut new {
        MInst::Ldm {
            mode: m, writeback, ..
        }
        | MInst::Stm {
            mode: m, writeback, ..
        }
        | MInst::VLdm {
            mode: m, writeback, ..
        }
        | MInst::VStm {
            mode: m, writeback, ..
        } => {
            *m = mode;
            *writeback = true;
        }
        _ => unreachable!("multiple_at finds a load or store multiple"),
    }
    new
}

#[cfg(test)]
#[path = "writeback_tests.rs"]
mod tests;
