//! Machine instructions: A32, VFP and NEON operations over virtual and physical registers, with
//! the register operands' roles. Stack addresses are symbolic (`Slot`) until frame layout
//! resolves them.

use super::{Addr, BlockMode, Cond, MBlockId, Operand2, Reg, Slot};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AluOp {
    Add,
    Sub,
    Rsb,
    And,
    /// `rd = rn & !src`.
    Bic,
    Orr,
    Eor,
}

impl AluOp {
    pub fn name(self) -> &'static str {
        match self {
            AluOp::Add => "add",
            AluOp::Sub => "sub",
            AluOp::Rsb => "rsb",
            AluOp::And => "and",
            AluOp::Bic => "bic",
            AluOp::Orr => "orr",
            AluOp::Eor => "eor",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VOp {
    Add,
    Sub,
    Mul,
    Div,
}

impl VOp {
    pub fn name(self) -> &'static str {
        match self {
            VOp::Add => "vadd.f32",
            VOp::Sub => "vsub.f32",
            VOp::Mul => "vmul.f32",
            VOp::Div => "vdiv.f32",
        }
    }
}

/// A lane-wise NEON operation on four 32-bit lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VecOp {
    Add,
    Sub,
    Mul,
    SMin,
    SMax,
    FAdd,
    FSub,
    FMul,
}

impl VecOp {
    pub fn name(self) -> &'static str {
        match self {
            VecOp::Add => "vadd.i32",
            VecOp::Sub => "vsub.i32",
            VecOp::Mul => "vmul.i32",
            VecOp::SMin => "vmin.s32",
            VecOp::SMax => "vmax.s32",
            VecOp::FAdd => "vadd.f32",
            VecOp::FSub => "vsub.f32",
            VecOp::FMul => "vmul.f32",
        }
    }
}

/// How `VecReduce` combines the four lanes: the pairwise operation it applies twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairOp {
    Add,
    SMin,
    SMax,
}

