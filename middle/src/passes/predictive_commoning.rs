//! predictive-commoning: a load that reads in one iteration of a loop what another load of
//! the loop read, or what a store of the loop wrote, the iteration before takes that value,
//! carried over in a phi, instead of loading it again (gcc's predictive commoning). In a
//! stencil over the rows `i-1`, `i` and `i+1` of a column, the next iteration's row `i` is
//! this iteration's row `i+1`: three loads become one. In a dynamic-programming row
//! (`d[i][j] = min(d[i][j - 1], ...) + c`), the load of `d[i][j - 1]` takes the value stored
//! to `d[i][j]` the iteration before, and the row's cells no longer wait for each other
//! through memory.
//!
//! ```text
//!   P: br H                          P: x0 = load a + s0; br H
//!   H: ...                           H: p = phi [x0, P], [y, H]
//!      x = load a + {s0,+,d}            ...
//!      y = load a + {s0+d,+,d}          y = load a + {s0+d,+,d}     (x's uses now use p)
//!      condbr c, H, E                   condbr c, H, E
//! ```
//!
//! A loop qualifies when it has a preheader that only jumps to the header, one latch, and
//! no exit but from the latch: then every iteration that starts runs each block that
//! dominates the latch, and the preheader may run the first iteration's load early. Only
//! loads in such blocks (outside inner loops) link into chains. A load's address must be a
//! pointer defined outside the loop plus a byte offset `{s,+,d}` (scalar evolution), `d` a
//! non-zero constant. Loads of one type from one pointer with one `d` whose starts differ
//! only by constants link into chains: `x -> y` when `y` starts `d` bytes after `x`, so that
//! `x` in iteration `k+1` reads what `y` read in iteration `k`. Every load of a chain but the
//! last becomes a phi of the preheader's load at the first iteration and of the next link's
//! value. Nothing in the loop, inner loops included, may write what a chain reads: no store
//! may alias it and no call may write it.
//!
//! A store that runs in every iteration likewise feeds a load `d` bytes before it
//! (`store v, a + {s0+d,+,d}` and `x = load a + {s0,+,d}`): `x` becomes a phi of the
//! preheader's load and of `v` from the latch, when no other store of the loop may alias
//! what `x` reads and no call may write it, and when `v` takes at most
//! `MAX_CARRIED_LATENCY` cycles to compute from `x` (carried in a register, that is a chain
//! from iteration to iteration). Such a load may sit in a block that some
//! iterations skip when it reads a global or local array with a step of at most
//! `MAPPED_NEAR` bytes (the preheader then loads an address that close to the one
//! the store writes first). A loop carries at most `MAX_CARRIED` values,
//! each of which holds a register all through it, and none when it already holds as many
//! integer values at once as there are core registers (`loop_pressure`): a min/max/clamp
//! loop over three arrays spilled its carried values and reloaded them every round.
//!
//! Needs: the dominator tree, the loop forest and the module facts. Preserves: behaviour and the CFG.

use crate::analysis::alias::{call_may_write, in_own_array, locate, may_alias_in, MAPPED_NEAR};
use crate::analysis::scev::{Invariant, LoopEvolution};
use crate::analysis::{DomTree, LoopInfo, ModuleFacts, Preserved};
use crate::cost_model::CostModel;
use crate::fast_hash::FastHashMap;
use crate::ir::{Block, FuncId, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::arith_writer::ArithWriter;
use crate::transform::loop_accesses::loop_writers;
use crate::transform::loop_pressure::{self, CORE_REGISTERS};

/// The most values one loop carries from an iteration to the next.
const MAX_CARRIED: usize = 8;

/// The longest a value may take, in cycles (`CostModel::inst_latency`), to get from a load
/// to the value a store feeding it stores: carried in a register, that path becomes a chain
/// from iteration to iteration (`x[k] = (x[k - 1] + ...) / f` would wait on each division).
const MAX_CARRIED_LATENCY: u32 = 8;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let loops = cx.analyses.loops(f);
    let dom = cx.analyses.dom(f);
    let facts = cx.facts();
    let mut changed = false;
    for k in 0..loops.loops.len() {
        changed |= common_loads(f, facts, cx.costs, cx.id, &dom, &loops, k);
    }
    Preserved::cfg_if(changed)
}

