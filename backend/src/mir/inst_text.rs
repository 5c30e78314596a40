//! The one printer of machine instructions, for both texts that write them: the text form
//! of machine IR (`printer.rs`, which `parser.rs` reads back) and assembly (`emit.rs`).
//! Each instruction is written here, once. A `Syntax` is the hook for what only the
//! writer knows: where lines go, how a branch names a block (`bb3`, `.L0_3`), how a load
//! or store writes its address (emission resolves stack slots to offsets from sp, building
//! far ones in ip first), and what a pseudo-instruction (`copy`, `slotaddr`, `movsym`,
//! `jumptable`, `prologue`, `ret`, `tailcall`, `vcvt.f64.f32` to a core register pair)
//! expands to (emission writes the instructions it stands for; the text form writes it as
//! it is). Assembly also leaves out what machine IR holds and the assembler cannot say:
//! shifts by 0 and the registers calls use and define; and it follows a float compare
//! with the `vmrs` that moves its flags to where conditions read them.

use super::*;
use std::fmt;

/// Where and how a text of machine instructions writes what is not the same in every text.
pub trait Syntax {
    /// How a branch names a block.
    type Label: fmt::Display;
    /// The address of a load or store, as written.
    type Address: fmt::Display;
    /// Whether the text is assembly rather than the text form of machine IR.
    const ASSEMBLY: bool;

    /// Writes one line.
    fn line(&mut self, text: fmt::Arguments) -> fmt::Result;

    fn label(&self, b: MBlockId) -> Self::Label;

    /// The address of a load or store (`float`: of a float register), after writing the
    /// lines that compute it, if any.
    fn address(&mut self, addr: Addr, float: bool) -> Self::Address;

    /// Writes the instructions that pseudo-instruction `inst` stands for, if this syntax
    /// expands it; `None` to have it written as it is.
    fn expand(&mut self, _inst: &MInst) -> Option<fmt::Result> {
        None
    }
}

