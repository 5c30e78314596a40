//! mem2reg: promotes every `alloca` of one scalar whose only uses are loads from it and
//! stores to it into SSA values, with phis where control flow merges (as LLVM's
//! PromoteMemToReg does).
//!
//! Fast paths first: a variable with a single store that dominates every load takes the
//! stored value directly; a variable used in only one block is rewritten by one scan of the
//! block. Otherwise phis go at the iterated dominance frontier of the storing blocks,
//! pruned to blocks where the variable is live on entry, and a renaming walk (an explicit
//! worklist, so deep CFGs need no deep native stack) replaces loads by the reaching value.
//! Loads of a never-stored variable become `undef`. Phis that turn out trivial are removed.
//!
//! Needs: the CFG and the dominator tree. Preserves: behaviour and the CFG; removes the promoted allocas, their loads and
//! stores; adds phis.

use crate::analysis::idf::iterated_frontier;
use crate::analysis::{Cfg, DomTree, Preserved};
use crate::ir::{Block, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;
use std::collections::HashMap;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let allocas: Vec<Inst> = f.all_insts().filter(|&i| is_promotable(f, i)).collect();
    if allocas.is_empty() {
        return Preserved::All;
    }
    let cfg = cx.analyses.cfg(f);
    let dom = cx.analyses.dom(f);
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
        } else if !promote_single_store(f, &dom, &position, a)
            && !promote_single_block(f, &position, a)
        {
            general.push(a);
        }
    }
    if !general.is_empty() {
        Promoter::new(f, &cfg, &dom, general).run();
    }
    Preserved::Cfg
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

/// Loads and stores of an alloca, in no particular order.
fn accesses(f: &Function, a: Inst) -> (Vec<Inst>, Vec<Inst>) {
    let (mut loads, mut stores) = (Vec::new(), Vec::new());
    for u in f.uses(Value::Inst(a)) {
        match f.kind(u.inst) {
            InstKind::Load { .. } => loads.push(u.inst),
            _ => stores.push(u.inst),
        }
    }
    (loads, stores)
}

fn stored_value(f: &Function, store: Inst) -> Value {
    f.kind(store).operands()[0]
}

/// One store that dominates every load: the loads take the stored value.
fn promote_single_store(f: &mut Function, dom: &DomTree, position: &[u32], a: Inst) -> bool {
    let (loads, stores) = accesses(f, a);
    let [store] = stores[..] else { return false };
    let sb = f.inst_block(store).expect("in a block");
    let dominated = loads.iter().all(|&l| {
        let lb = f.inst_block(l).expect("in a block");
        if lb == sb {
            position[store.index()] < position[l.index()]
        } else {
            dom.dominates(sb, lb)
        }
    });
    if !dominated {
        return false;
    }
    let v = stored_value(f, store);
    for l in loads {
        f.replace_all_uses(Value::Inst(l), v);
        f.remove_inst(l);
    }
    f.remove_inst(store);
    f.remove_inst(a);
    true
}

/// Every access in one block: one scan replaces each load by the last stored value. Not
/// possible when a load precedes the first store (the value may come from an earlier pass
/// through the block).
fn promote_single_block(f: &mut Function, position: &[u32], a: Inst) -> bool {
    let (loads, stores) = accesses(f, a);
    let Some(&first) = loads.first().or(stores.first()) else {
        return false;
    };
    let b = f.inst_block(first).expect("in a block");
    let mut all: Vec<Inst> = loads.iter().chain(&stores).copied().collect();
    if all.iter().any(|&i| f.inst_block(i) != Some(b)) {
        return false;
    }
    all.sort_by_key(|i| position[i.index()]);
    let is_load = |f: &Function, i: Inst| matches!(f.kind(i), InstKind::Load { .. });
    if !stores.is_empty() && is_load(f, all[0]) {
        return false;
    }
    let mut current = Value::Undef(elem_type(f, a));
    for i in all {
        if is_load(f, i) {
            f.replace_all_uses(Value::Inst(i), current);
        } else {
            current = stored_value(f, i);
        }
        f.remove_inst(i);
    }
    f.remove_inst(a);
    true
}

/// The general case: phi placement and renaming for several allocas at once.
struct Promoter<'a> {
    f: &'a mut Function,
    cfg: &'a Cfg,
    dom: &'a DomTree,
    allocas: Vec<Inst>,
    index_of: HashMap<Inst, usize>,
    /// The phis inserted in each block, with the variable each stands for.
    phis: HashMap<Block, Vec<(Inst, usize)>>,
}