impl PairOp {
    pub fn name(self) -> &'static str {
        match self {
            PairOp::Add => "vpadd.i32",
            PairOp::SMin => "vpmin.s32",
            PairOp::SMax => "vpmax.s32",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum MInst {
    /// `mov rd, src`, conditionally with `cond`.
    Mov {
        cond: Option<Cond>,
        rd: Reg,
        src: Operand2,
    },
    Mvn {
        rd: Reg,
        src: Operand2,
    },
    Movw {
        rd: Reg,
        imm: u16,
    },
    /// Sets the top half of `rd`, keeping the bottom half.
    Movt {
        rd: Reg,
        imm: u16,
    },
    /// The address of a symbol (`movw`/`movt` pair).
    LoadSym {
        rd: Reg,
        sym: String,
    },
    /// `op rd, rn, src`, conditionally with `cond`.
    Alu {
        cond: Option<Cond>,
        op: AluOp,
        rd: Reg,
        rn: Reg,
        src: Operand2,
    },
    /// `op` with the S suffix (`subs rd, rn, src`): also sets the flags, N and Z from the
    /// result and C and V as the operation leaves them; it stands for a compare of the
    /// result with zero that only `eq`, `ne`, `mi` and `pl` read.
    AluS {
        op: AluOp,
        rd: Reg,
        rn: Reg,
        src: Operand2,
    },
    Mul {
        rd: Reg,
        rn: Reg,
        rm: Reg,
    },
    /// The high 32 bits of the signed 64-bit product `rn * rm`.
    Smmul {
        rd: Reg,
        rn: Reg,
        rm: Reg,
    },
    /// `rd = ra + rn * rm`.
    Mla {
        rd: Reg,
        rn: Reg,
        rm: Reg,
        ra: Reg,
    },
    /// `rd = ra - rn * rm`.
    Mls {
        rd: Reg,
        rn: Reg,
        rm: Reg,
        ra: Reg,
    },
    SDiv {
        rd: Reg,
        rn: Reg,
        rm: Reg,
    },
    /// `rn` clamped into `0..=2^bits - 1` (`usat`).
    Usat {
        rd: Reg,
        bits: u8,
        rn: Reg,
    },
    /// `rm`'s bits in reverse order (`rbit`).
    Rbit {
        rd: Reg,
        rm: Reg,
    },
    /// The number of zero bits above `rm`'s highest set bit, 32 for 0 (`clz`).
    Clz {
        rd: Reg,
        rm: Reg,
    },
    /// `cmp rn, src`, under `cond` if given (a later compare of a chain: see
    /// `middle::compare_chain`).
    Cmp {
        cond: Option<Cond>,
        rn: Reg,
        src: Operand2,
    },
    /// Compares `rn` with the negation of `src` (flags of `rn + src`): `cmp rn, #-k` for a
    /// constant `k` that encodes where `-k` does not (never 0 or `i32::MIN`, for which the
    /// carry would differ).
    Cmn {
        cond: Option<Cond>,
        rn: Reg,
        src: Operand2,
    },
    /// Sets the flags by `rn & src` (`tst`), for an equality test of the masked bits with 0:
    /// only Z (and N) say anything.
    Tst {
        cond: Option<Cond>,
        rn: Reg,
        src: Operand2,
    },
    /// A load, under a condition if `cond` is given (never from a stack slot, nor with
    /// writeback). Where the condition fails, `rd` holds nothing that anything reads: unlike
    /// a conditional move, which keeps the old value, it is a definition alone, so that
    /// nothing before it stays live for it.
    Ldr {
        cond: Option<Cond>,
        rd: Reg,
        addr: Addr,
    },
    /// A store, under a condition if `cond` is given (never to a stack slot, nor with
    /// writeback).
    Str {
        cond: Option<Cond>,
        rs: Reg,
        addr: Addr,
    },
    /// `rd = sp + offset of slot`.
    SlotAddr {
        rd: Reg,
        slot: Slot,
        offset: i32,
    },
    VBin {
        op: VOp,
        sd: Reg,
        sn: Reg,
        sm: Reg,
    },
    /// `sd = sd + sn * sm`, the product rounded before the addition (VFP's `vmla.f32`,
    /// not the fused `vfma`): exactly `vmul` then `vadd` with `sd` first.
    VMla {
        sd: Reg,
        sn: Reg,
        sm: Reg,
    },
    VNeg {
        sd: Reg,
        sm: Reg,
    },
    /// `vmov<cond>.f32 sd, sm`: a float move under a condition (a float `select`); the
    /// unconditional one is a `Copy`.
    VMovIf {
        cond: Cond,
        sd: Reg,
        sm: Reg,
    },
    /// `vmov.f32 sd, #imm`: a float constant that VFPv3's 8-bit immediate encodes (`bits`
    /// passes `vfp_immediate`: 1.0, 2.0, 0.5, -3.0, ...).
    VMovImm {
        sd: Reg,
        bits: u32,
    },
    /// Four consecutive words into vector register `qd`: `vld1.32` from `[base]` (an
    /// `Addr::Imm` of offset 0) or `[base]!` (`Addr::PostIndex` by 16), two `vldr` of its
    /// halves from a stack slot.
    VecLoad {
        qd: Reg,
        addr: Addr,
    },
    /// `qs` into four consecutive words, addressed as `VecLoad`'s.
    VecStore {
        qs: Reg,
        addr: Addr,
    },
    /// `op qd, qn, qm`, lane by lane.
    VecBin {
        op: VecOp,
        qd: Reg,
        qn: Reg,
        qm: Reg,
    },
    /// `vdup.32 qd, rn`: core register `rn` in every lane.
    VecDup {
        qd: Reg,
        rn: Reg,
    },
    /// `vmov.32 rd, dN[k]`: lane `lane` of `qn` into a core register.
    VecGetLane {
        rd: Reg,
        qn: Reg,
        lane: u8,
    },
    /// `vmov.32 dN[k], rn`: core register `rn` into lane `lane` of `qd`, the other lanes
    /// kept.
    VecSetLane {
        qd: Reg,
        rn: Reg,
        lane: u8,
    },
    /// The four lanes of `qn` combined by `op` into core register `rd`, through `qt`: the
    /// pairwise operation of `qn`'s halves into `qt`'s low half, of that half with itself,
    /// then lane 0 moved out (`qt` may be `qn`: each step reads before it writes).
    VecReduce {
        op: PairOp,
        rd: Reg,
        qn: Reg,
        qt: Reg,
    },
    /// Core register to VFP register (bits unchanged).
    VMovFromCore {
        sd: Reg,
        rn: Reg,
    },
    /// VFP register to core register (bits unchanged).
    VMovToCore {
        rd: Reg,
        sn: Reg,
    },
    /// `vcvt.f32.s32`: int bits in `sm` to float in `sd`.
    VCvtToFloat {
        sd: Reg,
        sm: Reg,
    },
    /// `vcvt.s32.f32`: float in `sm` to int bits in `sd` (toward zero, saturating).
    VCvtToInt {
        sd: Reg,
        sm: Reg,
    },
    /// `vcmp.f32` then `vmrs APSR_nzcv, fpscr`.
    VCmp {
        sn: Reg,
        sm: Reg,
    },
    /// `vcmp.f32 sn, #0` then `vmrs APSR_nzcv, fpscr`: a comparison with zero (of either
    /// sign: they compare equal).
    VCmpZero {
        sn: Reg,
    },
    VLdr {
        sd: Reg,
        addr: Addr,
    },
    VStr {
        ss: Reg,
        addr: Addr,
    },
    /// `ldm{mode} base{!}, {regs}`: core registers, ascending, from consecutive words
    /// (never `base`, `sp` or `pc` among them; made after allocation).
    Ldm {
        mode: BlockMode,
        base: Reg,
        writeback: bool,
        regs: Vec<Reg>,
    },
    /// `stm{mode} base{!}, {regs}`: as `Ldm`, storing.
    Stm {
        mode: BlockMode,
        base: Reg,
        writeback: bool,
        regs: Vec<Reg>,
    },
    /// `vldm{mode} base{!}, {regs}`: consecutive single-precision registers from
    /// consecutive words (`ia`, or `db` with writeback; made after allocation).
    VLdm {
        mode: BlockMode,
        base: Reg,
        writeback: bool,
        regs: Vec<Reg>,
    },
    /// `vstm{mode} base{!}, {regs}`: as `VLdm`, storing.
    VStm {
        mode: BlockMode,
        base: Reg,
        writeback: bool,
        regs: Vec<Reg>,
    },
    /// A float promoted to double and passed in two core registers (variadic calls).
    VToDoubleCore {
        lo: Reg,
        hi: Reg,
        sm: Reg,
    },
    /// A register copy within one class.
    Copy {
        dst: Reg,
        src: Reg,
    },
    /// An unconditional branch; the last instruction of a block unless `Ret` is.
    B {
        target: MBlockId,
    },
    /// A conditional branch; only branches follow it in its block.
    BCond {
        cond: Cond,
        target: MBlockId,
    },
    /// A jump through a table: to `targets[index]` when `index`, taken unsigned, is below
    /// their number, else to `default`: `cmp index, #n - 1`, `ldrls pc, [table, index, lsl
    /// #2]`, `b default`, then the entries' addresses under `label`, which `table` holds (a
    /// `LoadSym`). It sets the flags; it ends its block alone.
    JumpTable {
        index: Reg,
        table: Reg,
        label: String,
        targets: Vec<MBlockId>,
        default: MBlockId,
    },
    /// A call; `uses` are the argument registers, `defs` the result register. Every
    /// caller-saved register is clobbered.
    Bl {
        sym: String,
        uses: Vec<Reg>,
        defs: Vec<Reg>,
    },
    /// Return; `uses` holds the result register, if any.
    Ret {
        uses: Vec<Reg>,
    },
    /// Sets the frame up (saves the callee-saved registers the function writes, reserves its
    /// stack) where `shrink-wrap` put it, on the paths that need a frame. A function without
    /// one sets its frame up on entry; with them, the code before them runs without a frame
    /// and returns with `bx lr` (`mir::frame_placement`).
    Prologue,
    /// A call in tail position, ending the block as a return does: the frame comes down,
    /// then `b sym`, so the callee returns straight to our caller with its result. `uses`
    /// are the argument registers.
    TailCall {
        sym: String,
        uses: Vec<Reg>,
    },
}

/// How an instruction touches a register operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Use,
    Def,
    /// Read and written (the top-half write of `movt`).
    UseDef,
}

/// The register operands of an instruction with their roles, uses before defs; shared by
/// the by-reference and by-value visitors below. `$g` is called as `$g(reg, role)`.
macro_rules! visit_operands {
    ($inst:expr, $g:ident) => {{
        use Role::*;
        macro_rules! op2 {
            ($o:expr) => {
                match $o {
                    Operand2::Reg(r) | Operand2::Shifted(r, ..) => $g(r, Use),
                    Operand2::ShiftedBy(r, _, s) => {
                        $g(r, Use);
                        $g(s, Use);
                    }
                    Operand2::Imm(_) => {}
                }
            };
        }
        macro_rules! addr {
            ($a:expr) => {
                match $a {
                    Addr::Imm(b, _) => $g(b, Use),
                    Addr::Index(b, i, _) | Addr::IndexDown(b, i, _) => {
                        $g(b, Use);
                        $g(i, Use);
                    }
                    Addr::PostIndex(b, _) | Addr::PreIndex(b, _) => $g(b, UseDef),
                    Addr::Slot(..) => {}
                }
            };
        }
        match $inst {
            MInst::Mov { rd, src, cond } => {
                op2!(src);
                // A conditional move keeps the old value when the condition fails.
                $g(rd, if cond.is_some() { UseDef } else { Def });
            }
            MInst::AluS { rd, rn, src, .. } => {
                $g(rn, Use);
                op2!(src);
                $g(rd, Def);
            }
            MInst::Mvn { rd, src } => {
                op2!(src);
                $g(rd, Def);
            }
            MInst::Movw { rd, .. }
            | MInst::LoadSym { rd, .. }
            | MInst::SlotAddr { rd, .. }
            | MInst::VMovImm { sd: rd, .. } => $g(rd, Def),
            MInst::Movt { rd, .. } => $g(rd, UseDef),
            MInst::Alu {
                rd, rn, src, cond, ..
            } => {
                $g(rn, Use);
                op2!(src);
                $g(rd, if cond.is_some() { UseDef } else { Def });
            }
            MInst::Mul { rd, rn, rm }
            | MInst::Smmul { rd, rn, rm }
            | MInst::SDiv { rd, rn, rm } => {
                $g(rn, Use);
                $g(rm, Use);
                $g(rd, Def);
            }
            MInst::Usat { rd, rn, .. } | MInst::Rbit { rd, rm: rn } | MInst::Clz { rd, rm: rn } => {
                $g(rn, Use);
                $g(rd, Def);
            }
            MInst::Mla { rd, rn, rm, ra } | MInst::Mls { rd, rn, rm, ra } => {
                $g(rn, Use);
                $g(rm, Use);
                $g(ra, Use);
                $g(rd, Def);
            }
            MInst::Cmp { rn, src, .. }
            | MInst::Cmn { rn, src, .. }
            | MInst::Tst { rn, src, .. } => {
                $g(rn, Use);
                op2!(src);
            }
            MInst::Ldr { rd, addr: a, .. }
            | MInst::VLdr { sd: rd, addr: a }
            | MInst::VecLoad { qd: rd, addr: a } => {
                // A conditional load's register means nothing where the condition fails.
                addr!(a);
                $g(rd, Def);
            }
            MInst::Str { rs, addr: a, .. }
            | MInst::VStr { ss: rs, addr: a }
            | MInst::VecStore { qs: rs, addr: a } => {
                $g(rs, Use);
                addr!(a);
            }
            MInst::Ldm {
                base,
                writeback,
                regs,
                ..
            }
            | MInst::VLdm {
                base,
                writeback,
                regs,
                ..
            } => {
                $g(base, if *writeback { UseDef } else { Use });
                for r in regs {
                    $g(r, Def);
                }
            }
            MInst::Stm {
                base,
                writeback,
                regs,
                ..
            }
            | MInst::VStm {
                base,
                writeback,
                regs,
                ..
            } => {
                for r in regs {
                    $g(r, Use);
                }
                $g(base, if *writeback { UseDef } else { Use });
            }
            MInst::VBin { sd, sn, sm, .. }
            | MInst::VecBin {
                qd: sd,
                qn: sn,
                qm: sm,
                ..
            } => {
                $g(sn, Use);
                $g(sm, Use);
                $g(sd, Def);
            }
            MInst::VecDup { qd, rn } => {
                $g(rn, Use);
                $g(qd, Def);
            }
            MInst::VecGetLane { rd, qn, .. } => {
                $g(qn, Use);
                $g(rd, Def);
            }
            MInst::VecSetLane { qd, rn, .. } => {
                $g(rn, Use);
                // The other lanes stay.
                $g(qd, UseDef);
            }
            MInst::VecReduce { rd, qn, qt, .. } => {
                $g(qn, Use);
                $g(qt, Def);
                $g(rd, Def);
            }
            MInst::VMla { sd, sn, sm } => {
                $g(sn, Use);
                $g(sm, Use);
                $g(sd, UseDef);
            }
            MInst::VNeg { sd, sm }
            | MInst::VCvtToFloat { sd, sm }
            | MInst::VCvtToInt { sd, sm } => {
                $g(sm, Use);
                $g(sd, Def);
            }
            MInst::VMovIf { sd, sm, .. } => {
                $g(sm, Use);
                // The old value stays when the condition fails.
                $g(sd, UseDef);
            }
            MInst::VMovFromCore { sd, rn } => {
                $g(rn, Use);
                $g(sd, Def);
            }
            MInst::VMovToCore { rd, sn } => {
                $g(sn, Use);
                $g(rd, Def);
            }
            MInst::VCmp { sn, sm } => {
                $g(sn, Use);
                $g(sm, Use);
            }
            MInst::VCmpZero { sn } => $g(sn, Use),
            MInst::VToDoubleCore { lo, hi, sm } => {
                $g(sm, Use);
                $g(lo, Def);
                $g(hi, Def);
            }
            MInst::Copy { dst, src } => {
                $g(src, Use);
                $g(dst, Def);
            }
            MInst::Bl { uses, defs, .. } => {
                for r in uses {
                    $g(r, Use);
                }
                for r in defs {
                    $g(r, Def);
                }
            }
            MInst::Ret { uses } | MInst::TailCall { uses, .. } => {
                for r in uses {
                    $g(r, Use);
                }
            }
            MInst::JumpTable { index, table, .. } => {
                $g(index, Use);
                $g(table, Use);
            }
            MInst::B { .. } | MInst::BCond { .. } | MInst::Prologue => {}
        }
    }};
}

impl MInst {
    /// Calls `f` on every register operand with its role, in order: uses before defs.
    pub fn visit_regs(&mut self, mut f: impl FnMut(&mut Reg, Role)) {
        let mut g = |r: &mut Reg, role: Role| f(r, role);
        visit_operands!(self, g)
    }

