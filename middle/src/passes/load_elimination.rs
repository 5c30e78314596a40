//! load-elimination: a load that reads memory no store or call can have changed since a
//! dominating load of the same address, or since a dominating store to it, is replaced by
//! what that load read or that store wrote, across blocks (`gvn` does this within a block).
//!
//! Memory is versioned as in memory SSA, with one version for all of memory: every store and
//! call starts a new version, and a block where versions from different paths meet (the
//! iterated dominance frontier of the blocks that store or call, loop headers among them)
//! starts a merged one. Each load reads a version; from there the walk goes back over the
//! stores that cannot overlap its address and the calls that cannot write it (alias
//! analysis, `analysis::alias`), stopping at a merge, at the function's entry or at an access
//! that may clobber. Two loads of the same address that reach the same version read the same
//! value; a load that reaches a store to its very address reads the stored value. A walk over
//! the dominator tree keeps the loads and stores seen on the way down, so the one that
//! replaces a load dominates it. A load stays when the value would have to be held in a
//! register much longer than the load's: through a loop around the load that the earlier
//! access is outside of (`licm` loads it once before the loop anyway when nothing in the
//! loop writes it), or across a call.
//!
//! Needs: the CFG, the dominator tree, the loop forest and the module facts (what calls
//! write). Preserves: behaviour and the CFG.

use crate::analysis::alias::{call_may_write, locate, may_alias_in, vector_location, Location};
use crate::analysis::idf::IdfCalculator;
use crate::analysis::{Cfg, DomTree, LoopInfo, ModuleFacts, Preserved, ScopedState};
use crate::fast_hash::FastHashMap;
use crate::ir::{Block, FuncId, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;

/// How far back a load looks past stores and calls that cannot touch it.
const MAX_WALK: usize = 64;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let Some(entry) = f.entry() else {
        return Preserved::All;
    };
    let cfg = cx.analyses.cfg(f);
    let dom = cx.analyses.dom(f);
    let loops = cx.analyses.loops(f);
    let facts = cx.facts();
    let versions = Versions::build(f, &cfg, &dom, entry);
    let replaced = eliminate(f, &dom, &loops, (facts, cx.id), &versions, entry);
    for &(load, value) in &replaced {
        f.replace_all_uses(Value::Inst(load), value);
        f.remove_inst(load);
    }
    Preserved::cfg_if(!replaced.is_empty())
}

/// A version of memory: where it starts, and the version before it for a store or call.
enum Version {
    /// Memory on entry to the function (no predecessors), or where paths with different
    /// versions meet: at a block other than a loop header, its predecessors.
    Merge { preds: Vec<Block> },
    /// After a store or a call, `before` being the version it changed.
    Access { inst: Inst, before: u32 },
}

/// Every version, and the version each load reads.
struct Versions {
    list: Vec<Version>,
    read_by: FastHashMap<Inst, u32>,
    /// By block: the version at its end.
    exit: Vec<u32>,
}

impl Versions {
    fn build(f: &Function, cfg: &Cfg, dom: &DomTree, entry: Block) -> Versions {
        let is_access = |i: Inst| f.kind(i).opcode().writes_memory();
        let changing: Vec<Block> = cfg
            .rpo()
            .iter()
            .copied()
            .filter(|&b| f.block_insts(b).any(is_access))
            .collect();
        let mut changes = vec![false; f.block_capacity()];
        for &b in &changing {
            changes[b.index()] = true;
        }
        let mut merges = vec![false; f.block_capacity()];
        let mut idf = IdfCalculator::new(cfg, dom);
        for b in idf.iterated_frontier(&changing, |b| changes[b.index()], |_| true) {
            merges[b.index()] = true;
        }
        let mut versions = Versions {
            list: vec![Version::Merge { preds: Vec::new() }],
            read_by: FastHashMap::default(),
            exit: vec![0; f.block_capacity()],
        };
        // A walk over the dominator tree, each block starting from its parent's last version.
        let mut stack = vec![(entry, 0u32)];
        while let Some((b, inherited)) = stack.pop() {
            let mut current = if merges[b.index()] {
                let preds = cfg.preds(b);
                let header = preds.iter().any(|&p| dom.dominates(b, p));
                let preds = if header {
                    Vec::new()
                } else {
                    preds
                        .iter()
                        .copied()
                        .filter(|&p| cfg.is_reachable(p))
                        .collect()
                };
                versions.list.push(Version::Merge { preds });
                versions.list.len() as u32 - 1
            } else {
                inherited
            };
            for i in f.block_insts(b) {
                match f.kind(i) {
                    InstKind::Load { .. } => {
                        versions.read_by.insert(i, current);
                    }
                    _ if is_access(i) => {
                        versions.list.push(Version::Access {
                            inst: i,
                            before: current,
                        });
                        current = versions.list.len() as u32 - 1;
                    }
                    _ => {}
                }
            }
            versions.exit[b.index()] = current;
            stack.extend(dom.children(b).iter().map(|&c| (c, current)));
        }
        versions
    }

