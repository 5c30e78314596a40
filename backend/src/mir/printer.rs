//! The text form of machine IR, for dumps (`--print-after`) and messages: assembly-like
//! lines (but a shift by 0 is kept), virtual registers as `%v12`, blocks as `bb3`, stack
//! slots as `local2`, `in8` (the caller's stack argument at byte 8) and `out0` (ours to a
//! callee). A function states how many virtual registers it has and which are floats, its
//! stack objects' sizes and its outgoing argument bytes, then lists its blocks in layout
//! order, each with its loop depth, frequency and successors, and after them the blocks
//! left out of the layout. `mir::parser` reads the text back.

use super::*;
use std::fmt;

impl fmt::Display for MBlockId {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "bb{}", self.0)
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Reg::Phys(p) => p.fmt(f),
            Reg::Virt(v) => write!(f, "%v{}", v.0),
        }
    }
}

impl fmt::Display for Operand2 {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Operand2::Imm(v) => write!(f, "#{v}"),
            // `lsr #0` and `asr #0` would encode shifts by 32.
            Operand2::Reg(r) | Operand2::Shifted(r, _, 0) => r.fmt(f),
            Operand2::Shifted(r, shift, s) => write!(f, "{r}, {} #{s}", shift.name()),
            Operand2::ShiftedBy(r, shift, s) => write!(f, "{r}, {} {s}", shift.name()),
        }
    }
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Slot::Local(n) => write!(f, "local{n}"),
            Slot::Incoming(o) => write!(f, "in{o}"),
            Slot::Outgoing(o) => write!(f, "out{o}"),
        }
    }
}

impl fmt::Display for Addr {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Addr::Imm(b, 0) => write!(f, "[{b}]"),
            Addr::Imm(b, o) => write!(f, "[{b}, #{o}]"),
            Addr::Index(b, i, 0) => write!(f, "[{b}, {i}]"),
            Addr::Index(b, i, s) => write!(f, "[{b}, {i}, lsl #{s}]"),
            Addr::IndexDown(b, i, 0) => write!(f, "[{b}, -{i}]"),
            Addr::IndexDown(b, i, s) => write!(f, "[{b}, -{i}, lsl #{s}]"),
            Addr::Slot(s, 0) => write!(f, "[{s}]"),
            Addr::Slot(s, o) => write!(f, "[{s}, #{o}]"),
            Addr::PostIndex(b, o) => write!(f, "[{b}], #{o}"),
            Addr::PreIndex(b, o) => write!(f, "[{b}, #{o}]!"),
        }
    }
}

/// An operand2 in the text form: as the assembler writes it (`Display`, which emission
/// uses), but with a shift by 0 kept (`r1, lsl #0`), which costs as a shifted operand.
struct Op2(Operand2);

impl fmt::Display for Op2 {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.0 {
            Operand2::Shifted(r, shift, 0) => write!(f, "{r}, {} #0", shift.name()),
            src => src.fmt(f),
        }
    }
}

/// Registers separated by commas.
struct RegList<'a>(&'a [Reg]);

impl fmt::Display for RegList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for (k, r) in self.0.iter().enumerate() {
            if k > 0 {
                f.write_str(", ")?;
            }
            r.fmt(f)?;
        }
        Ok(())
    }
}

/// The numbers of the float virtual registers, runs of consecutive ones as `12-14`:
/// `3, 7, 12-14`.
struct FloatRuns<'a>(&'a [RegClass]);

impl fmt::Display for FloatRuns<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let mut first = true;
        let mut k = 0;
        while k < self.0.len() {
            if self.0[k] != RegClass::Float {
                k += 1;
                continue;
            }
            let start = k;
            while k < self.0.len() && self.0[k] == RegClass::Float {
                k += 1;
            }
            f.write_str(if first { "" } else { ", " })?;
            first = false;
            match k - 1 - start {
                0 => write!(f, "{start}")?,
                _ => write!(f, "{start}-{}", k - 1)?,
            }
        }
        Ok(())
    }
}