    /// Calls `f` on every register operand with its role, without changing anything.
    pub fn for_each_reg(&self, mut f: impl FnMut(Reg, Role)) {
        let mut g = |r: &Reg, role: Role| f(*r, role);
        visit_operands!(self, g)
    }

    /// Whether the instruction is a compare: it sets the flags and writes no register.
    pub fn is_compare(&self) -> bool {
        matches!(
            self,
            MInst::Cmp { .. }
                | MInst::Cmn { .. }
                | MInst::Tst { .. }
                | MInst::VCmp { .. }
                | MInst::VCmpZero { .. }
        )
    }

    /// Whether the instruction sets the flags (compares, flag-setting operations) or leaves
    /// them undefined (a call).
    pub fn sets_flags(&self) -> bool {
        self.is_compare()
            || matches!(
                self,
                MInst::AluS { .. }
                    | MInst::Bl { .. }
                    | MInst::TailCall { .. }
                    | MInst::JumpTable { .. }
            )
    }

    /// The condition under which the instruction reads the flags, if it does (a
    /// conditional branch, a predicated instruction).
    pub fn flags_read(&self) -> Option<Cond> {
        match self {
            MInst::Mov { cond, .. }
            | MInst::Alu { cond, .. }
            | MInst::Ldr { cond, .. }
            | MInst::Str { cond, .. }
            | MInst::Cmp { cond, .. }
            | MInst::Cmn { cond, .. }
            | MInst::Tst { cond, .. } => *cond,
            MInst::BCond { cond, .. } | MInst::VMovIf { cond, .. } => Some(*cond),
            _ => None,
        }
    }

