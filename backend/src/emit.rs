//! Writing GNU `as` text: functions with prologue and epilogue, stack offsets resolved, and
//! the data of globals and format strings.

use crate::frame::Frame;
use crate::global_layout::{GlobalLayout, ALIGN};
use crate::imm::is_operand2;
use crate::isel::string_label;
use crate::mir::frame_placement::frame_up_at_start;
use crate::mir::*;
use crate::symbols::symbol;
use middle::ir::printer::escape_bytes;
use middle::ir::{Module, Type};
use std::fmt::Write;

pub const HEADER: &str = "\t.arch armv7ve\n\t.fpu vfpv4\n\t.syntax unified\n\t.arm\n";

pub struct Emitter {
    out: String,
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

    /// Writes `s` as an indented line, formatting it straight into the output.
    fn line(&mut self, s: impl std::fmt::Display) {
        let _ = writeln!(self.out, "\t{s}");
    }

    /// `rd = v`.
    fn load_imm(&mut self, rd: &str, v: u32) {
        self.line(format_args!("movw {rd}, #{}", v & 0xffff));
        if v >> 16 != 0 {
            self.line(format_args!("movt {rd}, #{}", v >> 16));
        }
    }

    /// `rd = rn + v` for any v, building v in rd (never rn) when it does not encode.
    fn add_imm(&mut self, rd: &str, rn: &str, v: i32) {
        if is_operand2(v as u32) {
            self.line(format_args!("add {rd}, {rn}, #{v}"));
        } else if is_operand2(v.wrapping_neg() as u32) {
            self.line(format_args!("sub {rd}, {rn}, #{}", v.wrapping_neg()));
        } else {
            self.load_imm(rd, v as u32);
            self.line(format_args!("add {rd}, {rn}, {rd}"));
        }
    }

    pub fn function(&mut self, index: usize, mf: &MFunction) {
        let frame = Frame::new(mf);
        let sym = &mf.symbol;
        self.line(".text");
        self.line(".p2align 2");
        if mf.global {
            self.line(format_args!(".globl {sym}"));
        }
        self.line(format_args!(".type {sym}, %function"));
        let _ = writeln!(self.out, "{sym}:");
        let up = frame_up_at_start(mf).unwrap_or_else(|_| vec![true; mf.blocks.len()]);
        if up.first() == Some(&true) {
            self.prologue(&frame);
        }
        for (position, &b) in mf.layout.iter().enumerate() {
            let _ = writeln!(self.out, "{}:", label(index, b));
            let next = mf.layout.get(position + 1).copied();
            let mut framed = up[b.index()];
            for inst in &mf.block(b).insts {
                framed |= matches!(inst, MInst::Prologue);
                self.inst(index, next, inst, &frame, framed);
            }
        }
        self.line(format_args!(".size {sym}, .-{sym}"));
    }

    /// Saves the callee-saved registers the function writes and reserves its stack.
    fn prologue(&mut self, frame: &Frame) {
        if !frame.saved_core.is_empty() {
            let regs: Vec<String> = frame.saved_core.iter().map(|p| p.to_string()).collect();
            self.line(format_args!("push {{{}}}", regs.join(", ")));
        }
        if frame.saved_float > 0 {
            self.line(format_args!("vpush {}", float_list(frame.saved_float)));
        }
        self.adjust_sp("sub", frame.frame_bytes);
    }

    fn adjust_sp(&mut self, op: &str, bytes: u32) {
        if bytes == 0 {
            return;
        }
        if is_operand2(bytes) {
            self.line(format_args!("{op} sp, sp, #{bytes}"));
        } else {
            self.load_imm("ip", bytes);
            self.line(format_args!("{op} sp, sp, ip"));
        }
    }

    /// Takes the frame down and returns, or with `tail_call` jumps to that function, which
    /// returns to our caller (`lr` popped back rather than into `pc`).
    fn epilogue(&mut self, frame: &Frame, tail_call: Option<&str>) {
        self.adjust_sp("add", frame.frame_bytes);
        if frame.saved_float > 0 {
            self.line(format_args!("vpop {}", float_list(frame.saved_float)));
        }
        let returns_by_pop = tail_call.is_none() && frame.saved_core.last() == Some(&PReg::LR);
        if !frame.saved_core.is_empty() {
            let regs: Vec<String> = frame
                .saved_core
                .iter()
                .map(|&p| {
                    if p == PReg::LR && returns_by_pop {
                        "pc".to_string()
                    } else {
                        p.to_string()
                    }
                })
                .collect();
            self.line(format_args!("pop {{{}}}", regs.join(", ")));
        }
        match tail_call {
            Some(sym) => self.line(format_args!("b {sym}")),
            None if !returns_by_pop => self.line("bx lr"),
            None => {}
        }
    }

