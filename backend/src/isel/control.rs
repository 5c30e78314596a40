//! The end of each block: copies for the phis of its successors, and its terminator (a
//! jump, a conditional branch or a return).

use super::Selector;
use crate::mir::*;
use crate::parallel_copy::sequentialize;
use middle::ir::{Block, Inst, InstKind, Type, Value};

impl Selector<'_> {
    /// Copies for the phis of `b`'s successors, as one parallel copy made sequential.
    pub(super) fn phi_copies(&mut self, b: Block) {
        let f = self.f;
        let mut pairs = Vec::new();
        for &s in f.successors(b) {
            for phi in f.block_insts(s) {
                let InstKind::Phi { args, blocks } = f.kind(phi) else {
                    break;
                };
                if let Some(k) = blocks.iter().position(|&x| x == b) {
                    pairs.push((self.def(phi), args[k]));
                }
            }
        }
        self.in_place = true;
        let copies: Vec<(Reg, Reg)> = pairs
            .into_iter()
            .map(|(dst, v)| (dst, self.reg(v)))
            .collect();
        self.in_place = false;
        let sequence = sequentialize(&copies, |r| {
            let class = self.mf.class_of(r);
            self.mf.new_vreg(class)
        });
        for (dst, src) in sequence {
            self.emit(MInst::Copy { dst, src });
        }
    }

    /// Selects the terminator `i`; returns the successor list of its block.
    pub(super) fn terminator(&mut self, i: Inst) -> Vec<MBlockId> {
        match *self.f.kind(i) {
            InstKind::Br { targets: [t] } => {
                let target = self.block_index[t.index()];
                self.emit(MInst::B { target });
                vec![target]
            }
            InstKind::CondBr {
                args: [Value::Bool(holds)],
                targets: [t, e],
            } => {
                // A branch on a constant that no pass after the last simplify-cfg folded.
                let target = self.block_index[if holds { t } else { e }.index()];
                self.emit(MInst::B { target });
                vec![target]
            }
            InstKind::CondBr {
                args: [c],
                targets: [t, e],
            } => {
                let conds = self.condition(c);
                let (then_target, else_target) =
                    (self.block_index[t.index()], self.block_index[e.index()]);
                for cond in conds {
                    self.emit(MInst::BCond {
                        cond,
                        target: then_target,
                    });
                }
                self.emit(MInst::B {
                    target: else_target,
                });
                if then_target == else_target {
                    vec![then_target]
                } else {
                    vec![then_target, else_target]
                }
            }
            InstKind::Ret { args } => {
                let mut uses = Vec::new();
                if let Some(v) = args {
                    let src = self.reg(v);
                    let dst = if self.f.ret == Type::F32 {
                        PReg::S0
                    } else {
                        PReg::R0
                    };
                    self.emit(MInst::Copy {
                        dst: Reg::Phys(dst),
                        src,
                    });
                    uses.push(Reg::Phys(dst));
                }
                self.emit(MInst::Ret { uses });
                Vec::new()
            }
            _ => unreachable!("not a terminator"),
        }
    }
}
