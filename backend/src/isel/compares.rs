//! Comparisons: their rules (masks tested with `tst`, the mask folded, and chains of
//! comparisons tested in place, their comparisons folded), comparisons fused into the
//! branches and selects that use them (the flags they leave read again), compared again in
//! each block that tests them, and truth values made into registers.

use super::matcher::{Match, Rule};
use super::Selector;
use crate::imm::is_operand2;
use crate::mir::*;
use middle::compare_chain::{link, plan, Form, Link};
use middle::ir::pattern::*;
use middle::ir::{BinaryOp, FloatPred, Function, Inst, InstKind, IntPred, Type, Value};

/// The mask `x & m` that a comparison with 0 tests in place.
const MASK: Var = Var::new(14);

/// The rules of comparisons, and of the selects that link them into chains.
pub(super) fn rules() -> Vec<Rule> {
    let masked = || one_use(bind(MASK, and(any(), any())));
    vec![
        Rule::new("tst", icmp(PRED, masked(), int(0)))
            .when(|s, m| s.tests_mask(m))
            .folding(MASK)
            .emits(|s, m| s.truth_value(m.root)),
        Rule::new("tst-swapped", icmp(PRED, int(0), masked()))
            .when(|s, m| s.tests_mask(m))
            .folding(MASK)
            .emits(|s, m| s.truth_value(m.root)),
        Rule::new("cmp", icmp(PRED, any(), any())).emits(|s, m| s.truth_value(m.root)),
        Rule::new("vcmp", fcmp(any(), any())).emits(|s, m| s.truth_value(m.root)),
        Rule::new("chain", select(var(C), var(A), var(B)))
            .when(|s, m| s.chains[m.root.index()].is_some())
            .folding_where(C, |s, _, c| s.is_tested_in_place(c))
            .folding_where(A, |s, _, c| s.is_tested_in_place(c))
            .folding_where(B, |s, _, c| s.is_tested_in_place(c))
            .emits(|s, m| s.truth_value(m.root)),
    ]
}