impl<'a> Promoter<'a> {
    fn new(f: &'a mut Function, cfg: &'a Cfg, dom: &'a DomTree, allocas: Vec<Inst>) -> Self {
        let index_of = allocas.iter().enumerate().map(|(k, &a)| (a, k)).collect();
        Promoter {
            f,
            cfg,
            dom,
            allocas,
            index_of,
            phis: HashMap::new(),
        }
    }

    fn run(mut self) {
        for k in 0..self.allocas.len() {
            self.place_phis(k);
        }
        self.rename();
        let mut new_phis: Vec<(Inst, Block)> = Vec::new();
        for (&b, list) in &self.phis {
            new_phis.extend(list.iter().map(|&(p, _)| (p, b)));
        }
        new_phis.sort();
        self.complete_phis(&new_phis);
        for a in self.allocas.clone() {
            // Accesses left are in unreachable blocks.
            let ty = elem_type(self.f, a);
            for u in self.f.uses(Value::Inst(a)).to_vec() {
                if matches!(self.f.kind(u.inst), InstKind::Load { .. }) {
                    self.f
                        .replace_all_uses(Value::Inst(u.inst), Value::Undef(ty));
                }
                self.f.remove_inst(u.inst);
            }
            self.f.remove_inst(a);
        }
        remove_trivial_phis(
            self.f,
            self.dom,
            new_phis.into_iter().map(|(p, _)| p).collect(),
        );
    }

    fn place_phis(&mut self, k: usize) {
        let f = &*self.f;
        let a = self.allocas[k];
        let (loads, stores) = accesses(f, a);
        let cap = f.block_capacity();
        let mut is_def = vec![false; cap];
        let mut defs = Vec::new();
        for &s in &stores {
            let b = f.inst_block(s).expect("in a block");
            if !is_def[b.index()] && self.dom.is_reachable(b) {
                is_def[b.index()] = true;
                defs.push(b);
            }
        }
        // Live-in blocks: those with a load before any store, then their predecessors
        // back to (not into) the defining blocks.
        let mut live = vec![false; cap];
        let mut worklist = Vec::new();
        for &l in &loads {
            let b = f.inst_block(l).expect("in a block");
            if live[b.index()] {
                continue;
            }
            let load_first = !is_def[b.index()] || {
                let addr = Value::Inst(a);
                f.block_insts(b)
                    .find(|&i| {
                        matches!(f.kind(i), InstKind::Load { .. } | InstKind::Store { .. })
                            && f.kind(i).operands().last() == Some(&addr)
                    })
                    .is_some_and(|i| matches!(f.kind(i), InstKind::Load { .. }))
            };
            if load_first {
                live[b.index()] = true;
                worklist.push(b);
            }
        }
        while let Some(b) = worklist.pop() {
            for &p in self.cfg.preds(b) {
                if !is_def[p.index()] && !live[p.index()] {
                    live[p.index()] = true;
                    worklist.push(p);
                }
            }
        }
        let blocks = iterated_frontier(
            self.cfg,
            self.dom,
            &defs,
            |b| is_def[b.index()],
            |b| live[b.index()],
            cap,
        );
        let ty = elem_type(self.f, a);
        for b in blocks {
            let kind = InstKind::Phi {
                args: Vec::new(),
                blocks: Vec::new(),
            };
            // After the phis already there, so a block's phis follow the variables' order.
            let first = self.f.block_insts(b).find(|&i| !self.f.kind(i).is_phi());
            let phi = match first {
                Some(first) => self.f.insert_inst_before(first, kind, ty),
                None => self.f.append_inst(b, kind, ty),
            };
            self.phis.entry(b).or_default().push((phi, k));
        }
    }

    fn rename(&mut self) {
        let Some(entry) = self.f.entry() else { return };
        let initial: Vec<Value> = self
            .allocas
            .iter()
            .map(|&a| Value::Undef(elem_type(self.f, a)))
            .collect();
        let mut visited = vec![false; self.f.block_capacity()];
        let mut worklist: Vec<(Block, Option<Block>, Vec<Value>)> = vec![(entry, None, initial)];
        while let Some((b, pred, mut values)) = worklist.pop() {
            if let Some(list) = self.phis.get(&b) {
                for &(phi, k) in list {
                    if let Some(p) = pred {
                        self.f.add_phi_incoming(phi, values[k], p);
                    }
                    values[k] = Value::Inst(phi);
                }
            }
            if visited[b.index()] {
                continue;
            }
            visited[b.index()] = true;
            let insts: Vec<Inst> = self.f.block_insts(b).collect();
            for i in insts {
                let (is_load, addr) = match self.f.kind(i) {
                    InstKind::Load { args: [p] } => (true, *p),
                    InstKind::Store { args: [_, p] } => (false, *p),
                    _ => continue,
                };
                let Some(&k) = addr.as_inst().and_then(|a| self.index_of.get(&a)) else {
                    continue;
                };
                if is_load {
                    self.f.replace_all_uses(Value::Inst(i), values[k]);
                } else {
                    values[k] = stored_value(self.f, i);
                }
                self.f.remove_inst(i);
            }
            for &s in self.cfg.succs(b).iter().rev() {
                worklist.push((s, Some(b), values.clone()));
            }
        }
    }