    /// The memory operand of a load or store; a far offset (`Frame::is_far`) is added into
    /// ip, which allocation then left free. Indexed addresses are written as they are:
    /// `writeback` made them with offsets that encode.
    fn mem_operand(&mut self, addr: Addr, frame: &Frame, float: bool) -> String {
        let Some((base, off)) = frame.base_offset(addr) else {
            return match addr {
                Addr::Index(b, i, 0) => format!("[{b}, {i}]"),
                Addr::Index(b, i, s) => format!("[{b}, {i}, lsl #{s}]"),
                _ => addr.to_string(),
            };
        };
        if !frame.is_far(addr, float) {
            return if off == 0 {
                format!("[{base}]")
            } else {
                format!("[{base}, #{off}]")
            };
        }
        assert!(
            !frame.ip_allocated,
            "a far stack offset in a function whose registers include ip"
        );
        if float {
            self.add_imm("ip", &base.to_string(), off);
            "[ip]".to_string()
        } else {
            self.load_imm("ip", off as u32);
            format!("[{base}, ip]")
        }
    }

    /// A load or store (`ldr`, `str`, `vldr`, `vstr`) of `r`.
    fn memory(&mut self, mnemonic: &str, r: Reg, addr: Addr, frame: &Frame) {
        let m = self.mem_operand(addr, frame, mnemonic.starts_with('v'));
        self.line(format_args!("{mnemonic} {}, {m}", r));
    }

    /// Writes one instruction of function `func`; `next` is the block after this one in
    /// the layout, to which a branch falls through; `framed` tells whether the frame is up
    /// (a return without it is a plain `bx lr`).
    fn inst(
        &mut self,
        func: usize,
        next: Option<MBlockId>,
        inst: &MInst,
        frame: &Frame,
        framed: bool,
    ) {
        match inst {
            MInst::Mov { cond, rd, src } => {
                let c = cond.map_or("", Cond::name);
                self.line(format_args!("mov{c} {}, {}", rd, src));
            }
            MInst::Mvn { rd, src } => self.line(format_args!("mvn {}, {}", rd, src)),
            MInst::Movw { rd, imm } => self.line(format_args!("movw {}, #{imm}", rd)),
            MInst::Movt { rd, imm } => self.line(format_args!("movt {}, #{imm}", rd)),
            MInst::LoadSym { rd, sym } => {
                self.line(format_args!("movw {}, #:lower16:{sym}", rd));
                self.line(format_args!("movt {}, #:upper16:{sym}", rd));
            }
            MInst::Alu {
                cond,
                op,
                rd,
                rn,
                src,
            } => {
                let c = cond.map_or("", Cond::name);
                self.line(format_args!("{}{c} {}, {}, {}", op.name(), rd, rn, src))
            }
            MInst::AluS { op, rd, rn, src } => {
                self.line(format_args!("{}s {}, {}, {}", op.name(), rd, rn, src))
            }
            MInst::Mul { rd, rn, rm } => self.line(format_args!("mul {}, {}, {}", rd, rn, rm)),
            MInst::Smmul { rd, rn, rm } => self.line(format_args!("smmul {}, {}, {}", rd, rn, rm)),
            MInst::Usat { rd, bits, rn } => {
                self.line(format_args!("usat {}, #{}, {}", rd, bits, rn))
            }
            MInst::Rbit { rd, rm } => self.line(format_args!("rbit {}, {}", rd, rm)),
            MInst::Clz { rd, rm } => self.line(format_args!("clz {}, {}", rd, rm)),
            MInst::Mla { rd, rn, rm, ra } => {
                self.line(format_args!("mla {}, {}, {}, {}", rd, rn, rm, ra))
            }
            MInst::Mls { rd, rn, rm, ra } => {
                self.line(format_args!("mls {}, {}, {}, {}", rd, rn, rm, ra))
            }
            MInst::SDiv { rd, rn, rm } => self.line(format_args!("sdiv {}, {}, {}", rd, rn, rm)),
            MInst::Cmp { cond, rn, src } => {
                let c = cond.map_or("", Cond::name);
                self.line(format_args!("cmp{c} {}, {}", rn, src))
            }
            MInst::Cmn { cond, rn, src } => {
                let c = cond.map_or("", Cond::name);
                self.line(format_args!("cmn{c} {}, {}", rn, src))
            }
            MInst::Tst { cond, rn, src } => {
                let c = cond.map_or("", Cond::name);
                self.line(format_args!("tst{c} {}, {}", rn, src))
            }
            MInst::Ldr { cond, rd: r, addr } => {
                let mnemonic = format!("ldr{}", cond.map_or("", Cond::name));
                self.memory(&mnemonic, *r, *addr, frame);
            }
            MInst::Str { cond, rs: r, addr } => {
                let mnemonic = format!("str{}", cond.map_or("", Cond::name));
                self.memory(&mnemonic, *r, *addr, frame);
            }
            MInst::VLdr { sd: r, addr } => self.memory("vldr", *r, *addr, frame),
            MInst::VStr { ss: r, addr } => self.memory("vstr", *r, *addr, frame),
            MInst::Ldm { .. } | MInst::Stm { .. } | MInst::VLdm { .. } | MInst::VStm { .. } => {
                self.line(inst)
            }
            MInst::SlotAddr { rd, slot, offset } => {
                let off = frame.slot_offset(*slot) as i32 + offset;
                self.add_imm(&rd.to_string(), "sp", off);
            }
            MInst::VBin { op, sd, sn, sm } => {
                self.line(format_args!("{} {}, {}, {}", op.name(), sd, sn, sm))
            }
            MInst::VMla { sd, sn, sm } => {
                self.line(format_args!("vmla.f32 {}, {}, {}", sd, sn, sm))
            }
            MInst::VNeg { sd, sm } => self.line(format_args!("vneg.f32 {}, {}", sd, sm)),
            MInst::VMovIf { cond, sd, sm } => {
                self.line(format_args!("vmov{}.f32 {}, {}", cond.name(), sd, sm))
            }
            MInst::VMovImm { sd, bits } => self.line(format_args!(
                "vmov.f32 {}, #{:?}",
                sd,
                f32::from_bits(*bits)
            )),
            MInst::VMovFromCore { sd, rn } => self.line(format_args!("vmov {}, {}", sd, rn)),
            MInst::VMovToCore { rd, sn } => self.line(format_args!("vmov {}, {}", rd, sn)),
            MInst::VCvtToFloat { sd, sm } => self.line(format_args!("vcvt.f32.s32 {}, {}", sd, sm)),
            MInst::VCvtToInt { sd, sm } => self.line(format_args!("vcvt.s32.f32 {}, {}", sd, sm)),
            MInst::VCmp { sn, sm } => {
                self.line(format_args!("vcmp.f32 {}, {}", sn, sm));
                self.line("vmrs APSR_nzcv, fpscr");
            }
            MInst::VCmpZero { sn } => {
                self.line(format_args!("vcmp.f32 {}, #0", sn));
                self.line("vmrs APSR_nzcv, fpscr");
            }
            MInst::VToDoubleCore { lo, hi, sm } => {
                self.line(format_args!("vcvt.f64.f32 d16, {}", sm));
                self.line(format_args!("vmov {}, {}, d16", lo, hi));
            }
            MInst::Copy { dst, src } => {
                if dst != src {
                    let op = match dst.phys().map(PReg::class) {
                        Some(RegClass::Float) => "vmov.f32",
                        _ => "mov",
                    };
                    self.line(format_args!("{op} {}, {}", dst, src));
                }
            }
            MInst::JumpTable {
                index,
                table,
                label: table_label,
                targets,
                default,
            } => {
                self.line(format_args!("cmp {index}, #{}", targets.len() - 1));
                self.line(format_args!("ldrls pc, [{table}, {index}, lsl #2]"));
                self.line(format_args!("b {}", label(func, *default)));
                let _ = writeln!(self.out, "{table_label}:");
                for &t in targets {
                    self.line(format_args!(".word {}", label(func, t)));
                }
            }
            MInst::B { target } => {
                if Some(*target) != next {
                    self.line(format_args!("b {}", label(func, *target)));
                }
            }
            MInst::BCond { cond, target } => {
                self.line(format_args!("b{} {}", cond.name(), label(func, *target)))
            }
            MInst::Bl { sym, .. } => self.line(format_args!("bl {sym}")),
            MInst::Prologue => self.prologue(frame),
            MInst::Ret { .. } if !framed => self.line("bx lr"),
            MInst::TailCall { sym, .. } if !framed => self.line(format_args!("b {sym}")),
            MInst::Ret { .. } => self.epilogue(frame, None),
            MInst::TailCall { sym, .. } => self.epilogue(frame, Some(sym)),
        }
    }

