//! scalar-promotion: a memory location that a loop both reads and writes, and that nothing
//! else in the loop may touch, lives in a register while the loop runs. It is loaded once
//! before the loop and stored once on each way out, instead of being loaded and stored
//! on every iteration (as LLVM's LICM promotes memory to registers).
//!
//! - A location is one 4-byte element of a global, an `alloca` or a parameter's array,
//!   written by a store of the loop whose address is defined outside the loop (`sum`,
//!   `a[0]`, `c[i]` in a loop over `j`).
//! - It is promoted when every load and store of the loop (inner loops included) that may
//!   overlap it uses the same address (or the same known offset in the same object), with
//!   one type, and no call in the loop may read or write it (alias analysis with the
//!   callees' summaries).
//! - The load before the loop must be safe even where the loop would not have touched the
//!   location. It is when the offset is known to lie inside its global or `alloca`, or when
//!   a store to it runs before any way out of the loop, so that entering the loop means
//!   writing there. Otherwise, for an address `gep base, index, stride` into a global or an
//!   `alloca` of known size, the preheader tests `index <u limit`, which keeps the address
//!   inside, and only then loads; each exit stores back only then. (When the test fails,
//!   any access the loop makes there is out of bounds.) A function gets at most
//!   `MAX_GUARDS` such tests.
//! - Every block the loop exits to must be entered from the loop only (`loop-simplify`
//!   makes them so). Each stores back what the location holds on leaving: what the loop
//!   wrote last, or what the preheader read if the loop wrote nothing on that path.
//!
//! The loop's accesses of the location are redirected to a new one-element `alloca`,
//! written from the preheader's load and read back in the exit blocks, and promotion
//! (`transform::promote`, as `mem2reg` does) turns that variable into SSA values (phis at
//! the header and where paths meet). Loops are taken outermost first, so a location
//! promoted around a nest is settled for the inner loops too. A loop with more than `MAX_ACCESSES` memory accesses is left alone.
//!
//! Needs: the CFG, the dominator tree, the loop forest and the module facts. Preserves:
//! behaviour; the CFG unless a bounds test was added.

use crate::analysis::alias::{
    call_may_read, call_may_write, is_in_bounds, locate, may_alias_in, object_bytes,
};
use crate::analysis::alias::{Location, Object};
use crate::analysis::{Cfg, DomTree, LoopInfo, ModuleFacts, Preserved};
use crate::ir::{Block, FuncId, Function, Inst, InstKind, IntPred, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::loop_accesses::loop_accesses;
use crate::transform::promote;

/// Loops with more memory accesses than this are left alone: checking each location
/// against every access costs their product.
const MAX_ACCESSES: usize = 256;

/// At most this many promotions in one function need a bounds test, each of which finds
/// the loops again.
const MAX_GUARDS: usize = 8;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let mut variables = Vec::new();
    let mut guards = 0;
    loop {
        let loops = cx.analyses.loops(f);
        if loops.loops.is_empty() {
            return Preserved::All;
        }
        let cfg = cx.analyses.cfg(f);
        let dom = cx.analyses.dom(f);
        let promoter = Promoter {
            cfg: &cfg,
            loops: &loops,
            dom: &dom,
            facts: cx.facts(),
            func: cx.id,
            may_guard: guards < MAX_GUARDS,
        };
        let lists = loop_accesses(f, &loops, MAX_ACCESSES);
        let guarded = lists.iter().enumerate().any(|(k, list)| {
            list.as_ref()
                .is_some_and(|list| promoter.promote_loop(f, k, list, &mut variables))
        });
        if !guarded {
            break;
        }
        // The guard's blocks changed the CFG: the loops are found again, and the locations
        // already promoted are now the variables', which are never taken again.
        guards += 1;
        cx.analyses.invalidate(Preserved::Nothing);
    }
    if variables.is_empty() {
        return Preserved::All;
    }
    let allocas = promote::promotable(f);
    if !allocas.is_empty() {
        let cfg = cx.analyses.cfg(f);
        let dom = cx.analyses.dom(f);
        promote::promote(f, &cfg, &dom, allocas);
    }
    if guards > 0 {
        Preserved::Nothing
    } else {
        Preserved::Cfg
    }
}

struct Promoter<'a> {
    cfg: &'a Cfg,
    loops: &'a LoopInfo,
    dom: &'a DomTree,
    facts: &'a ModuleFacts,
    func: FuncId,
    /// Whether a promotion may still test its location's bounds.
    may_guard: bool,
}