impl Selector<'_> {
    /// Plans the chains of comparisons tested in place (`chains`).
    pub(super) fn plan_chains(&mut self) {
        let f = self.f;
        for i in f.all_insts() {
            if link(f, i).is_some() && self.is_chain_tested(i) {
                self.chains[i.index()] = plan(f, i, &|c| self.is_chain_tested(c));
            }
        }
    }

    /// Comparison or chain `i` as a truth value in its register: 0, then 1 under the
    /// conditions it holds under.
    fn truth_value(&mut self, i: Inst) {
        let conds = match self.chains[i.index()].clone() {
            Some(plan) => vec![self.chain(Value::Inst(i), &plan)],
            None => self.compare(i),
        };
        let rd = self.def(i);
        self.emit(MInst::Mov {
            cond: None,
            rd,
            src: Operand2::Imm(0),
        });
        for cond in conds {
            self.emit(MInst::Mov {
                cond: Some(cond),
                rd,
                src: Operand2::Imm(1),
            });
        }
    }

    /// Sets the flags for the truth value `c` and returns the conditions (any of which
    /// holding means true): a fused comparison is emitted here, unless the flags still hold
    /// a comparison of the same two values from a select or branch before (`best = run; pos
    /// = i;` under one `run > best`, or `min` and `max` of one pair, compare once), anything
    /// else is compared with 0.
    pub(super) fn condition(&mut self, c: Value) -> Vec<Cond> {
        if let Some(plan) = c.as_inst().and_then(|ci| self.chains[ci.index()].clone()) {
            return vec![self.chain(c, &plan)];
        }
        match c.as_inst() {
            Some(ci) if self.folded[ci.index()] => {
                let (compared, conds) = compared(self.f, ci);
                if self.flags == Some(compared) {
                    return conds;
                }
                // The same two values the other way round: the mirrored condition.
                if let (Some(set), InstKind::Icmp { pred, .. }) = (self.flags, self.f.kind(ci)) {
                    let Compared(a, b, float) = compared;
                    if set == Compared(b, a, float) {
                        let pred = if self.f.kind(ci).operands()[0] == a {
                            pred.swapped()
                        } else {
                            *pred
                        };
                        return vec![int_cond(pred)];
                    }
                }
                let conds = self.compare(ci);
                self.flags = Some(compared);
                conds
            }
            _ => {
                let rn = self.reg(c);
                self.emit(MInst::Cmp {
                    cond: None,
                    rn,
                    src: Operand2::Imm(0),
                });
                vec![Cond::Ne]
            }
        }
    }

    /// Emits the compares of chain `c` (`plan`), unless the flags still hold them, and
    /// returns the condition under which `c` holds: each compare after the first runs
    /// where the ones before left the answer open.
    fn chain(&mut self, c: Value, plan: &[Form]) -> Cond {
        let last = int_cond(plan.last().expect("a chain has compares").pred);
        if self.chain_flags == c.as_inst() {
            return last;
        }
        let mut holds = None;
        for form in plan {
            let cond = match form.link {
                None => None,
                Some(Link::Or) => holds.map(Cond::invert),
                Some(Link::And) => holds,
            };
            holds = Some(self.int_compare(form.pred, form.a, form.b, cond));
        }
        self.chain_flags = c.as_inst();
        last
    }

    /// Emits the comparison of instruction `i` and returns the conditions (any of which
    /// holding means true) that it sets the flags for.
    fn compare(&mut self, i: Inst) -> Vec<Cond> {
        match *self.f.kind(i) {
            InstKind::Icmp { pred, args: [a, b] } => {
                let (pred, a, b) = if a.is_constant() && !b.is_constant() {
                    (pred.swapped(), b, a)
                } else {
                    (pred, a, b)
                };
                vec![self.int_compare(pred, a, b, None)]
            }
            InstKind::Fcmp { pred, args: [a, b] } => {
                let zero = |v: Value| matches!(v, Value::Float(bits) if bits << 1 == 0);
                let (pred, a, b) = if zero(a) && !zero(b) {
                    (pred.swapped(), b, a)
                } else {
                    (pred, a, b)
                };
                let sn = self.reg(a);
                if zero(b) {
                    self.emit(MInst::VCmpZero { sn });
                } else {
                    let sm = self.reg(b);
                    self.emit(MInst::VCmp { sn, sm });
                }
                float_conds(pred).to_vec()
            }
            _ => unreachable!("not a comparison"),
        }
    }

    /// Emits `cmp a, b` (`a` not a constant), under `cond` if given, and returns the
    /// condition under which `a pred b` holds.
    fn int_compare(&mut self, pred: IntPred, a: Value, b: Value, cond: Option<Cond>) -> Cond {
        if let Some((x, mask)) = self.tested_mask(a, b) {
            let rn = self.reg(x);
            let src = self.op2(mask);
            self.emit(MInst::Tst { cond, rn, src });
            return int_cond(pred);
        }
        let rn = self.reg(a);
        // `x < -5` is `cmn x, #5`: a constant whose negation encodes where it does not (the
        // flags, carry included, are those of the comparison).
        match b {
            Value::Int(c) if !is_operand2(c as u32) && is_operand2(c.wrapping_neg() as u32) => {
                let src = Operand2::Imm(c.wrapping_neg() as u32);
                self.emit(MInst::Cmn { cond, rn, src });
            }
            _ => {
                let src = match (self.added_constant(a), b) {
                    // `x + h` compared with `2h` (a divisibility test): the constant the
                    // sum holds in a register, shifted, instead of another one.
                    (Some(h), Value::Int(k))
                        if h.wrapping_mul(2) == k && !is_operand2(k as u32) =>
                    {
                        Operand2::Shifted(self.int_const(h as u32), Shift::Lsl, 1)
                    }
                    _ => self.op2(b),
                };
                self.emit(MInst::Cmp { cond, rn, src });
            }
        }
        int_cond(pred)
    }

    /// The constant `h` when `v` is `x + h` and `h` must be in a register to be added.
    fn added_constant(&self, v: Value) -> Option<i32> {
        match *self.f.kind(v.as_inst()?) {
            InstKind::Binary {
                op: BinaryOp::Add,
                args: [x, Value::Int(h)],
            } if !x.is_constant()
                && !is_operand2(h as u32)
                && !is_operand2(h.wrapping_neg() as u32) =>
            {
                Some(h)
            }
            _ => None,
        }
    }

    /// Whether the root, a comparison of the mask `x & m` (used only there) with 0 for
    /// equality, in the mask's block, tests the bits in place (`tst x, #m`), so that the
    /// `and` needs no register.
    fn tests_mask(&self, m: &Match) -> bool {
        let f = self.f;
        matches!(m.pred(PRED), IntPred::Eq | IntPred::Ne)
            && f.inst_block(m.inst(MASK)) == f.inst_block(m.root)
    }

    /// `(x, mask)` when comparing `a` with `b` tests a mask against 0 (`tests_mask`).
    fn tested_mask(&self, a: Value, b: Value) -> Option<(Value, Value)> {
        let i = a.as_inst().filter(|i| self.folded[i.index()])?;
        match (self.f.kind(i), b) {
            (
                &InstKind::Binary {
                    op: BinaryOp::And,
                    args: [x, mask],
                },
                Value::Int(0),
            ) => Some(if x.is_constant() {
                (mask, x)
            } else {
                (x, mask)
            }),
            _ => None,
        }
    }

    /// Whether the truth value `c` is tested where it is used, by the rules of the branches,
    /// selects and chains that use it, which then fold it: a chain of comparisons planned
    /// (`chains`), or a comparison made where it is used (`is_fused_compare`).
    pub(super) fn is_tested_in_place(&self, c: Inst) -> bool {
        self.chains[c.index()].is_some() || self.is_fused_compare(c)
    }

    /// Whether comparison `i` is made where it is used: it is only the condition of
    /// branches and selects in its own block (each of them emits the comparison again right
    /// before it reads the flags, which costs no more than comparing the materialised truth
    /// value with 0), or its one use is a chain tested in place.
    fn is_fused_compare(&self, i: Inst) -> bool {
        let f = self.f;
        if !matches!(f.kind(i), InstKind::Icmp { .. } | InstKind::Fcmp { .. }) {
            return false;
        }
        let in_chain = self
            .chain_user(i)
            .is_some_and(|c| self.chains[c.index()].is_some());
        in_chain || self.is_condition_only(i) || self.is_compared_again(i)
    }

    /// Whether `i` is an integer comparison with a constant whose every use is the condition
    /// of a branch or of a select of values (not of truth values), some in other blocks of
    /// its loop (or outside loops, as `i`):
    /// each such block compares again (one instruction, as testing a kept truth value would
    /// be, and nothing to keep but the one compared register) rather than the truth value
    /// being made into a register (`mov`, `mov<cond>`) and tested against 0. A comparison
    /// hoisted out of a loop stays made once: compared again inside, its register would
    /// live through the loop instead of the truth value's, for nothing.
    fn is_compared_again(&self, i: Inst) -> bool {
        let f = self.f;
        let InstKind::Icmp { args: [a, b], .. } = *f.kind(i) else {
            return false;
        };
        let uses = f.uses(Value::Inst(i));
        let innermost = |j: Inst| f.inst_block(j).and_then(|b| self.loops.innermost(b));
        !uses.is_empty()
            && (a.is_constant() || b.is_constant())
            && uses.iter().all(|u| {
                let condition = match f.kind(u.inst) {
                    InstKind::CondBr { .. } => true,
                    // A truth value's select is a link of a chain of tests, which reads
                    // its operands' registers.
                    InstKind::Select { .. } => f.inst(u.inst).ty != Type::I1,
                    _ => false,
                };
                condition && u.index == 0 && innermost(u.inst) == innermost(i)
            })
    }

    /// Whether every use of `i` is the condition of a branch or select in its block.
    fn is_condition_only(&self, i: Inst) -> bool {
        let f = self.f;
        let uses = f.uses(Value::Inst(i));
        !uses.is_empty()
            && uses.iter().all(|u| {
                u.index == 0
                    && matches!(
                        f.kind(u.inst),
                        InstKind::CondBr { .. } | InstKind::Select { .. }
                    )
                    && f.inst_block(u.inst) == f.inst_block(i)
            })
    }

    /// The chain link that is `i`'s only use, when `i` is one of its two truth values: the
    /// chain compares again wherever `i` was made (its operands are there).
    fn chain_user(&self, i: Inst) -> Option<Inst> {
        let f = self.f;
        let [u] = f.uses(Value::Inst(i)) else {
            return None;
        };
        let (x, _, y) = link(f, u.inst)?;
        (x == Value::Inst(i) || y == i).then_some(u.inst)
    }

    /// Whether the comparison or chain `i` would be tested in place, every chain it is
    /// part of being tested: a chain or comparison used only as conditions in its block,
    /// or a comparison whose one use is a chain (a float one never chains: a chain with
    /// one tested in place has no plan, and the comparison is made at its select).
    fn is_chain_tested(&self, i: Inst) -> bool {
        match self.f.kind(i) {
            InstKind::Icmp { .. } | InstKind::Fcmp { .. } => {
                self.chain_user(i).is_some() || self.is_condition_only(i)
            }
            InstKind::Select { .. } => link(self.f, i).is_some() && self.is_condition_only(i),
            _ => false,
        }
    }
}