    /// Globals in `.data`, `.bss` (all zero) or `.rodata` (`const`), in the order and at
    /// the alignment of `GlobalLayout`, then format strings.
    pub fn data(&mut self, m: &Module) {
        let layout = GlobalLayout::new(m);
        for &id in layout.order() {
            let g = m.global(id);
            let sym = symbol(&g.name);
            self.line(layout.place(id).0.directive());
            self.line(format_args!(".p2align {}", ALIGN.trailing_zeros()));
            self.line(format_args!(".type {sym}, %object"));
            self.line(format_args!(".size {sym}, {}", g.bytes()));
            let _ = writeln!(self.out, "{sym}:");
            let mut next = 0u32;
            for &(index, bits) in &g.init {
                if index > next {
                    self.line(format_args!(".zero {}", (index - next) * 4));
                }
                if g.elem == Type::F32 {
                    self.line(format_args!(".word 0x{bits:08x}"));
                } else {
                    self.line(format_args!(".word {}", bits as i32));
                }
                next = index + 1;
            }
            if g.len > next {
                self.line(format_args!(".zero {}", (g.len - next) * 4));
            }
        }
        if !m.strings.is_empty() {
            self.line(".section .rodata");
            for (i, s) in m.strings.iter().enumerate() {
                let _ = writeln!(self.out, "{}:", string_label(i as u32));
                self.line(format_args!(".asciz \"{}\"", escape_bytes(s)));
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
