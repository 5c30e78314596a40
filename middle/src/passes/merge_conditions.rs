//! merge-conditions: a branch one of whose sides only tests one more integer comparison and
//! then goes where the branch's other side goes becomes one branch on both tests, when the
//! back end tests the pair with one chain of compares on the flags (`compare_chain`).
//!
//! ```text
//!   H: condbr %c1, D, B                  H: (B's instructions)
//!   B: %c2 = icmp ...; condbr %c2, D, E     %c = select %c1, true, %c2
//!                                  =>       condbr %c, D, E
//! ```
//!
//! That is `c1 || c2`; with D on H's false side it is `c1 && c2` (`select %c1, %c2, false`),
//! and where B leaves for D on its false side the test is the inverse comparison. `d == 1 ||
//! -d == 1`, `i > 0 && j > 0` and `x < 0 || x >= n` are then one block, one branch and
//! `cmp; cmp<cond>` in place of two blocks and two branches, and a join after them can
//! become a select (if-to-select runs next). B's only predecessor is H, it has no phis,
//! and what it computes besides the comparison costs at most `MAX_SPECULATED` (cheap
//! arithmetic that now runs on both ways); D's phis take the same value from H and B.
//! The branch then waits for both tests, so the second may take at most `MAX_WAIT` cycles
//! longer to compute from what H and B start with than the first (`x == 1 && count == 2`,
//! the count summed from eight loads, stays two branches: the first test mostly decides,
//! early). Merging repeats from H, so `a || b || c` becomes one chain.
//!
//! Needs: the CFG. Preserves: behaviour (the CFG changes).

use crate::analysis::Preserved;
use crate::compare_chain::{can_link, Link};
use crate::cost_model::CostModel;
use crate::fast_hash::FastHashMap;
use crate::ir::{Block, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::phi_edits::{Edit, PhiEdits};
use crate::transform::remove_blocks::remove_blocks;

/// The most weighted cost (`CostModel::inst_cost`) of what the second test's block
/// computes besides its comparison: two adds.
const MAX_SPECULATED: u32 = 2;

/// How many cycles later than the first test's the second test's outcome may be known.
const MAX_WAIT: u32 = 2;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let cfg = cx.analyses.cfg(f);
    let mut preds = vec![0; f.block_capacity()];
    for &b in cfg.rpo() {
        preds[b.index()] = cfg.preds(b).len();
    }
    let mut changed = false;
    for &h in cfg.rpo() {
        while let Some(m) = find(f, cx.costs, &preds, h) {
            preds[m.d.index()] -= 1;
            apply(f, &m);
            changed = true;
        }
    }
    Preserved::nothing_if(changed)
}

/// Two tests to merge: H branches on `c1` to D or to B, B on `c2` to D or to E.
struct Merge {
    h: Block,
    b: Block,
    d: Block,
    e: Block,
    c1: Value,
    c2: Inst,
    link: Link,
    /// Whether B goes to D when `c2` fails: the chain tests the inverse comparison.
    inverse: bool,
}

fn find(f: &Function, costs: &dyn CostModel, preds: &[usize], h: Block) -> Option<Merge> {
    if !f.is_in_layout(h) {
        return None;
    }
    let (c1, [yes, no]) = f.cond_branch(h)?;
    c1.as_inst()?;
    [(no, yes, Link::Or), (yes, no, Link::And)]
        .into_iter()
        .filter(|&(b, _, _)| preds[b.index()] == 1 && b != h && f.phis(b).next().is_none())
        .find_map(|(b, d, link)| merge(f, costs, h, c1, b, d, link))
}

