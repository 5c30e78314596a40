//! Calls and parameters under the AAPCS (`abi`): arguments into their registers and
//! outgoing stack slots, the result out of `r0` or `s0`, and parameters received into
//! virtual registers.

use super::matcher::{Match, Rule};
use super::Selector;
use crate::abi::{self, ArgKind, ArgLoc};
use crate::mir::*;
use crate::symbols::symbol;
use middle::ir::pattern::opcode;
use middle::ir::{Callee, InstKind, Opcode, Type, Value};

/// The rule of calls.
pub(super) fn rules() -> Vec<Rule> {
    vec![Rule::new("bl", opcode(Opcode::Call)).emits(|s, m| s.call(m))]
}

impl Selector<'_> {
    /// A call: the arguments into their places, `bl`, and the result, if any, into the
    /// root's register.
    fn call(&mut self, m: &Match) {
        let f = self.f;
        let InstKind::Call { callee, args } = f.kind(m.root) else {
            unreachable!("a call");
        };
        let mut values: Vec<Value> = args.to_vec();
        let mut kinds: Vec<ArgKind> = args.iter().map(|a| arg_kind(f.value_type(*a))).collect();
        let (sym, format) = match callee {
            Callee::Function(id) => (symbol(&self.m.function(*id).name), None),
            Callee::Runtime(r) => (r.symbol().to_string(), None),
            Callee::Memset => ("memset".to_string(), None),
            Callee::Memcpy => ("memcpy".to_string(), None),
            Callee::Putf(s) => ("putf".to_string(), Some(string_label(*s))),
        };
        if format.is_some() {
            // Variadic: the format's address first, floats promoted to doubles.
            for k in kinds.iter_mut() {
                if *k == ArgKind::Float {
                    *k = ArgKind::VariadicDouble;
                }
            }
            kinds.insert(0, ArgKind::Int);
            values.insert(0, Value::Undef(Type::Ptr));
        }
        let (locs, stack_bytes) = abi::assign(&kinds);
        self.mf.outgoing_bytes = self.mf.outgoing_bytes.max(stack_bytes);
        let regs = self.argument_registers(&values, format);
        self.store_stack_arguments(&locs, &regs);
        let uses = self.move_register_arguments(&locs, &regs);
        let ret = f.inst(m.root).ty;
        let result = match ret {
            Type::Void => None,
            Type::F32 => Some(Reg::Phys(PReg::S0)),
            _ => Some(Reg::Phys(PReg::R0)),
        };
        self.emit(MInst::Bl {
            sym,
            uses,
            defs: result.into_iter().collect(),
        });
        if let Some(src) = result {
            self.emit(MInst::Copy { dst: m.dst(), src });
        }
    }

    /// The registers holding each argument of a call, computed before any argument register
    /// is set: the address of the `format` string first where there is one.
    fn argument_registers(&mut self, values: &[Value], format: Option<String>) -> Vec<Reg> {
        let mut regs = Vec::with_capacity(values.len());
        for (k, &v) in values.iter().enumerate() {
            let r = match (&format, k) {
                (Some(label), 0) => {
                    let r = self.new_vreg(RegClass::Int);
                    self.emit(MInst::LoadSym {
                        rd: r,
                        sym: label.clone(),
                    });
                    r
                }
                _ => self.reg(v),
            };
            regs.push(r);
        }
        regs
    }

    /// Stores the arguments passed on the stack (`locs`, the ABI's places of the arguments
    /// in `regs`) into their outgoing slots, a double as its two words.
    fn store_stack_arguments(&mut self, locs: &[ArgLoc], regs: &[Reg]) {
        for (&loc, &r) in locs.iter().zip(regs) {
            let float = self.mf.class_of(r) == RegClass::Float;
            match loc {
                ArgLoc::Stack(off) => {
                    let addr = Addr::Slot(Slot::Outgoing(off), 0);
                    self.emit(if float {
                        MInst::VStr { ss: r, addr }
                    } else {
                        MInst::Str {
                            cond: None,
                            rs: r,
                            addr,
                        }
                    });
                }
                ArgLoc::StackPair(off) => {
                    let (lo, hi) = (self.new_vreg(RegClass::Int), self.new_vreg(RegClass::Int));
                    self.emit(MInst::VToDoubleCore { lo, hi, sm: r });
                    for (part, delta) in [(lo, 0), (hi, 4)] {
                        self.emit(MInst::Str {
                            cond: None,
                            rs: part,
                            addr: Addr::Slot(Slot::Outgoing(off + delta), 0),
                        });
                    }
                }
                ArgLoc::Reg(_) | ArgLoc::RegPair(..) => {}
            }
        }
    }

    /// Moves the arguments passed in registers (`locs`, the ABI's places of the arguments in
    /// `regs`) into them, a double into a pair; returns the argument registers the call reads.
    fn move_register_arguments(&mut self, locs: &[ArgLoc], regs: &[Reg]) -> Vec<Reg> {
        let mut uses = Vec::new();
        for (&loc, &r) in locs.iter().zip(regs) {
            match loc {
                ArgLoc::Reg(p) => {
                    self.emit(MInst::Copy {
                        dst: Reg::Phys(p),
                        src: r,
                    });
                    uses.push(Reg::Phys(p));
                }
                ArgLoc::RegPair(lo, hi) => {
                    self.emit(MInst::VToDoubleCore {
                        lo: Reg::Phys(lo),
                        hi: Reg::Phys(hi),
                        sm: r,
                    });
                    uses.extend([Reg::Phys(lo), Reg::Phys(hi)]);
                }
                ArgLoc::Stack(_) | ArgLoc::StackPair(_) => {}
            }
        }
        uses
    }

    /// Moves the parameters from their argument registers and stack slots into vregs.
    pub(super) fn receive_params(&mut self) {
        let kinds: Vec<ArgKind> = self.f.params.iter().map(|t| arg_kind(*t)).collect();
        let (locs, _) = abi::assign(&kinds);
        for (p, loc) in locs.into_iter().enumerate() {
            let dst = self.param_regs[p];
            let float = self.mf.class_of(dst) == RegClass::Float;
            match loc {
                ArgLoc::Reg(r) => self.emit(MInst::Copy {
                    dst,
                    src: Reg::Phys(r),
                }),
                ArgLoc::Stack(off) => {
                    let addr = Addr::Slot(Slot::Incoming(off), 0);
                    self.emit(if float {
                        MInst::VLdr { sd: dst, addr }
                    } else {
                        MInst::Ldr {
                            cond: None,
                            rd: dst,
                            addr,
                        }
                    });
                }
                ArgLoc::RegPair(..) | ArgLoc::StackPair(_) => {
                    unreachable!("doubles are only passed to variadic functions")
                }
            }
        }
    }
}

fn arg_kind(t: Type) -> ArgKind {
    if t == Type::F32 {
        ArgKind::Float
    } else {
        ArgKind::Int
    }
}

/// The label of a `putf` format string.
pub fn string_label(index: u32) -> String {
    format!(".Lstr{index}")
}
