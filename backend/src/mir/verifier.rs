//! Structural checks of a machine function: the layout lists every block the entry reaches
//! once (and may leave out blocks nothing reaches) with the entry first, each block ends in its terminators (conditional branches closed by `B`,
//! or `Ret`) with no control transfer before them, branch targets exist, and each block's
//! stored successor list is what its terminators name. Indexed addresses and load/store
//! multiples have only the forms the hardware defines: a core access, an offset that
//! encodes and a transferred register other than the base for an indexed address; a list
//! of distinct physical registers in ascending order for `ldm`/`stm` (consecutive for
//! `vldm`/`vstm`, in a mode the VFP has), without `sp` or `pc`, and without the base when
//! loading or writing back. Every register operand has the class its place takes
//! (`operand_classes`). Prologues are where `frame_placement` allows them.

use super::frame_placement::frame_up_at_start;
use super::operand_classes::misclassed;
use super::{Addr, MBlockId, MFunction, MInst, PReg, Reg, RegClass};
use crate::imm::fits_ldr_offset;

/// Checks `mf`, describing the first problem found.
pub fn verify(mf: &MFunction) -> Result<(), String> {
    let fail = |message: String| Err(format!("{}: {message}", mf.symbol));
    let mut placed = vec![false; mf.blocks.len()];
    for &b in &mf.layout {
        match placed.get_mut(b.index()) {
            Some(seen) if !*seen => *seen = true,
            Some(_) => return fail(format!("{b} is twice in the layout")),
            None => return fail(format!("layout names missing block {b}")),
        }
    }
    if mf.layout.first().is_some_and(|&b| b != MBlockId::ENTRY) {
        return fail("the layout does not start with the entry block".to_string());
    }
    if let Some(b) = mf
        .block_ids()
        .zip(mf.reached())
        .find_map(|(b, r)| (r && !placed[b.index()]).then_some(b))
    {
        return fail(format!("{b} is reached but not in the layout"));
    }
    for b in mf.block_ids() {
        let block = mf.block(b);
        let Some(last) = block.insts.last() else {
            return fail(format!("{b} is empty"));
        };
        if !matches!(
            last,
            MInst::B { .. } | MInst::JumpTable { .. } | MInst::Ret { .. } | MInst::TailCall { .. }
        ) {
            return fail(format!(
                "{b} does not end in b, a jump table, ret or a tail call"
            ));
        }
        if matches!(last, MInst::JumpTable { .. })
            && block.insts[..block.insts.len() - 1]
                .iter()
                .any(MInst::is_terminator)
        {
            return fail(format!("{b}: a branch before its jump table"));
        }
        let body = block.insts.len() - 1;
        let first_branch = block.insts[..body]
            .iter()
            .position(MInst::is_terminator)
            .unwrap_or(body);
        if let Some(k) = block.insts[first_branch..body]
            .iter()
            .position(|i| !matches!(i, MInst::BCond { .. }))
        {
            return fail(format!(
                "{b}: instruction {} follows a branch",
                first_branch + k
            ));
        }
        if let Some(t) = block
            .insts
            .iter()
            .flat_map(MInst::targets)
            .find(|t| t.index() >= mf.blocks.len())
        {
            return fail(format!("{b} branches to missing block {t}"));
        }
        if let Some((k, e)) = block
            .insts
            .iter()
            .enumerate()
            .find_map(|(k, i)| memory_form(i).err().map(|e| (k, e)))
        {
            return fail(format!("{b}: instruction {k} ({}): {e}", block.insts[k]));
        }
        if let Some((k, (r, want))) = block
            .insts
            .iter()
            .enumerate()
            .find_map(|(k, i)| misclassed(mf, i).map(|m| (k, m)))
        {
            let want = match want {
                RegClass::Int => "a core register",
                RegClass::Float => "a VFP register",
                RegClass::Vector => "a NEON register",
            };
            return fail(format!(
                "{b}: instruction {k} ({}): {r} should be {want}",
                block.insts[k]
            ));
        }
        let named = block.terminator_succs();
        if block.succs != named {
            return fail(format!(
                "{b}: successor list [{}] but the terminators name [{}]",
                names(&block.succs),
                names(&named)
            ));
        }
    }
    frame_up_at_start(mf).map_err(|e| format!("{}: {e}", mf.symbol))?;
    Ok(())
}

