//! The end of each block: copies for the phis of its successors, and the rules of its
//! terminator (a jump, a conditional branch, which folds a condition tested in place, or a
//! return).

use super::matcher::{Match, Rule};
use super::Selector;
use crate::mir::*;
use crate::parallel_copy::sequentialize;
use middle::ir::pattern::*;
use middle::ir::{Block, InstKind, Opcode, Type, Value};

/// The rules of terminators; each sets the block's successors (`succs`).
pub(super) fn rules() -> Vec<Rule> {
    vec![
        Rule::new("b", inst(Opcode::Br, vec![])).emits(|s, m| {
            let t = s.f.kind(m.root).targets()[0];
            s.jump(t)
        }),
        Rule::new("bcond", cond_br(var(C)))
            .folding_where(C, |s, _, c| s.is_tested_in_place(c))
            .emits(|s, m| s.branch(m)),
        Rule::new("ret-value", inst(Opcode::Ret, vec![var(A)]))
            .emits(|s, m| s.ret(Some(m.value(A)))),
        Rule::new("ret", inst(Opcode::Ret, vec![])).emits(|s, _| s.ret(None)),
    ]
}

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

    /// `b` to the block of `t`.
    fn jump(&mut self, t: Block) {
        let target = self.block_index[t.index()];
        self.emit(MInst::B { target });
        self.succs = vec![target];
    }

    /// A conditional branch: to the first target where the condition `C` holds, else to
    /// the second; on a constant (one that no pass after the last simplify-cfg folded), a
    /// jump.
    fn branch(&mut self, m: &Match) {
        let [t, e] = self.f.kind(m.root).targets() else {
            unreachable!("a conditional branch has two targets");
        };
        let (t, e) = (*t, *e);
        if let Value::Bool(holds) = m.value(C) {
            return self.jump(if holds { t } else { e });
        }
        let conds = self.condition(m.value(C));
        let (then_target, else_target) = (self.block_index[t.index()], self.block_index[e.index()]);
        for cond in conds {
            self.emit(MInst::BCond {
                cond,
                target: then_target,
            });
        }
        self.emit(MInst::B {
            target: else_target,
        });
        self.succs = if then_target == else_target {
            vec![then_target]
        } else {
            vec![then_target, else_target]
        };
    }

    /// A return, of the value `A` if given, in `r0` or `s0`.
    fn ret(&mut self, value: Option<Value>) {
        let mut uses = Vec::new();
        if let Some(v) = value {
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
        self.succs = Vec::new();
    }
}
