//! Whether running a loop's rounds four at a time keeps the order of its memory accesses
//! wherever it matters: between two accesses to one element, at least one of them a store.
//!
//! Each access touches the element `root + start + 4i` in round `i`. Take `A` earlier in
//! the body than `B`: round `i` of `A` and round `i + d` of `B` touch the same element when
//! `A`'s start is `4d` bytes past `B`'s. The vector loop runs each instruction for four
//! consecutive rounds at once, all of `A`'s before any of `B`'s. For `d >= 0` that is the
//! scalar order too (a load of `a[i + 1]` before the store to `a[i]` reads the old value
//! either way; a store to `a[i + 1]` before a load of `a[i]` is read back a round later,
//! from the same block's store). For `-4 < d < 0`, `B`'s earlier round may fall in the same
//! block and would run after `A`'s later one (a load of `a[i]` before the store to `a[i + 1]`
//! would miss the value the round before stored): the loop stays scalar. For `d <= -4` the
//! two rounds are in different blocks, in order.
//!
//! Roots at known offsets in one object add their distance to the starts'. Accesses from
//! other roots never meet when the roots lie in objects that never overlap (alias
//! analysis, with what the function's calls pass to its parameters). Otherwise (two array
//! parameters, or a distance that is not a constant) the distance is the same in every
//! round, and the run decides: the vector loop runs only when `A`'s address in round 0 is
//! not less than 16 bytes below `B`'s (`widen` writes the test into the preheader).

use crate::analysis::alias::{locate, may_alias_in, Location, Object};
use crate::analysis::scev::Invariant;
use crate::analysis::ModuleFacts;
use crate::ir::{FuncId, Function, Value};

/// A load or store of consecutive elements: whether it stores, the pointer it is computed
/// from outside the loop, and its byte offset from it in round 0.
#[derive(Clone)]
pub(super) struct Access {
    pub(super) store: bool,
    pub(super) root: Value,
    pub(super) start: Invariant,
}

/// The most pairs of accesses checked at run time.
const MAX_CHECKS: usize = 4;

/// Whether the accesses, in body order, keep their order of dependent pairs when four
/// rounds run at once: `None` when some pair does not, else the pairs (earlier access
/// first) whose distance only the run decides.
pub(super) fn independent(
    f: &Function,
    facts: &ModuleFacts,
    func: FuncId,
    accesses: &[Access],
) -> Option<Vec<(Access, Access)>> {
    let mut checks: Vec<(Access, Access)> = Vec::new();
    for (n, a) in accesses.iter().enumerate() {
        for b in &accesses[n + 1..] {
            if !(a.store || b.store) {
                continue;
            }
            match order(f, facts, func, a, b) {
                Order::Kept => {}
                Order::Broken => return None,
                Order::AtRunTime => {
                    let same = |c: &(Access, Access)| {
                        (c.0.root, &c.0.start, c.1.root, &c.1.start)
                            == (a.root, &a.start, b.root, &b.start)
                    };
                    if !checks.iter().any(same) {
                        checks.push((a.clone(), b.clone()));
                    }
                }
            }
        }
    }
    (checks.len() <= MAX_CHECKS).then_some(checks)
}

enum Order {
    Kept,
    Broken,
    /// Kept unless `first`'s address in round 0 lies less than 16 bytes below `second`'s.
    AtRunTime,
}

/// Whether `first`, earlier in the body, and `second` stay ordered where they meet.
fn order(
    f: &Function,
    facts: &ModuleFacts,
    func: FuncId,
    first: &Access,
    second: &Access,
) -> Order {
    let (a, b) = (locate(f, first.root), locate(f, second.root));
    let roots_apart = match (a.offset, b.offset) {
        _ if first.root == second.root => Some(0),
        (Some(x), Some(y)) if a.object == b.object && a.object != Object::Unknown => Some(x - y),
        _ => None,
    };
    let starts_apart = first.start.add(&second.start.scale(-1)).as_constant();
    let (Some(roots_apart), Some(starts_apart)) = (roots_apart, starts_apart) else {
        // Roots in objects that never overlap never meet.
        let whole = |object| Location {
            object,
            offset: None,
        };
        if !may_alias_in(facts, func, whole(a.object), whole(b.object)) {
            return Order::Kept;
        }
        return Order::AtRunTime;
    };
    let bytes = roots_apart + i64::from(starts_apart);
    // `first` in round i meets `second` in round i + d, d = bytes / 4.
    if bytes % 4 == 0 && (bytes >= 0 || bytes <= -16) {
        Order::Kept
    } else {
        Order::Broken
    }
}
