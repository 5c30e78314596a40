//! One line of the machine IR text form read as an instruction: a `Cursor` over the line
//! reads its words, registers, operand2s, memory operands, block and register lists, and
//! every instruction kind as `MInst`'s `Display` writes it. `mir::parser` reads the
//! functions and blocks these lines belong to.

use super::parser::block_id;
use super::*;
use std::str::FromStr;

const CONDS: [Cond; 14] = [
    Cond::Eq,
    Cond::Ne,
    Cond::Hs,
    Cond::Lo,
    Cond::Mi,
    Cond::Pl,
    Cond::Vs,
    Cond::Vc,
    Cond::Hi,
    Cond::Ls,
    Cond::Ge,
    Cond::Lt,
    Cond::Gt,
    Cond::Le,
];

const ALU_OPS: [AluOp; 7] = [
    AluOp::Add,
    AluOp::Sub,
    AluOp::Rsb,
    AluOp::And,
    AluOp::Bic,
    AluOp::Orr,
    AluOp::Eor,
];

const VOPS: [VOp; 4] = [VOp::Add, VOp::Sub, VOp::Mul, VOp::Div];

const VEC_OPS: [VecOp; 8] = [
    VecOp::Add,
    VecOp::Sub,
    VecOp::Mul,
    VecOp::SMin,
    VecOp::SMax,
    VecOp::FAdd,
    VecOp::FSub,
    VecOp::FMul,
];

const PAIR_OPS: [PairOp; 3] = [PairOp::Add, PairOp::SMin, PairOp::SMax];

const SHIFTS: [Shift; 3] = [Shift::Lsl, Shift::Lsr, Shift::Asr];

/// The stack slot named `localN`, `inN` or `outN`.
fn slot(name: &str) -> Option<Slot> {
    let number = |prefix: &str| name.strip_prefix(prefix).and_then(|n| n.parse().ok());
    number("local")
        .map(Slot::Local)
        .or_else(|| number("in").map(Slot::Incoming))
        .or_else(|| number("out").map(Slot::Outgoing))
}

/// The condition of a mnemonic's suffix (`ne` of `bne`).
fn cond(suffix: &str) -> Option<Cond> {
    CONDS.into_iter().find(|c| c.name() == suffix)
}

