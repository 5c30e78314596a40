//! scalar-promotion: a memory location that a loop both reads and writes, and that nothing
//! else in the loop may touch, lives in a register while the loop runs. It is loaded once
//! before the loop and stored once on each way out, instead of being loaded and stored
//! on every iteration (LLVM's promotion in LICM; seed 002's globals kept in registers).
//!
//! - A location is one 4-byte element at a known offset in a global, an `alloca` or a
//!   parameter's array, written by a store of the loop whose address is defined outside
//!   the loop.
//! - It is promoted when every load and store of the loop (inner loops included) that may
//!   overlap it accesses exactly it, with one type, and no call in the loop may read or
//!   write it (alias analysis with the callees' summaries).
//! - The load before the loop must be safe even where the loop would not have touched the
//!   location: the offset lies inside its global or `alloca`, or (for a parameter) a store
//!   to it runs before any way out of the loop, so entering the loop means writing there.
//! - Every block the loop exits to must be entered from the loop only (`loop-simplify`
//!   makes them so). Each stores back what the location holds on leaving: what the loop
//!   wrote last, or what the preheader read if the loop wrote nothing on that path.
//!
//! The loop's accesses of the location are redirected to a new one-element `alloca`,
//! written from the preheader's load and read back in the exit blocks, and `mem2reg` then
//! turns that variable into SSA values (phis at the header and where paths meet). Loops
//! are taken outermost first, so a location promoted around a nest is settled for the
//! inner loops too. A loop with more than `MAX_ACCESSES` memory accesses is left alone.
//!
//! Needs: the CFG, the dominator tree, the loop forest and the module facts. Preserves:
//! behaviour and the CFG.

use super::mem2reg;
use crate::analysis::alias::{call_may_read, call_may_write, is_in_bounds, locate, may_alias_in};
use crate::analysis::alias::{Location, Object};
use crate::analysis::{Cfg, DomTree, LoopInfo, ModuleFacts, Preserved};
use crate::ir::{Block, FuncId, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;

/// Loops with more memory accesses than this are left alone: checking each location
/// against every access costs their product.
const MAX_ACCESSES: usize = 256;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let loops = cx.analyses.loops(f);
    if loops.loops.is_empty() {
        return Preserved::All;
    }
    let cfg = cx.analyses.cfg(f);
    let dom = cx.analyses.dom(f);
    let facts = cx.facts();
    let lists = list_accesses(f, &loops);
    let promoter = Promoter {
        cfg: &cfg,
        loops: &loops,
        dom: &dom,
        facts,
        func: cx.id,
    };
    let mut variables = Vec::new();
    for (k, list) in lists.iter().enumerate() {
        if let Some(list) = list {
            promoter.promote_loop(f, k, list, &mut variables);
        }
    }
    if variables.is_empty() {
        return Preserved::All;
    }
    mem2reg::run(f, cx);
    Preserved::Cfg
}

/// For each loop, its loads, stores and calls and its inner loops', or `None` past
/// `MAX_ACCESSES`.
fn list_accesses(f: &Function, loops: &LoopInfo) -> Vec<Option<Vec<Inst>>> {
    let mut lists: Vec<Option<Vec<Inst>>> = vec![None; loops.loops.len()];
    // Inner loops come after the loops around them: going backwards, children are done
    // before their parent takes their lists.
    for k in (0..loops.loops.len()).rev() {
        let own = loops.loops[k].blocks.iter().flat_map(|&b| f.block_insts(b));
        let mut list: Option<Vec<Inst>> = Some(
            own.filter(|&i| {
                matches!(
                    f.kind(i),
                    InstKind::Load { .. } | InstKind::Store { .. } | InstKind::Call { .. }
                )
            })
            .take(MAX_ACCESSES + 1)
            .collect(),
        );
        for &c in &loops.loops[k].children {
            list = match (list, &lists[c]) {
                (Some(mut l), Some(inner)) => {
                    l.extend_from_slice(inner);
                    Some(l)
                }
                _ => None,
            };
        }
        lists[k] = list.filter(|l| l.len() <= MAX_ACCESSES);
    }
    lists
}

struct Promoter<'a> {
    cfg: &'a Cfg,
    loops: &'a LoopInfo,
    dom: &'a DomTree,
    facts: &'a ModuleFacts,
    func: FuncId,
}