/// A load of the loop: its address is `root + start + step * k` bytes in iteration `k`.
struct Access {
    load: Inst,
    root: Value,
    start: Invariant,
    step: i32,
    ty: Type,
}

fn common_loads(
    f: &mut Function,
    facts: &ModuleFacts,
    costs: &dyn CostModel,
    func: FuncId,
    dom: &DomTree,
    loops: &LoopInfo,
    k: usize,
) -> bool {
    let lp = &loops.loops[k];
    let h = lp.header;
    let Some(p) = lp.preheader else {
        return false;
    };
    let &[latch] = lp.latches.as_slice() else {
        return false;
    };
    if lp.exiting != [latch]
        || !matches!(
            f.terminator(p).map(|t| f.kind(t)),
            Some(InstKind::Br { .. })
        )
    {
        return false;
    }
    let accesses = loop_accesses(f, dom, loops, k, facts, func).unwrap_or_default();
    let chains = if accesses.len() >= 2 {
        chains(&accesses)
    } else {
        Vec::new()
    };
    let stored = stored_links(f, dom, loops, k, facts, costs, func);
    if chains.is_empty() && stored.is_empty() {
        return false;
    }
    // A loop that already holds more values than there are registers would spill what it
    // carries, and reload it every round where it loaded it.
    if loop_pressure::peak(f, loops, k) >= CORE_REGISTERS {
        return false;
    }
    let end = f.terminator(p).expect("a preheader ends in a jump");
    let mut preheader = ArithWriter::new(f, end);
    let mut carried = 0;
    for chain in chains {
        if carried + chain.len() - 1 > MAX_CARRIED {
            break;
        }
        carried += chain.len() - 1;
        let links: Vec<&Access> = chain.iter().map(|&a| &accesses[a]).collect();
        let (last, earlier) = links.split_last().expect("a chain has two links");
        carry(&mut preheader, p, h, latch, earlier, Value::Inst(last.load));
    }
    for (access, value) in &stored {
        if carried == MAX_CARRIED {
            break;
        }
        carried += 1;
        carry(&mut preheader, p, h, latch, &[access], *value);
    }
    carried > 0
}

