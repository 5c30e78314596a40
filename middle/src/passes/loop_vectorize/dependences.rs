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
//! analysis, with what the function's calls pass to its parameters); otherwise, and when
//! the distance is not a constant, the loop stays scalar.

use crate::analysis::alias::{locate, may_alias_in, Location, Object};
use crate::analysis::scev::Invariant;
use crate::analysis::ModuleFacts;
use crate::ir::{FuncId, Function, Value};

/// A load or store of consecutive elements: whether it stores, the pointer it is computed
/// from outside the loop, and its byte offset from it in round 0.
pub(super) struct Access {
    pub(super) store: bool,
    pub(super) root: Value,
    pub(super) start: Invariant,
}

/// Whether the accesses, in body order, keep their order of dependent pairs when four
/// rounds run at once.
pub(super) fn independent(
    f: &Function,
    facts: &ModuleFacts,
    func: FuncId,
    accesses: &[Access],
) -> bool {
    for (n, a) in accesses.iter().enumerate() {
        for b in &accesses[n + 1..] {
            if (a.store || b.store) && !keeps_order(f, facts, func, a, b) {
                return false;
            }
        }
    }
    true
}

/// Whether `first`, earlier in the body, and `second` stay ordered where they meet.
fn keeps_order(
    f: &Function,
    facts: &ModuleFacts,
    func: FuncId,
    first: &Access,
    second: &Access,
) -> bool {
    let (a, b) = (locate(f, first.root), locate(f, second.root));
    let roots_apart = match (a.offset, b.offset) {
        _ if first.root == second.root => Some(0),
        (Some(x), Some(y)) if a.object == b.object && a.object != Object::Unknown => Some(x - y),
        _ => None,
    };
    let Some(roots_apart) = roots_apart else {
        // Roots in objects that never overlap never meet.
        let whole = |object| Location {
            object,
            offset: None,
        };
        return !may_alias_in(facts, func, whole(a.object), whole(b.object));
    };
    let Some(starts_apart) = first.start.add(&second.start.scale(-1)).as_constant() else {
        return false;
    };
    let bytes = roots_apart + i64::from(starts_apart);
    if bytes % 4 != 0 {
        return false;
    }
    // `first` in round i meets `second` in round i + d.
    let d = bytes / 4;
    d >= 0 || d <= -4
}