/// A position in a line's text, with what the function declared before it: its virtual
/// registers' classes and how many stack objects it has.
pub(super) struct Cursor<'a> {
    rest: &'a str,
    classes: &'a [RegClass],
    objects: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of an instruction of `mf`.
    pub(super) fn new(text: &'a str, mf: &'a MFunction) -> Cursor<'a> {
        Cursor {
            rest: text,
            classes: &mf.vreg_classes,
            objects: mf.objects.len(),
        }
    }

    /// A cursor at the start of a line that names no register or stack slot.
    pub(super) fn plain(text: &'a str) -> Cursor<'a> {
        Cursor {
            rest: text,
            classes: &[],
            objects: 0,
        }
    }

    /// What is left, for messages.
    fn found(&self) -> String {
        match self.rest.trim() {
            "" => "the end of the line".to_string(),
            rest => format!("'{rest}'"),
        }
    }

    /// Skips whitespace, then `s` if the text goes on with it.
    pub(super) fn eat(&mut self, s: &str) -> bool {
        self.rest = self.rest.trim_start();
        match self.rest.strip_prefix(s) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    pub(super) fn expect(&mut self, s: &str) -> Result<(), String> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(format!("expected '{s}', found {}", self.found()))
        }
    }

    /// The next word: a mnemonic, register, symbol or number, up to whitespace or
    /// punctuation.
    pub(super) fn token(&mut self, what: &str) -> Result<&'a str, String> {
        self.rest = self.rest.trim_start();
        let end = self
            .rest
            .find(|c: char| c.is_whitespace() || ",[]{}()!:;#".contains(c))
            .unwrap_or(self.rest.len());
        if end == 0 {
            return Err(format!("expected {what}, found {}", self.found()));
        }
        let (token, rest) = self.rest.split_at(end);
        self.rest = rest;
        Ok(token)
    }

    /// The word `word`, whole.
    pub(super) fn keyword(&mut self, word: &str) -> Result<(), String> {
        match self.token(&format!("'{word}'"))? {
            w if w == word => Ok(()),
            w => Err(format!("expected '{word}', found '{w}'")),
        }
    }

    pub(super) fn number<T: FromStr>(&mut self, what: &str) -> Result<T, String> {
        let token = self.token(what)?;
        token
            .parse()
            .map_err(|_| format!("'{token}' is not {what}"))
    }

    /// `#n`.
    fn imm<T: FromStr>(&mut self, what: &str) -> Result<T, String> {
        self.expect("#")?;
        self.number(what)
    }

    pub(super) fn end(&self) -> Result<(), String> {
        match self.rest.trim() {
            "" => Ok(()),
            rest => Err(format!("unexpected '{rest}'")),
        }
    }

    fn reg(&mut self) -> Result<Reg, String> {
        let name = self.token("a register")?;
        reg_named(name, self.classes)
    }

    fn class(&self, r: Reg) -> RegClass {
        match r {
            Reg::Phys(p) => p.class(),
            Reg::Virt(v) => self.classes[v.0 as usize],
        }
    }

    /// `, ` then a register.
    fn next_reg(&mut self) -> Result<Reg, String> {
        self.expect(",")?;
        self.reg()
    }

    /// Registers separated by commas, at least one.
    fn regs(&mut self) -> Result<Vec<Reg>, String> {
        let mut regs = vec![self.reg()?];
        while self.eat(",") {
            regs.push(self.reg()?);
        }
        Ok(regs)
    }

    /// The register lists tagged `; tag r0, r1` after an instruction, in the order of
    /// `tags`, each optional.
    fn tagged<const N: usize>(&mut self, tags: [&str; N]) -> Result<[Vec<Reg>; N], String> {
        let mut lists = std::array::from_fn(|_| Vec::new());
        let mut next = 0;
        while self.eat(";") {
            let tag = self.token("a register list's name")?;
            let Some(k) = tags[next..].iter().position(|&t| t == tag) else {
                return Err(format!("unexpected '; {tag}'"));
            };
            lists[next + k] = self.regs()?;
            next += k + 1;
        }
        Ok(lists)
    }

    fn block(&mut self) -> Result<MBlockId, String> {
        let name = self.token("a block")?;
        block_id(name).ok_or_else(|| format!("'{name}' is not a block"))
    }

    fn symbol(&mut self) -> Result<String, String> {
        Ok(self.token("a symbol")?.to_string())
    }

    fn shift(&mut self) -> Result<Shift, String> {
        let name = self.token("a shift")?;
        SHIFTS
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| format!("'{name}' is not a shift"))
    }

    /// `#imm`, `r`, `r, lsl #n` or `r, lsl s`.
    fn operand2(&mut self) -> Result<Operand2, String> {
        if self.eat("#") {
            return Ok(Operand2::Imm(self.number("an immediate")?));
        }
        let r = self.reg()?;
        if !self.eat(",") {
            return Ok(Operand2::Reg(r));
        }
        let shift = self.shift()?;
        if self.eat("#") {
            Ok(Operand2::Shifted(r, shift, self.number("a shift amount")?))
        } else {
            Ok(Operand2::ShiftedBy(r, shift, self.reg()?))
        }
    }

    /// `, ` then an operand2.
    fn next_operand2(&mut self) -> Result<Operand2, String> {
        self.expect(",")?;
        self.operand2()
    }

    /// A memory operand, as `Addr`'s `Display` writes it.
    fn addr(&mut self) -> Result<Addr, String> {
        self.expect("[")?;
        let base = self.token("a base register or a stack slot")?;
        if let Some(s) = slot(base) {
            if let Slot::Local(n) = s {
                if n as usize >= self.objects {
                    return Err(format!("local{n} is not a stack object of the function"));
                }
            }
            let offset = if self.eat(",") {
                self.imm("an offset")?
            } else {
                0
            };
            self.expect("]")?;
            return Ok(Addr::Slot(s, offset));
        }
        let base = reg_named(base, self.classes)?;
        if self.eat("]") {
            if self.eat(",") {
                return Ok(Addr::PostIndex(base, self.imm("an offset")?));
            }
            return Ok(Addr::Imm(base, 0));
        }
        self.expect(",")?;
        if self.eat("#") {
            let offset = self.number("an offset")?;
            self.expect("]")?;
            if self.eat("!") {
                return Ok(Addr::PreIndex(base, offset));
            }
            return Ok(Addr::Imm(base, offset));
        }
        let down = self.eat("-");
        let index = self.reg()?;
        let shift = if self.eat(",") {
            self.keyword("lsl")?;
            self.imm("a shift amount")?
        } else {
            0
        };
        self.expect("]")?;
        Ok(if down {
            Addr::IndexDown(base, index, shift)
        } else {
            Addr::Index(base, index, shift)
        })
    }

    /// `, ` then a memory operand.
    fn next_addr(&mut self) -> Result<Addr, String> {
        self.expect(",")?;
        self.addr()
    }

    /// `base{!}, {regs}` of a load or store multiple.
    fn block_transfer(&mut self) -> Result<(Reg, bool, Vec<Reg>), String> {
        let base = self.reg()?;
        let writeback = self.eat("!");
        self.expect(",")?;
        self.expect("{")?;
        let regs = self.regs()?;
        self.expect("}")?;
        Ok((base, writeback, regs))
    }

    /// A whole instruction, as `MInst`'s `Display` writes it.
    pub(super) fn inst(mut self) -> Result<MInst, String> {
        let mnemonic = self.token("an instruction")?;
        let inst = match self.exact(mnemonic)? {
            Some(inst) => inst,
            None => self.suffixed(mnemonic)?,
        };
        self.end()?;
        Ok(inst)
    }

    /// The instruction of a mnemonic that has no condition or mode suffix, if it is one.
    fn exact(&mut self, mnemonic: &str) -> Result<Option<MInst>, String> {
        Ok(Some(match mnemonic {
            "mvn" => MInst::Mvn {
                rd: self.reg()?,
                src: self.next_operand2()?,
            },
            "movw" | "movt" => {
                let rd = self.reg()?;
                self.expect(",")?;
                let imm = self.imm("a 16-bit immediate")?;
                if mnemonic == "movw" {
                    MInst::Movw { rd, imm }
                } else {
                    MInst::Movt { rd, imm }
                }
            }
            "movsym" => {
                let rd = self.reg()?;
                self.expect(",")?;
                MInst::LoadSym {
                    rd,
                    sym: self.symbol()?,
                }
            }
            "mul" | "smmul" | "sdiv" => {
                let (rd, rn, rm) = (self.reg()?, self.next_reg()?, self.next_reg()?);
                match mnemonic {
                    "mul" => MInst::Mul { rd, rn, rm },
                    "smmul" => MInst::Smmul { rd, rn, rm },
                    _ => MInst::SDiv { rd, rn, rm },
                }
            }
            "mla" | "mls" => {
                let (rd, rn, rm, ra) = (
                    self.reg()?,
                    self.next_reg()?,
                    self.next_reg()?,
                    self.next_reg()?,
                );
                if mnemonic == "mla" {
                    MInst::Mla { rd, rn, rm, ra }
                } else {
                    MInst::Mls { rd, rn, rm, ra }
                }
            }
            "usat" => {
                let rd = self.reg()?;
                self.expect(",")?;
                let bits = self.imm("a bit count")?;
                MInst::Usat {
                    rd,
                    bits,
                    rn: self.next_reg()?,
                }
            }
            "rbit" => MInst::Rbit {
                rd: self.reg()?,
                rm: self.next_reg()?,
            },
            "clz" => MInst::Clz {
                rd: self.reg()?,
                rm: self.next_reg()?,
            },
            "slotaddr" => {
                let rd = self.reg()?;
                let Addr::Slot(slot, offset) = self.next_addr()? else {
                    return Err("slotaddr takes a stack slot".to_string());
                };
                MInst::SlotAddr { rd, slot, offset }
            }
            "vmla.f32" => MInst::VMla {
                sd: self.reg()?,
                sn: self.next_reg()?,
                sm: self.next_reg()?,
            },
            "vneg.f32" => MInst::VNeg {
                sd: self.reg()?,
                sm: self.next_reg()?,
            },
            "vmov.f32" => {
                let sd = self.reg()?;
                self.expect(",")?;
                let value: f32 = self.imm("a float")?;
                MInst::VMovImm {
                    sd,
                    bits: value.to_bits(),
                }
            }
            "vmov" => {
                let (to, from) = (self.reg()?, self.next_reg()?);
                if self.class(to) == RegClass::Float {
                    MInst::VMovFromCore { sd: to, rn: from }
                } else {
                    MInst::VMovToCore { rd: to, sn: from }
                }
            }
            "vcvt.f32.s32" => MInst::VCvtToFloat {
                sd: self.reg()?,
                sm: self.next_reg()?,
            },
            "vcvt.s32.f32" => MInst::VCvtToInt {
                sd: self.reg()?,
                sm: self.next_reg()?,
            },
            "vcmp.f32" => {
                let sn = self.reg()?;
                self.expect(",")?;
                if self.eat("#") {
                    self.keyword("0")?;
                    MInst::VCmpZero { sn }
                } else {
                    MInst::VCmp {
                        sn,
                        sm: self.reg()?,
                    }
                }
            }
            "vldr" => MInst::VLdr {
                sd: self.reg()?,
                addr: self.next_addr()?,
            },
            "vstr" => MInst::VStr {
                ss: self.reg()?,
                addr: self.next_addr()?,
            },
            "vcvt.f64.f32" => {
                let lo = self.reg()?;
                self.expect(":")?;
                MInst::VToDoubleCore {
                    lo,
                    hi: self.reg()?,
                    sm: self.next_reg()?,
                }
            }
            "copy" => MInst::Copy {
                dst: self.reg()?,
                src: self.next_reg()?,
            },
            "b" => MInst::B {
                target: self.block()?,
            },
            "jumptable" => self.jump_table()?,
            "bl" => {
                let sym = self.symbol()?;
                let [uses, defs] = self.tagged(["uses", "defs"])?;
                MInst::Bl { sym, uses, defs }
            }
            "prologue" => MInst::Prologue,
            "ret" => {
                let [uses] = self.tagged(["uses"])?;
                MInst::Ret { uses }
            }
            "tailcall" => {
                let sym = self.symbol()?;
                let [uses] = self.tagged(["uses"])?;
                MInst::TailCall { sym, uses }
            }
            "vld1.32" => MInst::VecLoad {
                qd: self.reg()?,
                addr: self.next_addr()?,
            },
            "vst1.32" => MInst::VecStore {
                qs: self.reg()?,
                addr: self.next_addr()?,
            },
            "vdup.32" => MInst::VecDup {
                qd: self.reg()?,
                rn: self.next_reg()?,
            },
            "vmov.32" => {
                let first = self.reg()?;
                if self.eat("[") {
                    let lane = self.lane()?;
                    MInst::VecSetLane {
                        qd: first,
                        rn: self.next_reg()?,
                        lane,
                    }
                } else {
                    let qn = self.next_reg()?;
                    self.expect("[")?;
                    MInst::VecGetLane {
                        rd: first,
                        qn,
                        lane: self.lane()?,
                    }
                }
            }
            "vreduce" => {
                let name = self.token("a pairwise operation")?;
                let Some(op) = PAIR_OPS.into_iter().find(|op| op.name() == name) else {
                    return Err(format!("'{name}' is not a pairwise operation"));
                };
                MInst::VecReduce {
                    op,
                    rd: self.reg()?,
                    qn: self.next_reg()?,
                    qt: self.next_reg()?,
                }
            }
            _ => return self.lane_wise(mnemonic),
        }))
    }

    /// A lane number below 4 and its closing `]`, after the `[`.
    fn lane(&mut self) -> Result<u8, String> {
        let lane: u8 = self.number("a lane")?;
        if lane > 3 {
            return Err(format!("lane {lane} of a vector of 4"));
        }
        self.expect("]")?;
        Ok(lane)
    }

    /// A VFP or NEON arithmetic instruction (`vadd.f32` names both: the class of the
    /// destination tells them apart), if `mnemonic` is one.
    fn lane_wise(&mut self, mnemonic: &str) -> Result<Option<MInst>, String> {
        let vop = VOPS.into_iter().find(|op| op.name() == mnemonic);
        let vec_op = VEC_OPS.into_iter().find(|op| op.name() == mnemonic);
        if vop.is_none() && vec_op.is_none() {
            return Ok(None);
        }
        let (d, n, m) = (self.reg()?, self.next_reg()?, self.next_reg()?);
        Ok(Some(match (vop, vec_op) {
            (_, Some(op)) if self.class(d) == RegClass::Vector => MInst::VecBin {
                op,
                qd: d,
                qn: n,
                qm: m,
            },
            (Some(op), _) => MInst::VBin {
                op,
                sd: d,
                sn: n,
                sm: m,
            },
            (None, _) => return Err(format!("{mnemonic} writes a vector register")),
        }))
    }

    /// `jumptable table (label), index, default, [bb1, bb2]`, after the mnemonic.
    fn jump_table(&mut self) -> Result<MInst, String> {
        let table = self.reg()?;
        self.expect("(")?;
        let label = self.symbol()?;
        self.expect(")")?;
        let index = self.next_reg()?;
        self.expect(",")?;
        let default = self.block()?;
        self.expect(",")?;
        self.expect("[")?;
        let mut targets = Vec::new();
        if !self.eat("]") {
            targets.push(self.block()?);
            while self.eat(",") {
                targets.push(self.block()?);
            }
            self.expect("]")?;
        }
        Ok(MInst::JumpTable {
            index,
            table,
            label,
            targets,
            default,
        })
    }

    /// The instruction of a mnemonic with a condition (`addne`, `bge`, `vmovlt.f32`), the
    /// flag-setting `s` (`subs`) or a block transfer mode (`ldmia`).
    fn suffixed(&mut self, mnemonic: &str) -> Result<MInst, String> {
        for op in ALU_OPS {
            let Some(suffix) = mnemonic.strip_prefix(op.name()) else {
                continue;
            };
            let flags = suffix == "s";
            let cond = match suffix {
                "" | "s" => None,
                _ => Some(cond(suffix).ok_or_else(|| unknown(mnemonic))?),
            };
            let (rd, rn, src) = (self.reg()?, self.next_reg()?, self.next_operand2()?);
            return Ok(if flags {
                MInst::AluS { op, rd, rn, src }
            } else {
                MInst::Alu {
                    cond,
                    op,
                    rd,
                    rn,
                    src,
                }
            });
        }
        let conditional = |prefix: &str| -> Option<Option<Cond>> {
            match mnemonic.strip_prefix(prefix)? {
                "" => Some(None),
                suffix => cond(suffix).map(Some),
            }
        };
        if let Some(cond) = conditional("mov") {
            return Ok(MInst::Mov {
                cond,
                rd: self.reg()?,
                src: self.next_operand2()?,
            });
        }
        for name in ["cmp", "cmn", "tst"] {
            if let Some(cond) = conditional(name) {
                let (rn, src) = (self.reg()?, self.next_operand2()?);
                return Ok(match name {
                    "cmp" => MInst::Cmp { cond, rn, src },
                    "cmn" => MInst::Cmn { cond, rn, src },
                    _ => MInst::Tst { cond, rn, src },
                });
            }
        }
        if let Some(cond) = conditional("ldr") {
            return Ok(MInst::Ldr {
                cond,
                rd: self.reg()?,
                addr: self.next_addr()?,
            });
        }
        if let Some(cond) = conditional("str") {
            return Ok(MInst::Str {
                cond,
                rs: self.reg()?,
                addr: self.next_addr()?,
            });
        }
        if let Some(Some(cond)) = conditional("b") {
            return Ok(MInst::BCond {
                cond,
                target: self.block()?,
            });
        }
        let moved_if = mnemonic
            .strip_prefix("vmov")
            .and_then(|m| m.strip_suffix(".f32"))
            .and_then(cond);
        if let Some(cond) = moved_if {
            return Ok(MInst::VMovIf {
                cond,
                sd: self.reg()?,
                sm: self.next_reg()?,
            });
        }
        for name in ["ldm", "stm", "vldm", "vstm"] {
            let Some(mode) = mnemonic
                .strip_prefix(name)
                .and_then(|m| BlockMode::ALL.into_iter().find(|b| b.name() == m))
            else {
                continue;
            };
            let (base, writeback, regs) = self.block_transfer()?;
            return Ok(match name {
                "ldm" => MInst::Ldm {
                    mode,
                    base,
                    writeback,
                    regs,
                },
                "stm" => MInst::Stm {
                    mode,
                    base,
                    writeback,
                    regs,
                },
                "vldm" => MInst::VLdm {
                    mode,
                    base,
                    writeback,
                    regs,
                },
                _ => MInst::VStm {
                    mode,
                    base,
                    writeback,
                    regs,
                },
            });
        }
        Err(unknown(mnemonic))
    }
}

fn unknown(mnemonic: &str) -> String {
    format!("unknown instruction '{mnemonic}'")
}

/// The register `name` (`%v12`, `r4`, `s7`) of a function with virtual registers of
/// `classes`.
fn reg_named(name: &str, classes: &[RegClass]) -> Result<Reg, String> {
    if let Some(n) = name.strip_prefix("%v") {
        let n: u32 = n
            .parse()
            .map_err(|_| format!("'{name}' is not a register"))?;
        if n as usize >= classes.len() {
            return Err(format!(
                "{name} beyond the function's {} virtual registers",
                classes.len()
            ));
        }
        return Ok(Reg::Virt(VReg(n)));
    }
    PReg::named(name)
        .map(Reg::Phys)
        .ok_or_else(|| format!("'{name}' is not a register"))
}
