//! constant-local-arrays (constant arrays, for local arrays): a local
//! array that a function fills with constants before it reads any of them becomes a
//! read-only global holding those constants, so no call fills it again. (`int x[31] = {};
//! x[0] = 1; ... x[i] = x[i - 1] * 2;` is such an array once its loop is unrolled and the
//! products folded.)
//!
//! An `alloca` qualifies when every use of its address, through `gep`s, is a load, a store
//! of a constant at a known offset, or a `memset` of a known range with a constant byte;
//! when each memset runs before every store and every load, and every store before every
//! load (each dominates them); when all memsets and all stores that write one element
//! write the same bits (a store's may differ from a memset's); and when it is loaded at
//! all. Dominance is enough even inside loops: a path from a memset to a load that missed
//! a store, joined to a path from the entry to the memset that misses it too (there is one,
//! as the memset dominates the store), would reach the load without the store. So at a
//! load every element holds what the last memset and then the stores put there, whatever
//! the path: that image (zero where nothing wrote) becomes the initialiser of a new
//! constant global, the address uses become the global's, and the memsets, stores and
//! `alloca` go.
//! (Each call had its own array and now reads the shared one: nothing writes it anymore.)
//!
//! Needs: the dominator tree of each function. Preserves: behaviour
//! and every function's CFG.

use crate::analysis::alias::{locate, Object};
use crate::analysis::{DomTree, Preserved};
use crate::ir::{Callee, FuncId, Function, Global, GlobalId, Inst, InstKind, Module, Type, Value};
use crate::passes::ModuleAnalyses;
use crate::transform::positions::Positions;

/// Arrays with more (write, load) pairs than this stay: each pair's order is checked.
const MAX_PAIRS: usize = 1 << 16;

pub fn run(m: &mut Module, am: &mut ModuleAnalyses) -> Preserved {
    let mut changed = false;
    for id in m.function_ids().collect::<Vec<FuncId>>() {
        let f = m.function(id);
        let allocas: Vec<Inst> = f
            .all_insts()
            .filter(|&i| matches!(f.kind(i), InstKind::Alloca { .. }))
            .collect();
        if allocas.is_empty() {
            continue;
        }
        let dom = am.function(id).dom(f);
        let mut positions = Positions::new(f);
        let plans: Vec<Plan> = allocas
            .into_iter()
            .filter_map(|a| plan(f, &dom, &mut positions, a))
            .collect();
        for plan in plans {
            // Globals are never removed here, so their count numbers the new one uniquely.
            let name = format!("{}.const{}", m.function(id).name, m.globals.len());
            m.globals.push(Global {
                name,
                elem: plan.elem,
                len: plan.len,
                init: plan.init,
                is_const: true,
            });
            let g = GlobalId(m.globals.len() as u32 - 1);
            let f = m.function_mut(id);
            for w in plan.writes {
                let addr = match f.kind(w) {
                    InstKind::Store { args } => args[1],
                    _ => f.kind(w).operands()[0],
                };
                f.remove_inst(w);
                remove_unused_geps(f, addr);
            }
            f.replace_all_uses(Value::Inst(plan.alloca), Value::Global(g));
            f.remove_inst(plan.alloca);
            changed = true;
        }
    }
    // Only instructions changed, and a global was added: every function's CFG stands.
    if changed {
        Preserved::Cfg
    } else {
        Preserved::All
    }
}

/// Removes `addr` if it is a `gep` nothing uses any more, and so on down its bases.
fn remove_unused_geps(f: &mut Function, mut addr: Value) {
    while let Value::Inst(i) = addr {
        let InstKind::Gep { args, .. } = *f.kind(i) else {
            return;
        };
        if !f.uses(addr).is_empty() {
            return;
        }
        f.remove_inst(i);
        addr = args[0];
    }
}

/// What replaces one `alloca`.
struct Plan {
    alloca: Inst,
    elem: Type,
    len: u32,
    /// The global's initialiser: index and bits of each element that is not zero.
    init: Vec<(u32, u32)>,
    /// The memsets and stores that filled the array.
    writes: Vec<Inst>,
}

/// The accesses of one array, found through its address's uses.
#[derive(Default)]
struct Accesses {
    loads: Vec<Inst>,
    /// Each store with its element's byte offset and the bits stored.
    stores: Vec<(Inst, i64, u32)>,
    /// Each memset with its byte range and the bits of each element it fills.
    memsets: Vec<(Inst, i64, i64, u32)>,
}

