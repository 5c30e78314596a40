//! Local code motion: inside each block, an instruction that code motion may move (see
//! `transform::pinned`) and whose users all come later in the same block sinks to just before
//! its first user, so its value occupies a register for less time. It sinks only when that
//! raises the number of live values nowhere: at most one operand has its last use moved
//! down with it (one value then lives where another did). The others are constants, globals'
//! addresses, used again at or after the new place, or used outside the block (taken as live
//! at its end; a value with very many uses counts as live). Sinking past calls also keeps
//! values out of the registers a call clobbers.
//!
//! Seed 002 moves an instruction only next to a single user in its block; here any number of
//! users is fine, and the blocks are walked bottom-up, so a whole expression sinks, each
//! operand to just before the instruction that needs it. Memory accesses and calls keep
//! their order: they are pinned.
//!
//! Needs: nothing. Preserves: behaviour and the CFG.

use crate::analysis::Preserved;
use crate::ir::{Block, Function, Inst, Value};
use crate::passes::FunctionContext;
use crate::transform::pinned::is_pinned;
use crate::transform::positions::Positions;

pub fn run(f: &mut Function, _: &mut FunctionContext) -> Preserved {
    let mut positions = Positions::new(f);
    let mut changed = false;
    let blocks: Vec<Block> = f.blocks().collect();
    for b in blocks {
        let insts: Vec<Inst> = f.block_insts(b).collect();
        for &i in insts.iter().rev() {
            if is_pinned(f, i) {
                continue;
            }
            let Some(first) = first_user_here(f, &mut positions, i, b) else {
                continue;
            };
            if f.next_inst(i) == Some(first) || dying_operands(f, &mut positions, i, b, first) > 1 {
                continue;
            }
            positions.move_before(f, i, first);
            changed = true;
        }
    }
    Preserved::cfg_if(changed)
}

/// The first user of `i` when all its users are ordinary instructions of `b`.
fn first_user_here(f: &Function, positions: &mut Positions, i: Inst, b: Block) -> Option<Inst> {
    let mut first: Option<(u64, Inst)> = None;
    for u in f.uses(Value::Inst(i)) {
        if f.inst_block(u.inst) != Some(b) || f.kind(u.inst).is_phi() {
            return None;
        }
        let p = positions.of(f, u.inst);
        if first.is_none_or(|(q, _)| p < q) {
            first = Some((p, u.inst));
        }
    }
    first.map(|(_, u)| u)
}

/// A value with more uses than this is taken as live until `to` without looking, which
/// keeps the pass linear on functions where one value has thousands of uses.
const MANY_USES: usize = 64;

/// How many distinct operands of `i` would live longer if `i` moved to `to`.
fn dying_operands(f: &Function, positions: &mut Positions, i: Inst, b: Block, to: Inst) -> usize {
    let limit = positions.of(f, to);
    let mut operands = f.kind(i).operands().to_vec();
    operands.dedup();
    let outlives = |v: Value, positions: &mut Positions| {
        !matches!(v, Value::Inst(_) | Value::Param(_))
            || f.uses(v).len() > MANY_USES
            || f.uses(v).iter().any(|u| {
                u.inst != i
                    && (f.inst_block(u.inst) != Some(b)
                        || f.kind(u.inst).is_phi()
                        || positions.of(f, u.inst) >= limit)
            })
    };
    operands
        .into_iter()
        .filter(|&v| !outlives(v, positions))
        .count()
}
