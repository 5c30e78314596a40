//! Addresses and memory: loads and stores, the addresses they fold (stack objects, constant
//! offsets, scaled and negated indices, offsets from a section's anchor), and
//! `getelementptr` computed whole.

use super::Selector;
use crate::global_layout::Section;
use crate::imm::{fits_offset, is_operand2};
use crate::mir::*;
use middle::ir::{BinaryOp, Inst, InstKind, Type, Value};

impl Selector<'_> {
    fn alloca_of(&self, v: Value) -> Option<u32> {
        v.as_inst().and_then(|i| self.allocas[i.index()])
    }

    /// A load or store `i`: the index of its address operand, the address, and whether the
    /// value it moves is a float.
    pub(super) fn access(&self, i: Inst) -> Option<(usize, Value, bool)> {
        match *self.f.kind(i) {
            InstKind::Load { args: [p] } => Some((0, p, self.f.inst(i).ty == Type::F32)),
            InstKind::Store { args: [x, p] } => Some((1, p, self.f.value_type(x) == Type::F32)),
            _ => None,
        }
    }

    /// Whether every use of `v` is as the address of a load or store for which `fits`
    /// holds, given whether that access moves a float.
    pub(super) fn only_accessed(&self, v: Value, fits: impl Fn(bool) -> bool) -> bool {
        self.f.uses(v).iter().all(|u| {
            self.access(u.inst)
                .is_some_and(|(at, _, float)| at == u.index as usize && fits(float))
        })
    }

    /// How an access of `ptr` can address memory without computing `ptr` itself.
    pub(super) fn folded_addr(&self, ptr: Value, float: bool) -> Option<AddrPlan> {
        if let Some(obj) = self.alloca_of(ptr) {
            return Some(AddrPlan::Slot(obj, 0));
        }
        if let Value::Global(g) = ptr {
            return self.anchored(g, 0, |off| fits_offset(off, float));
        }
        let i = ptr.as_inst()?;
        let InstKind::Gep {
            args: [base, index],
            stride,
        } = *self.f.kind(i)
        else {
            return None;
        };
        if let (Value::Global(g), true) = (base, self.is_anchor_indexed(i)) {
            return Some(AddrPlan::Imm(ptr, self.distance_from_anchor(g).1));
        }
        match (index, self.alloca_of(base)) {
            (Value::Int(c), Some(obj)) => Some(AddrPlan::Slot(obj, c.wrapping_mul(stride as i32))),
            (Value::Int(c), None) => {
                let off = c.wrapping_mul(stride as i32);
                if let Value::Global(g) = base {
                    let near = |off| matches!(self.far_offset_plan(i, off), FarOffset::Near);
                    if let Some(plan) = self.anchored(g, off, near) {
                        return Some(plan);
                    }
                }
                match self.far_offset_plan(i, off) {
                    FarOffset::Near => Some(AddrPlan::Imm(base, off)),
                    FarOffset::Index if !float => Some(AddrPlan::Index(base, Value::Int(off), 0)),
                    FarOffset::Index | FarOffset::Computed => None,
                }
            }
            (_, None) if !float && stride.is_power_of_two() => {
                let shift = stride.trailing_zeros() as u8;
                Some(match self.folded_negation(index) {
                    Some(x) => AddrPlan::IndexDown(base, x, shift),
                    None => AddrPlan::Index(base, index, shift),
                })
            }
            _ => None,
        }
    }

    /// How the accesses of `gep b, off` (bytes) address it: with `off` as their immediate
    /// when every one can take it; else the address is computed once (`add a, b, #off;
    /// ldr r, [a]`) if the offset is an immediate of `add` or several accesses share it;
    /// else the one access, a core one, takes the offset from a register (`movw t, #off;
    /// ldr r, [b, t]`).
    fn far_offset_plan(&self, i: Inst, off: i32) -> FarOffset {
        let uses = self.f.uses(Value::Inst(i));
        let far = uses.iter().any(|u| {
            let float = self.access(u.inst).is_some_and(|(_, _, float)| float);
            !fits_offset(off, float)
        });
        if !far {
            FarOffset::Near
        } else if is_operand2(off as u32) || uses.len() > 1 {
            FarOffset::Computed
        } else {
            FarOffset::Index
        }
    }

    pub(super) fn is_folded_gep(&self, i: Inst) -> bool {
        if !matches!(self.f.kind(i), InstKind::Gep { .. }) || self.is_anchor_indexed(i) {
            return false;
        }
        let v = Value::Inst(i);
        self.only_accessed(v, |float| self.folded_addr(v, float).is_some())
    }

    /// A negation `0 - x` used only as the index of addresses `gep b, -x, 2^s` off a base
    /// that is not a global (`invariant-bases` makes `a[k - i]` in a loop over `i` such an
    /// address off `&a[k]`): each access takes `x` subtracted (`ldr r, [b, -x, lsl #s]`),
    /// and an address computed whole is `sub rd, b, x, lsl #s`.
    pub(super) fn is_folded_negation(&self, i: Inst) -> bool {
        self.folded_negation(Value::Inst(i)).is_some()
    }

    /// `x` where `index` is such a negation `0 - x` (`is_folded_negation`).
    fn folded_negation(&self, index: Value) -> Option<Value> {
        let f = self.f;
        let InstKind::Binary {
            op: BinaryOp::Sub,
            args: [Value::Int(0), x],
        } = *f.kind(index.as_inst()?)
        else {
            return None;
        };
        let only_indexes = f.uses(index).iter().all(|u| {
            u.index == 1
                && matches!(*f.kind(u.inst), InstKind::Gep { args: [base, _], stride }
                    if stride.is_power_of_two() && !matches!(base, Value::Global(_)))
        });
        only_indexes.then_some(x)
    }

    pub(super) fn addr(&mut self, ptr: Value, float: bool) -> Addr {
        match self.folded_addr(ptr, float) {
            Some(AddrPlan::Slot(obj, off)) => Addr::Slot(Slot::Local(obj), off),
            Some(AddrPlan::Imm(base, off)) => Addr::Imm(self.reg(base), off),
            Some(AddrPlan::Anchored(section, off)) => {
                let anchor =
                    self.anchors[section as usize].expect("an anchored access has an anchor");
                Addr::Imm(anchor, off)
            }
            Some(AddrPlan::Index(base, index, shift)) => {
                Addr::Index(self.reg(base), self.reg(index), shift)
            }
            Some(AddrPlan::IndexDown(base, index, shift)) => {
                Addr::IndexDown(self.reg(base), self.reg(index), shift)
            }
            None => Addr::Imm(self.reg(ptr), 0),
        }
    }

    /// Load `i` from `p`.
    pub(super) fn load(&mut self, i: Inst, p: Value) {
        let rd = self.def(i);
        if self.f.inst(i).ty == Type::F32 {
            let addr = self.addr(p, true);
            self.emit(MInst::VLdr { sd: rd, addr });
        } else {
            let addr = self.addr(p, false);
            self.emit(MInst::Ldr {
                cond: None,
                rd,
                addr,
            });
        }
    }

    /// A store of `x` to `p`.
    pub(super) fn store(&mut self, x: Value, p: Value) {
        let rs = self.reg(x);
        if self.f.value_type(x) == Type::F32 {
            let addr = self.addr(p, true);
            self.emit(MInst::VStr { ss: rs, addr });
        } else {
            let addr = self.addr(p, false);
            self.emit(MInst::Str {
                cond: None,
                rs,
                addr,
            });
        }
    }

    /// The address of gep `i`, `base + index * stride`, computed whole: a fixed place in a
    /// stack array, an address off a section's anchor (shared in the block) or a row on
    /// the anchor, else the base plus the scaled index.
    pub(super) fn gep(&mut self, i: Inst, base: Value, index: Value, stride: u32) {
        let rd = self.def(i);
        if let (Value::Inst(a), Value::Int(c)) = (base, index) {
            if let Some(obj) = self.allocas[a.index()] {
                // A fixed place in a stack array: one address that can be repeated anywhere.
                self.emit(MInst::SlotAddr {
                    rd,
                    slot: Slot::Local(obj),
                    offset: c.wrapping_mul(stride as i32),
                });
                return;
            }
        }
        // An anchor-indexed gep is the anchor plus the scaled index, shared in the block.
        let section = match base {
            Value::Global(g) if self.is_anchor_indexed(i) => Some(self.layout.place(g).0),
            _ => None,
        };
        if let Some(section) = section {
            let key = (section, index, stride.trailing_zeros() as u8);
            if let Some(&t) = self.block_indexed.get(&key) {
                self.emit(MInst::Copy { dst: rd, src: t });
                return;
            }
            self.block_indexed.insert(key, rd);
        }
        if let Some((anchor, off)) = self.row_from_anchor(i) {
            self.row_on_anchor(rd, index, stride, anchor, off);
            return;
        }
        let rn = match section {
            Some(s) => self.anchors[s as usize].expect("an anchor-indexed gep has an anchor"),
            None => self.reg(base),
        };
        self.base_plus_index(rd, rn, index, stride);
    }

    /// `rd = anchor + off + index * stride` for a row reached from a section's anchor
    /// (`row_from_anchor`): `mla t, x, stride, anchor`, then the global's distance from the
    /// anchor.
    fn row_on_anchor(&mut self, rd: Reg, index: Value, stride: u32, anchor: Reg, off: i32) {
        let ri = self.reg(index);
        let rs = self.int_const(stride);
        let t = if off == 0 {
            rd
        } else {
            self.new_vreg(RegClass::Int)
        };
        self.emit(MInst::Mla {
            rd: t,
            rn: ri,
            rm: rs,
            ra: anchor,
        });
        if off != 0 {
            self.emit(MInst::Alu {
                cond: None,
                op: if off < 0 { AluOp::Sub } else { AluOp::Add },
                rd,
                rn: t,
                src: Operand2::Imm(off.unsigned_abs()),
            });
        }
    }

    /// `rd = rn + index * stride`: a constant offset, a shifted index added (or subtracted,
    /// a negated one), or the index multiplied by the stride.
    fn base_plus_index(&mut self, rd: Reg, rn: Reg, index: Value, stride: u32) {
        match index {
            Value::Int(c) => {
                let off = c.wrapping_mul(stride as i32) as u32;
                let src = self.op2(Value::Int(off as i32));
                self.emit(MInst::Alu {
                    cond: None,
                    op: AluOp::Add,
                    rd,
                    rn,
                    src,
                });
            }
            _ if stride.is_power_of_two() => {
                let (op, index) = match self.folded_negation(index) {
                    Some(x) => (AluOp::Sub, x),
                    None => (AluOp::Add, index),
                };
                let ri = self.reg(index);
                self.emit(MInst::Alu {
                    cond: None,
                    op,
                    rd,
                    rn,
                    src: Operand2::Shifted(ri, Shift::Lsl, stride.trailing_zeros() as u8),
                });
            }
            _ => {
                let ri = self.reg(index);
                let rs = self.int_const(stride);
                let scaled = self.new_vreg(RegClass::Int);
                self.emit(MInst::Mul {
                    rd: scaled,
                    rn: ri,
                    rm: rs,
                });
                self.emit(MInst::Alu {
                    cond: None,
                    op: AluOp::Add,
                    rd,
                    rn,
                    src: Operand2::Reg(scaled),
                });
            }
        }
    }
}

pub(super) enum AddrPlan {
    Slot(u32, i32),
    Imm(Value, i32),
    /// At an offset from the anchor of a section (`GlobalLayout`).
    Anchored(Section, i32),
    Index(Value, Value, u8),
    /// `[base, -index, lsl #shift]`.
    IndexDown(Value, Value, u8),
}

/// How the accesses of an address at a constant offset from a base take the offset.
enum FarOffset {
    /// As their immediate.
    Near,
    /// From a register holding it.
    Index,
    /// Not at all: the address is computed.
    Computed,
}

#[cfg(test)]
#[path = "addresses_tests.rs"]
mod tests;
