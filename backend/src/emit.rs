//! Writing GNU `as` text: functions with prologue and epilogue, and the data of globals
//! and format strings. Instructions are written by `mir::inst_text`, the printer the text
//! form of machine IR shares, in the syntax `Asm`: stack offsets resolved, blocks by their
//! labels, pseudo-instructions expanded.

use crate::frame::Frame;
use crate::global_layout::{GlobalLayout, ALIGN};
use crate::imm::is_operand2;
use crate::isel::string_label;
use crate::mir::frame_placement::frame_up_at_start;
use crate::mir::inst_text::{write_inst, Syntax};
use crate::mir::*;
use crate::symbols::symbol;
use middle::ir::printer::escape_bytes;
use middle::ir::{Module, Type};
use std::fmt::{self, Write};

/// The directives the assembly starts with, with `.fpu neon-vfpv4` where the code uses NEON
/// and `.fpu vfpv4` otherwise.
fn header(neon: bool) -> String {
    let fpu = if neon { "neon-vfpv4" } else { "vfpv4" };
    format!("\t.arch armv7ve\n\t.fpu {fpu}\n\t.syntax unified\n\t.arm\n")
}

pub struct Emitter {
    out: String,
}

/// The label of a block: `.L<function number>_<block number>`.
struct Label(usize, MBlockId);

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, ".L{}_{}", self.0, (self.1).0)
    }
}

impl Emitter {
    /// An emitter for code that uses NEON if `neon` holds.
    pub fn new(neon: bool) -> Emitter {
        Emitter { out: header(neon) }
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
            let _ = writeln!(self.out, "{}:", Label(index, b));
            let next = mf.layout.get(position + 1).copied();
            let mut asm = Asm {
                em: self,
                func: index,
                frame: &frame,
                framed: up[b.index()],
            };
            for inst in &mf.block(b).insts {
                asm.framed |= matches!(inst, MInst::Prologue);
                match inst {
                    // A branch to the block laid out next falls through.
                    MInst::B { target } if Some(*target) == next => {}
                    _ => {
                        let _ = write_inst(&mut asm, inst);
                    }
                }
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
            return addr.to_string();
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

/// One function's instructions as assembly: stack slots resolved with its frame, blocks
/// by their labels, and pseudo-instructions expanded.
struct Asm<'a> {
    em: &'a mut Emitter,
    /// The function's number, which its blocks' labels carry.
    func: usize,
    frame: &'a Frame,
    /// Whether the frame is up (a return without it is a plain `bx lr`).
    framed: bool,
}

impl Syntax for Asm<'_> {
    type Label = Label;
    type Address = String;
    const ASSEMBLY: bool = true;

    fn line(&mut self, text: fmt::Arguments) -> fmt::Result {
        self.em.line(text);
        Ok(())
    }

    fn label(&self, b: MBlockId) -> Label {
        Label(self.func, b)
    }

    fn address(&mut self, addr: Addr, float: bool) -> String {
        self.em.mem_operand(addr, self.frame, float)
    }

    fn expand(&mut self, inst: &MInst) -> Option<fmt::Result> {
        let (em, frame) = (&mut *self.em, self.frame);
        match inst {
            MInst::LoadSym { rd, sym } => {
                em.line(format_args!("movw {rd}, #:lower16:{sym}"));
                em.line(format_args!("movt {rd}, #:upper16:{sym}"));
            }
            MInst::SlotAddr { rd, slot, offset } => {
                let off = frame.slot_offset(*slot) as i32 + offset;
                em.add_imm(&rd.to_string(), "sp", off);
            }
            MInst::Copy { dst, src } => {
                if dst != src {
                    let op = match dst.phys().map(PReg::class) {
                        Some(RegClass::Float) => "vmov.f32",
                        Some(RegClass::Vector) => "vmov",
                        _ => "mov",
                    };
                    em.line(format_args!("{op} {dst}, {src}"));
                }
            }
            MInst::VToDoubleCore { lo, hi, sm } => {
                // The low half of q8, which allocation leaves free for this.
                let scratch = PReg::Q8.low_double();
                em.line(format_args!("vcvt.f64.f32 d{scratch}, {sm}"));
                em.line(format_args!("vmov {lo}, {hi}, d{scratch}"));
            }
            MInst::JumpTable {
                index,
                table,
                label,
                targets,
                default,
            } => {
                em.line(format_args!("cmp {index}, #{}", targets.len() - 1));
                em.line(format_args!("ldrls pc, [{table}, {index}, lsl #2]"));
                em.line(format_args!("b {}", Label(self.func, *default)));
                let _ = writeln!(em.out, "{label}:");
                for &t in targets {
                    em.line(format_args!(".word {}", Label(self.func, t)));
                }
            }
            MInst::Prologue => em.prologue(frame),
            MInst::Ret { .. } if !self.framed => em.line("bx lr"),
            MInst::TailCall { sym, .. } if !self.framed => em.line(format_args!("b {sym}")),
            MInst::Ret { .. } => em.epilogue(frame, None),
            MInst::TailCall { sym, .. } => em.epilogue(frame, Some(sym)),
            _ => return None,
        }
        Some(Ok(()))
    }
}

/// `{s16}` or `{s16-sN}` for the first `count` callee-saved float registers.
fn float_list(count: u8) -> String {
    match count {
        1 => "{s16}".to_string(),
        n => format!("{{s16-s{}}}", 15 + n),
    }
}
