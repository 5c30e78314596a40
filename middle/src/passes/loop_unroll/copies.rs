//! Copying a loop's rounds: what the header's phis take on entry and back from the latch,
//! one round's copy of the blocks, where a phi takes a block's value, and the size of the
//! blocks to copy.

use crate::cost_model::CostModel;
use crate::ir::{Block, Function, Inst, InstKind, Value};
use crate::transform::value_map::{copy_blocks, copy_insts, mapped, ValueMap};

/// What each of a header's `phis` takes from its preheader `p`.
pub(super) fn entry_values(f: &Function, phis: &[Inst], p: Block) -> Vec<Value> {
    phis.iter()
        .map(|&phi| f.phi_incoming(phi, p).expect("from the preheader"))
        .collect()
}

/// What each of a header's `phis` takes back from `latch`, in the copy that `at` describes.
pub(super) fn latch_values(f: &Function, phis: &[Inst], latch: Block, at: &ValueMap) -> Vec<Value> {
    phis.iter()
        .map(|&phi| mapped(f.phi_incoming(phi, latch).expect("from the latch"), at))
        .collect()
}

/// A copy of a loop's `blocks` laid out after block `after`: each original block with its
/// copy, and what stands for each original instruction there. With `carried`, the header's
/// `phis` are not copied: the copy takes those values for them (the round before's).
pub(super) fn copy_round(
    f: &mut Function,
    blocks: &[Block],
    after: Block,
    phis: &[Inst],
    carried: Option<&[Value]>,
) -> (Vec<(Block, Block)>, ValueMap) {
    let copy_of = copy_blocks(f, blocks, after);
    let mut map = copy_insts(f, &copy_of);
    for (&phi, &v) in phis.iter().zip(carried.unwrap_or_default()) {
        let copy = map[&phi].as_inst().expect("a copied phi");
        f.replace_all_uses(Value::Inst(copy), v);
        f.remove_inst(copy);
        map.insert(phi, v);
    }
    (copy_of, map)
}

/// The machine instructions of `blocks` besides phis and branches; `None` when one of them
/// allocates, or calls where `calls` is false.
pub(super) fn blocks_size(
    f: &Function,
    costs: &dyn CostModel,
    blocks: &[Block],
    calls: bool,
) -> Option<u32> {
    let mut size = 0;
    for &b in blocks {
        for i in f.block_insts(b) {
            let kind = f.kind(i);
            let call = matches!(kind, InstKind::Call { .. });
            if matches!(kind, InstKind::Alloca { .. }) || call && !calls {
                return None;
            }
            if !kind.is_phi() && !kind.is_terminator() {
                size += costs.inst_size(kind);
            }
        }
    }
    Some(size)
}
