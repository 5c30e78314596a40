//! Promotion of stack variables to SSA values (`mem2reg`, and `scalar-promotion` after it
//! has put a loop's memory in variables of its own): every `alloca` of one scalar whose
//! only uses are loads from it and stores to it becomes SSA values, with phis where
//! control flow merges (as LLVM's PromoteMemToReg does).
//!
//! Fast paths first: a variable with a single store that dominates every load takes the
//! stored value directly; a variable used in only one block is rewritten by one scan of the
//! block. Otherwise phis go at the iterated dominance frontier of the storing blocks,
//! pruned to blocks where the variable is live on entry (asked on demand, see
//! `var_liveness`), and one renaming walk over the dominator tree for all variables
//! together (an explicit stack, so deep CFGs need no deep native stack) replaces loads by
//! the reaching value and fills the phis' incoming values. Loads of a never-stored variable
//! become `undef`. Phis that turn out trivial are removed. Every step costs about the size
//! of the function plus the phis it places, whatever the nesting depth.

use crate::analysis::idf::IdfCalculator;
use crate::analysis::{Cfg, DomTree};
use crate::ir::{Block, Function, Inst, InstKind, Type, Value};
use crate::transform::trivial_phis;
use crate::transform::var_liveness::{Access, VarLiveness};

/// The variables of `f` that can be promoted.
pub fn promotable(f: &Function) -> Vec<Inst> {
    f.all_insts().filter(|&i| is_promotable(f, i)).collect()
}

/// Promotes `allocas` (from `promotable`), removing them with their loads and stores; the
/// CFG stays as it was.
pub fn promote(f: &mut Function, cfg: &Cfg, dom: &DomTree, allocas: Vec<Inst>) {
    // Order of instructions within their blocks; removing instructions keeps it valid.
    let mut position = vec![0u32; f.inst_capacity()];
    for b in f.blocks() {
        for (n, i) in f.block_insts(b).enumerate() {
            position[i.index()] = n as u32;
        }
    }
    let mut general = Vec::new();
    for a in allocas {
        if f.uses(Value::Inst(a)).is_empty() {
            f.remove_inst(a);
        } else if !promote_single_store(f, dom, &position, a)
            && !promote_single_block(f, &position, a)
        {
            general.push(a);
        }
    }
    if !general.is_empty() {
        Promoter::new(f, cfg, dom, &position, general).run();
    }
}

fn elem_type(f: &Function, alloca: Inst) -> Type {
    match f.kind(alloca) {
        InstKind::Alloca { elem, .. } => *elem,
        _ => unreachable!("not an alloca"),
    }
}

/// A scalar alloca used only as the address of loads and stores.
fn is_promotable(f: &Function, i: Inst) -> bool {
    let InstKind::Alloca { elem, count: 1 } = f.kind(i) else {
        return false;
    };
    let v = Value::Inst(i);
    f.uses(v).iter().all(|u| match f.kind(u.inst) {
        InstKind::Load { .. } => f.inst(u.inst).ty == *elem,
        InstKind::Store { args: [x, _] } => u.index == 1 && *x != v && f.value_type(*x) == *elem,
        _ => false,
    })
}

fn is_load(f: &Function, i: Inst) -> bool {
    matches!(f.kind(i), InstKind::Load { .. })
}

fn stored_value(f: &Function, store: Inst) -> Value {
    f.kind(store).operands()[0]
}

/// One store that dominates every load: the loads take the stored value.
fn promote_single_store(f: &mut Function, dom: &DomTree, position: &[u32], a: Inst) -> bool {
    let uses = f.uses(Value::Inst(a));
    let mut stores = uses.iter().filter(|u| !is_load(f, u.inst));
    let (Some(store), None) = (stores.next(), stores.next()) else {
        return false;
    };
    let store = store.inst;
    let sb = f.inst_block(store).expect("in a block");
    let dominated = uses.iter().filter(|u| u.inst != store).all(|u| {
        let lb = f.inst_block(u.inst).expect("in a block");
        if lb == sb {
            position[store.index()] < position[u.inst.index()]
        } else {
            dom.dominates(sb, lb)
        }
    });
    if !dominated {
        return false;
    }
    let v = stored_value(f, store);
    remove_accesses(f, a, v);
    true
}

