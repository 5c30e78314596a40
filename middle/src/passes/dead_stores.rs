//! dead-stores: a store that a later store of the same block overwrites before anything can
//! read the location goes (the copies of an unrolled loop's body each storing the counter
//! to one global keep only the last).
//!
//! Each block is walked backwards with the locations certain to be written again, later in
//! the block, before any read: a store to one of them is dead; a store adds its location; a
//! load drops every location it may overlap, a call every location it may read (alias
//! analysis, with the callees' summaries). Two stores write the same location when their
//! addresses are one value, or lead to one global, parameter or `alloca` at one known
//! offset. At most `MAX_PENDING` locations are followed at once, so a block costs linear
//! time. Instructions left computing only a removed store's value or address go too.
//!
//! Needs: the module facts. Preserves: behaviour and the CFG.

use crate::analysis::alias::{call_may_read, locate, may_alias_in, Location, Object};
use crate::analysis::Preserved;
use crate::ir::{Function, Inst, InstKind, Value};
use crate::passes::FunctionContext;

/// The most locations followed at once in a block.
const MAX_PENDING: usize = 32;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let facts = cx.facts();
    let mut dead = Vec::new();
    for b in f.blocks() {
        let mut pending: Vec<(Value, Location)> = Vec::new();
        let insts: Vec<Inst> = f.block_insts(b).collect();
        for &i in insts.iter().rev() {
            match *f.kind(i) {
                InstKind::Store { args: [_, addr] } => {
                    let loc = locate(f, addr);
                    if pending
                        .iter()
                        .any(|&(a, l)| a == addr || same_location(l, loc))
                    {
                        dead.push(i);
                    } else if pending.len() < MAX_PENDING {
                        pending.push((addr, loc));
                    }
                }
                InstKind::Load { args: [addr] } => {
                    let loc = locate(f, addr);
                    pending.retain(|&(_, l)| !may_alias_in(facts, cx.id, l, loc));
                }
                InstKind::Call { .. } => pending.retain(|&(_, l)| !call_may_read(f, facts, i, l)),
                _ => {}
            }
        }
    }
    // The stores go, then what computed only their values and addresses.
    let mut unused: Vec<Value> = Vec::new();
    for &i in &dead {
        unused.extend_from_slice(f.kind(i).operands());
        f.remove_inst(i);
    }
    while let Some(v) = unused.pop() {
        let Some(i) = v.as_inst() else { continue };
        if f.inst_block(i).is_some()
            && f.uses(v).is_empty()
            && !f.kind(i).has_side_effects()
            && !f.kind(i).is_phi()
        {
            unused.extend_from_slice(f.kind(i).operands());
            f.remove_inst(i);
        }
    }
    Preserved::cfg_if(!dead.is_empty())
}

/// Whether two known locations are one: the same object, other than an unknown one, at the
/// same known offset.
fn same_location(a: Location, b: Location) -> bool {
    a.object != Object::Unknown && a.offset.is_some() && a == b
}
