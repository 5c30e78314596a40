//! The text form of machine IR, for dumps (`--print-after`) and messages: instructions as
//! `inst_text` writes them in assembly's words, but with shifts by 0, the registers calls
//! use and define, and pseudo-instructions as they are; virtual registers as `%v12`, blocks
//! as `bb3`, stack slots as `local2`, `in8` (the caller's stack argument at byte 8) and
//! `out0` (ours to a callee). A function states how many virtual registers it has and which are floats, its
//! stack objects' sizes and its outgoing argument bytes, then lists its blocks in layout
//! order, each with its loop depth, frequency and successors, and after them the blocks
//! left out of the layout. `mir::parser` reads the text back.

use super::inst_text::{write_inst, Syntax};
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

/// The numbers of the virtual registers of one class, runs of consecutive ones as `12-14`:
/// `3, 7, 12-14`.
struct Runs<'a>(&'a [RegClass], RegClass);

impl fmt::Display for Runs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let Runs(classes, class) = *self;
        let mut first = true;
        let mut k = 0;
        while k < classes.len() {
            if classes[k] != class {
                k += 1;
                continue;
            }
            let start = k;
            while k < classes.len() && classes[k] == class {
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

/// The text form's syntax: blocks as `bb3`, addresses as they are (stack slots by name),
/// pseudo-instructions as they are.
struct TextForm<'a, 'b>(&'a mut fmt::Formatter<'b>);

impl Syntax for TextForm<'_, '_> {
    type Label = MBlockId;
    type Address = Addr;
    const ASSEMBLY: bool = false;

    fn line(&mut self, text: fmt::Arguments) -> fmt::Result {
        self.0.write_fmt(text)
    }

    fn label(&self, b: MBlockId) -> MBlockId {
        b
    }

    fn address(&mut self, addr: Addr, _float: bool) -> Addr {
        addr
    }
}

impl fmt::Display for MInst {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write_inst(&mut TextForm(f), self)
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
            let classes = &self.vreg_classes;
            let named: Vec<(&str, RegClass)> =
                [("float", RegClass::Float), ("vector", RegClass::Vector)]
                    .into_iter()
                    .filter(|&(_, class)| classes.contains(&class))
                    .collect();
            for (k, &(name, class)) in named.iter().enumerate() {
                let open = if k == 0 { " (" } else { "; " };
                write!(f, "{open}{name}: {}", Runs(classes, class))?;
            }
            writeln!(f, "{}", if named.is_empty() { "" } else { ")" })?;
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