/// Writes `inst` in syntax `s`.
pub fn write_inst<S: Syntax>(s: &mut S, inst: &MInst) -> fmt::Result {
    let op2 = |src: Operand2| Op2(src, !S::ASSEMBLY);
    match inst {
        MInst::Mov { cond, rd, src } => {
            s.line(format_args!("mov{} {rd}, {}", suffix(*cond), op2(*src)))
        }
        MInst::Mvn { rd, src } => s.line(format_args!("mvn {rd}, {}", op2(*src))),
        MInst::Movw { rd, imm } => s.line(format_args!("movw {rd}, #{imm}")),
        MInst::Movt { rd, imm } => s.line(format_args!("movt {rd}, #{imm}")),
        MInst::Alu {
            cond,
            op,
            rd,
            rn,
            src,
        } => s.line(format_args!(
            "{}{} {rd}, {rn}, {}",
            op.name(),
            suffix(*cond),
            op2(*src)
        )),
        MInst::AluS { op, rd, rn, src } => {
            s.line(format_args!("{}s {rd}, {rn}, {}", op.name(), op2(*src)))
        }
        MInst::Mul { rd, rn, rm } => s.line(format_args!("mul {rd}, {rn}, {rm}")),
        MInst::Smmul { rd, rn, rm } => s.line(format_args!("smmul {rd}, {rn}, {rm}")),
        MInst::Usat { rd, bits, rn } => s.line(format_args!("usat {rd}, #{bits}, {rn}")),
        MInst::Rbit { rd, rm } => s.line(format_args!("rbit {rd}, {rm}")),
        MInst::Clz { rd, rm } => s.line(format_args!("clz {rd}, {rm}")),
        MInst::Mla { rd, rn, rm, ra } => s.line(format_args!("mla {rd}, {rn}, {rm}, {ra}")),
        MInst::Mls { rd, rn, rm, ra } => s.line(format_args!("mls {rd}, {rn}, {rm}, {ra}")),
        MInst::SDiv { rd, rn, rm } => s.line(format_args!("sdiv {rd}, {rn}, {rm}")),
        MInst::Cmp { cond, rn, src } => {
            s.line(format_args!("cmp{} {rn}, {}", suffix(*cond), op2(*src)))
        }
        MInst::Cmn { cond, rn, src } => {
            s.line(format_args!("cmn{} {rn}, {}", suffix(*cond), op2(*src)))
        }
        MInst::Tst { cond, rn, src } => {
            s.line(format_args!("tst{} {rn}, {}", suffix(*cond), op2(*src)))
        }
        MInst::Ldr { cond, rd, addr } => {
            let addr = s.address(*addr, false);
            s.line(format_args!("ldr{} {rd}, {addr}", suffix(*cond)))
        }
        MInst::Str { cond, rs, addr } => {
            let addr = s.address(*addr, false);
            s.line(format_args!("str{} {rs}, {addr}", suffix(*cond)))
        }
        MInst::VLdr { sd, addr } => {
            let addr = s.address(*addr, true);
            s.line(format_args!("vldr {sd}, {addr}"))
        }
        MInst::VStr { ss, addr } => {
            let addr = s.address(*addr, true);
            s.line(format_args!("vstr {ss}, {addr}"))
        }
        MInst::VecLoad { qd, addr } => vector_access(s, "vld1.32", "vldr", *qd, *addr),
        MInst::VecStore { qs, addr } => vector_access(s, "vst1.32", "vstr", *qs, *addr),
        MInst::VecBin { op, qd, qn, qm } => s.line(format_args!("{} {qd}, {qn}, {qm}", op.name())),
        MInst::VecDup { qd, rn } => s.line(format_args!("vdup.32 {qd}, {rn}")),
        MInst::VecGetLane { rd, qn, lane } => {
            let lane = Lane {
                q: *qn,
                lane: *lane,
                assembly: S::ASSEMBLY,
            };
            s.line(format_args!("vmov.32 {rd}, {lane}"))
        }
        MInst::VecSetLane { qd, rn, lane } => {
            let lane = Lane {
                q: *qd,
                lane: *lane,
                assembly: S::ASSEMBLY,
            };
            s.line(format_args!("vmov.32 {lane}, {rn}"))
        }
        MInst::VecReduce { op, rd, qn, qt } => match (S::ASSEMBLY, qn.phys(), qt.phys()) {
            (true, Some(n), Some(t)) => {
                let (n, t) = (n.low_double(), t.low_double());
                let name = op.name();
                s.line(format_args!("{name} d{t}, d{n}, d{}", n + 1))?;
                s.line(format_args!("{name} d{t}, d{t}, d{t}"))?;
                s.line(format_args!("vmov.32 {rd}, d{t}[0]"))
            }
            _ => s.line(format_args!("vreduce {} {rd}, {qn}, {qt}", op.name())),
        },
        MInst::Ldm {
            mode,
            base,
            writeback,
            regs,
        } => s.line(format_args!(
            "{}",
            BlockTransfer("ldm", *mode, *base, *writeback, regs)
        )),
        MInst::Stm {
            mode,
            base,
            writeback,
            regs,
        } => s.line(format_args!(
            "{}",
            BlockTransfer("stm", *mode, *base, *writeback, regs)
        )),
        MInst::VLdm {
            mode,
            base,
            writeback,
            regs,
        } => s.line(format_args!(
            "{}",
            BlockTransfer("vldm", *mode, *base, *writeback, regs)
        )),
        MInst::VStm {
            mode,
            base,
            writeback,
            regs,
        } => s.line(format_args!(
            "{}",
            BlockTransfer("vstm", *mode, *base, *writeback, regs)
        )),
        MInst::VBin { op, sd, sn, sm } => s.line(format_args!("{} {sd}, {sn}, {sm}", op.name())),
        MInst::VMla { sd, sn, sm } => s.line(format_args!("vmla.f32 {sd}, {sn}, {sm}")),
        MInst::VNeg { sd, sm } => s.line(format_args!("vneg.f32 {sd}, {sm}")),
        MInst::VMovIf { cond, sd, sm } => {
            s.line(format_args!("vmov{}.f32 {sd}, {sm}", cond.name()))
        }
        MInst::VMovImm { sd, bits } => {
            s.line(format_args!("vmov.f32 {sd}, #{:?}", f32::from_bits(*bits)))
        }
        MInst::VMovFromCore { sd, rn } => s.line(format_args!("vmov {sd}, {rn}")),
        MInst::VMovToCore { rd, sn } => s.line(format_args!("vmov {rd}, {sn}")),
        MInst::VCvtToFloat { sd, sm } => s.line(format_args!("vcvt.f32.s32 {sd}, {sm}")),
        MInst::VCvtToInt { sd, sm } => s.line(format_args!("vcvt.s32.f32 {sd}, {sm}")),
        MInst::VCmp { sn, sm } => {
            s.line(format_args!("vcmp.f32 {sn}, {sm}"))?;
            float_flags(s)
        }
        MInst::VCmpZero { sn } => {
            s.line(format_args!("vcmp.f32 {sn}, #0"))?;
            float_flags(s)
        }
        MInst::B { target } => {
            let target = s.label(*target);
            s.line(format_args!("b {target}"))
        }
        MInst::BCond { cond, target } => {
            let target = s.label(*target);
            s.line(format_args!("b{} {target}", cond.name()))
        }
        MInst::Bl { sym, .. } if S::ASSEMBLY => s.line(format_args!("bl {sym}")),
        MInst::Bl { sym, uses, defs } => s.line(format_args!(
            "bl {sym}{}{}",
            Note("uses", uses),
            Note("defs", defs)
        )),
        MInst::LoadSym { .. }
        | MInst::SlotAddr { .. }
        | MInst::Copy { .. }
        | MInst::VToDoubleCore { .. }
        | MInst::JumpTable { .. }
        | MInst::Prologue
        | MInst::Ret { .. }
        | MInst::TailCall { .. } => match s.expand(inst) {
            Some(written) => written,
            None => write_pseudo(s, inst),
        },
    }
}