    /// The oldest version a load of `loc` reads: back from `v`, the version it reads, over
    /// the stores and calls that cannot change `loc`; and whether the walk passed a call.
    /// A merge where paths meet is passed when the walk back from the end of each
    /// predecessor reaches one and the same version (the arms of an `if` that store to
    /// other arrays), passing no call: `loc` then holds that version's value on every path.
    fn clobber(
        &self,
        f: &Function,
        memory: (&ModuleFacts, FuncId),
        loc: Location,
        v: u32,
    ) -> (u32, bool) {
        let mut walk = Walk {
            f,
            memory,
            loc,
            steps: MAX_WALK,
            past_call: false,
        };
        let v = walk.back_from(self, v);
        (v, walk.past_call)
    }
}

/// A walk back over versions for one location, with the steps it has left.
struct Walk<'a> {
    f: &'a Function,
    memory: (&'a ModuleFacts, FuncId),
    loc: Location,
    steps: usize,
    past_call: bool,
}

impl Walk<'_> {
    fn back_from(&mut self, versions: &Versions, mut v: u32) -> u32 {
        let (facts, id) = self.memory;
        while self.steps > 0 {
            self.steps -= 1;
            match &versions.list[v as usize] {
                Version::Access { inst, before } => {
                    let untouched = match self.f.kind(*inst) {
                        InstKind::Store { args: [_, addr] } => {
                            !may_alias_in(facts, id, locate(self.f, *addr), self.loc)
                        }
                        InstKind::VStore { args: [_, addr] } => {
                            !may_alias_in(facts, id, vector_location(self.f, *addr), self.loc)
                        }
                        // A call that writes `loc` is where the walk stops: the value
                        // read is the one it left, held across no call.
                        _ => {
                            let passed = !call_may_write(self.f, facts, *inst, self.loc);
                            self.past_call |= passed;
                            passed
                        }
                    };
                    if !untouched {
                        return v;
                    }
                    v = *before;
                }
                Version::Merge { preds } => {
                    // Past a call on some path the merge is where the walk stops, as it
                    // would stop at the call: a value from before it is not worth keeping.
                    let before = self.past_call;
                    let mut common = None;
                    for p in preds {
                        let reached = self.back_from(versions, versions.exit[p.index()]);
                        if common.is_some_and(|c| c != reached) || (self.past_call && !before) {
                            self.past_call = before;
                            return v;
                        }
                        common = Some(reached);
                    }
                    match common {
                        Some(c) if self.steps > 0 => v = c,
                        _ => return v,
                    }
                }
            }
        }
        v
    }
}

/// The loads seen on the way down the dominator tree, by what they read: (address, type,
/// version).
#[derive(Default)]
struct Seen {
    loads: FastHashMap<(Value, Type, u32), Inst>,
    log: Vec<(Value, Type, u32)>,
}

impl ScopedState for Seen {
    fn mark(&self) -> usize {
        self.log.len()
    }

    fn forget_since(&mut self, mark: usize) {
        for key in self.log.drain(mark..) {
            self.loads.remove(&key);
        }
    }
}

/// The loads to replace, with their replacements, found on a walk over the dominator tree.
fn eliminate(
    f: &Function,
    dom: &DomTree,
    loops: &LoopInfo,
    memory: (&ModuleFacts, FuncId),
    versions: &Versions,
    entry: Block,
) -> Vec<(Inst, Value)> {
    let mut replaced = Vec::new();
    dom.walk_scoped(entry, &mut Seen::default(), |seen, b| {
        // Whether an access is inside every loop around `b`.
        let around = loops.innermost(b);
        let in_loop = |a: Inst| {
            around.is_none_or(|k| f.inst_block(a).is_some_and(|ab| loops.contains(k, ab)))
        };
        for i in f.block_insts(b) {
            let InstKind::Load { args: [addr] } = *f.kind(i) else {
                continue;
            };
            let ty = f.inst(i).ty;
            let loc = locate(f, addr);
            let read = versions.read_by[&i];
            let (v, past_call) = versions.clobber(f, memory, loc, read);
            if let Version::Access { inst, .. } = versions.list[v as usize] {
                if let InstKind::Store { args: [x, at] } = *f.kind(inst) {
                    if at == addr && f.value_type(x) == ty {
                        if in_loop(inst) && !past_call {
                            replaced.push((i, x));
                        }
                        continue;
                    }
                }
            }
            // Past a call, only a load of the very version this one reads serves: no call
            // lies between the two.
            let key = (addr, ty, v);
            match seen.loads.get(&key) {
                Some(&earlier)
                    if in_loop(earlier) && (!past_call || versions.read_by[&earlier] == read) =>
                {
                    replaced.push((i, Value::Inst(earlier)))
                }
                Some(_) => {}
                None => {
                    seen.loads.insert(key, i);
                    seen.log.push(key);
                }
            }
        }
    });
    // A load replaced by another that was itself replaced takes that one's replacement.
    let mut by_load: FastHashMap<Inst, Value> = FastHashMap::default();
    for (load, value) in &mut replaced {
        while let Some(&earlier) = value.as_inst().and_then(|i| by_load.get(&i)) {
            *value = earlier;
        }
        by_load.insert(*load, *value);
    }
    replaced
}
