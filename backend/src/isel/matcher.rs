//! The rules of instruction selection and the root-driven matcher that picks them.
//!
//! A rule names the IR it covers as an `ir::pattern` rooted at the instruction it selects,
//! what else a match needs (`when`: uses, blocks, what the constants encode), the operand
//! instructions it folds (computes within the root's own code), and the function that emits
//! the root's machine code from the match. Each concern's file holds its rules as a table
//! (`arithmetic::rules`, ...); the first rule of the tables that matches an instruction
//! selects it. An instruction needs no code of its own when the rule of every one of its
//! users folds it: that is decided here, once, from the matches, and emission follows the
//! match, so that what folds and what the folding code reads cannot disagree.
//!
//! Needs the `Selector`'s registers, anchors and chains set up; every instruction is matched,
//! folded ones too (an operation a select computes under its condition is emitted by its
//! own rule, into the select's register).

use super::{addresses, arithmetic, calls, compares, control, selects, vectors, Selector};
use crate::mir::Reg;
use middle::ir::pattern::{file_by_root, matches_if, Bindings, Pattern, Var};
use middle::ir::{Inst, IntPred, Value};
use std::sync::LazyLock;

/// What else a match must satisfy, beyond its pattern's shape.
pub(super) type Guard = fn(&Selector, &Match) -> bool;

/// Whether a match folds the operand instruction its variable is bound to.
pub(super) type FoldIf = fn(&Selector, &Match, Inst) -> bool;

/// Emits the machine code of a match.
pub(super) type Emit = fn(&mut Selector, &Match);

#[derive(Clone)]
pub(super) struct Rule {
    name: &'static str,
    /// The IR the rule covers, rooted at the instruction it selects.
    pattern: Pattern,
    guard: Option<Guard>,
    /// The variables bound to operand instructions that the rule computes itself, where
    /// their conditions hold.
    folds: Vec<(Var, Option<FoldIf>)>,
    /// The variables bound to the root's own operands (`Pattern::operand_vars`).
    operands: Vec<Var>,
    /// Set by `emits`, which every rule of the tables calls.
    emit: Option<Emit>,
}

impl Rule {
    /// The rule named `name` covering `pattern`, to be given what it emits.
    pub fn new(name: &'static str, pattern: Pattern) -> Rule {
        Rule {
            name,
            operands: pattern.operand_vars(),
            pattern,
            guard: None,
            folds: Vec::new(),
            emit: None,
        }
    }

    /// The rule, matching only where `guard` holds.
    pub fn when(self, guard: Guard) -> Rule {
        Rule {
            guard: Some(guard),
            ..self
        }
    }

    /// The rule, folding the instruction bound to `v` into the root.
    pub fn folding(mut self, v: Var) -> Rule {
        self.folds.push((v, None));
        self
    }

    /// The rule, folding the instruction bound to `v` into the root where `fold` holds of it.
    pub fn folding_where(mut self, v: Var, fold: FoldIf) -> Rule {
        self.folds.push((v, Some(fold)));
        self
    }

    /// The rule, emitting the root's machine code by `emit`.
    pub fn emits(self, emit: Emit) -> Rule {
        Rule {
            emit: Some(emit),
            ..self
        }
    }
}

/// A rule matched at a root instruction.
#[derive(Clone, Copy)]
pub(super) struct Match {
    pub rule: &'static Rule,
    pub root: Inst,
    /// Where the rule puts the root's value: its own register, or that of a select that
    /// computes it under its condition.
    dst: Option<Reg>,
    bindings: Bindings,
}

impl Match {
    /// The value bound to `v`.
    pub fn value(&self, v: Var) -> Value {
        self.bindings.value(v)
    }

    /// The instruction bound to `v`.
    pub fn inst(&self, v: Var) -> Inst {
        self.value(v)
            .as_inst()
            .expect("the pattern binds an instruction")
    }

    /// The integer constant bound to `v`.
    pub fn int(&self, v: Var) -> i32 {
        self.bindings.int(v)
    }

    /// The comparison predicate bound to `v`.
    pub fn pred(&self, v: Var) -> IntPred {
        self.bindings.pred(v)
    }

