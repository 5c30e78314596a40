//! load-store-multiple: loads (or stores) of one block from consecutive words at one base
//! register become one `ldm` (`stm`): `ldr r1, [r0]` ... `ldr r2, [r0, #4]` is
//! `ldmia r0, {r1, r2}`; the words at 4, 8, .. take `ib`, those up to 0 `da` and those up
//! to -4 `db`. `vldr`/`vstr` of consecutive s-registers from the words at 0, 4, .. become
//! `vldmia`/`vstmia`.
//!
//! A group starts at a load or store at `[base, #off]` and takes the later ones of its
//! kind within `WINDOW` instructions at the next word, each register above the last
//! (the next one for VFP: ldm and stm take the lowest register at the lowest address),
//! never the base, `sp` or `pc`. Loads move up to the group's first, stores down to its
//! last, so each instruction a member passes must leave the base alone, not touch the
//! member's register (a store's may be read), not store (for loads) or not access memory
//! at all (for stores). A call, a branch or an instruction already merged ends the
//! search. The longest start of a group that some mode reaches is merged, if it has two
//! registers or more. Stack slots are left alone (they are resolved against sp when
//! emitting).
//!
//! It runs after allocation and before `writeback` and `schedule`: on physical registers,
//! since the list's order is the registers' numbers; before `writeback`, which then folds
//! a following pointer bump into the list (`ldmia p!, {r1, r2}`), where folding it first
//! would leave offsets `[p], #8` and `[p, #-4]` that no longer line up; and before the
//! scheduler, which spreads loads among their uses, while selection leaves the elements
//! of an unrolled body or a copied array in source order, mostly close together.
//!
//! The bench's cost counts a list's registers as separate loads, so merging saves
//! instructions and code size rather than cost.
//!
//! Needs: physical registers (after `regalloc`). Preserves: behaviour, blocks and
//! successors.

use crate::mir::*;

/// How many instructions after a group's first its members may be.
const WINDOW: usize = 16;

pub fn run(mf: &mut MFunction) {
    for block in &mut mf.blocks {
        merge_block(&mut block.insts);
    }
}

/// The kinds of accesses that merge.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Load,
    Store,
    VLoad,
    VStore,
}

impl Kind {
    fn loads(self) -> bool {
        matches!(self, Kind::Load | Kind::VLoad)
    }

    fn float(self) -> bool {
        matches!(self, Kind::VLoad | Kind::VStore)
    }
}

/// A single access that may join a group: its kind, register, base and offset.
#[derive(Clone, Copy)]
struct Access {
    kind: Kind,
    reg: PReg,
    base: Reg,
    off: i32,
}

fn access(inst: &MInst) -> Option<Access> {
    let (kind, r, addr) = match *inst {
        MInst::Ldr {
            cond: None,
            rd,
            addr,
        } => (Kind::Load, rd, addr),
        MInst::Str {
            cond: None,
            rs,
            addr,
        } => (Kind::Store, rs, addr),
        MInst::VLdr { sd, addr } => (Kind::VLoad, sd, addr),
        MInst::VStr { ss, addr } => (Kind::VStore, ss, addr),
        _ => return None,
    };
    let (Addr::Imm(base, off), Reg::Phys(reg)) = (addr, r) else {
        return None;
    };
    let excluded = [PReg::SP, PReg::PC];
    if base == r || excluded.contains(&reg) || excluded.iter().any(|&x| base == Reg::Phys(x)) {
        return None;
    }
    Some(Access {
        kind,
        reg,
        base,
        off,
    })
}

