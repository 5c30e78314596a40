//! Selects: their rules, a copy of one value and a conditional move of the other, which of
//! them first, operations only a select uses computed under its condition (folded into
//! it), clamps as `usat` (the inner select folded), and stores of a select as conditional
//! stores (the select folded).

use super::addresses::PTR;
use super::compares::float_conds;
use super::matcher::{FoldIf, Match, Rule};
use super::Selector;
use crate::conditional_store::{conditional_store, ConditionalStore};
use crate::ir_costs;
use crate::mir::*;
use middle::ir::clamp::unsigned_clamp;
use middle::ir::pattern::*;
use middle::ir::{Block, Inst, InstKind, Opcode, Type, Value};

/// How many uses of an operand `value_under` looks through for a select made before.
const MAX_USES_SEEN: usize = 16;

/// How many blocks `read_after` searches for a read of a select's operand.
const MAX_LIVENESS_BLOCKS: usize = 64;

/// How many joins' phis may stand between a select and the loop phi it keeps (`is_carried`).
const MAX_JOINS: usize = 3;

/// The select a conditional store stores.
const STORED: Var = Var::new(13);

/// The rules of selects, and of stores of a select under its condition.
pub(super) fn rules() -> Vec<Rule> {
    let clamped = || bind(A, opcode(Opcode::Select));
    let tested: FoldIf = |s, _, c| s.is_tested_in_place(c);
    vec![
        Rule::new("vmov.f32-select", select(var(C), var(A), var(B)))
            .when(|s, m| s.f.inst(m.root).ty == Type::F32)
            .folding_where(C, tested)
            .emits(|s, m| s.float_select(m)),
        Rule::new("usat", select(var(C), clamped(), var(B)))
            .when(|s, m| s.clamp(m).is_some())
            .folding(A)
            .folding_where(C, tested)
            .emits(|s, m| s.usat(m)),
        Rule::new("usat-else", select(var(C), var(B), clamped()))
            .when(|s, m| s.clamp(m).is_some())
            .folding(A)
            .folding_where(C, tested)
            .emits(|s, m| s.usat(m)),
        Rule::new("select", select(var(C), var(A), var(B)))
            .folding_where(C, tested)
            .folding_where(A, |s, _, i| s.is_predicated(i))
            .folding_where(B, |s, _, i| s.is_predicated(i))
            .emits(|s, m| s.int_select(m)),
        Rule::new(
            "str-conditional",
            store(bind(STORED, select(any(), any(), any())), var(PTR)),
        )
        .when(|s, m| s.conditional_store(m.root).is_some())
        .folding(STORED)
        .emits(|s, m| s.store_under(m)),
    ]
}

