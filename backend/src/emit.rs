//! Writing GNU `as` text: functions with prologue and epilogue, stack offsets resolved, and
//! the data of globals and format strings.

use crate::frame::Frame;
use crate::imm::{fits_ldr_offset, fits_vldr_offset, is_operand2};
use crate::isel::string_label;
use crate::mir::*;
use crate::symbols::symbol;
use middle::ir::printer::escape_bytes;
use middle::ir::{Module, Type};
use std::fmt::Write;

pub const HEADER: &str = "\t.arch armv7ve\n\t.fpu vfpv4\n\t.syntax unified\n\t.arm\n";

pub struct Emitter {
    out: String,
}

fn reg(r: Reg) -> String {
    r.to_string()
}

fn op2(o: Operand2) -> String {
    o.to_string()
}

fn label(func: usize, block: MBlockId) -> String {
    format!(".L{func}_{}", block.0)
}

impl Emitter {
    pub fn new() -> Emitter {
        Emitter {
            out: HEADER.to_string(),
        }
    }

    pub fn finish(mut self) -> String {
        self.line(".section .note.GNU-stack,\"\",%progbits");
        self.out
    }

    fn line(&mut self, s: impl AsRef<str>) {
        self.out.push('\t');
        self.out.push_str(s.as_ref());
        self.out.push('\n');
    }

    /// `ip = v`.
    fn load_ip(&mut self, v: u32) {
        self.line(format!("movw ip, #{}", v & 0xffff));
        if v >> 16 != 0 {
            self.line(format!("movt ip, #{}", v >> 16));
        }
    }

    /// `rd = rn + v` for any v, using ip when it does not encode.
    fn add_imm(&mut self, rd: &str, rn: &str, v: i32) {
        if is_operand2(v as u32) {
            self.line(format!("add {rd}, {rn}, #{v}"));
        } else if is_operand2(v.wrapping_neg() as u32) {
            self.line(format!("sub {rd}, {rn}, #{}", v.wrapping_neg()));
        } else {
            self.load_ip(v as u32);
            self.line(format!("add {rd}, {rn}, ip"));
        }
    }

    pub fn function(&mut self, index: usize, mf: &MFunction) {
        let frame = Frame::new(mf);
        let sym = &mf.symbol;
        self.line(".text");
        self.line(".p2align 2");
        if mf.global {
            self.line(format!(".globl {sym}"));
        }
        self.line(format!(".type {sym}, %function"));
        let _ = writeln!(self.out, "{sym}:");
        if !frame.saved_core.is_empty() {
            let regs: Vec<String> = frame.saved_core.iter().map(|p| p.to_string()).collect();
            self.line(format!("push {{{}}}", regs.join(", ")));
        }
        if frame.saved_float > 0 {
            self.line(format!("vpush {}", float_list(frame.saved_float)));
        }
        self.adjust_sp("sub", frame.frame_bytes);
        for (position, &b) in mf.layout.iter().enumerate() {
            let _ = writeln!(self.out, "{}:", label(index, b));
            let next = mf.layout.get(position + 1).copied();
            for inst in &mf.block(b).insts {
                self.inst(index, next, inst, &frame);
            }
        }
        self.line(format!(".size {sym}, .-{sym}"));
    }

    fn adjust_sp(&mut self, op: &str, bytes: u32) {
        if bytes == 0 {
            return;
        }
        if is_operand2(bytes) {
            self.line(format!("{op} sp, sp, #{bytes}"));
        } else {
            self.load_ip(bytes);
            self.line(format!("{op} sp, sp, ip"));
        }
    }

    fn epilogue(&mut self, frame: &Frame) {
        self.adjust_sp("add", frame.frame_bytes);
        if frame.saved_float > 0 {
            self.line(format!("vpop {}", float_list(frame.saved_float)));
        }
        let returns_by_pop = frame.saved_core.last() == Some(&PReg::LR);
        if !frame.saved_core.is_empty() {
            let regs: Vec<String> = frame
                .saved_core
                .iter()
                .map(|&p| {
                    if p == PReg::LR {
                        "pc".to_string()
                    } else {
                        p.to_string()
                    }
                })
                .collect();
            self.line(format!("pop {{{}}}", regs.join(", ")));
        }
        if !returns_by_pop {
            self.line("bx lr");
        }
    }