/// Merges the block's groups; each becomes one instruction where its first member (loads)
/// or last member (stores) was.
fn merge_block(insts: &mut Vec<MInst>) {
    let mut merged = vec![false; insts.len()];
    let mut replacement: Vec<Option<MInst>> = vec![None; insts.len()];
    for i in 0..insts.len() {
        if merged[i] {
            continue;
        }
        let Some(first) = access(&insts[i]) else {
            continue;
        };
        let Some((members, mode)) = group(insts, &merged, i, first) else {
            continue;
        };
        let at = if first.kind.loads() {
            i
        } else {
            *members.last().expect("a group has members")
        };
        let regs = members
            .iter()
            .map(|&m| Reg::Phys(access(&insts[m]).expect("a member is an access").reg))
            .collect();
        replacement[at] = Some(multiple(first.kind, mode, first.base, regs));
        for &m in &members {
            merged[m] = true;
        }
    }
    let old = std::mem::take(insts);
    for ((inst, gone), new) in old.into_iter().zip(merged).zip(replacement) {
        match new {
            Some(new) => insts.push(new),
            None if !gone => insts.push(inst),
            None => {}
        }
    }
}

/// The members of the group starting at `i` (positions, ascending) and their mode, if
/// two or more merge.
fn group(
    insts: &[MInst],
    merged: &[bool],
    i: usize,
    first: Access,
) -> Option<(Vec<usize>, BlockMode)> {
    let mut members = vec![i];
    let mut best = None;
    let end = insts.len().min(i + 1 + WINDOW);
    for j in i + 1..end {
        let inst = &insts[j];
        if merged[j] || inst.is_call() || inst.is_terminator() {
            break;
        }
        let last = access(&insts[*members.last().expect("a group has members")])
            .expect("a member is an access");
        if !access(inst).is_some_and(|a| follows(first, last, a)) {
            continue;
        }
        members.push(j);
        if !movable(insts, &members, first) {
            members.pop();
            continue;
        }
        if let Some(mode) = mode_of(first, members.len()) {
            best = Some((members.clone(), mode));
        }
    }
    best
}

/// Whether `next` continues a group of `first`'s kind and base whose last member is `last`.
fn follows(first: Access, last: Access, next: Access) -> bool {
    let ascending = if first.kind.float() {
        next.reg.0 == last.reg.0 + 1
    } else {
        next.reg.0 > last.reg.0
    };
    next.kind == first.kind
        && next.base == first.base
        && Some(next.off) == last.off.checked_add(4)
        && ascending
}

/// Whether every member can move to the group's place (the first member for loads, the
/// last for stores) past the other instructions between.
fn movable(insts: &[MInst], members: &[usize], first: Access) -> bool {
    let (lo, hi) = (members[0], *members.last().expect("a group has members"));
    let loads = first.kind.loads();
    (lo + 1..hi).filter(|x| !members.contains(x)).all(|x| {
        members.iter().all(|&m| {
            let passes = if loads { m > x } else { m < x };
            !passes || can_pass(&insts[x], &insts[m], first.base, loads)
        })
    })
}

/// Whether a member access may move past `other`.
fn can_pass(other: &MInst, member: &MInst, base: Reg, loads: bool) -> bool {
    let reg = Reg::Phys(access(member).expect("a member is an access").reg);
    let mut ok = !other.is_call();
    other.for_each_reg(|r, role| {
        let writes = role != Role::Use;
        if (r == base && writes) || (r == reg && (loads || writes)) {
            ok = false;
        }
    });
    let (reads_memory, writes_memory) = other.memory_effects();
    ok && !writes_memory && (loads || !reads_memory)
}

/// The mode reaching `n` words from `first`'s offset, without writeback.
fn mode_of(first: Access, n: usize) -> Option<BlockMode> {
    if n < 2 {
        return None;
    }
    BlockMode::ALL
        .into_iter()
        .filter(|m| !first.kind.float() || m.exists_for_vfp(false))
        .find(|m| m.lowest_offset(n) == first.off)
}

fn multiple(kind: Kind, mode: BlockMode, base: Reg, regs: Vec<Reg>) -> MInst {
    let writeback = false;
    match kind {
        Kind::Load => MInst::Ldm {
            mode,
            base,
            writeback,
            regs,
        },
        Kind::Store => MInst::Stm {
            mode,
            base,
            writeback,
            regs,
        },
        Kind::VLoad => MInst::VLdm {
            mode,
            base,
            writeback,
            regs,
        },
        Kind::VStore => MInst::VStm {
            mode,
            base,
            writeback,
            regs,
        },
    }
}

#[cfg(test)]
#[path = "load_store_multiple_tests.rs"]
mod tests;
