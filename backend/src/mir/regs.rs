//! Registers of machine IR: physical ARM registers (core and single-precision VFP), virtual
//! registers, and which registers a call clobbers.

use std::fmt;

/// A physical register: 0-15 are the core registers r0-r15, 16-47 are s0-s31.
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

    pub fn core(n: u8) -> PReg {
        PReg(n)
    }

    pub fn s(n: u8) -> PReg {
        PReg(16 + n)
    }

    pub fn class(self) -> RegClass {
        if self.0 < 16 {
            RegClass::Int
        } else {
            RegClass::Float
        }
    }

    /// The number within its file (r5 -> 5, s7 -> 7).
    pub fn number(self) -> u8 {
        if self.0 < 16 {
            self.0
        } else {
            self.0 - 16
        }
    }
}

/// The assembler name of each physical register, by number (written for every operand of
/// the output, so looked up rather than formatted).
const NAMES: [&str; 48] = [
    "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "ip", "sp", "lr",
    "pc", "s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13",
    "s14", "s15", "s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25", "s26",
    "s27", "s28", "s29", "s30", "s31",
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reg {
    Phys(PReg),
    Virt(VReg),
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

/// Registers a call may overwrite: r0-r3, ip, lr and s0-s15.
pub fn caller_saved() -> impl Iterator<Item = PReg> {
    (0..4).chain([12, 14]).map(PReg).chain((0..16).map(PReg::s))
}