/// What makes the load before the loop and the stores after it safe.
#[derive(Clone, Copy)]
enum Safety {
    /// The location always exists, or the loop writes it whenever it runs.
    Always,
    /// Only when `index <u limit`: the location is `gep base, index, stride` and that test
    /// keeps it inside the object `base` points into.
    Guard { index: Value, limit: i32 },
}

impl Promoter<'_> {
    /// Promotes what can be promoted around loop `k`, whose memory accesses are `list`;
    /// `variables` holds the `alloca`s made so far, which are never promoted again. Returns
    /// whether a promotion added a bounds test, which changes the CFG and ends the
    /// promotions on these analyses.
    fn promote_loop(
        &self,
        f: &mut Function,
        k: usize,
        list: &[Inst],
        variables: &mut Vec<Inst>,
    ) -> bool {
        let lp = &self.loops.loops[k];
        let Some(preheader) = lp.preheader else {
            return false;
        };
        let dedicated = lp
            .exits
            .iter()
            .all(|&e| self.cfg.preds(e).iter().all(|&p| self.loops.contains(k, p)));
        if !dedicated {
            return false;
        }
        let mut tried: Vec<Value> = Vec::new();
        for &s in list {
            let InstKind::Store {
                args: [value, addr],
            } = *f.kind(s)
            else {
                continue;
            };
            let loc = locate(f, addr);
            let known = matches!(
                loc.object,
                Object::Global(_) | Object::Param(_) | Object::Alloca(_)
            );
            let variable = matches!(loc.object, Object::Alloca(a) if variables.contains(&a));
            if !known || variable || tried.contains(&addr) || !self.loops.is_invariant(f, k, addr) {
                continue;
            }
            tried.push(addr);
            let ty = f.value_type(value);
            if !self.alone(f, list, addr, loc, ty) {
                continue;
            }
            let Some(safety) = self.safety(f, k, list, addr, loc) else {
                continue;
            };
            let place = Place { addr, loc, ty };
            variables.push(promote(f, preheader, &lp.exits, list, place, safety));
            if matches!(safety, Safety::Guard { .. }) {
                return true;
            }
        }
        false
    }

    /// Whether the location at `addr` (`loc`, stored with values of type `ty`) is what
    /// every access of `list` that may overlap it accesses, with that type, and no call of
    /// `list` may read or write it.
    fn alone(&self, f: &Function, list: &[Inst], addr: Value, loc: Location, ty: Type) -> bool {
        let fits = |a: Value, t: Type| {
            let at = locate(f, a);
            !may_alias_in(self.facts, self.func, at, loc) || (is_same(addr, loc, a, at) && t == ty)
        };
        list.iter().all(|&i| match *f.kind(i) {
            InstKind::Load { args: [a] } => fits(a, f.inst(i).ty),
            InstKind::Store { args: [v, a] } => fits(a, f.value_type(v)),
            _ => !call_may_read(f, self.facts, i, loc) && !call_may_write(f, self.facts, i, loc),
        })
    }

    /// What makes it safe to load the location at `addr` before loop `k` (accesses `list`)
    /// and store it after; `None` if nothing does.
    fn safety(
        &self,
        f: &Function,
        k: usize,
        list: &[Inst],
        addr: Value,
        loc: Location,
    ) -> Option<Safety> {
        if is_in_bounds(f, self.facts, loc) || self.written_on_entry(f, k, list, addr, loc) {
            return Some(Safety::Always);
        }
        if !self.may_guard {
            return None;
        }
        let Value::Inst(g) = addr else {
            return None;
        };
        let InstKind::Gep {
            args: [base, index],
            stride,
        } = *f.kind(g)
        else {
            return None;
        };
        let inside = locate(f, base);
        let bytes = object_bytes(f, self.facts, inside.object)?;
        let room = bytes - 4 - inside.offset?;
        if stride == 0 || room < 0 || f.value_type(index) != Type::I32 {
            return None;
        }
        let limit = i32::try_from(room / i64::from(stride) + 1).ok()?;
        Some(Safety::Guard { index, limit })
    }

    /// Whether a store to the location at `addr` in loop `k` runs before every way out of
    /// the loop (and the loop has one): then entering the loop means writing there, and the
    /// location may be read before. (A loop that never reaches such a store, by running
    /// forever, still sees the load before it.)
    fn written_on_entry(
        &self,
        f: &Function,
        k: usize,
        list: &[Inst],
        addr: Value,
        loc: Location,
    ) -> bool {
        let exiting = &self.loops.loops[k].exiting;
        !exiting.is_empty()
            && list.iter().any(|&i| {
                matches!(*f.kind(i), InstKind::Store { args: [_, a] } if is_same(addr, loc, a, locate(f, a)))
                    && f.inst_block(i).is_some_and(|b| {
                        exiting.iter().all(|&e| self.dom.dominates(b, e))
                    })
            })
    }
}