/// A load or store multiple as the assembler writes it: `ldmia r0!, {r1, r2}`.
fn block_transfer(
    f: &mut fmt::Formatter,
    mnemonic: &str,
    mode: BlockMode,
    base: Reg,
    writeback: bool,
    regs: &[Reg],
) -> fmt::Result {
    let bang = if writeback { "!" } else { "" };
    write!(
        f,
        "{mnemonic}{} {base}{bang}, {{{}}}",
        mode.name(),
        RegList(regs)
    )
}

impl fmt::Display for MInst {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            MInst::Mov { cond, rd, src } => {
                write!(f, "mov{} {rd}, {}", cond.map_or("", Cond::name), Op2(*src))
            }
            MInst::Mvn { rd, src } => write!(f, "mvn {rd}, {}", Op2(*src)),
            MInst::Movw { rd, imm } => write!(f, "movw {rd}, #{imm}"),
            MInst::Movt { rd, imm } => write!(f, "movt {rd}, #{imm}"),
            MInst::LoadSym { rd, sym } => write!(f, "movsym {rd}, {sym}"),
            MInst::Alu {
                cond,
                op,
                rd,
                rn,
                src,
            } => {
                let c = cond.map_or("", Cond::name);
                write!(f, "{}{c} {rd}, {rn}, {}", op.name(), Op2(*src))
            }
            MInst::AluS { op, rd, rn, src } => {
                write!(f, "{}s {rd}, {rn}, {}", op.name(), Op2(*src))
            }
            MInst::Mul { rd, rn, rm } => write!(f, "mul {rd}, {rn}, {rm}"),
            MInst::Smmul { rd, rn, rm } => write!(f, "smmul {rd}, {rn}, {rm}"),
            MInst::Usat { rd, bits, rn } => write!(f, "usat {rd}, #{bits}, {rn}"),
            MInst::Rbit { rd, rm } => write!(f, "rbit {rd}, {rm}"),
            MInst::Clz { rd, rm } => write!(f, "clz {rd}, {rm}"),
            MInst::Mla { rd, rn, rm, ra } => write!(f, "mla {rd}, {rn}, {rm}, {ra}"),
            MInst::Mls { rd, rn, rm, ra } => write!(f, "mls {rd}, {rn}, {rm}, {ra}"),
            MInst::SDiv { rd, rn, rm } => write!(f, "sdiv {rd}, {rn}, {rm}"),
            MInst::Cmp { cond, rn, src } => {
                write!(f, "cmp{} {rn}, {}", cond.map_or("", Cond::name), Op2(*src))
            }
            MInst::Cmn { cond, rn, src } => {
                write!(f, "cmn{} {rn}, {}", cond.map_or("", Cond::name), Op2(*src))
            }
            MInst::Tst { cond, rn, src } => {
                write!(f, "tst{} {rn}, {}", cond.map_or("", Cond::name), Op2(*src))
            }
            MInst::Ldr { cond, rd, addr } => {
                write!(f, "ldr{} {rd}, {addr}", cond.map_or("", Cond::name))
            }
            MInst::Str { cond, rs, addr } => {
                write!(f, "str{} {rs}, {addr}", cond.map_or("", Cond::name))
            }
            MInst::SlotAddr { rd, slot, offset } => {
                write!(f, "slotaddr {rd}, {}", Addr::Slot(*slot, *offset))
            }
            MInst::VBin { op, sd, sn, sm } => write!(f, "{} {sd}, {sn}, {sm}", op.name()),
            MInst::VMla { sd, sn, sm } => write!(f, "vmla.f32 {sd}, {sn}, {sm}"),
            MInst::VNeg { sd, sm } => write!(f, "vneg.f32 {sd}, {sm}"),
            MInst::VMovIf { cond, sd, sm } => write!(f, "vmov{}.f32 {sd}, {sm}", cond.name()),
            MInst::VMovImm { sd, bits } => {
                write!(f, "vmov.f32 {sd}, #{:?}", f32::from_bits(*bits))
            }
            MInst::VMovFromCore { sd, rn } => write!(f, "vmov {sd}, {rn}"),
            MInst::VMovToCore { rd, sn } => write!(f, "vmov {rd}, {sn}"),
            MInst::VCvtToFloat { sd, sm } => write!(f, "vcvt.f32.s32 {sd}, {sm}"),
            MInst::VCvtToInt { sd, sm } => write!(f, "vcvt.s32.f32 {sd}, {sm}"),
            MInst::VCmp { sn, sm } => write!(f, "vcmp.f32 {sn}, {sm}"),
            MInst::VCmpZero { sn } => write!(f, "vcmp.f32 {sn}, #0"),
            MInst::VLdr { sd, addr } => write!(f, "vldr {sd}, {addr}"),
            MInst::VStr { ss, addr } => write!(f, "vstr {ss}, {addr}"),
            MInst::Ldm {
                mode,
                base,
                writeback,
                regs,
            } => block_transfer(f, "ldm", *mode, *base, *writeback, regs),
            MInst::Stm {
                mode,
                base,
                writeback,
                regs,
            } => block_transfer(f, "stm", *mode, *base, *writeback, regs),
            MInst::VLdm {
                mode,
                base,
                writeback,
                regs,
            } => block_transfer(f, "vldm", *mode, *base, *writeback, regs),
            MInst::VStm {
                mode,
                base,
                writeback,
                regs,
            } => block_transfer(f, "vstm", *mode, *base, *writeback, regs),
            MInst::VToDoubleCore { lo, hi, sm } => write!(f, "vcvt.f64.f32 {lo}:{hi}, {sm}"),
            MInst::Copy { dst, src } => write!(f, "copy {dst}, {src}"),
            MInst::B { target } => write!(f, "b {target}"),
            MInst::JumpTable {
                index,
                table,
                label,
                targets,
                default,
            } => {
                write!(f, "jumptable {table} ({label}), {index}, {default}, [")?;
                for (k, t) in targets.iter().enumerate() {
                    write!(f, "{}{t}", if k == 0 { "" } else { ", " })?;
                }
                write!(f, "]")
            }
            MInst::BCond { cond, target } => write!(f, "b{} {target}", cond.name()),
            MInst::Bl { sym, uses, defs } => {
                write!(f, "bl {sym}")?;
                if !uses.is_empty() {
                    write!(f, " ; uses {}", RegList(uses))?;
                }
                if !defs.is_empty() {
                    write!(f, " ; defs {}", RegList(defs))?;
                }
                Ok(())
            }
            MInst::Prologue => f.write_str("prologue"),
            MInst::Ret { uses } if uses.is_empty() => f.write_str("ret"),
            MInst::Ret { uses } => write!(f, "ret ; uses {}", RegList(uses)),
            MInst::TailCall { sym, uses } if uses.is_empty() => write!(f, "tailcall {sym}"),
            MInst::TailCall { sym, uses } => {
                write!(f, "tailcall {sym} ; uses {}", RegList(uses))
            }
        }
    }
}

