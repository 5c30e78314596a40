//! Chains of integer comparisons that one flags register tests. A32 predicates a compare like
//! any other instruction, so `a || b` is `cmp a; cmp<not a> b; b<cond>` and `a && b` is
//! `cmp a; cmp<a> b; b<cond>`: the second compare runs only where the first left the answer
//! open. Where it does not run, the flags are still the first compare's, and the final
//! condition must read them the right way: for `||`, the first holding must imply the final
//! condition on the first's operands; for `&&`, the final condition must imply the first.
//! Either comparison may be written with its operands swapped or against the neighbouring
//! constant (`x < 5` is `x <= 4`) to get there: `x < 0 || x >= n` is `cmp x, #0; cmpge n,
//! x; ble`, `i > 0 && j > 0` is `cmp i, #0; cmpgt j, #0; bgt`.
//!
//! A chain is `select c, true, d` (`c || d`) or `select c, d, false` (`c && d`) of `i1`
//! values, `d` an integer comparison and `c` a comparison or a chain, with at most
//! `MAX_LENGTH` comparisons; any other truth value in it is a register compared with 0.
//! The flags of `x & m` tested against 0 (`tst`) say nothing of order: a chain with one keeps
//! a single predicate throughout.

use crate::ir::{BinaryOp, Function, Inst, InstKind, IntPred, Type, Value};

/// The most comparisons one chain tests.
pub const MAX_LENGTH: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// `c || d`: `d` is compared where `c` failed.
    Or,
    /// `c && d`: `d` is compared where `c` held.
    And,
}

/// One compare as the chain emits it: `cmp a, b`, holding under `pred`; `masked` when it
/// tests `a = x & m` against 0 for equality, which the back end does with `tst`; `link`
/// joins it to the compares before it (none for the first).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Form {
    pub pred: IntPred,
    pub a: Value,
    pub b: Value,
    pub masked: bool,
    pub link: Option<Link>,
}

/// The earlier truth value, the link and the later comparison of chain link `c`.
pub fn link(f: &Function, c: Inst) -> Option<(Value, Link, Inst)> {
    let InstKind::Select { args: [x, t, e] } = *f.kind(c) else {
        return None;
    };
    if f.inst(c).ty != Type::I1 {
        return None;
    }
    let (link, y) = match (t, e) {
        (Value::Bool(true), y) => (Link::Or, y),
        (y, Value::Bool(false)) => (Link::And, y),
        _ => return None,
    };
    let y = y
        .as_inst()
        .filter(|&y| matches!(f.kind(y), InstKind::Icmp { .. }))?;
    Some((x, link, y))
}

/// The compares that test chain link `c`, in order; the last one's predicate holds exactly
/// when `c` does. `tested(i)` says whether the comparison or chain `i` is tested in place
/// rather than held in a register.
pub fn plan(f: &Function, c: Inst, tested: &dyn Fn(Inst) -> bool) -> Option<Vec<Form>> {
    link(f, c)?;
    let tested = |i: Inst| i == c || tested(i);
    plans(f, Value::Inst(c), &tested, MAX_LENGTH)
        .into_iter()
        .next()
}

/// Whether `x link (a pred b)` is a chain the flags can test, the comparison tested in
/// place and `tested(i)` saying which parts of `x` are.
pub fn can_link(
    f: &Function,
    x: Value,
    link: Link,
    (pred, a, b): (IntPred, Value, Value),
    tested: &dyn Fn(Inst) -> bool,
) -> bool {
    let earlier = plans(f, x, tested, MAX_LENGTH - 1);
    !extend(earlier, &forms(f, pred, a, b), link).is_empty()
}

/// Every way to test `c` with at most `budget` compares.
fn plans(f: &Function, c: Value, tested: &dyn Fn(Inst) -> bool, budget: usize) -> Vec<Vec<Form>> {
    let Some(i) = c.as_inst().filter(|_| budget > 0) else {
        return Vec::new();
    };
    if !tested(i) {
        return vec![vec![in_register(c)]];
    }
    if let Some((x, link, y)) = link(f, i) {
        let later = match *f.kind(y) {
            InstKind::Icmp { pred, args: [a, b] } if tested(y) => forms(f, pred, a, b),
            _ => vec![in_register(Value::Inst(y))],
        };
        return extend(plans(f, x, tested, budget - 1), &later, link);
    }
    match *f.kind(i) {
        InstKind::Icmp { pred, args: [a, b] } => forms(f, pred, a, b)
            .into_iter()
            .map(|form| vec![form])
            .collect(),
        // A float comparison sets the flags through `vcmp` and `vmrs`, which a chain does
        // not predicate; held in a register it costs more than its own branch.
        InstKind::Fcmp { .. } => Vec::new(),
        _ => vec![vec![in_register(c)]],
    }
}