/// Whether the access at address `a` (location `at`) is the location at `addr` (`loc`): the
/// same address, or the same known offset in the same object.
fn is_same(addr: Value, loc: Location, a: Value, at: Location) -> bool {
    a == addr || (loc.offset.is_some() && at == loc)
}

/// A promoted location: its address, what alias analysis knows of it, and its type.
#[derive(Clone, Copy)]
struct Place {
    addr: Value,
    loc: Location,
    ty: Type,
}

/// Redirects the accesses of `list` to `place` to a new variable, loaded from the place in
/// `preheader` and stored back at the start of each of `exits`, both only when `safety`'s
/// test holds; returns the variable's `alloca`.
fn promote(
    f: &mut Function,
    preheader: Block,
    exits: &[Block],
    list: &[Inst],
    place: Place,
    safety: Safety,
) -> Inst {
    let Place { addr, loc, ty } = place;
    let entry = f.entry().expect("a function with loops has an entry");
    let alloca = f.prepend_inst(entry, InstKind::Alloca { elem: ty, count: 1 }, Type::Ptr);
    let variable = Value::Inst(alloca);
    let (load_block, guard) = match safety {
        Safety::Always => (preheader, None),
        Safety::Guard { index, limit } => {
            // Where the test fails, the variable starts undefined, not with what it held
            // when the loop last ran.
            let end = f.terminator(preheader).expect("a preheader ends in a jump");
            let unknown = InstKind::Store {
                args: [Value::Undef(ty), variable],
            };
            f.insert_inst_before(end, unknown, Type::Void);
            let (load_block, ok) = guard_preheader(f, preheader, index, limit);
            (load_block, Some(ok))
        }
    };
    let end = f.terminator(load_block).expect("a block ends in a jump");
    let first = f.insert_inst_before(end, InstKind::Load { args: [addr] }, ty);
    let init = InstKind::Store {
        args: [Value::Inst(first), variable],
    };
    f.insert_inst_before(end, init, Type::Void);
    for &i in list {
        match *f.kind(i) {
            InstKind::Load { args: [a] } if is_same(addr, loc, a, locate(f, a)) => {
                f.set_operand(i, 0, variable)
            }
            InstKind::Store { args: [_, a] } if is_same(addr, loc, a, locate(f, a)) => {
                f.set_operand(i, 1, variable)
            }
            _ => {}
        }
    }
    for &e in exits {
        let at = f
            .block_insts(e)
            .find(|&i| !matches!(f.kind(i), InstKind::Phi { .. }))
            .expect("a block ends in a terminator");
        let last = f.insert_inst_before(at, InstKind::Load { args: [variable] }, ty);
        let back = InstKind::Store {
            args: [Value::Inst(last), addr],
        };
        match guard {
            None => {
                f.insert_inst_before(at, back, Type::Void);
            }
            Some(ok) => {
                // e: ...; condbr ok, store, rest   store: store back; br rest
                let rest = f.split_after(last);
                f.insert_block_after(rest, e);
                let store = f.create_block();
                f.insert_block_after(store, e);
                let test = InstKind::CondBr {
                    args: [ok],
                    targets: [store, rest],
                };
                f.append_inst(e, test, Type::Void);
                f.append_inst(store, back, Type::Void);
                f.append_inst(store, InstKind::Br { targets: [rest] }, Type::Void);
            }
        }
    }
    alloca
}

/// Makes `preheader` test `index <u limit` and go through a new block, where the location
/// is loaded, only when it holds; a new block after both becomes the loop's preheader.
/// Returns the new block for the load and the test's value.
fn guard_preheader(f: &mut Function, preheader: Block, index: Value, limit: i32) -> (Block, Value) {
    let end = f.terminator(preheader).expect("a preheader ends in a jump");
    let join = f.create_block();
    f.insert_block_after(join, preheader);
    f.move_inst_to_end(end, join);
    f.rename_in_successors(preheader, join);
    let load = f.create_block();
    f.insert_block_after(load, preheader);
    let test = InstKind::Icmp {
        pred: IntPred::Ult,
        args: [index, Value::Int(limit)],
    };
    let ok = Value::Inst(f.append_inst(preheader, test, Type::I1));
    let branch = InstKind::CondBr {
        args: [ok],
        targets: [load, join],
    };
    f.append_inst(preheader, branch, Type::Void);
    f.append_inst(load, InstKind::Br { targets: [join] }, Type::Void);
    (load, ok)
}