/// What a comparison sets the flags from: its two operands, in the order `compare` emits
/// them (a constant right), and whether it compares floats.
#[derive(Clone, Copy, PartialEq)]
pub(super) struct Compared(Value, Value, bool);

/// The operands a fused comparison `i` compares and the conditions under which it holds,
/// as `Selector::compare` emits it.
fn compared(f: &Function, i: Inst) -> (Compared, Vec<Cond>) {
    match *f.kind(i) {
        InstKind::Icmp { pred, args: [a, b] } => {
            let (pred, a, b) = if a.is_constant() && !b.is_constant() {
                (pred.swapped(), b, a)
            } else {
                (pred, a, b)
            };
            (Compared(a, b, false), vec![int_cond(pred)])
        }
        InstKind::Fcmp { pred, args: [a, b] } => (Compared(a, b, true), float_conds(pred).to_vec()),
        _ => unreachable!("not a comparison"),
    }
}

fn int_cond(p: IntPred) -> Cond {
    match p {
        IntPred::Eq => Cond::Eq,
        IntPred::Ne => Cond::Ne,
        IntPred::Slt => Cond::Lt,
        IntPred::Sle => Cond::Le,
        IntPred::Sgt => Cond::Gt,
        IntPred::Sge => Cond::Ge,
        IntPred::Ult => Cond::Lo,
        IntPred::Ule => Cond::Ls,
        IntPred::Ugt => Cond::Hi,
        IntPred::Uge => Cond::Hs,
    }
}

/// Conditions after `vcmp` + `vmrs` for each float predicate. The flags are: equal Z C,
/// less N, greater C, unordered C V.
pub(super) fn float_conds(p: FloatPred) -> &'static [Cond] {
    match p {
        FloatPred::Oeq => &[Cond::Eq],
        FloatPred::One => &[Cond::Mi, Cond::Gt],
        FloatPred::Olt => &[Cond::Mi],
        FloatPred::Ole => &[Cond::Ls],
        FloatPred::Ogt => &[Cond::Gt],
        FloatPred::Oge => &[Cond::Ge],
        FloatPred::Ord => &[Cond::Vc],
        FloatPred::Ueq => &[Cond::Eq, Cond::Vs],
        FloatPred::Une => &[Cond::Ne],
        FloatPred::Ult => &[Cond::Lt],
        FloatPred::Ule => &[Cond::Le],
        FloatPred::Ugt => &[Cond::Hi],
        FloatPred::Uge => &[Cond::Pl],
        FloatPred::Uno => &[Cond::Vs],
    }
}

#[cfg(test)]
#[path = "compares_tests.rs"]
mod tests;