impl fmt::Display for MFunction {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        writeln!(
            f,
            "function {}{}",
            self.symbol,
            if self.global { " (global)" } else { "" }
        )?;
        if !self.vreg_classes.is_empty() {
            write!(f, "  virtual registers: {}", self.vreg_classes.len())?;
            let floats = FloatRuns(&self.vreg_classes);
            if floats.0.contains(&RegClass::Float) {
                write!(f, " (float: {floats})")?;
            }
            writeln!(f)?;
        }
        for (n, object) in self.objects.iter().enumerate() {
            writeln!(f, "  local{n}: {} bytes", object.size)?;
        }
        if self.outgoing_bytes > 0 {
            writeln!(f, "  outgoing arguments: {} bytes", self.outgoing_bytes)?;
        }
        let mut placed = vec![false; self.blocks.len()];
        for &b in &self.layout {
            placed[b.index()] = true;
        }
        let unplaced = self.block_ids().filter(|b| !placed[b.index()]);
        for b in self.layout.iter().copied().chain(unplaced) {
            let block = self.block(b);
            let note = if placed[b.index()] {
                ""
            } else {
                "not in layout; "
            };
            write!(
                f,
                "{b}:\t; {note}loop depth {}; frequency {}",
                block.loop_depth, block.frequency
            )?;
            if !block.succs.is_empty() {
                f.write_str("; succs")?;
                for s in &block.succs {
                    write!(f, " {s}")?;
                }
            }
            writeln!(f)?;
            for inst in &block.insts {
                writeln!(f, "\t{inst}")?;
            }
        }
        Ok(())
    }
}
