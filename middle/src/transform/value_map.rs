//! Copies of instructions inside one function, for the passes that duplicate code (loop
//! rotation, unrolling, splitting and unswitching): a map from original instructions to the
//! values that stand for them in the copy, an instruction's kind with its operands renamed
//! through it, and the copy of a whole region of blocks.

use crate::fast_hash::FastHashMap;
use crate::ir::{Block, Function, Inst, InstKind, Value};

/// What stands for each original instruction in a copy.
pub type ValueMap = FastHashMap<Inst, Value>;

/// `x`, or what stands for it in the copy.
pub fn mapped(x: Value, at: &ValueMap) -> Value {
    match x.as_inst().and_then(|i| at.get(&i)) {
        Some(&y) => y,
        None => x,
    }
}

/// The kind of instruction `i` with its operands renamed through `at`.
pub fn mapped_kind(f: &Function, i: Inst, at: &ValueMap) -> InstKind {
    let mut kind = f.kind(i).clone();
    for x in kind.operands_mut() {
        *x = mapped(*x, at);
    }
    kind
}

/// New blocks for copies of `blocks`, laid out in their order after `after`: each original
/// with its copy.
pub fn copy_blocks(f: &mut Function, blocks: &[Block], after: Block) -> Vec<(Block, Block)> {
    let mut last = after;
    let mut copy_of = Vec::with_capacity(blocks.len());
    for &b in blocks {
        let c = f.create_block();
        f.insert_block_after(c, last);
        last = c;
        copy_of.push((b, c));
    }
    copy_of
}

/// The copy of block `b` in `copy_of`, or `b` outside the copied region.
pub fn copied_block(copy_of: &[(Block, Block)], b: Block) -> Block {
    copy_of
        .iter()
        .find(|&&(o, _)| o == b)
        .map_or(b, |&(_, c)| c)
}

/// Fills each copy in `copy_of` with its original's instructions, in order, their operands
/// and branch targets inside the region renamed to the copies' (once all exist: phis name
/// values defined later); returns what stands for each original instruction.
pub fn copy_insts(f: &mut Function, copy_of: &[(Block, Block)]) -> ValueMap {
    let mut map = ValueMap::default();
    let mut copies: Vec<Inst> = Vec::new();
    for &(b, c) in copy_of {
        let insts: Vec<Inst> = f.block_insts(b).collect();
        for i in insts {
            let kind = f.kind(i).clone();
            let ty = f.inst(i).ty;
            let j = f.append_inst(c, kind, ty);
            map.insert(i, Value::Inst(j));
            copies.push(j);
        }
    }
    for &j in &copies {
        let kind = mapped_kind(f, j, &map);
        let ty = f.inst(j).ty;
        f.replace_kind(j, kind, ty);
        for t in f.kind_mut_targets(j) {
            *t = copied_block(copy_of, *t);
        }
    }
    map
}