/// Writes a pseudo-instruction as it is, in the text form's words (and any other
/// instruction as `write_inst` does).
fn write_pseudo<S: Syntax>(s: &mut S, inst: &MInst) -> fmt::Result {
    match inst {
        MInst::LoadSym { rd, sym } => s.line(format_args!("movsym {rd}, {sym}")),
        MInst::SlotAddr { rd, slot, offset } => {
            let addr = s.address(Addr::Slot(*slot, *offset), false);
            s.line(format_args!("slotaddr {rd}, {addr}"))
        }
        MInst::Copy { dst, src } => s.line(format_args!("copy {dst}, {src}")),
        MInst::VToDoubleCore { lo, hi, sm } => s.line(format_args!("vcvt.f64.f32 {lo}:{hi}, {sm}")),
        MInst::JumpTable {
            index,
            table,
            label,
            targets,
            default,
        } => {
            let targets: Vec<S::Label> = targets.iter().map(|&t| s.label(t)).collect();
            let default = s.label(*default);
            s.line(format_args!(
                "jumptable {table} ({label}), {index}, {default}, [{}]",
                Commas(&targets)
            ))
        }
        MInst::Prologue => s.line(format_args!("prologue")),
        MInst::Ret { uses } => s.line(format_args!("ret{}", Note("uses", uses))),
        MInst::TailCall { sym, uses } => {
            s.line(format_args!("tailcall {sym}{}", Note("uses", uses)))
        }
        _ => write_inst(s, inst),
    }
}