/// The loads of loop `k` that read what a store running in every iteration wrote the
/// iteration before (its address `step` bytes after theirs), with the stored value, when no
/// other store of the loop may alias what they read, no call may write it, and the stored
/// value is quick to compute from them; a load that some iterations skip only from a step
/// away in a global or local array.
fn stored_links(
    f: &Function,
    dom: &DomTree,
    loops: &LoopInfo,
    k: usize,
    facts: &ModuleFacts,
    costs: &dyn CostModel,
    func: FuncId,
) -> Vec<(Access, Value)> {
    let lp = &loops.loops[k];
    let latch = lp.latches[0];
    let every: Vec<Inst> = every_round(f, dom, loops, k).collect();
    let own: Vec<Inst> = lp.blocks.iter().flat_map(|&b| f.block_insts(b)).collect();
    let is_load = |i: &&Inst| matches!(f.kind(**i), InstKind::Load { .. });
    let is_store = |i: &&Inst| matches!(f.kind(**i), InstKind::Store { .. });
    if !own.iter().any(|i| is_load(&i)) || !every.iter().any(|i| is_store(&i)) {
        return Vec::new();
    }
    let (stores, calls) = loop_writers(f, loops, k);
    let Some(mut evolution) = LoopEvolution::new(f, loops, k) else {
        return Vec::new();
    };
    // Stores of every iteration: (store, value, root, start, step).
    let mut fed = Vec::new();
    for &store in every.iter().filter(is_store) {
        let InstKind::Store {
            args: [value, addr],
        } = *f.kind(store)
        else {
            continue;
        };
        if let Some((root, offset)) = evolution.address(addr) {
            if let Some((start, step)) = offset.as_affine() {
                if step != 0 {
                    fed.push((store, value, root, start.clone(), step));
                }
            }
        }
    }
    let mut links = Vec::new();
    for &load in own.iter().filter(is_load) {
        let InstKind::Load { args: [addr] } = *f.kind(load) else {
            continue;
        };
        let Some((root, offset)) = evolution.address(addr) else {
            continue;
        };
        let Some((start, step)) = offset.as_affine() else {
            continue;
        };
        // A load that some iterations skip (the `else` of a longest common subsequence's
        // cell) is made in the preheader all the same: only a step away from what the
        // store writes first, in a global or local array, where memory is mapped.
        let always = f.inst_block(load).is_some_and(|b| dom.dominates(b, latch));
        let near = in_own_array(f, root) && step.unsigned_abs() <= MAPPED_NEAR;
        if !always && !near {
            continue;
        }
        let ty = f.inst(load).ty;
        let feeding = fed.iter().find(|(_, value, r, s, d)| {
            *r == root
                && *d == step
                && f.value_type(*value) == ty
                && s.add(&start.scale(-1)).as_constant() == Some(step)
        });
        let Some(&(store, value, ..)) = feeding else {
            continue;
        };
        if latency_from(f, costs, loops, k, load, value, &mut FastHashMap::default())
            .is_some_and(|l| l > MAX_CARRIED_LATENCY)
        {
            continue;
        }
        let loc = locate(f, addr);
        let overwritten = stores
            .iter()
            .any(|&(other, at)| other != store && may_alias_in(facts, func, at, loc))
            || calls.iter().any(|&c| call_may_write(f, facts, c, loc));
        if !overwritten {
            let access = Access {
                load,
                root,
                start: start.clone(),
                step,
                ty,
            };
            links.push((access, value));
        }
    }
    links
}

/// The loads of loop `k` that run in every iteration and that nothing in the loop may
/// overwrite, with their addresses' evolutions; `None` when the loop has too few to matter.
fn loop_accesses(
    f: &Function,
    dom: &DomTree,
    loops: &LoopInfo,
    k: usize,
    facts: &ModuleFacts,
    func: FuncId,
) -> Option<Vec<Access>> {
    // The loop's own blocks first, so that a loop nest with few loads costs linear time.
    let loads: Vec<Inst> = every_round(f, dom, loops, k)
        .filter(|&i| matches!(f.kind(i), InstKind::Load { .. }))
        .collect();
    if loads.len() < 2 {
        return None;
    }
    let (stores, calls) = loop_writers(f, loops, k);
    let mut evolution = LoopEvolution::new(f, loops, k)?;
    let mut accesses = Vec::new();
    for load in loads {
        let InstKind::Load { args: [addr] } = *f.kind(load) else {
            continue;
        };
        let loc = locate(f, addr);
        let written = stores
            .iter()
            .any(|&(_, s)| may_alias_in(facts, func, s, loc))
            || calls.iter().any(|&c| call_may_write(f, facts, c, loc));
        if written {
            continue;
        }
        let Some((root, offset)) = evolution.address(addr) else {
            continue;
        };
        let Some((start, step)) = offset.as_affine() else {
            continue;
        };
        if step != 0 {
            accesses.push(Access {
                load,
                root,
                start: start.clone(),
                step,
                ty: f.inst(load).ty,
            });
        }
    }
    Some(accesses)
}

/// The instructions of loop `k`'s own blocks that run in every iteration (their blocks
/// dominate the latch), block by block.
fn every_round<'a>(
    f: &'a Function,
    dom: &'a DomTree,
    loops: &'a LoopInfo,
    k: usize,
) -> impl Iterator<Item = Inst> + 'a {
    let latch = loops.loops[k].latches[0];
    loops.loops[k]
        .blocks
        .iter()
        .filter(move |&&b| dom.dominates(b, latch))
        .flat_map(move |&b| f.block_insts(b))
}

