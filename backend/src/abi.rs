//! The procedure-call standard: AAPCS with the VFP variant (hard float). Integers and
//! pointers go in r0-r3, floats in s0-s15, the rest on the stack in argument order, 4 bytes
//! each. A variadic call (`putf`) follows the base standard: everything in core registers
//! and on the stack, floats promoted to doubles in an even register pair or an 8-byte
//! aligned stack slot.

use crate::mir::PReg;

/// Where one argument goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgLoc {
    Reg(PReg),
    /// A double in two core registers (low word first).
    RegPair(PReg, PReg),
    /// Byte offset in the stack argument area.
    Stack(u32),
    /// A double at this (8-byte aligned) stack offset.
    StackPair(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// An i32 or a pointer.
    Int,
    Float,
    /// A float passed to a variadic function, promoted to double.
    VariadicDouble,
}

/// Assigns locations; also returns the stack bytes used, rounded up to 8.
pub fn assign(args: &[ArgKind]) -> (Vec<ArgLoc>, u32) {
    let mut next_core = 0u8;
    let mut next_s = 0u8;
    let mut stack = 0u32;
    let mut locs = Vec::with_capacity(args.len());
    for kind in args {
        let loc = match kind {
            ArgKind::Int if next_core < 4 => {
                next_core += 1;
                ArgLoc::Reg(PReg::core(next_core - 1))
            }
            ArgKind::Float if next_s < 16 => {
                next_s += 1;
                ArgLoc::Reg(PReg::s(next_s - 1))
            }
            ArgKind::VariadicDouble => {
                next_core = next_core.next_multiple_of(2);
                if next_core < 4 {
                    next_core += 2;
                    ArgLoc::RegPair(PReg::core(next_core - 2), PReg::core(next_core - 1))
                } else {
                    stack = stack.next_multiple_of(8);
                    stack += 8;
                    ArgLoc::StackPair(stack - 8)
                }
            }
            ArgKind::Int | ArgKind::Float => {
                stack += 4;
                ArgLoc::Stack(stack - 4)
            }
        };
        locs.push(loc);
    }
    (locs, stack.next_multiple_of(8))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ArgKind::*;

    #[test]
    fn ints_then_stack() {
        let (locs, bytes) = assign(&[Int, Int, Int, Int, Int, Int]);
        assert_eq!(locs[3], ArgLoc::Reg(PReg::R3));
        assert_eq!(locs[4], ArgLoc::Stack(0));
        assert_eq!(locs[5], ArgLoc::Stack(4));
        assert_eq!(bytes, 8);
    }

    #[test]
    fn floats_and_ints_interleaved() {
        let mut kinds = vec![Float, Int];
        kinds.extend([Float; 16]);
        kinds.push(Int);
        let (locs, bytes) = assign(&kinds);
        assert_eq!(locs[0], ArgLoc::Reg(PReg::s(0)));
        assert_eq!(locs[1], ArgLoc::Reg(PReg::R0));
        assert_eq!(locs[16], ArgLoc::Reg(PReg::s(15)));
        assert_eq!(locs[17], ArgLoc::Stack(0));
        assert_eq!(locs[18], ArgLoc::Reg(PReg::R1));
        assert_eq!(bytes, 8);
    }

    #[test]
    fn variadic_doubles_align_to_even_registers_and_8_bytes() {
        let (locs, bytes) = assign(&[Int, Int, VariadicDouble, VariadicDouble, Int]);
        assert_eq!(locs[2], ArgLoc::RegPair(PReg::R2, PReg::R3));
        assert_eq!(locs[3], ArgLoc::StackPair(0));
        assert_eq!(locs[4], ArgLoc::Stack(8));
        assert_eq!(bytes, 16);
        let (locs, _) = assign(&[Int, VariadicDouble]);
        assert_eq!(locs[1], ArgLoc::RegPair(PReg::R2, PReg::R3));
        let (locs, bytes) = assign(&[Int, Int, Int, Int, VariadicDouble]);
        assert_eq!(locs[4], ArgLoc::StackPair(0));
        assert_eq!(bytes, 8);
        let (locs, _) = assign(&[Int, Int, Int, Int, Int, VariadicDouble]);
        assert_eq!(locs[5], ArgLoc::StackPair(8));
    }
}
