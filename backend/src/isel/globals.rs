//! Global addresses: the register of each global used more than once, taken in the entry
//! block, and the section anchors (`GlobalLayout`) from which a function reaches the
//! globals of a section at constant offsets.

use super::addresses::AddrPlan;
use super::Selector;
use crate::global_layout::Section;
use crate::imm::{fits_offset, is_operand2};
use crate::mir::*;
use crate::symbols::symbol;
use middle::ir::{Block, GlobalId, Inst, InstKind, Value};
use std::cmp::Reverse;

impl Selector<'_> {
    /// Takes the address of every global the function uses more than once into a register
    /// of its own: an address used in a loop is then not rebuilt (`movw` and `movt`) on
    /// every iteration. Accesses at a constant offset from a section's anchor
    /// (`GlobalLayout`) take the anchor's register instead, one for the whole section.
    pub(super) fn global_addresses(&mut self) {
        let mut uses = vec![0u32; self.m.globals.len()];
        let mut anchored = [false; 3];
        for i in self.f.all_insts() {
            let kind = self.f.kind(i);
            // The operand of a load or store whose address is reached from an anchor.
            let mut anchored_at = None;
            if let Some((at, p, float)) = self.access(i) {
                if let Some(AddrPlan::Anchored(s, _)) = self.folded_addr(p, float) {
                    anchored[s as usize] = true;
                    anchored_at = Some(at);
                }
            }
            if let (
                InstKind::Gep {
                    args: [Value::Global(g), _],
                    ..
                },
                true,
            ) = (kind, self.is_anchor_indexed(i))
            {
                anchored[self.layout.place(*g).0 as usize] = true;
                continue;
            }
            let folded_into_anchor = self.folded[i.index()]
                && matches!(
                    self.folded_addr(Value::Inst(i), false),
                    Some(AddrPlan::Anchored(..))
                );
            for (n, &v) in kind.operands().iter().enumerate() {
                let Value::Global(g) = v else {
                    continue;
                };
                if folded_into_anchor || anchored_at == Some(n) {
                    continue;
                }
                // An address taken in a loop is taken there on every round; a phi takes
                // its operands at the end of the blocks they come from.
                let at = match kind {
                    InstKind::Phi { blocks, .. } => Some(blocks[n]),
                    _ => self.f.inst_block(i),
                };
                let in_loop = at.and_then(|b| self.loops.innermost(b)).is_some();
                uses[g.index()] += if in_loop { 2 } else { 1 };
            }
        }
        for (g, &n) in uses.iter().enumerate() {
            if n > 1 {
                let r = self.new_vreg(RegClass::Int);
                let sym = symbol(&self.m.globals[g].name);
                self.emit(MInst::LoadSym { rd: r, sym });
                self.global_regs[g] = Some(r);
            }
        }
        // An anchor with a register of its own serves as the section's.
        for s in Section::ALL {
            if anchored[s as usize] {
                let anchor = self.anchor_of[s as usize].expect("an anchored section has an anchor");
                let r = self.global_regs[anchor.index()].unwrap_or_else(|| {
                    let r = self.new_vreg(RegClass::Int);
                    let sym = symbol(&self.m.global(anchor).name);
                    self.emit(MInst::LoadSym { rd: r, sym });
                    r
                });
                self.anchors[s as usize] = Some(r);
            }
        }
    }

    /// Chooses, per section, the global the function reaches that section's globals from:
    /// the one whose address it takes most otherwise (as an array indexed by a variable,
    /// weighted by loop depth), whose register then serves the others too, else the one
    /// nearest the section's start that it uses. Reaches globals from it only where at
    /// least two accesses or address computations would, not counting those of `main`
    /// outside loops: for one, the anchor's address is no cheaper than the global's own,
    /// and it is built in the entry block, where a use on a rare path would not build it;
    /// code that runs once does not pay for the register (`life`'s tables, filled at the
    /// start of `main`, took a spill in its loops).
    pub(super) fn choose_anchors(&mut self) {
        // Per used global, how often its address is taken other than at a constant offset.
        let mut score: Vec<Option<u32>> = vec![None; self.m.globals.len()];
        for i in self.f.all_insts() {
            let kind = self.f.kind(i);
            for (n, &v) in kind.operands().iter().enumerate() {
                let Value::Global(g) = v else {
                    continue;
                };
                let at_constant = match *kind {
                    InstKind::Load { .. } => true,
                    InstKind::Store { .. } => n == 1,
                    InstKind::Gep {
                        args: [_, index], ..
                    } => index.is_constant(),
                    _ => false,
                };
                let depth = self.f.inst_block(i).map_or(0, |b| self.loops.depth(b));
                let weight = if at_constant {
                    0
                } else {
                    1 << (3 * depth.min(5))
                };
                *score[g.index()].get_or_insert(0) += weight;
            }
        }
        let mut best: [Option<(u32, Reverse<u32>, GlobalId)>; 3] = [None; 3];
        for (g, s) in score.iter().enumerate() {
            let Some(s) = *s else {
                continue;
            };
            let g = GlobalId(g as u32);
            let (section, at) = self.layout.place(g);
            let candidate = (s, Reverse(at), g);
            let slot = &mut best[section as usize];
            if slot.is_none_or(|b| candidate > b) {
                *slot = Some(candidate);
            }
        }
        self.anchor_of = best.map(|b| b.map(|(_, _, g)| g));
        // `main` runs once: its accesses outside loops do not pay for a register.
        let once = |i: Inst| {
            self.f.name == "main"
                && self
                    .f
                    .inst_block(i)
                    .is_some_and(|b| self.loops.innermost(b).is_none())
        };
        let mut count = [0u32; 3];
        for i in self.f.all_insts().filter(|&i| !once(i)) {
            let section = match *self.f.kind(i) {
                InstKind::Gep {
                    args: [Value::Global(g), _],
                    ..
                } if self.is_reached_from_anchor(i) => Some(self.layout.place(g).0),
                _ => match self
                    .access(i)
                    .and_then(|(_, p, float)| self.folded_addr(p, float))
                {
                    Some(AddrPlan::Anchored(s, _)) => Some(s),
                    _ => None,
                },
            };
            if let Some(s) = section {
                count[s as usize] += 1;
            }
        }
        self.anchoring = count.map(|n| n >= 2);
    }

    /// Per block, whether a register of its own per global address likely holds there: in
    /// a function that makes no call, and in loops, which get registers first (a loop that
    /// calls may still keep the address in a callee-saved register; reaching it from an
    /// anchor instead took an `add` per access there, 1.11x the cycles of `nqueens`).
    fn keeps_addresses(&self, b: Block) -> bool {
        !self.calls || self.loops.innermost(b).is_some()
    }

    /// `gep @g, x, s` with `x` not a constant, in a block where each global's own address
    /// likely does not stay in a register (`keeps_addresses`): `g` and the stride `s`.
    fn indexed_global_off_registers(&self, i: Inst) -> Option<(GlobalId, u32)> {
        let InstKind::Gep {
            args: [Value::Global(g), index],
            stride,
        } = *self.f.kind(i)
        else {
            return None;
        };
        let b = self.f.inst_block(i)?;
        (!index.is_constant() && !self.keeps_addresses(b)).then_some((g, stride))
    }

    /// The access of global `g` at byte `off` as an offset from its section's anchor, when
    /// `fits` takes that offset as an immediate.
    pub(super) fn anchored(
        &self,
        g: GlobalId,
        off: i32,
        fits: impl Fn(i32) -> bool,
    ) -> Option<AddrPlan> {
        let (section, at) = self.distance_from_anchor(g);
        let off = at.checked_add(off)?;
        (self.anchoring[section as usize] && fits(off)).then_some(AddrPlan::Anchored(section, off))
    }

    /// The section of `g` and its distance from the global the function reaches that
    /// section's globals from (`choose_anchors`).
    pub(super) fn distance_from_anchor(&self, g: GlobalId) -> (Section, i32) {
        let (section, at) = self.layout.place(g);
        let anchor = self.anchor_of[section as usize].map_or(0, |a| self.layout.place(a).1);
        (section, at as i32 - anchor as i32)
    }

    /// Whether `gep @g, x, 2^s`, `x` not a constant, is computed from its section's anchor
    /// (`add t, anchor, x, lsl #s`) and each of its accesses, all loads and stores, adds
    /// `g`'s offset (`ldr r, [t, #off]`). Where calls compete for the registers, the
    /// address of each global would be rebuilt at its uses (`movw`, `movt`): this takes
    /// one instruction fewer, and accesses of several globals at one index share `t`.
    /// Where the registers likely hold each global's address (`keeps_addresses`), the
    /// access takes it with the index and no add (`ldr r, [a, x, lsl #s]`), and so does
    /// the anchor itself, which the anchor's register serves that way.
    pub(super) fn is_anchor_indexed(&self, i: Inst) -> bool {
        self.is_reached_from_anchor(i)
            && matches!(*self.f.kind(i), InstKind::Gep { args: [Value::Global(g), _], .. }
                if self.distance_from_anchor(g).1 != 0)
    }

    /// `is_anchor_indexed` but for the anchor's own elements: whether gep `i` takes its
    /// address from the anchor's register, with the anchor's offset in its accesses.
    fn is_reached_from_anchor(&self, i: Inst) -> bool {
        let Some((g, stride)) = self.indexed_global_off_registers(i) else {
            return false;
        };
        if !stride.is_power_of_two() || !self.anchoring[self.layout.place(g).0 as usize] {
            return false;
        }
        let off = self.distance_from_anchor(g).1;
        self.only_accessed(Value::Inst(i), |float| fits_offset(off, float))
    }

    /// For `gep @g, x, s` with a stride `s` that is no power of two (a row of a matrix,
    /// `row_used[r]`) outside loops of a function that calls, where the section's anchor
    /// has a register (for the section, or its own) and `g` none of its own: the anchor's
    /// register and `g`'s distance from it, when an `add` takes that distance. The row is
    /// then `mla` on the anchor and one `add`, where `g`'s address took a `movw` and a
    /// `movt` besides the multiply and the add.
    pub(super) fn row_from_anchor(&self, i: Inst) -> Option<(Reg, i32)> {
        let (g, stride) = self.indexed_global_off_registers(i)?;
        if stride.is_power_of_two() || self.global_regs[g.index()].is_some() {
            return None;
        }
        let (section, off) = self.distance_from_anchor(g);
        let anchor = self.anchors[section as usize].or_else(|| {
            self.anchor_of[section as usize].and_then(|a| self.global_regs[a.index()])
        })?;
        is_operand2(off.unsigned_abs()).then_some((anchor, off))
    }
}

#[cfg(test)]
#[path = "globals_tests.rs"]
mod tests;