/// Every access in one block: one scan replaces each load by the last stored value. Not
/// possible when a load precedes the first store (the value may come from an earlier pass
/// through the block).
fn promote_single_block(f: &mut Function, position: &[u32], a: Inst) -> bool {
    let uses = f.uses(Value::Inst(a));
    let Some(b) = uses.first().and_then(|u| f.inst_block(u.inst)) else {
        return false;
    };
    if uses.iter().any(|u| f.inst_block(u.inst) != Some(b)) {
        return false;
    }
    let mut all: Vec<Inst> = uses.iter().map(|u| u.inst).collect();
    all.sort_by_key(|i| position[i.index()]);
    let stored = all.iter().any(|&i| !is_load(f, i));
    if stored && is_load(f, all[0]) {
        return false;
    }
    let ty = elem_type(f, a);
    let mut current = Value::Undef(ty);
    for i in all {
        if is_load(f, i) {
            f.replace_all_uses(Value::Inst(i), current);
        } else {
            current = stored_value(f, i);
        }
    }
    remove_accesses(f, a, Value::Undef(ty));
    true
}

/// Removes the loads and stores of `a`, then `a`; loads still used read `value`. The last
/// use goes first, so each removal shortens `a`'s use list from the end and moves no other
/// entry (removing them in program order would move entries all over a long list,
/// touching memory at random).
fn remove_accesses(f: &mut Function, a: Inst, value: Value) {
    while let Some(&u) = f.uses(Value::Inst(a)).last() {
        if is_load(f, u.inst) {
            f.replace_all_uses(Value::Inst(u.inst), value);
        }
        f.remove_inst(u.inst);
    }
    f.remove_inst(a);
}

/// The general case: phi placement and renaming for several allocas at once.
struct Promoter<'a> {
    f: &'a mut Function,
    cfg: &'a Cfg,
    dom: &'a DomTree,
    position: &'a [u32],
    allocas: Vec<Inst>,
    /// The variable each promoted alloca stands for, by instruction index.
    var_of: Vec<u32>,
    /// The phis inserted in each block, with the variable each stands for.
    phis: Vec<Vec<(Inst, usize)>>,
    /// Every inserted phi, in creation order.
    created: Vec<Inst>,
    /// Where new phis go in each block (before its first other instruction), once known.
    insert_point: Vec<Option<Inst>>,
    /// `is_def[b] == k + 1`: variable `k` is stored in `b`.
    is_def: Vec<usize>,
}

const NO_VAR: u32 = u32::MAX;

impl<'a> Promoter<'a> {
    fn new(
        f: &'a mut Function,
        cfg: &'a Cfg,
        dom: &'a DomTree,
        position: &'a [u32],
        allocas: Vec<Inst>,
    ) -> Self {
        let mut var_of = vec![NO_VAR; f.inst_capacity()];
        for (k, &a) in allocas.iter().enumerate() {
            var_of[a.index()] = k as u32;
        }
        let blocks = f.block_capacity();
        Promoter {
            f,
            cfg,
            dom,
            position,
            allocas,
            var_of,
            phis: vec![Vec::new(); blocks],
            created: Vec::new(),
            insert_point: vec![None; blocks],
            is_def: vec![0; blocks],
        }
    }

    fn run(mut self) {
        let (cfg, dom) = (self.cfg, self.dom);
        let capacity = self.f.block_capacity();
        let mut idf = IdfCalculator::new(cfg, dom);
        let mut liveness = VarLiveness::new(cfg, dom, capacity);
        for k in 0..self.allocas.len() {
            self.place_phis(k, &mut idf, &mut liveness);
        }
        self.rename();
        for &a in &self.allocas {
            // Accesses still used are in blocks the renaming never reached.
            let undef = Value::Undef(elem_type(self.f, a));
            remove_accesses(self.f, a, undef);
        }
        trivial_phis::remove(self.f, self.dom, self.created);
    }