/// The merge of H's test `c1` with B's, where B is H's side to go on and D the other.
fn merge(
    f: &Function,
    costs: &dyn CostModel,
    h: Block,
    c1: Value,
    b: Block,
    d: Block,
    link: Link,
) -> Option<Merge> {
    let (c2, [yes2, no2]) = f.cond_branch(b)?;
    let c2 = c2.as_inst()?;
    let (e, inverse) = match link {
        Link::Or if yes2 == d => (no2, false),
        Link::Or if no2 == d => (yes2, true),
        Link::And if no2 == d => (yes2, false),
        Link::And if yes2 == d => (no2, true),
        _ => return None,
    };
    if e == b {
        return None;
    }
    let InstKind::Icmp { pred, args: [x, y] } = *f.kind(c2) else {
        return None;
    };
    // The back end tests a comparison in a chain only where the chain is its one use (else
    // it holds the truth value in a register); an inverse is a new comparison.
    let single = |i: Inst| f.uses(Value::Inst(i)).len() == 1;
    if !inverse && !single(c2) {
        return None;
    }
    let pred = if inverse { pred.inverse() } else { pred };
    let same_values = f
        .phis(d)
        .all(|phi| f.phi_incoming(phi, h) == f.phi_incoming(phi, b));
    let cheap = speculated_cost(f, costs, b, c2).is_some_and(|c| c <= MAX_SPECULATED);
    if !same_values || !cheap || !can_link(f, c1, link, (pred, x, y), &single) {
        return None;
    }
    let times = ready_times(f, costs, [h, b]);
    let ready = |v: Value| v.as_inst().and_then(|i| times.get(&i).copied());
    let in_time = ready(Value::Inst(c2)).unwrap_or(0) <= ready(c1).unwrap_or(0) + MAX_WAIT;
    in_time.then_some(Merge {
        h,
        b,
        d,
        e,
        c1,
        c2,
        link,
        inverse,
    })
}

/// What `b`'s instructions other than its terminator and the comparison `c2` cost, if all
/// of them are arithmetic, which may run whichever way H goes (every integer operation is
/// defined for every input; no memory access, call or other comparison).
fn speculated_cost(f: &Function, costs: &dyn CostModel, b: Block, c2: Inst) -> Option<u32> {
    let mut cost = 0;
    for i in f.block_insts(b) {
        let kind = f.kind(i);
        if i == c2 || kind.is_terminator() {
            continue;
        }
        if !matches!(kind, InstKind::Binary { .. }) {
            return None;
        }
        cost += costs.inst_cost(kind);
    }
    Some(cost)
}

/// When each instruction of the blocks `within` (a block and one it dominates) is known,
/// in cycles from their start, along its longest chain of operands there
/// (`CostModel::inst_latency`); values from elsewhere are known at the start.
fn ready_times(f: &Function, costs: &dyn CostModel, within: [Block; 2]) -> FastHashMap<Inst, u32> {
    let mut known: FastHashMap<Inst, u32> = FastHashMap::default();
    for i in within.into_iter().flat_map(|b| f.block_insts(b)) {
        let kind = f.kind(i);
        if kind.is_phi() {
            continue;
        }
        let operands = kind.operands().iter();
        let start = operands.filter_map(|a| known.get(&a.as_inst()?)).max();
        known.insert(i, costs.inst_latency(kind) + start.copied().unwrap_or(0));
    }
    known
}

fn apply(f: &mut Function, m: &Merge) {
    let term = f.terminator(m.h).expect("H ends in a condbr");
    let moved: Vec<Inst> = f
        .block_insts(m.b)
        .filter(|&i| !f.kind(i).is_terminator())
        .collect();
    for i in moved {
        f.move_inst_before(i, term);
    }
    let c2 = if m.inverse {
        inverse_of(f, m.c2, term)
    } else {
        m.c2
    };
    let args = match m.link {
        Link::Or => [m.c1, Value::Bool(true), Value::Inst(c2)],
        Link::And => [m.c1, Value::Inst(c2), Value::Bool(false)],
    };
    let c = f.insert_inst_before(term, InstKind::Select { args }, Type::I1);
    let targets = match m.link {
        Link::Or => [m.d, m.e],
        Link::And => [m.e, m.d],
    };
    f.replace_kind(
        term,
        InstKind::CondBr {
            args: [Value::Inst(c)],
            targets,
        },
        Type::Void,
    );
    let mut edits = PhiEdits::new(f.block_capacity());
    edits.queue(f, m.d, Edit::Remove(m.b));
    edits.queue(f, m.e, Edit::Rename(m.b, m.h));
    edits.flush_all(f);
    remove_blocks(f, &[m.b]);
}

/// The comparison that holds exactly when `c` does not: `c` itself, rewritten, when B's
/// branch was its only user, else a new one before `before`.
fn inverse_of(f: &mut Function, c: Inst, before: Inst) -> Inst {
    let InstKind::Icmp { pred, args } = *f.kind(c) else {
        unreachable!("the second test is a comparison")
    };
    let kind = InstKind::Icmp {
        pred: pred.inverse(),
        args,
    };
    if f.uses(Value::Inst(c)).len() == 1 {
        f.replace_kind(c, kind, Type::I1);
        c
    } else {
        f.insert_inst_before(before, kind, Type::I1)
    }
}