    /// Whether the instruction does nothing but write its registers.
    pub fn is_pure(&self) -> bool {
        matches!(
            self,
            MInst::Mov { cond: None, .. }
                | MInst::Alu { cond: None, .. }
                | MInst::Mvn { .. }
                | MInst::Movw { .. }
                | MInst::VMovImm { .. }
                | MInst::LoadSym { .. }
                | MInst::SlotAddr { .. }
                | MInst::Mul { .. }
                | MInst::Smmul { .. }
                | MInst::Mla { .. }
                | MInst::Mls { .. }
                | MInst::SDiv { .. }
                | MInst::Usat { .. }
                | MInst::Rbit { .. }
                | MInst::Clz { .. }
                | MInst::Copy { .. }
                | MInst::VecBin { .. }
                | MInst::VecDup { .. }
                | MInst::VecGetLane { .. }
                | MInst::VecReduce { .. }
        )
    }

    /// Whether the instruction reads and whether it writes memory (a call does both).
    pub fn memory_effects(&self) -> (bool, bool) {
        match self {
            MInst::Ldr { .. }
            | MInst::VLdr { .. }
            | MInst::VecLoad { .. }
            | MInst::Ldm { .. }
            | MInst::VLdm { .. } => (true, false),
            MInst::Str { .. }
            | MInst::VStr { .. }
            | MInst::VecStore { .. }
            | MInst::Stm { .. }
            | MInst::VStm { .. } => (false, true),
            MInst::Bl { .. } | MInst::TailCall { .. } => (true, true),
            _ => (false, false),
        }
    }