    /// Gives inserted phis an undefined incoming value for predecessors the renaming walk
    /// never reached (unreachable blocks), and lists incoming pairs in predecessor order.
    fn complete_phis(&mut self, phis: &[(Inst, Block)]) {
        for &(phi, b) in phis {
            let ty = self.f.inst(phi).ty;
            let InstKind::Phi { args, blocks } = self.f.kind(phi).clone() else {
                continue;
            };
            let (args, blocks): (Vec<Value>, Vec<Block>) = self
                .cfg
                .preds(b)
                .iter()
                .map(|&p| match blocks.iter().position(|&x| x == p) {
                    Some(k) => (args[k], p),
                    None => (Value::Undef(ty), p),
                })
                .unzip();
            self.f.replace_kind(phi, InstKind::Phi { args, blocks }, ty);
        }
    }
}

/// Removes phis whose incoming values are all one value (ignoring the phi itself), and
/// phis that only see undefined values, repeating for phis that used them.
pub fn remove_trivial_phis(f: &mut Function, dom: &DomTree, mut worklist: Vec<Inst>) {
    while let Some(phi) = worklist.pop() {
        let Some(b) = f.inst_block(phi) else { continue };
        let InstKind::Phi { args, .. } = f.kind(phi) else {
            continue;
        };
        let me = Value::Inst(phi);
        let mut unique: Option<Value> = None;
        let mut has_undef = false;
        let mut trivial = true;
        for &v in args {
            if v == me {
                continue;
            }
            if matches!(v, Value::Undef(_)) {
                has_undef = true;
                continue;
            }
            match unique {
                None => unique = Some(v),
                Some(u) if u == v => {}
                Some(_) => {
                    trivial = false;
                    break;
                }
            }
        }
        if !trivial {
            continue;
        }
        let replacement = match unique {
            None => Value::Undef(f.inst(phi).ty),
            Some(v) => {
                let dominates = match v.as_inst().and_then(|i| f.inst_block(i)) {
                    Some(db) => db != b && dom.dominates(db, b),
                    None => true,
                };
                if has_undef && !dominates {
                    continue;
                }
                v
            }
        };
        let users: Vec<Inst> = f.uses(me).iter().map(|u| u.inst).collect();
        f.replace_all_uses(me, replacement);
        f.remove_inst(phi);
        worklist.extend(
            users
                .into_iter()
                .filter(|&u| u != phi && f.kind(u).is_phi()),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{parser::parse_module, printer::print_module};
    use crate::passes::PassManager;

    /// 20,000 blocks in a chain, each storing and loading the variable: renaming must not
    /// recurse natively (too large for a file test in `tests/ir/mem2reg/`).
    #[test]
    fn deep_cfg_renames_without_native_recursion() {
        let mut text = String::from(
            "func @f() -> i32 {\nbb0:\n  %v = alloca i32 x 1\n  store 0, %v\n  br bb1\n",
        );
        for b in 1..20_000 {
            text.push_str(&format!(
                "bb{b}:\n  %l{b} = load i32 %v\n  %s{b} = add %l{b}, 1\n  store %s{b}, %v\n  %c{b} = icmp slt %s{b}, 5\n  condbr %c{b}, bb{b}, bb{}\n",
                b + 1
            ));
        }
        text.push_str("bb20000:\n  %r = load i32 %v\n  ret %r\n}\n");
        let mut m = parse_module(&text).unwrap();
        let mut pm = PassManager::parse("mem2reg").unwrap();
        pm.verify_each = true;
        pm.run(&mut m, &mut std::io::sink()).unwrap();
        let out = print_module(&m);
        assert!(!out.contains("alloca"));
        assert_eq!(out.matches("phi").count(), 19_999);
    }
}