    /// The base register and offset of an address; large offsets are added into ip.
    fn mem_operand(&mut self, addr: Addr, frame: &Frame, float: bool) -> String {
        let (base, off) = match addr {
            Addr::Index(b, i, s) => {
                return if s == 0 {
                    format!("[{}, {}]", reg(b), reg(i))
                } else {
                    format!("[{}, {}, lsl #{s}]", reg(b), reg(i))
                };
            }
            Addr::Imm(b, off) => (reg(b), off),
            Addr::Slot(slot, off) => ("sp".to_string(), frame.slot_offset(slot) as i32 + off),
        };
        let fits = if float {
            fits_vldr_offset(off)
        } else {
            fits_ldr_offset(off)
        };
        if fits {
            if off == 0 {
                format!("[{base}]")
            } else {
                format!("[{base}, #{off}]")
            }
        } else if float {
            self.add_imm("ip", &base, off);
            "[ip]".to_string()
        } else {
            self.load_ip(off as u32);
            format!("[{base}, ip]")
        }
    }

    /// A load or store (`ldr`, `str`, `vldr`, `vstr`) of `r`.
    fn memory(&mut self, mnemonic: &str, r: Reg, addr: Addr, frame: &Frame) {
        let m = self.mem_operand(addr, frame, mnemonic.starts_with('v'));
        self.line(format!("{mnemonic} {}, {m}", reg(r)));
    }