    pub fn is_call(&self) -> bool {
        matches!(self, MInst::Bl { .. })
    }

    /// For a load or store of a stack slot (either register file): whether it loads, the
    /// register loaded or stored, and the slot with its offset.
    pub fn slot_access(&self) -> Option<(bool, Reg, (Slot, i32))> {
        match self {
            MInst::Ldr {
                cond: None,
                rd,
                addr: Addr::Slot(s, o),
            }
            | MInst::VLdr {
                sd: rd,
                addr: Addr::Slot(s, o),
            }
            | MInst::VecLoad {
                qd: rd,
                addr: Addr::Slot(s, o),
            } => Some((true, *rd, (*s, *o))),
            MInst::Str {
                cond: None,
                rs,
                addr: Addr::Slot(s, o),
            }
            | MInst::VStr {
                ss: rs,
                addr: Addr::Slot(s, o),
            }
            | MInst::VecStore {
                qs: rs,
                addr: Addr::Slot(s, o),
            } => Some((false, *rs, (*s, *o))),
            _ => None,
        }
    }

    /// Whether the instruction writes register `r` (a definition, or a use that it also
    /// redefines).
    pub fn writes(&self, r: Reg) -> bool {
        let mut writes = false;
        self.for_each_reg(|x, role| writes |= x == r && role != Role::Use);
        writes
    }

