//! Machine instructions: A32 and VFP operations over virtual and physical registers, with
//! the register operands' roles. Stack addresses are symbolic (`Slot`) until frame layout
//! resolves them.

use super::{MBlockId, Reg};

/// ARM condition codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cond {
    Eq,
    Ne,
    Hs,
    Lo,
    Mi,
    Pl,
    Vs,
    Vc,
    Hi,
    Ls,
    Ge,
    Lt,
    Gt,
    Le,
}

impl Cond {
    pub fn name(self) -> &'static str {
        match self {
            Cond::Eq => "eq",
            Cond::Ne => "ne",
            Cond::Hs => "hs",
            Cond::Lo => "lo",
            Cond::Mi => "mi",
            Cond::Pl => "pl",
            Cond::Vs => "vs",
            Cond::Vc => "vc",
            Cond::Hi => "hi",
            Cond::Ls => "ls",
            Cond::Ge => "ge",
            Cond::Lt => "lt",
            Cond::Gt => "gt",
            Cond::Le => "le",
        }
    }

    /// Whether the condition passes on flags `n`, `z`, `c` and `v`.
    pub fn holds(self, n: bool, z: bool, c: bool, v: bool) -> bool {
        match self {
            Cond::Eq => z,
            Cond::Ne => !z,
            Cond::Hs => c,
            Cond::Lo => !c,
            Cond::Mi => n,
            Cond::Pl => !n,
            Cond::Vs => v,
            Cond::Vc => !v,
            Cond::Hi => c && !z,
            Cond::Ls => !c || z,
            Cond::Ge => n == v,
            Cond::Lt => n != v,
            Cond::Gt => !z && n == v,
            Cond::Le => z || n != v,
        }
    }

    /// Whether the condition passes only on flags where `other` passes too (`gt` implies
    /// `ge` and `ne`).
    pub fn implies(self, other: Cond) -> bool {
        (0..16u8).all(|f| {
            let [n, z, c, v] = [8, 4, 2, 1].map(|bit| f & bit != 0);
            !self.holds(n, z, c, v) || other.holds(n, z, c, v)
        })
    }

    pub fn invert(self) -> Cond {
        match self {
            Cond::Eq => Cond::Ne,
            Cond::Ne => Cond::Eq,
            Cond::Hs => Cond::Lo,
            Cond::Lo => Cond::Hs,
            Cond::Mi => Cond::Pl,
            Cond::Pl => Cond::Mi,
            Cond::Vs => Cond::Vc,
            Cond::Vc => Cond::Vs,
            Cond::Hi => Cond::Ls,
            Cond::Ls => Cond::Hi,
            Cond::Ge => Cond::Lt,
            Cond::Lt => Cond::Ge,
            Cond::Gt => Cond::Le,
            Cond::Le => Cond::Gt,
        }
    }
}

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

/// The flexible second operand of data-processing instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand2 {
    /// An immediate that `imm::is_operand2` accepts.
    Imm(u32),
    Reg(Reg),
    /// A register shifted by a constant in 0..=31.
    Shifted(Reg, Shift, u8),
    /// A register shifted by the low byte of another (32 or more shifts every bit out).
    ShiftedBy(Reg, Shift, Reg),
}

/// The shifts of a shifted-register operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shift {
    Lsl,
    /// Logical shift right (zeros in).
    Lsr,
    /// Arithmetic shift right (copies of the sign bit in).
    Asr,
}

impl Shift {
    pub fn name(self) -> &'static str {
        match self {
            Shift::Lsl => "lsl",
            Shift::Lsr => "lsr",
            Shift::Asr => "asr",
        }
    }
}

/// A stack location whose offset from sp is known only after frame layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// A local object (an `alloca` or a spill slot), by index.
    Local(u32),
    /// The caller's stack argument at this byte offset.
    Incoming(u32),
    /// Our stack argument to a callee at this byte offset.
    Outgoing(u32),
}

/// A memory operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Addr {
    /// `[base, #offset]` (any offset; out-of-range ones are handled when emitting).
    Imm(Reg, i32),
    /// `[base, index, lsl #shift]` (core loads and stores only).
    Index(Reg, Reg, u8),
    /// `[base, -index, lsl #shift]` (core loads and stores only).
    IndexDown(Reg, Reg, u8),
    /// A stack slot plus a byte offset.
    Slot(Slot, i32),
    /// `[base], #offset`: the access is at `base`, then `base += offset` (core loads and
    /// stores only, offset within `imm::fits_ldr_offset`; made after allocation).
    PostIndex(Reg, i32),
    /// `[base, #offset]!`: `base += offset`, then the access is at the new `base` (core
    /// loads and stores only, offset within `imm::fits_ldr_offset`; made after allocation).
    PreIndex(Reg, i32),
}

impl Addr {
    /// Whether the address writes its base register back.
    pub fn writes_back(self) -> bool {
        matches!(self, Addr::PostIndex(..) | Addr::PreIndex(..))
    }
}

/// The addressing mode of a load or store multiple: `n` registers at consecutive words,
/// the lowest register at the lowest address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockMode {
    /// Increment after: the words at `base`, `base + 4`, ...
    Ia,
    /// Increment before: the words at `base + 4`, `base + 8`, ...
    Ib,
    /// Decrement after: the words up to `base`.
    Da,
    /// Decrement before: the words up to `base - 4`.
    Db,
}

impl BlockMode {
    pub const ALL: [BlockMode; 4] = [BlockMode::Ia, BlockMode::Ib, BlockMode::Da, BlockMode::Db];

    pub fn name(self) -> &'static str {
        match self {
            BlockMode::Ia => "ia",
            BlockMode::Ib => "ib",
            BlockMode::Da => "da",
            BlockMode::Db => "db",
        }
    }

    /// The offset from the base of the lowest of `n` words.
    pub fn lowest_offset(self, n: usize) -> i32 {
        let n = n as i32;
        match self {
            BlockMode::Ia => 0,
            BlockMode::Ib => 4,
            BlockMode::Da => 4 - 4 * n,
            BlockMode::Db => -4 * n,
        }
    }

    /// What writeback (`base!`) adds to the base after moving `n` words.
    pub fn writeback_delta(self, n: usize) -> i32 {
        let n = n as i32;
        match self {
            BlockMode::Ia | BlockMode::Ib => 4 * n,
            BlockMode::Da | BlockMode::Db => -4 * n,
        }
    }

    /// Whether the VFP's `vldm`/`vstm` have the mode: increment after, and decrement
    /// before with writeback only.
    pub fn exists_for_vfp(self, writeback: bool) -> bool {
        match self {
            BlockMode::Ia => true,
            BlockMode::Db => writeback,
            BlockMode::Ib | BlockMode::Da => false,
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
            MInst::Ldr { rd, addr: a, .. } | MInst::VLdr { sd: rd, addr: a } => {
                // A conditional load's register means nothing where the condition fails.
                addr!(a);
                $g(rd, Def);
            }
            MInst::Str { rs, addr: a, .. } | MInst::VStr { ss: rs, addr: a } => {
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
            MInst::VBin { sd, sn, sm, .. } => {
                $g(sn, Use);
                $g(sm, Use);
                $g(sd, Def);
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
        )
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
            } => Some((true, *rd, (*s, *o))),
            MInst::Str {
                cond: None,
                rs,
                addr: Addr::Slot(s, o),
            }
            | MInst::VStr {
                ss: rs,
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