    /// Writes one instruction of function `func`; `next` is the block after this one in
    /// the layout, to which a branch falls through.
    fn inst(&mut self, func: usize, next: Option<MBlockId>, inst: &MInst, frame: &Frame) {
        match inst {
            MInst::Mov { cond, rd, src } => {
                let c = cond.map_or("", Cond::name);
                self.line(format!("mov{c} {}, {}", reg(*rd), op2(*src)));
            }
            MInst::Mvn { rd, src } => self.line(format!("mvn {}, {}", reg(*rd), op2(*src))),
            MInst::Movw { rd, imm } => self.line(format!("movw {}, #{imm}", reg(*rd))),
            MInst::Movt { rd, imm } => self.line(format!("movt {}, #{imm}", reg(*rd))),
            MInst::LoadSym { rd, sym } => {
                self.line(format!("movw {}, #:lower16:{sym}", reg(*rd)));
                self.line(format!("movt {}, #:upper16:{sym}", reg(*rd)));
            }
            MInst::Alu { op, rd, rn, src } => self.line(format!(
                "{} {}, {}, {}",
                op.name(),
                reg(*rd),
                reg(*rn),
                op2(*src)
            )),
            MInst::Mul { rd, rn, rm } => {
                self.line(format!("mul {}, {}, {}", reg(*rd), reg(*rn), reg(*rm)))
            }
            MInst::Mls { rd, rn, rm, ra } => self.line(format!(
                "mls {}, {}, {}, {}",
                reg(*rd),
                reg(*rn),
                reg(*rm),
                reg(*ra)
            )),
            MInst::SDiv { rd, rn, rm } => {
                self.line(format!("sdiv {}, {}, {}", reg(*rd), reg(*rn), reg(*rm)))
            }
            MInst::Cmp { rn, src } => self.line(format!("cmp {}, {}", reg(*rn), op2(*src))),
            MInst::Ldr { rd: r, addr } => self.memory("ldr", *r, *addr, frame),
            MInst::Str { rs: r, addr } => self.memory("str", *r, *addr, frame),
            MInst::VLdr { sd: r, addr } => self.memory("vldr", *r, *addr, frame),
            MInst::VStr { ss: r, addr } => self.memory("vstr", *r, *addr, frame),
            MInst::SlotAddr { rd, slot, offset } => {
                let off = frame.slot_offset(*slot) as i32 + offset;
                self.add_imm(&reg(*rd), "sp", off);
            }
            MInst::VBin { op, sd, sn, sm } => self.line(format!(
                "{} {}, {}, {}",
                op.name(),
                reg(*sd),
                reg(*sn),
                reg(*sm)
            )),
            MInst::VNeg { sd, sm } => self.line(format!("vneg.f32 {}, {}", reg(*sd), reg(*sm))),
            MInst::VMovFromCore { sd, rn } => self.line(format!("vmov {}, {}", reg(*sd), reg(*rn))),
            MInst::VMovToCore { rd, sn } => self.line(format!("vmov {}, {}", reg(*rd), reg(*sn))),
            MInst::VCvtToFloat { sd, sm } => {
                self.line(format!("vcvt.f32.s32 {}, {}", reg(*sd), reg(*sm)))
            }
            MInst::VCvtToInt { sd, sm } => {
                self.line(format!("vcvt.s32.f32 {}, {}", reg(*sd), reg(*sm)))
            }
            MInst::VCmp { sn, sm } => {
                self.line(format!("vcmp.f32 {}, {}", reg(*sn), reg(*sm)));
                self.line("vmrs APSR_nzcv, fpscr");
            }
            MInst::VToDoubleCore { lo, hi, sm } => {
                self.line(format!("vcvt.f64.f32 d16, {}", reg(*sm)));
                self.line(format!("vmov {}, {}, d16", reg(*lo), reg(*hi)));
            }
            MInst::Copy { dst, src } => {
                if dst != src {
                    let op = match dst.phys().map(PReg::class) {
                        Some(RegClass::Float) => "vmov.f32",
                        _ => "mov",
                    };
                    self.line(format!("{op} {}, {}", reg(*dst), reg(*src)));
                }
            }
            MInst::B { target } => {
                if Some(*target) != next {
                    self.line(format!("b {}", label(func, *target)));
                }
            }
            MInst::BCond { cond, target } => {
                self.line(format!("b{} {}", cond.name(), label(func, *target)))
            }
            MInst::Bl { sym, .. } => self.line(format!("bl {sym}")),
            MInst::Ret { .. } => self.epilogue(frame),
        }
    }

    /// Globals in `.data`, `.bss` (all zero) or `.rodata` (`const`), then format strings.
    pub fn data(&mut self, m: &Module) {
        for g in &m.globals {
            let sym = symbol(&g.name);
            let section = if g.is_const {
                ".section .rodata"
            } else if g.init.is_empty() {
                ".bss"
            } else {
                ".data"
            };
            self.line(section);
            self.line(".p2align 3");
            self.line(format!(".type {sym}, %object"));
            self.line(format!(".size {sym}, {}", g.bytes()));
            let _ = writeln!(self.out, "{sym}:");
            let mut next = 0u32;
            for &(index, bits) in &g.init {
                if index > next {
                    self.line(format!(".zero {}", (index - next) * 4));
                }
                let shown = if g.elem == Type::F32 {
                    format!("0x{bits:08x}")
                } else {
                    (bits as i32).to_string()
                };
                self.line(format!(".word {shown}"));
                next = index + 1;
            }
            if g.len > next {
                self.line(format!(".zero {}", (g.len - next) * 4));
            }
        }
        if !m.strings.is_empty() {
            self.line(".section .rodata");
            for (i, s) in m.strings.iter().enumerate() {
                let _ = writeln!(self.out, "{}:", string_label(i as u32));
                self.line(format!(".asciz \"{}\"", escape_bytes(s)));
            }
        }
    }
}

/// `{s16}` or `{s16-sN}` for the first `count` callee-saved float registers.
fn float_list(count: u8) -> String {
    match count {
        1 => "{s16}".to_string(),
        n => format!("{{s16-s{}}}", 15 + n),
    }
}