impl Selector<'_> {
    /// A float select: `vmov` of the false value (a copy), then `vmov<cond>.f32` of the
    /// true one.
    fn float_select(&mut self, m: &Match) {
        let rd = m.dst();
        let (sa, sb) = (self.reg(m.value(A)), self.reg(m.value(B)));
        self.emit(MInst::Copy { dst: rd, src: sb });
        for cond in self.condition(m.value(C)) {
            self.emit(MInst::VMovIf {
                cond,
                sd: rd,
                sm: sa,
            });
        }
    }

    /// The value clamped and the bit count where the root, a select, clamps its value
    /// into `0..=2^k - 1` (`ir::clamp`).
    fn clamp(&self, m: &Match) -> Option<(Value, u8)> {
        let InstKind::Select { args: [c, a, b] } = *self.f.kind(m.root) else {
            return None;
        };
        unsigned_clamp(self.f, c, a, b)
    }

    /// A clamp into `0..=2^k - 1`: `usat`, which does the inner select's work too.
    fn usat(&mut self, m: &Match) {
        let (x, bits) = self.clamp(m).expect("a clamp");
        let rn = self.reg(x);
        self.emit(MInst::Usat {
            rd: m.dst(),
            bits,
            rn,
        });
    }

    /// The false value `b` into the result's register, then the true value `a` under the
    /// condition `c`: `mov rd, b` (a copy, which allocation may coalesce away) and
    /// `mov<cond> rd, a`. A value computed by a predicated operation is computed right
    /// there instead, into the result's register: `if (x == 93) n = n - 1;` becomes
    /// `cmp` and `subeq`.
    fn int_select(&mut self, m: &Match) {
        let (i, rd) = (m.root, m.dst());
        let (c, a, b) = (m.value(C), m.value(A), m.value(B));
        // The loop's own value first, which saves a copy on the way back to its phi, or a
        // value computed from it where it dies (`d = min(d + 2, m)`: the sum takes the
        // phi's register, then the select's); else the value that can share the select's
        // register.
        let own = |v: Value| {
            if self.is_carried(v, i) {
                2
            } else {
                u8::from(self.made_of_carried(v, i))
            }
        };
        let (own_a, own_b) = (own(a), own(b));
        let a_first = if own_a != own_b {
            own_a > own_b
        } else {
            self.can_share(a, i) && !self.can_share(b, i)
        };
        if a_first && !self.has_two_conditions(c) {
            self.value_into(rd, a, None);
            let cond = self.condition(c)[0];
            self.value_under(rd, b, Some(cond.invert()), (i, c, false));
            return;
        }
        self.value_into(rd, b, None);
        for cond in self.condition(c) {
            self.value_under(rd, a, Some(cond), (i, c, true));
        }
    }

    /// `value_into` for the value `v` that select `sel` takes when its condition `c` is
    /// `holds`, moved or computed under `cond`. A predicated operation reads, in place of an
    /// operand `x`, a select made before `sel` in its block on the same condition that is
    /// `x` whenever `c` is `holds`: then `x` need not outlive that select, whose register it
    /// can share (`x = x > y ? x - y : x; y = x > y ? y : y - x` subtract in place, as
    /// `subgt x, x, y; suble y, y, x`).
    fn value_under(
        &mut self,
        rd: Reg,
        v: Value,
        cond: Option<Cond>,
        (sel, c, holds): (Inst, Value, bool),
    ) {
        let f = self.f;
        let predicated = v.as_inst().filter(|i| self.folded[i.index()]);
        let (Some(op_inst), Some(block)) = (predicated, f.inst_block(sel)) else {
            return self.value_into(rd, v, cond);
        };
        let selected_before = |o: Value| {
            f.uses(o)
                .iter()
                .take(MAX_USES_SEEN)
                .map(|u| u.inst)
                .find(|&k| {
                    self.selected[k.index()]
                        && f.inst_block(k) == Some(block)
                        && matches!(*f.kind(k), InstKind::Select { args: [s, t, e] }
                            if s == c && (if holds { t } else { e }) == o)
                })
                .map_or(o, Value::Inst)
        };
        let m = self
            .predicated_match(op_inst)
            .computed_into(rd, selected_before);
        self.operation_into(&m, cond);
    }

    /// The match of the predicated operation `i`.
    fn predicated_match(&self, i: Inst) -> Match {
        self.matched(i)
            .expect("a rule selects a predicated operation")
    }

    /// A predicable operation's match computed under `cond` if given.
    fn operation_into(&mut self, m: &Match, cond: Option<Cond>) {
        m.emit(self);
        match self.cur.last_mut() {
            Some(MInst::Alu { cond: c, .. } | MInst::Mov { cond: c, .. }) => *c = cond,
            _ => unreachable!("a predicable operation ends in alu or mov"),
        }
    }

    /// Puts `v` into `rd`, under `cond` if given: a predicated operation is computed into
    /// it, anything else moved.
    fn value_into(&mut self, rd: Reg, v: Value, cond: Option<Cond>) {
        if let Some(i) = v.as_inst().filter(|i| self.folded[i.index()]) {
            let m = self.predicated_match(i).computed_into(rd, |x| x);
            self.operation_into(&m, cond);
            return;
        }
        match (cond, self.op2(v)) {
            (None, Operand2::Reg(src)) => self.emit(MInst::Copy { dst: rd, src }),
            (cond, src) => self.emit(MInst::Mov { cond, rd, src }),
        }
    }

    /// Whether `v` is an operation, not computed under a condition, of a phi that takes the
    /// select `sel` round its loop (`is_carried`) and that nothing reads after it: the
    /// operation can take the phi's register, and the select the operation's.
    fn made_of_carried(&self, v: Value, sel: Inst) -> bool {
        let Some(vi) = v.as_inst() else {
            return false;
        };
        if self.folded[vi.index()] || !matches!(self.f.kind(vi), InstKind::Binary { .. }) {
            return false;
        }
        self.f
            .kind(vi)
            .operands()
            .iter()
            .any(|&p| self.is_carried(p, sel) && self.f.uses(p).iter().all(|u| u.inst == vi))
    }

    /// Whether `v`, an operand of the select `sel`, can share the select's register: a
    /// value in a register that nothing reads after the select (`read_after`). Moved into
    /// the select's register unconditionally, it then shares it, leaving one conditional
    /// instruction for the other value (`m = x < m ? x : m` as `cmp x, m; movlt m, x`). Not
    /// a value computed for the select alone under its condition (`folded`), which would
    /// then be computed always.
    fn can_share(&self, v: Value, sel: Inst) -> bool {
        match v {
            Value::Inst(i) if self.folded[i.index()] => false,
            Value::Inst(_) | Value::Param(_) => !self.read_after(v, sel),
            _ => false,
        }
    }

    /// Whether `v` may be read after the select `sel`: by an instruction after it in its
    /// block, or in a block reachable from there without passing `v`'s definition (a phi
    /// reads its value at the end of the block it comes from). Past `MAX_LIVENESS_BLOCKS`
    /// blocks searched, it is taken to be read.
    fn read_after(&self, v: Value, sel: Inst) -> bool {
        let f = self.f;
        let Some(s) = f.inst_block(sel) else {
            return true;
        };
        let def = v.as_inst().and_then(|i| f.inst_block(i));
        // The blocks where a use reads `v`, each with whether it reads it after `sel` when
        // that block is the select's.
        let mut sites: Vec<(Block, bool)> = Vec::new();
        for u in f.uses(v) {
            match f.kind(u.inst) {
                InstKind::Phi { args, blocks } => sites.extend(
                    args.iter()
                        .zip(blocks)
                        .filter(|&(&a, _)| a == v)
                        .map(|(_, &b)| (b, true)),
                ),
                // Read again when the select's block runs again.
                _ if u.inst == sel => sites.push((s, false)),
                _ => match f.inst_block(u.inst) {
                    Some(b) if b == s => {
                        let after = f
                            .block_insts(s)
                            .skip_while(|&k| k != sel)
                            .any(|k| k == u.inst);
                        sites.push((b, after));
                    }
                    Some(b) => sites.push((b, true)),
                    None => {}
                },
            }
        }
        if sites.iter().any(|&(b, after)| b == s && after) {
            return true;
        }
        // Reaching the select's block again, a use before the select reads `v` again.
        let mut seen: Vec<Block> = Vec::new();
        let mut todo: Vec<Block> = f.successors(s).to_vec();
        while let Some(b) = todo.pop() {
            if seen.contains(&b) || Some(b) == def {
                continue;
            }
            if seen.len() >= MAX_LIVENESS_BLOCKS {
                return true;
            }
            seen.push(b);
            if sites.iter().any(|&(u, _)| u == b) {
                return true;
            }
            if b != s {
                todo.extend_from_slice(f.successors(b));
            }
        }
        false
    }

    /// Whether `v` is a phi that takes the select `sel` round its loop (`x = c ? x : y`),
    /// directly or through at most `MAX_JOINS` phis where paths join (an `else if` chain):
    /// moved into the select's register unconditionally, `v` can share that register (it
    /// dies at the select), leaving one conditional instruction for the other value.
    fn is_carried(&self, v: Value, sel: Inst) -> bool {
        let f = self.f;
        let phi_args = |v: Value| match v.as_inst().map(|p| f.kind(p)) {
            Some(InstKind::Phi { args, .. }) => args.as_slice(),
            _ => &[],
        };
        let mut level = vec![v];
        for _ in 0..=MAX_JOINS {
            let args: Vec<Value> = level.iter().flat_map(|&p| phi_args(p)).copied().collect();
            if args.contains(&Value::Inst(sel)) {
                return true;
            }
            level = args;
        }
        false
    }

    /// An operation computed by the select that is its only user, in its block, right into
    /// the select's register and under its condition for the true value (see `select`).
    pub(super) fn is_predicated(&self, i: Inst) -> bool {
        let f = self.f;
        let InstKind::Binary { op, .. } = *f.kind(i) else {
            return false;
        };
        match f.uses(Value::Inst(i)) {
            [u] => {
                ir_costs::is_predicable(op)
                    && u.index > 0
                    && matches!(f.kind(u.inst), InstKind::Select { .. })
                    && f.inst_block(u.inst) == f.inst_block(i)
            }
            _ => false,
        }
    }

    /// A store under a condition (see `conditional_store`), with its one flag test: the
    /// select's condition, or its opposite when the new value is the select's false one.
    fn conditional_store(&self, i: Inst) -> Option<ConditionalStore> {
        let store = conditional_store(self.f, i)?;
        (!self.has_two_conditions(store.cond)).then_some(store)
    }

    /// Whether the truth value `c` holds under either of two conditions (a float comparison
    /// such as `one`), which no single condition inverts.
    fn has_two_conditions(&self, c: Value) -> bool {
        c.as_inst().is_some_and(|c| {
            matches!(*self.f.kind(c), InstKind::Fcmp { pred, .. } if float_conds(pred).len() > 1)
        })
    }

    /// `str<cond> new, [p]` for the store of a select under its condition
    /// (`conditional_store`); a predicated operation that computes `new` for the select
    /// alone runs under the same condition.
    fn store_under(&mut self, m: &Match) {
        let store = self
            .conditional_store(m.root)
            .expect("a store under a condition");
        let addr = self.addr(m.value(PTR), false);
        let predicated = store.new.as_inst().is_some_and(|i| self.folded[i.index()]);
        let held = (!predicated).then(|| self.reg(store.new));
        let test = self.condition(store.cond)[0];
        let cond = if store.when { test } else { test.invert() };
        let rs = held.unwrap_or_else(|| {
            let rd = self.new_vreg(RegClass::Int);
            self.value_into(rd, store.new, Some(cond));
            rd
        });
        self.emit(MInst::Str {
            cond: Some(cond),
            rs,
            addr,
        });
    }
}

#[cfg(test)]
#[path = "selects_tests.rs"]
mod tests;
