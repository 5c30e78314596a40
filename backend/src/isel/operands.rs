//! Operands: the register holding a value (materialising constants, addresses and undefined
//! values), flexible second operands, and where constants are built: once in the preheader
//! of the loops around their use, or once per few instructions of a block.

use super::Selector;
use crate::imm::{is_operand2, vfp_immediate};
use crate::mir::*;
use crate::symbols::symbol;
use middle::ir::{Block, Type, Value};

/// How many instructions after building a constant outside loops the same block may read
/// it again (`block_consts`).
const CONSTANT_REACH: usize = 24;

/// Constants are hoisted out of loops while fewer than this many hoisted ones live through
/// the loop: more would only be spilled again, and each lengthens the allocator's work.
const MAX_HOISTED: usize = 16;

/// Constants in loops nested deeper than this stay where they are used, so that finding
/// the loops around a use costs a bounded walk.
const MAX_HOIST_DEPTH: usize = 32;

impl Selector<'_> {
    /// A register holding `v`, materialising constants, addresses and undefined values.
    pub(super) fn reg(&mut self, v: Value) -> Reg {
        let known = match v {
            Value::Inst(i) => self.inst_regs[i.index()],
            Value::Param(p) => Some(self.param_regs[p as usize]),
            Value::Global(g) => self.global_regs[g.index()].or_else(|| {
                let section = self.layout.place(g).0 as usize;
                self.anchors[section].filter(|_| self.anchor_of[section] == Some(g))
            }),
            _ => None,
        };
        if let Some(r) = known {
            return r;
        }
        match v {
            Value::Int(x) => self.int_const(x as u32),
            Value::Bool(b) => self.int_const(b as u32),
            Value::Float(bits) => self.float_const(bits),
            Value::Undef(t) => {
                let zero = self.int_const(0);
                if t == Type::F32 {
                    let r = self.new_vreg(RegClass::Float);
                    self.emit(MInst::VMovFromCore { sd: r, rn: zero });
                    r
                } else if t.is_vector() {
                    let r = self.new_vreg(RegClass::Vector);
                    self.emit(MInst::VecDup { qd: r, rn: zero });
                    r
                } else {
                    zero
                }
            }
            Value::Global(g) => {
                let r = self.new_vreg(RegClass::Int);
                let sym = symbol(&self.m.global(g).name);
                self.emit(MInst::LoadSym { rd: r, sym });
                r
            }
            Value::Inst(i) => {
                let obj = self.allocas[i.index()].expect("an address is an alloca");
                let r = self.new_vreg(RegClass::Int);
                self.emit(MInst::SlotAddr {
                    rd: r,
                    slot: Slot::Local(obj),
                    offset: 0,
                });
                r
            }
            Value::Param(_) => unreachable!("parameters have registers"),
        }
    }

    /// `v` as a flexible second operand: an immediate when it encodes, else a register.
    pub(super) fn op2(&mut self, v: Value) -> Operand2 {
        match v {
            Value::Int(x) if is_operand2(x as u32) => Operand2::Imm(x as u32),
            Value::Bool(b) => Operand2::Imm(b as u32),
            _ => Operand2::Reg(self.reg(v)),
        }
    }

    /// The preheaders of the loops around the current block that have one, outermost
    /// first, up to the first loop with other loops inside besides the one the block is
    /// in: a constant hoisted there would live through its sibling loops too, crowding
    /// their registers (and, spilled, be rematerialised at every use, the hot loop's too).
    /// Empty where constants stay in place (outside loops, for phi copies, while
    /// materialising into a preheader, and in nests deeper than `MAX_HOIST_DEPTH`).
    fn preheaders_around(&self) -> Vec<Block> {
        let innermost = self.block.and_then(|b| self.loops.innermost(b));
        let Some(mut k) = innermost.filter(|_| !self.in_place) else {
            return Vec::new();
        };
        let mut chain = Vec::new();
        for _ in 0..MAX_HOIST_DEPTH {
            let l = &self.loops.loops[k];
            chain.extend(l.preheader);
            match l.parent {
                Some(p) if self.loops.loops[p].children.len() == 1 => k = p,
                _ => {
                    chain.reverse();
                    return chain;
                }
            }
        }
        Vec::new()
    }

    /// The register of a constant of `class` with these bits, materialised by `make`: in a
    /// loop, once in the preheader of the outermost loop around it (see `hoisted`) unless
    /// `MAX_HOISTED` constants hoisted there or in inner preheaders already live through
    /// this block; else here, once per few instructions of the block (`block_consts`).
    fn constant(&mut self, class: RegClass, bits: u32, make: fn(&mut Self, u32) -> Reg) -> Reg {
        let chain = self.preheaders_around();
        for pre in &chain {
            if let Some(&r) = self.hoisted_consts.get(&(*pre, class, bits)) {
                return r;
            }
        }
        let live: usize = chain.iter().map(|p| self.hoisted_count[p.index()]).sum();
        let Some(&pre) = chain.first().filter(|_| live < MAX_HOISTED) else {
            if self.in_place {
                return make(self, bits);
            }
            let here = self.cur.len();
            if let Some(&(r, at)) = self.block_consts.get(&(class, bits)) {
                if here - at <= CONSTANT_REACH {
                    return r;
                }
            }
            let r = make(self, bits);
            self.block_consts.insert((class, bits), (r, self.cur.len()));
            return r;
        };
        let here = std::mem::replace(
            &mut self.cur,
            std::mem::take(&mut self.hoisted[pre.index()]),
        );
        self.in_place = true;
        let r = make(self, bits);
        self.in_place = false;
        self.hoisted[pre.index()] = std::mem::replace(&mut self.cur, here);
        self.hoisted_consts.insert((pre, class, bits), r);
        self.hoisted_count[pre.index()] += 1;
        r
    }

    /// Puts each preheader's hoisted constants before its branch.
    pub(super) fn place_hoisted(&mut self) {
        for b in self.f.blocks() {
            let code = std::mem::take(&mut self.hoisted[b.index()]);
            if code.is_empty() {
                continue;
            }
            let insts = &mut self.mf.block_mut(self.block_index[b.index()]).insts;
            let end = insts
                .iter()
                .rposition(|i| !i.is_terminator())
                .map_or(0, |p| p + 1);
            insts.splice(end..end, code);
        }
    }

    pub(super) fn int_const(&mut self, v: u32) -> Reg {
        self.constant(RegClass::Int, v, Self::materialize_int)
    }

    fn float_const(&mut self, bits: u32) -> Reg {
        self.constant(RegClass::Float, bits, |s, bits| {
            let r = s.new_vreg(RegClass::Float);
            if vfp_immediate(bits) {
                s.emit(MInst::VMovImm { sd: r, bits });
            } else {
                let core = s.materialize_int(bits);
                s.emit(MInst::VMovFromCore { sd: r, rn: core });
            }
            r
        })
    }

    fn materialize_int(&mut self, v: u32) -> Reg {
        let rd = self.new_vreg(RegClass::Int);
        if is_operand2(v) {
            self.emit(MInst::Mov {
                cond: None,
                rd,
                src: Operand2::Imm(v),
            });
        } else if is_operand2(!v) {
            self.emit(MInst::Mvn {
                rd,
                src: Operand2::Imm(!v),
            });
        } else {
            self.emit(MInst::Movw { rd, imm: v as u16 });
            if v >> 16 != 0 {
                self.emit(MInst::Movt {
                    rd,
                    imm: (v >> 16) as u16,
                });
            }
        }
        rd
    }
}

#[cfg(test)]
#[path = "operands_tests.rs"]
mod tests;
