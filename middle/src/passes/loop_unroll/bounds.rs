//! Whether a counted loop's bound lets it unroll: the loop itself does not change it, and
//! the loops around do not read it from memory (a bound the data decides, which often
//! makes few rounds) unless the counter starts at a value that spans the problem.

use crate::analysis::LoopInfo;
use crate::ir::{Function, Inst, InstKind, Value};

/// The most instructions looked at to tell whether a bound is read from memory.
const MAX_BOUND_SEARCH: usize = 32;

/// Whether loop `k` may unroll for its bound and its counter's start, and if so whether
/// the loops around it change the bound (then its limit is paid on every entry).
pub(super) fn bound_changes(
    f: &Function,
    loops: &LoopInfo,
    k: usize,
    bound: Value,
    init: Value,
) -> Option<bool> {
    let block_of = |v: Value| v.as_inst().and_then(|i| f.inst_block(i));
    // The bound is fixed for the loop itself: defined before it.
    if block_of(bound).is_some_and(|b| loops.knows(b) && loops.contains(k, b)) {
        return None;
    }
    // A bound read from memory afresh for each entry (a row's length in a sparse matrix)
    // often makes few rounds, and the limit and the extra tests would be paid on every
    // entry: such a loop is left alone.
    let mut outermost = k;
    while let Some(parent) = loops.loops[outermost].parent {
        outermost = parent;
    }
    // A block added by unrolling another loop in this run (fully unrolled bodies, which
    // may compute this bound) counts as inside.
    let defined_inside =
        |v: Value| block_of(v).is_some_and(|b| !loops.knows(b) || loops.contains(outermost, b));
    // Unless the counter starts at a run-time value that the loop around does not change
    // (a knapsack's capacity, counting down to an item's weight): then the loop spans the
    // problem's size, not a datum's.
    let parent = loops.loops[k].parent;
    let spans_the_problem = block_of(init)
        .is_some_and(|b| loops.knows(b) && parent.is_none_or(|q| !loops.contains(q, b)));
    if read_inside(f, bound, &defined_inside) && !spans_the_problem {
        return None;
    }
    Some(defined_inside(bound))
}

/// Whether `v`, defined in the loops around (`inside`), is a load there, or computed from
/// one there (phis aside, at most `MAX_BOUND_SEARCH` instructions looked at): a bound the
/// data decides (a row's end in a sparse matrix), not the loops' own arithmetic (`n - 1 -
/// i`, `min(l + w, n)` of random `l` and `w`).
fn read_inside(f: &Function, v: Value, inside: &dyn Fn(Value) -> bool) -> bool {
    let mut seen: Vec<Inst> = Vec::new();
    let mut work = vec![v];
    while let Some(v) = work.pop() {
        let Some(i) = v.as_inst().filter(|_| inside(v)) else {
            continue;
        };
        if seen.contains(&i) {
            continue;
        }
        if seen.len() == MAX_BOUND_SEARCH {
            return true;
        }
        seen.push(i);
        match f.kind(i) {
            InstKind::Load { .. } | InstKind::Call { .. } => return true,
            // A counter of the loops around, or a value they carry.
            InstKind::Phi { .. } => {}
            kind => work.extend(kind.operands().iter().copied()),
        }
    }
    false
}
