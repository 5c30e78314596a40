//! Addresses and memory: the rules of loads, stores and `getelementptr`, the addresses
//! accesses fold (stack objects, constant offsets, scaled and negated indices, offsets
//! from a section's anchor), and `getelementptr` computed whole.

use super::matcher::{Match, Rule};
use super::Selector;
use crate::global_layout::Section;
use crate::imm::{fits_offset, is_operand2};
use crate::mir::*;
use middle::ir::pattern::*;
use middle::ir::{BinaryOp, Inst, InstKind, Opcode, Type, Value};

/// The address a load or store reads or writes.
pub(super) const PTR: Var = Var::new(15);

/// The rules of memory accesses and addresses. An access folds the `getelementptr` it
/// reaches in place (`addresses_in_place`), which has no code of its own when every user
/// does; an address computed whole folds an index negated for such addresses alone.
pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule::new("vldr", load(var(PTR)))
            .when(|s, m| s.f.inst(m.root).ty == Type::F32)
            .folding_where(PTR, |s, _, g| s.addresses_in_place(g, true))
            .emits(|s, m| s.load(m, true)),
        Rule::new("ldr", load(var(PTR)))
            .folding_where(PTR, |s, _, g| s.addresses_in_place(g, false))
            .emits(|s, m| s.load(m, false)),
        Rule::new("vstr", store(var(X), var(PTR)))
            .when(|s, m| s.f.value_type(m.value(X)) == Type::F32)
            .folding_where(PTR, |s, _, g| s.addresses_in_place(g, true))
            .emits(|s, m| s.store(m, true)),
        Rule::new("str", store(var(X), var(PTR)))
            .folding_where(PTR, |s, _, g| s.addresses_in_place(g, false))
            .emits(|s, m| s.store(m, false)),
        Rule::new(
            "slotaddr",
            gep(bind(B, opcode(Opcode::Alloca)), int_const(C1)),
        )
        .emits(|s, m| s.slot_address(m)),
        Rule::new("sub-index", gep(var(B), bind(A, sub(int(0), var(X)))))
            .when(|s, m| s.folded_negation(m.value(A)).is_some())
            .folding(A)
            .emits(|s, m| s.sub_index(m)),
        Rule::new("gep", gep(var(B), var(A))).emits(|s, m| s.gep(m)),
    ]
}

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

    /// Whether an access, of a float if `float`, reaches the address `g` in place: `g` a
    /// `getelementptr` not indexed from a section's anchor (`is_anchor_indexed`) that
    /// `folded_addr` finds a mode for.
    fn addresses_in_place(&self, g: Inst, float: bool) -> bool {
        matches!(self.f.kind(g), InstKind::Gep { .. })
            && !self.is_anchor_indexed(g)
            && self.folded_addr(Value::Inst(g), float).is_some()
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

    /// `x` where `index` is a negation `0 - x` used only as the index of addresses
    /// `gep b, -x, 2^s` off a base that is not a global (`invariant-bases` makes `a[k - i]`
    /// in a loop over `i` such an address off `&a[k]`): each access takes `x` subtracted
    /// (`ldr r, [b, -x, lsl #s]`), and an address computed whole is `sub rd, b, x, lsl #s`.
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

    /// A load from `PTR` into the root's register, a float one if `float`.
    fn load(&mut self, m: &Match, float: bool) {
        let (rd, addr) = (m.dst(), self.addr(m.value(PTR), float));
        self.emit(if float {
            MInst::VLdr { sd: rd, addr }
        } else {
            MInst::Ldr {
                cond: None,
                rd,
                addr,
            }
        });
    }

    /// A store of `X` to `PTR`, a float one if `float`.
    fn store(&mut self, m: &Match, float: bool) {
        let rs = self.reg(m.value(X));
        let addr = self.addr(m.value(PTR), float);
        self.emit(if float {
            MInst::VStr { ss: rs, addr }
        } else {
            MInst::Str {
                cond: None,
                rs,
                addr,
            }
        });
    }

    /// A fixed place `C1` in the stack array `B`: one address that can be repeated anywhere.
    fn slot_address(&mut self, m: &Match) {
        let obj = self.alloca_of(m.value(B)).expect("a stack array");
        let stride = self.stride(m.root);
        self.emit(MInst::SlotAddr {
            rd: m.dst(),
            slot: Slot::Local(obj),
            offset: m.int(C1).wrapping_mul(stride as i32),
        });
    }

    /// `rd = b - x * 2^s` for the address `gep b, 0 - x, 2^s`, the negation folded
    /// (`folded_negation`).
    fn sub_index(&mut self, m: &Match) {
        let rn = self.reg(m.value(B));
        let ri = self.reg(m.value(X));
        let shift = self.stride(m.root).trailing_zeros() as u8;
        self.emit(MInst::Alu {
            cond: None,
            op: AluOp::Sub,
            rd: m.dst(),
            rn,
            src: Operand2::Shifted(ri, Shift::Lsl, shift),
        });
    }

    /// The stride of the `getelementptr` `i`.
    fn stride(&self, i: Inst) -> u32 {
        match *self.f.kind(i) {
            InstKind::Gep { stride, .. } => stride,
            _ => unreachable!("not a getelementptr"),
        }
    }

    /// The address `gep B, A` computed whole, `B + A * stride`: an address off a section's
    /// anchor (shared in the block) or a row on the anchor, else the base plus the scaled
    /// index.
    fn gep(&mut self, m: &Match) {
        let (i, rd) = (m.root, m.dst());
        let (base, index, stride) = (m.value(B), m.value(A), self.stride(i));
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

    /// `rd = rn + index * stride`: a constant offset, a shifted index added, or the index
    /// multiplied by the stride.
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
                let ri = self.reg(index);
                self.emit(MInst::Alu {
                    cond: None,
                    op: AluOp::Add,
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