/// The plans of `earlier` that go on to one of the forms `later` under `link`.
fn extend(earlier: Vec<Vec<Form>>, later: &[Form], link: Link) -> Vec<Vec<Form>> {
    let mut out = Vec::new();
    for plan in earlier {
        for &form in later {
            if chains(&plan, form, link) {
                let mut longer = plan.clone();
                longer.push(Form {
                    link: Some(link),
                    ..form
                });
                out.push(longer);
            }
        }
    }
    out
}

/// Whether `form`, compared under `link` after the compares of `plan`, leaves flags whose
/// `form.pred` says whether the whole holds.
fn chains(plan: &[Form], form: Form, link: Link) -> bool {
    let Some(last) = plan.last() else {
        return false;
    };
    if form.masked || plan.iter().any(|p| p.masked) {
        return plan.iter().all(|p| p.pred == form.pred);
    }
    match link {
        Link::Or => implies(last.pred, form.pred),
        Link::And => implies(form.pred, last.pred),
    }
}

/// Whether `x p y` implies `x q y` for every `x` and `y`.
fn implies(p: IntPred, q: IntPred) -> bool {
    use IntPred::*;
    p == q
        || match p {
            Eq => matches!(q, Sle | Sge | Ule | Uge),
            Slt => matches!(q, Sle | Ne),
            Sgt => matches!(q, Sge | Ne),
            Ult => matches!(q, Ule | Ne),
            Ugt => matches!(q, Uge | Ne),
            _ => false,
        }
}

/// A truth value held in a register: compared with 0.
fn in_register(c: Value) -> Form {
    Form {
        pred: IntPred::Ne,
        a: c,
        b: Value::Int(0),
        masked: false,
        link: None,
    }
}

/// The ways to emit `a pred b` as one compare, a constant never first: as written, with the
/// operands swapped, or against the neighbouring constant.
fn forms(f: &Function, pred: IntPred, a: Value, b: Value) -> Vec<Form> {
    let (pred, a, b) = if a.is_constant() && !b.is_constant() {
        (pred.swapped(), b, a)
    } else {
        (pred, a, b)
    };
    if a.is_constant() {
        return Vec::new();
    }
    let masked = matches!(pred, IntPred::Eq | IntPred::Ne)
        && b == Value::Int(0)
        && a.as_inst().is_some_and(|x| {
            matches!(
                f.kind(x),
                InstKind::Binary {
                    op: BinaryOp::And,
                    ..
                }
            )
        });
    let form = |pred, a, b| Form {
        pred,
        a,
        b,
        masked,
        link: None,
    };
    let mut out = vec![form(pred, a, b)];
    match b {
        Value::Int(k) => {
            if let Some((pred, k)) = neighbour(pred, k) {
                out.push(form(pred, a, Value::Int(k)));
            }
        }
        _ => out.push(form(pred.swapped(), b, a)),
    }
    out
}

/// `x pred k` as a test against the next constant that holds for the same `x`, if any
/// (`x < k` is `x <= k - 1` unless `k` is the least value).
fn neighbour(pred: IntPred, k: i32) -> Option<(IntPred, i32)> {
    use IntPred::*;
    let u = k as u32;
    let (pred, k) = match pred {
        Slt if k != i32::MIN => (Sle, k - 1),
        Sle if k != i32::MAX => (Slt, k + 1),
        Sgt if k != i32::MAX => (Sge, k + 1),
        Sge if k != i32::MIN => (Sgt, k - 1),
        Ult if u != 0 => (Ule, (u - 1) as i32),
        Ule if u != u32::MAX => (Ult, (u + 1) as i32),
        Ugt if u != u32::MAX => (Uge, (u + 1) as i32),
        Uge if u != 0 => (Ugt, (u - 1) as i32),
        _ => return None,
    };
    Some((pred, k))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implication_reads_the_first_compares_flags() {
        assert!(implies(IntPred::Slt, IntPred::Sle));
        assert!(implies(IntPred::Eq, IntPred::Uge));
        assert!(implies(IntPred::Ugt, IntPred::Ne));
        assert!(!implies(IntPred::Sle, IntPred::Slt));
        assert!(!implies(IntPred::Ne, IntPred::Slt));
        assert!(!implies(IntPred::Slt, IntPred::Ult));
    }

    #[test]
    fn neighbouring_constants_stop_at_the_ends() {
        assert_eq!(neighbour(IntPred::Slt, 5), Some((IntPred::Sle, 4)));
        assert_eq!(neighbour(IntPred::Sge, i32::MIN), None);
        assert_eq!(neighbour(IntPred::Ugt, -1), None);
        assert_eq!(neighbour(IntPred::Uge, 1), Some((IntPred::Ugt, 0)));
        assert_eq!(neighbour(IntPred::Eq, 3), None);
    }
}