/// A load or store of a vector register: in assembly, `vld1.32`/`vst1.32` of its two
/// halves at `[base]` or `[base]!`, or one `vldr`/`vstr` per half for a stack slot; in the
/// text form, the mnemonic, the register and the address.
fn vector_access<S: Syntax>(
    s: &mut S,
    transfer: &str,
    single: &str,
    q: Reg,
    addr: Addr,
) -> fmt::Result {
    let Some(p) = q.phys().filter(|_| S::ASSEMBLY) else {
        let addr = s.address(addr, true);
        return s.line(format_args!("{transfer} {q}, {addr}"));
    };
    let low = p.low_double();
    let high = low + 1;
    match addr {
        Addr::Imm(base, 0) => s.line(format_args!("{transfer} {{d{low}-d{high}}}, [{base}]")),
        Addr::PostIndex(base, 16) => {
            s.line(format_args!("{transfer} {{d{low}-d{high}}}, [{base}]!"))
        }
        Addr::Slot(slot, off) => {
            let first = s.address(Addr::Slot(slot, off), true);
            s.line(format_args!("{single} d{low}, {first}"))?;
            let second = s.address(Addr::Slot(slot, off + 8), true);
            s.line(format_args!("{single} d{high}, {second}"))
        }
        Addr::Imm(..)
        | Addr::Index(..)
        | Addr::IndexDown(..)
        | Addr::PostIndex(..)
        | Addr::PreIndex(..) => unreachable!("the verifier rejects vector access {addr:?}"),
    }
}

/// Lane `lane` of vector register `q`: in assembly, as a lane of the double-word half that
/// holds it (`d19[0]` for lane 2 of q9); in the text form, `q9[2]`.
struct Lane {
    q: Reg,
    lane: u8,
    assembly: bool,
}

impl fmt::Display for Lane {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.q.phys().filter(|_| self.assembly) {
            Some(p) => write!(f, "d{}[{}]", p.low_double() + self.lane / 2, self.lane % 2),
            None => write!(f, "{}[{}]", self.q, self.lane),
        }
    }
}

/// After a float compare: in assembly, the `vmrs` that moves its flags to where conditions
/// read them (the text form's `vcmp` stands for both).
fn float_flags<S: Syntax>(s: &mut S) -> fmt::Result {
    if S::ASSEMBLY {
        s.line(format_args!("vmrs APSR_nzcv, fpscr"))?;
    }
    Ok(())
}

/// A condition as a mnemonic's suffix: none when the instruction always runs.
fn suffix(cond: Option<Cond>) -> &'static str {
    cond.map_or("", Cond::name)
}

/// An operand2, with a shift by 0 kept (`r1, lsl #0`) when the flag says so, else as the
/// assembler writes it (`Display`).
struct Op2(Operand2, bool);

impl fmt::Display for Op2 {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match *self {
            Op2(Operand2::Shifted(r, shift, 0), true) => write!(f, "{r}, {} #0", shift.name()),
            Op2(src, _) => src.fmt(f),
        }
    }
}

/// Items separated by commas.
struct Commas<'a, T>(&'a [T]);

impl<T: fmt::Display> fmt::Display for Commas<'_, T> {
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

/// A note of the registers an instruction reads or writes without naming them
/// (` ; uses r0, r1`), nothing when there are none.
struct Note<'a>(&'a str, &'a [Reg]);

impl fmt::Display for Note<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.1 {
            [] => Ok(()),
            regs => write!(f, " ; {} {}", self.0, Commas(regs)),
        }
    }
}

/// A load or store multiple as the assembler writes it: `ldmia r0!, {r1, r2}` (the
/// mnemonic without its mode, the mode, the base, whether it is written back, the list).
struct BlockTransfer<'a>(&'static str, BlockMode, Reg, bool, &'a [Reg]);

impl fmt::Display for BlockTransfer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let BlockTransfer(mnemonic, mode, base, writeback, regs) = *self;
        let bang = if writeback { "!" } else { "" };
        write!(
            f,
            "{mnemonic}{} {base}{bang}, {{{}}}",
            mode.name(),
            Commas(regs)
        )
    }
}

#[cfg(test)]
#[path = "inst_text_tests.rs"]
mod tests;
