//! dead-stores: a store that a later store of the same block overwrites before anything can
//! read the location goes (the copies of an unrolled loop's body each storing the counter
//! to one global keep only the last), and so does a store of the value the location already
//! holds (`t = a[i]; a[j] = t; a[i] = t;` keeps only the store to `a[j]`).
//!
//! Each block is walked backwards with the locations certain to be written again, later in
//! the block, before any read: a store to one of them is dead; a store adds its location; a
//! load drops every location it may overlap, a call every location it may read (alias
//! analysis, with the callees' summaries). Two stores write the same location when their
//! addresses are one value, or lead to one global, parameter or `alloca` at one known
//! offset. At most `MAX_PENDING` locations are followed at once, so a block costs linear
//! time. Instructions left computing only a removed store's value or address go too.
//!
//! A second walk, forwards, follows what locations are known to hold: the value a load read
//! or a store wrote. A store of the known value to the same location is dead. A store of
//! another value forgets what it may overwrite (one of the same value forgets nothing: where
//! it lands, the location keeps that value), a call what it may write.
//!
//! Before both walks, every store into a stack array that nothing reads (the `alloca`'s
//! address, directly or through `gep`s, is only ever stored to) goes, and the array with it.
//!
//! Needs: the module facts. Preserves: behaviour and the CFG.

use crate::analysis::alias::{
    call_may_read, call_may_write, locate, may_alias_in, vector_location, Location, Object,
};
use crate::analysis::Preserved;
use crate::ir::{Function, Inst, InstKind, Value};
use crate::passes::FunctionContext;

/// The most locations followed at once in a block.
const MAX_PENDING: usize = 32;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let facts = cx.facts();
    let mut dead = stores_into_unread_arrays(f);
    let mut is_dead = vec![false; f.inst_capacity()];
    for &i in &dead {
        is_dead[i.index()] = true;
    }
    for b in f.blocks() {
        let mut held: Vec<(Value, Location, Value)> = Vec::new();
        for i in f.block_insts(b) {
            match *f.kind(i) {
                InstKind::Store { args: [v, addr] } if !is_dead[i.index()] => {
                    let loc = locate(f, addr);
                    if held
                        .iter()
                        .any(|&(a, l, x)| x == v && (a == addr || same_location(l, loc)))
                    {
                        dead.push(i);
                        is_dead[i.index()] = true;
                        continue;
                    }
                    held.retain(|&(_, l, x)| x == v || !may_alias_in(facts, cx.id, l, loc));
                    if held.len() < MAX_PENDING {
                        held.push((addr, loc, v));
                    }
                }
                InstKind::Load { args: [addr] } if held.len() < MAX_PENDING => {
                    held.push((addr, locate(f, addr), Value::Inst(i)));
                }
                InstKind::VStore { args: [_, addr] } => {
                    let loc = vector_location(f, addr);
                    held.retain(|&(_, l, _)| !may_alias_in(facts, cx.id, l, loc));
                }
                InstKind::Call { .. } => held.retain(|&(_, l, _)| !call_may_write(f, facts, i, l)),
                _ => {}
            }
        }
    }
    for b in f.blocks() {
        let mut pending: Vec<(Value, Location)> = Vec::new();
        let insts: Vec<Inst> = f.block_insts(b).collect();
        for &i in insts.iter().rev() {
            match *f.kind(i) {
                InstKind::Store { args: [_, addr] } if !is_dead[i.index()] => {
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
                InstKind::VLoad { args: [addr] } => {
                    let loc = vector_location(f, addr);
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

/// The stores into stack arrays that nothing reads: every use of the `alloca`, directly or
/// through `gep`s, is the address of a store (the loads of a loop's local array all
/// answered by the stores of the same round, say).
fn stores_into_unread_arrays(f: &Function) -> Vec<Inst> {
    let mut stores = Vec::new();
    for array in f.all_insts() {
        if !matches!(f.kind(array), InstKind::Alloca { .. }) {
            continue;
        }
        let mut found = Vec::new();
        let mut addresses = vec![array];
        let mut unread = true;
        while let Some(a) = addresses.pop() {
            for u in f.uses(Value::Inst(a)) {
                match (f.kind(u.inst), u.index) {
                    (InstKind::Gep { .. }, 0) => addresses.push(u.inst),
                    (InstKind::Store { .. }, 1) => found.push(u.inst),
                    _ => unread = false,
                }
            }
        }
        if unread {
            stores.extend(found);
        }
    }
    stores
}

/// Whether two known locations are one: the same object, other than an unknown one, at the
/// same known offset.
fn same_location(a: Location, b: Location) -> bool {
    a.object != Object::Unknown && a.offset.is_some() && a == b
}
