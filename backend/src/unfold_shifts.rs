//! unfold-shifts: in a block that the multi-cycle pipeline limits, an ALU instruction's
//! shifted operand becomes a shift of its own (`add r0, r1, r2, lsr #31` is `lsr t, r2,
//! #31; add r0, r1, t`). The Cortex-A72 runs an ALU instruction with a shifted operand on
//! its one multi-cycle pipeline, next to multiplies, and a plain shift or ALU instruction
//! on either of its two integer pipelines. A loop body of multiplies (`(c + a * b) % p`:
//! `mla`, `smmul`, the quotient's sign fix `add q, q, q, lsr #31`, `mls`) waits on that one
//! pipeline while the integer pipelines idle.
//!
//! Only blocks of innermost loops, whose rounds overlap, are limited by such throughput;
//! other code waits on its chains of dependences, which an unfolded shift does not shorten
//! (a recursion's return path, `x * 3` added to the rest and reduced, made `rec3args` take
//! 1.008x its cycles; the addresses an inner loop's preheader computes, `interval_dp`
//! 1.001x). Such a block's cycles are estimated by its busiest resource: dispatch (three
//! instructions a cycle) or a kind of pipeline (its instructions over its width,
//! `CostClass::occupancy` counting a divide's cycles). A shifted operand unfolds, one at a
//! time in block order, while that makes the estimate smaller: it takes one instruction
//! from the multi-cycle pipeline and gives two to the integer ones and one more to
//! dispatch.
//!
//! Runs before allocation (the shift's result is a new virtual register) and before
//! pre-schedule, which places the shift. Needs: nothing. Preserves: behaviour.

use crate::cost_model::{CostClass, Pipe, DISPATCH_WIDTH};
use crate::dependences::class;
use crate::mir::loops::LoopNest;
use crate::mir::*;

pub fn run(mf: &mut MFunction) {
    let nest = LoopNest::new(mf);
    let outer: Vec<MBlockId> = nest.headers().filter_map(|h| nest.parent(h)).collect();
    for b in 0..mf.blocks.len() {
        let innermost = nest.loops_of(MBlockId(b as u32)).next();
        if innermost.is_none_or(|h| outer.contains(&h)) {
            continue;
        }
        let mut load = Load::of(&mf.blocks[b].insts, &mf.vreg_classes);
        let mut k = 0;
        while k < mf.blocks[b].insts.len() {
            let shifted = flexible_operand(&mut mf.blocks[b].insts[k])
                .map(|src| *src)
                .filter(|src| matches!(src, Operand2::Shifted(..)));
            let Some(shifted) = shifted else {
                k += 1;
                continue;
            };
            let unfolded = load.unfolded();
            if unfolded.cycles() >= load.cycles() {
                break;
            }
            let t = mf.new_vreg(RegClass::Int);
            let insts = &mut mf.blocks[b].insts;
            *flexible_operand(&mut insts[k]).expect("an operand just read") = Operand2::Reg(t);
            let shift = MInst::Mov {
                rd: t,
                src: shifted,
                cond: None,
            };
            insts.insert(k, shift);
            load = unfolded;
            k += 2;
        }
    }
}

/// What a block asks of dispatch and of each kind of pipeline, in slot-cycles.
#[derive(Clone, Copy)]
struct Load {
    dispatched: u32,
    pipes: [u32; Pipe::ALL.len()],
}

impl Load {
    fn of(insts: &[MInst], vreg_classes: &[RegClass]) -> Load {
        let mut load = Load {
            dispatched: 0,
            pipes: [0; Pipe::ALL.len()],
        };
        for inst in insts {
            if inst.is_terminator() {
                // Branches take a dispatch slot and a pipeline of their own.
                load.dispatched += 1;
            } else {
                load.add(class(inst, vreg_classes), 1);
            }
        }
        load
    }

    fn add(&mut self, class: CostClass, times: i32) {
        let at = class.pipe().index();
        self.pipes[at] = self.pipes[at].saturating_add_signed(times * class.occupancy() as i32);
        self.dispatched = self.dispatched.saturating_add_signed(times);
    }

    /// The load with one more shifted operand unfolded.
    fn unfolded(self) -> Load {
        let mut load = self;
        load.add(CostClass::ShiftedAlu, -1);
        load.add(CostClass::Alu, 2);
        load
    }

    /// The estimated cycles, in units of a sixth of a cycle (so that widths 1, 2 and 3
    /// divide exactly): the busiest resource's.
    fn cycles(&self) -> u32 {
        let dispatch = self.dispatched * 6 / DISPATCH_WIDTH;
        Pipe::ALL
            .iter()
            .zip(self.pipes)
            .map(|(p, used)| used * 6 / p.width())
            .fold(dispatch, u32::max)
    }
}

/// The flexible second operand of an ALU instruction or a compare: a shifted register
/// there runs the instruction on the multi-cycle pipeline (`add r0, r1, r2, lsl #2`, `cmp
/// r0, r1, lsr #3`).
fn flexible_operand(inst: &mut MInst) -> Option<&mut Operand2> {
    match inst {
        MInst::Alu { src, .. }
        | MInst::AluS { src, .. }
        | MInst::Cmp { src, .. }
        | MInst::Cmn { src, .. }
        | MInst::Tst { src, .. } => Some(src),
        _ => None,
    }
}

#[cfg(test)]
#[path = "unfold_shifts_tests.rs"]
mod tests;