/// How `alloca` becomes a constant global, if it qualifies.
fn plan(f: &Function, dom: &DomTree, positions: &mut Positions, alloca: Inst) -> Option<Plan> {
    let InstKind::Alloca { elem, count } = *f.kind(alloca) else {
        return None;
    };
    let mut acc = Accesses::default();
    collect(f, alloca, Value::Inst(alloca), &mut acc)?;
    if acc.loads.is_empty() {
        return None;
    }
    let writes = acc.memsets.len() + acc.stores.len();
    if writes * acc.loads.len() > MAX_PAIRS {
        return None;
    }
    let mut precedes = |a: Inst, b: Inst| inst_dominates(f, dom, positions, a, b);
    for &(m, ..) in &acc.memsets {
        let first = acc.stores.iter().all(|&(s, ..)| precedes(m, s))
            && acc.loads.iter().all(|&l| precedes(m, l));
        if !first {
            return None;
        }
    }
    if !acc
        .stores
        .iter()
        .all(|&(s, ..)| acc.loads.iter().all(|&l| precedes(s, l)))
    {
        return None;
    }
    // The memory image, element by element: what the memsets left, then the stores.
    let bytes = i64::from(elem.bytes()) * i64::from(count);
    let mut image: Vec<Option<u32>> = vec![None; count as usize];
    let element = |offset: i64| {
        (offset >= 0 && offset % 4 == 0 && offset + 4 <= bytes).then_some((offset / 4) as usize)
    };
    for &(_, start, len, bits) in &acc.memsets {
        if start % 4 != 0 || len % 4 != 0 || start < 0 || start + len > bytes {
            return None;
        }
        for offset in (start..start + len).step_by(4) {
            let e = element(offset)?;
            if image[e].is_some_and(|b| b != bits) {
                return None;
            }
            image[e] = Some(bits);
        }
    }
    let mut stored: Vec<Option<u32>> = vec![None; count as usize];
    for &(_, offset, bits) in &acc.stores {
        let e = element(offset)?;
        if stored[e].is_some_and(|b| b != bits) {
            return None;
        }
        stored[e] = Some(bits);
        image[e] = Some(bits);
    }
    let init = image
        .iter()
        .enumerate()
        .filter_map(|(e, bits)| bits.filter(|&b| b != 0).map(|b| (e as u32, b)))
        .collect();
    let writes = acc
        .memsets
        .iter()
        .map(|&(m, ..)| m)
        .chain(acc.stores.iter().map(|&(s, ..)| s))
        .collect();
    Some(Plan {
        alloca,
        elem,
        len: count,
        init,
        writes,
    })
}

/// Files the uses of `addr`, an address inside `alloca`, in `acc`; `None` if one is neither
/// a `gep` from it, a load, a store of a constant at a known offset nor a memset of a known
/// range with a constant byte.
fn collect(f: &Function, alloca: Inst, addr: Value, acc: &mut Accesses) -> Option<()> {
    for u in f.uses(addr) {
        let user = u.inst;
        match f.kind(user) {
            InstKind::Gep { args, .. } if args[0] == addr && args[1] != addr => {
                collect(f, alloca, Value::Inst(user), acc)?
            }
            InstKind::Load { .. } => acc.loads.push(user),
            InstKind::Store { args: [value, at] } if *at == addr && *value != addr => {
                let bits = match *value {
                    Value::Int(v) => v as u32,
                    Value::Float(bits) => bits,
                    _ => return None,
                };
                acc.stores.push((user, offset(f, alloca, addr)?, bits));
            }
            InstKind::Call {
                callee: Callee::Memset,
                args,
            } if args[0] == addr && args[1..].iter().all(|&v| v != addr) => {
                let (Value::Int(byte), Value::Int(len)) = (args[1], args[2]) else {
                    return None;
                };
                let bits = u32::from_ne_bytes([byte as u8; 4]);
                let start = offset(f, alloca, addr)?;
                acc.memsets.push((user, start, i64::from(len), bits));
            }
            _ => return None,
        }
    }
    Some(())
}

/// The byte offset of `addr` inside `alloca`, when known.
fn offset(f: &Function, alloca: Inst, addr: Value) -> Option<i64> {
    let loc = locate(f, addr);
    (loc.object == Object::Alloca(alloca))
        .then_some(loc.offset)
        .flatten()
}

/// Whether instruction `a` dominates instruction `b`: its block dominates `b`'s strictly, or
/// both share a block and `a` comes first.
fn inst_dominates(
    f: &Function,
    dom: &DomTree,
    positions: &mut Positions,
    a: Inst,
    b: Inst,
) -> bool {
    match (f.inst_block(a), f.inst_block(b)) {
        (Some(ba), Some(bb)) if ba == bb => positions.of(f, a) < positions.of(f, b),
        (Some(ba), Some(bb)) => dom.dominates(ba, bb),
        _ => false,
    }
}
