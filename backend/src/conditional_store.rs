//! Stores under a condition: `store (select %c, new, old), p`, where `old` is what `p`
//! holds when the store runs, writes `new` under `c` and nothing otherwise (`str<cond>`).
//! if-to-select makes such stores of `if (t[i] < x) t[i] = x;` and of a swap's two stores.
//!
//! `p` holds `old` when the block's last access to `p` before the store loaded `old` or
//! stored it, and every write between them is a store apart from `p`
//! (`alias::value_held`: the swap's first store is apart from its second's address). The select is the store's
//! alone and int-typed, its condition one flag test (a comparison that needs two, like a
//! float `!=`, keeps the select), and `p` no stack slot (slot stores stay unconditional for
//! the frame passes).

use middle::analysis::alias::value_held;
use middle::ir::{Function, Inst, InstKind, Type, Value};

/// A store to emit under a condition: it stores `new` where `cond` is `when`.
#[derive(Clone, Copy)]
pub struct ConditionalStore {
    pub cond: Value,
    pub when: bool,
    pub new: Value,
}

/// The conditional form of `store`, if it has one.
pub fn conditional_store(f: &Function, store: Inst) -> Option<ConditionalStore> {
    let InstKind::Store { args: [x, p] } = *f.kind(store) else {
        return None;
    };
    let select = x.as_inst()?;
    let InstKind::Select { args: [cond, a, b] } = *f.kind(select) else {
        return None;
    };
    let block = f.inst_block(store)?;
    if f.inst(select).ty != Type::I32
        || f.uses(x).len() != 1
        || f.inst_block(select) != Some(block)
        || matches!(
            p.as_inst().map(|i| f.kind(i)),
            Some(InstKind::Alloca { .. })
        )
    {
        return None;
    }
    let held = value_held(f, block, p, Some(store))?;
    let (when, new) = if b == held {
        (true, a)
    } else if a == held {
        (false, b)
    } else {
        return None;
    };
    Some(ConditionalStore { cond, when, new })
}
