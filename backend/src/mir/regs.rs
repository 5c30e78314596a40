//! Registers of machine IR: physical ARM registers (core, single-precision VFP and the
//! quad-word NEON registers q8-q15), virtual registers, and which registers a call clobbers.

use super::{Addr, MInst};
use std::fmt;

/// How many physical registers there are.
pub const PHYS_REGS: usize = 56;

/// A physical register: 0-15 are the core registers r0-r15, 16-47 are s0-s31, 48-55 are
/// q8-q15 (d16-d31, which no `s` register aliases).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PReg(pub u8);

impl PReg {
    pub const R0: PReg = PReg(0);
    pub const R1: PReg = PReg(1);
    pub const R2: PReg = PReg(2);
    pub const R3: PReg = PReg(3);
    /// The intra-procedure scratch register: allocatable, except in a function whose frame
    /// needs it for an offset no load or store encodes (`Frame::needs_ip`).
    pub const IP: PReg = PReg(12);
    pub const SP: PReg = PReg(13);
    pub const LR: PReg = PReg(14);
    pub const PC: PReg = PReg(15);
    pub const S0: PReg = PReg(16);
    /// The first vector register, q8.
    pub const Q8: PReg = PReg(48);

    pub fn core(n: u8) -> PReg {
        PReg(n)
    }

    pub fn s(n: u8) -> PReg {
        PReg(16 + n)
    }

    /// Vector register q`n`, for `n` in 8..16.
    pub const fn q(n: u8) -> PReg {
        PReg(PReg::Q8.0 + n - 8)
    }

    pub fn class(self) -> RegClass {
        match self.0 {
            0..16 => RegClass::Int,
            16..48 => RegClass::Float,
            _ => RegClass::Vector,
        }
    }

    /// The number within its file (r5 -> 5, s7 -> 7, q9 -> 9).
    pub fn number(self) -> u8 {
        match self.0 {
            0..16 => self.0,
            16..48 => self.0 - 16,
            _ => self.0 - PReg::Q8.0 + 8,
        }
    }

    /// The double-word register holding the low half of vector register `self` (q9 -> 18);
    /// the high half is the next one.
    pub fn low_double(self) -> u8 {
        2 * self.number()
    }
}

/// The assembler name of each physical register, by number (written for every operand of
/// the output, so looked up rather than formatted).
const NAMES: [&str; PHYS_REGS] = [
    "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "ip", "sp", "lr",
    "pc", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13",
    "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25", "s26",
    "s27", "s28", "s29", "s30", "s31", "q8", "q9", "q10", "q11", "q12", "q13", "q14", "q15",
];

impl PReg {
    /// The register of an assembler name as `Display` writes it (`r4`, `ip`, `s7`).
    pub fn named(name: &str) -> Option<PReg> {
        NAMES.iter().position(|&n| n == name).map(|k| PReg(k as u8))
    }
}

impl fmt::Display for PReg {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(NAMES[self.0 as usize])
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegClass {
    /// Core registers: i32, i1 and pointers.
    Int,
    /// VFP single-precision registers.
    Float,
    /// NEON quad-word registers: `v4i32` and `v4f32`.
    Vector,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reg {
    Phys(PReg),
    Virt(VReg),
}

impl RegClass {
    /// Every class, in the order of `index`.
    pub const ALL: [RegClass; 3] = [RegClass::Int, RegClass::Float, RegClass::Vector];

    /// The index of the class in per-class arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The bytes a register of the class holds (the size of its spill slot).
    pub fn bytes(self) -> u32 {
        match self {
            RegClass::Int | RegClass::Float => 4,
            RegClass::Vector => 16,
        }
    }

    /// A load of register `r` of this class from stack slot `addr`.
    pub fn reload(self, r: Reg, addr: Addr) -> MInst {
        match self {
            RegClass::Int => MInst::Ldr {
                cond: None,
                rd: r,
                addr,
            },
            RegClass::Float => MInst::VLdr { sd: r, addr },
            RegClass::Vector => MInst::VecLoad { qd: r, addr },
        }
    }

    /// A store of register `r` of this class to stack slot `addr`.
    pub fn spill(self, r: Reg, addr: Addr) -> MInst {
        match self {
            RegClass::Int => MInst::Str {
                cond: None,
                rs: r,
                addr,
            },
            RegClass::Float => MInst::VStr { ss: r, addr },
            RegClass::Vector => MInst::VecStore { qs: r, addr },
        }
    }
}

impl Reg {
    pub fn phys(self) -> Option<PReg> {
        match self {
            Reg::Phys(p) => Some(p),
            Reg::Virt(_) => None,
        }
    }
}

impl From<PReg> for Reg {
    fn from(p: PReg) -> Reg {
        Reg::Phys(p)
    }
}

/// Registers a call may overwrite: r0-r3, ip, lr, s0-s15 and q8-q15.
pub fn caller_saved() -> impl Iterator<Item = PReg> {
    (0..4)
        .chain([12, 14])
        .map(PReg)
        .chain((0..16).map(PReg::s))
        .chain((8..16).map(PReg::q))
}