    /// The register the root's value goes to.
    pub fn dst(&self) -> Reg {
        self.dst.expect("the root has a value")
    }

    /// Emits the root's machine code.
    pub fn emit(&self, s: &mut Selector) {
        let emit = self.rule.emit.expect("every rule of the tables emits");
        emit(s, self);
    }

    /// Whether the match folds instruction `i`.
    fn folds(&self, s: &Selector, i: Inst) -> bool {
        self.rule.folds.iter().any(|&(v, fold)| {
            self.bindings.get(v) == Some(Value::Inst(i)) && fold.is_none_or(|fold| fold(s, self, i))
        })
    }

    /// The match computing its value into `rd`, reading `read(x)` for each operand `x` of
    /// the root.
    pub fn computed_into(mut self, rd: Reg, read: impl Fn(Value) -> Value) -> Match {
        self.dst = Some(rd);
        for &v in &self.rule.operands {
            let x = read(self.bindings.value(v));
            self.bindings.rebind(v, x);
        }
        self
    }
}

/// The rules of every concern, filed by the opcode at the root of their patterns.
struct RuleTable {
    rules: Vec<Rule>,
    /// For each opcode, the rules whose root is that opcode or not fixed, in table order.
    by_root: Vec<Vec<usize>>,
}

/// The tables of every concern: a chain of comparisons (`compares`) before the other
/// selects, a store of a select under its condition (`selects`) before the plain store.
static RULES: LazyLock<RuleTable> = LazyLock::new(|| {
    RuleTable::new(
        [
            arithmetic::rules(),
            compares::rules(),
            selects::rules(),
            addresses::rules(),
            calls::rules(),
            control::rules(),
            vectors::rules(),
        ]
        .concat(),
    )
});

impl RuleTable {
    fn new(rules: Vec<Rule>) -> RuleTable {
        for (k, rule) in rules.iter().enumerate() {
            assert!(rule.emit.is_some(), "rule {} emits nothing", rule.name);
            assert!(
                rules[..k].iter().all(|r| r.name != rule.name),
                "two rules named {}",
                rule.name
            );
        }
        let patterns: Vec<&Pattern> = rules.iter().map(|r| &r.pattern).collect();
        let by_root = file_by_root(&patterns);
        RuleTable { rules, by_root }
    }
}

impl Selector<'_> {
    /// Matches every instruction against the rules, then marks each instruction that every
    /// one of its users folds (`folded`).
    pub(super) fn match_rules(&mut self) {
        let f = self.f;
        for i in f.all_insts() {
            self.matches[i.index()] = self.first_match(i);
        }
        for i in f.all_insts() {
            let uses = f.uses(Value::Inst(i));
            let folded = !uses.is_empty()
                && uses
                    .iter()
                    .all(|u| self.matches[u.inst.index()].is_some_and(|m| m.folds(self, i)));
            if folded {
                self.folded[i.index()] = true;
            }
        }
    }

    /// The first rule that matches instruction `i`, by table order.
    fn first_match(&self, i: Inst) -> Option<Match> {
        let table: &'static RuleTable = &RULES;
        let dst = self.inst_regs[i.index()];
        table.by_root[self.f.kind(i).opcode() as usize]
            .iter()
            .find_map(|&r| {
                let rule = &table.rules[r];
                let at = |bindings| Match {
                    rule,
                    root: i,
                    dst,
                    bindings,
                };
                let accept = |b: &Bindings| rule.guard.is_none_or(|guard| guard(self, &at(*b)));
                matches_if(self.f, Value::Inst(i), &rule.pattern, &accept).map(at)
            })
    }

    /// Emits instruction `i` by the rule that matched it.
    pub(super) fn emit_match(&mut self, i: Inst) {
        let m = self.matches[i.index()].expect("an instruction a rule selects");
        m.emit(self);
    }

    /// The match of instruction `i`, if a rule selects it.
    pub(super) fn matched(&self, i: Inst) -> Option<Match> {
        self.matches[i.index()]
    }
}

#[cfg(test)]
#[path = "matcher_tests.rs"]
mod tests;