    /// Every register operand with its role.
    pub fn regs(&self) -> Vec<(Reg, Role)> {
        let mut out = Vec::new();
        self.for_each_reg(|r, role| out.push((r, role)));
        out
    }

    /// The target of a branch.
    pub fn target(&self) -> Option<MBlockId> {
        match self {
            MInst::B { target } | MInst::BCond { target, .. } => Some(*target),
            _ => None,
        }
    }

    /// Every block the instruction may transfer control to: a branch's target, a jump
    /// table's default and entries.
    pub fn targets(&self) -> Vec<MBlockId> {
        match self {
            MInst::JumpTable {
                targets, default, ..
            } => std::iter::once(*default)
                .chain(targets.iter().copied())
                .collect(),
            _ => self.target().into_iter().collect(),
        }
    }

    /// Calls `f` on every block the instruction may transfer control to, to change it.
    pub fn retarget(&mut self, mut f: impl FnMut(&mut MBlockId)) {
        match self {
            MInst::B { target } | MInst::BCond { target, .. } => f(target),
            MInst::JumpTable {
                targets, default, ..
            } => {
                f(default);
                targets.iter_mut().for_each(f);
            }
            _ => {}
        }
    }

    /// Whether the instruction transfers control (a branch or a return): such instructions
    /// end a block and nothing else may follow them.
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            MInst::B { .. }
                | MInst::BCond { .. }
                | MInst::JumpTable { .. }
                | MInst::Ret { .. }
                | MInst::TailCall { .. }
        )
    }
}