impl Promoter<'_> {
    /// Promotes what can be promoted around loop `k`, whose memory accesses are `list`;
    /// `variables` holds the `alloca`s made so far, which are never promoted again.
    fn promote_loop(&self, f: &mut Function, k: usize, list: &[Inst], variables: &mut Vec<Inst>) {
        let lp = &self.loops.loops[k];
        let Some(preheader) = lp.preheader else {
            return;
        };
        let dedicated = lp
            .exits
            .iter()
            .all(|&e| self.cfg.preds(e).iter().all(|&p| self.loops.contains(k, p)));
        if !dedicated {
            return;
        }
        let mut tried: Vec<Location> = Vec::new();
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
            ) && loc.offset.is_some();
            let variable = matches!(loc.object, Object::Alloca(a) if variables.contains(&a));
            if !known || variable || tried.contains(&loc) || !self.is_invariant(f, k, addr) {
                continue;
            }
            tried.push(loc);
            let ty = f.value_type(value);
            if self.may_promote(f, k, list, loc, ty) {
                variables.push(promote(f, preheader, &lp.exits, list, addr, loc, ty));
            }
        }
    }

    /// Whether `v` is defined outside loop `k`.
    fn is_invariant(&self, f: &Function, k: usize, v: Value) -> bool {
        match v {
            Value::Inst(d) => f.inst_block(d).is_none_or(|db| !self.loops.contains(k, db)),
            _ => true,
        }
    }

    /// Whether location `loc`, stored with values of type `ty` in loop `k` whose accesses
    /// are `list`, may live in a register through the loop.
    fn may_promote(&self, f: &Function, k: usize, list: &[Inst], loc: Location, ty: Type) -> bool {
        let exact = |at: Location, t: Type| {
            !may_alias_in(self.facts, self.func, at, loc) || (at == loc && t == ty)
        };
        let alone = list.iter().all(|&i| match *f.kind(i) {
            InstKind::Load { args: [a] } => exact(locate(f, a), f.inst(i).ty),
            InstKind::Store { args: [v, a] } => exact(locate(f, a), f.value_type(v)),
            _ => !call_may_read(f, self.facts, i, loc) && !call_may_write(f, self.facts, i, loc),
        });
        alone && (is_in_bounds(f, self.facts, loc) || self.written_on_entry(f, k, list, loc))
    }

    /// Whether a store to `loc` in loop `k` runs before every way out of the loop (and the
    /// loop has one), for a parameter's location.
    fn written_on_entry(&self, f: &Function, k: usize, list: &[Inst], loc: Location) -> bool {
        let exiting = &self.loops.loops[k].exiting;
        matches!(loc.object, Object::Param(_))
            && !exiting.is_empty()
            && list.iter().any(|&i| {
                matches!(*f.kind(i), InstKind::Store { args: [_, a] } if locate(f, a) == loc)
                    && f.inst_block(i)
                        .is_some_and(|b| exiting.iter().all(|&e| self.dom.dominates(b, e)))
            })
    }
}

/// Redirects the accesses of `list` to `loc` (at address `addr`, of type `ty`) to a new
/// variable, loaded from `addr` in `preheader` and stored back at the start of each of
/// `exits`; returns the variable's `alloca`.
fn promote(
    f: &mut Function,
    preheader: Block,
    exits: &[Block],
    list: &[Inst],
    addr: Value,
    loc: Location,
    ty: Type,
) -> Inst {
    let entry = f.entry().expect("a function with loops has an entry");
    let alloca = f.prepend_inst(entry, InstKind::Alloca { elem: ty, count: 1 }, Type::Ptr);
    let variable = Value::Inst(alloca);
    let end = f.terminator(preheader).expect("a preheader ends in a jump");
    let first = f.insert_inst_before(end, InstKind::Load { args: [addr] }, ty);
    let init = InstKind::Store {
        args: [Value::Inst(first), variable],
    };
    f.insert_inst_before(end, init, Type::Void);
    for &i in list {
        match *f.kind(i) {
            InstKind::Load { args: [a] } if locate(f, a) == loc => f.set_operand(i, 0, variable),
            InstKind::Store { args: [_, a] } if locate(f, a) == loc => {
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
        f.insert_inst_before(at, back, Type::Void);
    }
    alloca
}