fn names(blocks: &[MBlockId]) -> String {
    let names: Vec<String> = blocks.iter().map(MBlockId::to_string).collect();
    names.join(", ")
}

/// Checks the addressing of a memory instruction against what the hardware encodes.
fn memory_form(inst: &MInst) -> Result<(), &'static str> {
    match inst {
        MInst::Ldr {
            cond: Some(_),
            addr,
            ..
        }
        | MInst::Str {
            cond: Some(_),
            addr,
            ..
        } if matches!(addr, Addr::Slot(..)) || addr.writes_back() => {
            Err("a conditional load or store takes no stack slot and no writeback")
        }
        MInst::Ldr { rd: r, addr, .. } | MInst::Str { rs: r, addr, .. } => indexed(*r, *addr),
        MInst::VLdr { addr, .. } | MInst::VStr { addr, .. } if addr.writes_back() => {
            Err("vldr and vstr have no indexed form")
        }
        MInst::VecLoad { addr, .. } | MInst::VecStore { addr, .. } => match addr {
            Addr::Imm(_, 0) | Addr::PostIndex(_, 16) | Addr::Slot(..) => Ok(()),
            _ => Err("a vector access is at [base], [base]! by 16, or a stack slot"),
        },
        MInst::Ldm { base, regs, .. } => list(RegClass::Int, *base, true, regs, false),
        MInst::Stm {
            base,
            writeback,
            regs,
            ..
        } => list(RegClass::Int, *base, *writeback, regs, false),
        MInst::VLdm {
            mode,
            base,
            writeback,
            regs,
        }
        | MInst::VStm {
            mode,
            base,
            writeback,
            regs,
        } => {
            if !mode.exists_for_vfp(*writeback) {
                return Err("no such vldm/vstm mode");
            }
            list(RegClass::Float, *base, *writeback, regs, true)
        }
        _ => Ok(()),
    }
}

/// An indexed core access: an encodable offset, the transferred register not the base.
fn indexed(r: Reg, addr: Addr) -> Result<(), &'static str> {
    match addr {
        Addr::PostIndex(base, off) | Addr::PreIndex(base, off) => {
            if !fits_ldr_offset(off) {
                Err("indexed offset out of range")
            } else if base == r {
                Err("indexed access transfers its own base")
            } else {
                Ok(())
            }
        }
        _ => Ok(()),
    }
}

/// A register list of `class`: physical, strictly ascending (by one when `consecutive`),
/// neither sp nor pc, and without the base when `base_excluded`.
fn list(
    class: RegClass,
    base: Reg,
    base_excluded: bool,
    regs: &[Reg],
    consecutive: bool,
) -> Result<(), &'static str> {
    let Some(phys) = regs.iter().map(|r| r.phys()).collect::<Option<Vec<PReg>>>() else {
        return Err("register list with a virtual register");
    };
    if phys.is_empty() {
        return Err("empty register list");
    }
    if phys
        .iter()
        .any(|&p| p.class() != class || p == PReg::SP || p == PReg::PC)
    {
        return Err("register list of the wrong class, or with sp or pc");
    }
    let step_ok = |w: &[PReg]| {
        if consecutive {
            w[1].0 == w[0].0 + 1
        } else {
            w[1].0 > w[0].0
        }
    };
    if !phys.windows(2).all(step_ok) {
        return Err("register list out of order");
    }
    if base_excluded && regs.contains(&base) {
        return Err("register list holds its base");
    }
    Ok(())
}