    fn place_phis(&mut self, k: usize, idf: &mut IdfCalculator, liveness: &mut VarLiveness) {
        let f = &*self.f;
        let a = self.allocas[k];
        let mut accesses = Vec::new();
        let mut defs = Vec::new();
        for u in f.uses(Value::Inst(a)) {
            let b = f.inst_block(u.inst).expect("in a block");
            let access = match f.kind(u.inst) {
                InstKind::Load { .. } => Access::Load,
                _ => Access::Store,
            };
            accesses.push((b, self.position[u.inst.index()], access));
            if access == Access::Store
                && self.is_def[b.index()] != k + 1
                && self.dom.is_reachable(b)
            {
                self.is_def[b.index()] = k + 1;
                defs.push(b);
            }
        }
        liveness.reset(&accesses);
        let is_def = &self.is_def;
        let blocks = idf.iterated_frontier(
            &defs,
            |b| is_def[b.index()] == k + 1,
            |b| liveness.live_in(b),
        );
        let ty = elem_type(self.f, a);
        for b in blocks {
            let preds = self.cfg.preds(b);
            // Every incoming value starts undefined; renaming fills those of reachable
            // predecessors.
            let kind = InstKind::Phi {
                args: vec![Value::Undef(ty); preds.len()],
                blocks: preds.to_vec(),
            };
            let point = match self.insert_point[b.index()] {
                Some(point) => Some(point),
                None => {
                    let point = self.f.block_insts(b).find(|&i| !self.f.kind(i).is_phi());
                    self.insert_point[b.index()] = point;
                    point
                }
            };
            // After the phis already there, so a block's phis follow the variables' order.
            let phi = match point {
                Some(point) => self.f.insert_inst_before(point, kind, ty),
                None => self.f.append_inst(b, kind, ty),
            };
            self.phis[b.index()].push((phi, k));
            self.created.push(phi);
        }
    }

    /// Walks the dominator tree keeping each variable's reaching value, with an undo log
    /// to restore the values on leaving a subtree (an explicit stack, so deep trees need no
    /// deep native stack); replaces loads and fills the phis' incoming values.
    fn rename(&mut self) {
        let Some(&entry) = self.dom.preorder().first() else {
            return;
        };
        // For each block, the blocks with new phis it feeds, and its position among their
        // predecessors (the index of its incoming value).
        let mut feeds: Vec<Vec<(Block, usize)>> = vec![Vec::new(); self.f.block_capacity()];
        for &s in self.dom.preorder() {
            if !self.phis[s.index()].is_empty() {
                for (n, &p) in self.cfg.preds(s).iter().enumerate() {
                    feeds[p.index()].push((s, n));
                }
            }
        }
        let mut values: Vec<Value> = self
            .allocas
            .iter()
            .map(|&a| Value::Undef(elem_type(self.f, a)))
            .collect();
        let mut undo: Vec<(usize, Value)> = Vec::new();
        self.rename_block(entry, &feeds, &mut values, &mut undo);
        let mut stack = vec![(entry, 0, 0)];
        while let Some(top) = stack.last_mut() {
            let (b, next, mark) = *top;
            if let Some(&child) = self.dom.children(b).get(next) {
                top.1 += 1;
                let mark = undo.len();
                self.rename_block(child, &feeds, &mut values, &mut undo);
                stack.push((child, 0, mark));
            } else {
                stack.pop();
                for (k, v) in undo.drain(mark..).rev() {
                    values[k] = v;
                }
            }
        }
    }

    fn rename_block(
        &mut self,
        b: Block,
        feeds: &[Vec<(Block, usize)>],
        values: &mut [Value],
        undo: &mut Vec<(usize, Value)>,
    ) {
        for &(phi, k) in &self.phis[b.index()] {
            undo.push((k, values[k]));
            values[k] = Value::Inst(phi);
        }
        let mut next = self.f.first_inst(b);
        while let Some(i) = next {
            next = self.f.next_inst(i);
            let (is_load, addr) = match self.f.kind(i) {
                InstKind::Load { args: [p] } => (true, *p),
                InstKind::Store { args: [_, p] } => (false, *p),
                _ => continue,
            };
            let var = addr.as_inst().and_then(|a| self.var_of.get(a.index()));
            let Some(&var) = var.filter(|&&v| v != NO_VAR) else {
                continue;
            };
            let k = var as usize;
            if is_load {
                self.f.replace_all_uses(Value::Inst(i), values[k]);
            } else {
                undo.push((k, values[k]));
                values[k] = stored_value(self.f, i);
            }
        }
        for &(s, n) in &feeds[b.index()] {
            for &(phi, k) in &self.phis[s.index()] {
                self.f.set_operand(phi, n, values[k]);
            }
        }
    }
}