/// Chains of at least two accesses (indices into `accesses`), each link starting `step`
/// bytes after the one before, in the order their first links come.
fn chains(accesses: &[Access]) -> Vec<Vec<usize>> {
    // Accesses that differ only in the constant of their start, by that constant.
    // (first member, members by the constant of their start, two members share a start).
    let mut groups: Vec<(usize, FastHashMap<i32, usize>, bool)> = Vec::new();
    for (n, a) in accesses.iter().enumerate() {
        let group = groups.iter().position(|&(first, _, _)| {
            let b = &accesses[first];
            b.root == a.root
                && b.step == a.step
                && b.ty == a.ty
                && a.start.add(&b.start.scale(-1)).as_constant().is_some()
        });
        let group = match group {
            Some(g) => g,
            None => {
                groups.push((n, FastHashMap::default(), false));
                groups.len() - 1
            }
        };
        let (_, by_start, duplicated) = &mut groups[group];
        *duplicated |= by_start.insert(a.start.constant, n).is_some();
    }
    let mut chains = Vec::new();
    for (_, by_start, duplicated) in &groups {
        if *duplicated {
            continue;
        }
        let mut members: Vec<usize> = by_start.values().copied().collect();
        members.sort_unstable();
        for &n in &members {
            let a = &accesses[n];
            if by_start.contains_key(&a.start.constant.wrapping_sub(a.step)) {
                continue;
            }
            let mut chain = vec![n];
            let mut at = a.start.constant;
            while let Some(&next) = by_start.get(&at.wrapping_add(a.step)) {
                if chain.contains(&next) {
                    break;
                }
                chain.push(next);
                at = at.wrapping_add(a.step);
            }
            if chain.len() >= 2 {
                chains.push(chain);
            }
        }
    }
    chains
}

/// The longest latency from `load` to `v` along operands computed in loop `k` (phis end
/// the walk), or `None` when `v` does not depend on `load` there; `memo` holds the answers
/// found so far.
fn latency_from(
    f: &Function,
    costs: &dyn CostModel,
    loops: &LoopInfo,
    k: usize,
    load: Inst,
    v: Value,
    memo: &mut FastHashMap<Inst, Option<u32>>,
) -> Option<u32> {
    let i = v.as_inst()?;
    if i == load {
        return Some(0);
    }
    if let Some(&known) = memo.get(&i) {
        return known;
    }
    let kind = f.kind(i);
    let answer = if !loops.holds(f, k, i) || kind.is_phi() {
        None
    } else {
        let operands: Vec<Value> = kind.operands().to_vec();
        operands
            .into_iter()
            .filter_map(|o| latency_from(f, costs, loops, k, load, o, memo))
            .max()
            .map(|l| l + costs.inst_latency(kind))
    };
    memo.insert(i, answer);
    answer
}

/// Replaces each load of `links` by a phi in the header `h` of its first iteration's value,
/// loaded at the end of the preheader `p` (where `preheader` writes), and from the latch of
/// the value the next link had: the link after it, `next` after the last.
fn carry(
    preheader: &mut ArithWriter,
    p: Block,
    h: Block,
    latch: Block,
    links: &[&Access],
    next: Value,
) {
    let mut next = next;
    for a in links.iter().rev() {
        let offset = preheader.invariant(&a.start);
        let (f, end) = (&mut *preheader.f, preheader.at);
        let addr = f.insert_inst_before(
            end,
            InstKind::Gep {
                args: [a.root, offset],
                stride: 1,
            },
            Type::Ptr,
        );
        let first = f.insert_inst_before(
            end,
            InstKind::Load {
                args: [Value::Inst(addr)],
            },
            a.ty,
        );
        let phi = f.prepend_inst(
            h,
            InstKind::Phi {
                args: vec![next, Value::Inst(first)],
                blocks: vec![latch, p],
            },
            a.ty,
        );
        f.replace_all_uses(Value::Inst(a.load), Value::Inst(phi));
        f.remove_inst(a.load);
        next = Value::Inst(phi);
    }
}
