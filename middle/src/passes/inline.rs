//! Inlining: replaces calls of small functions, and of functions called from one place
//! only, by a copy of the callee's body.
//!
//! Functions are visited bottom-up over the call graph's strongly connected components, so
//! a callee has had its own calls inlined before its size is measured and before it is
//! copied into its callers. A call is never inlined when its callee is `main`, lies in the
//! caller's own component or is recursive. A call is inlined when the callee's size
//! (`CostModel::function_size`) is at most `SMALL_CALLEE`, or when it is the callee's only
//! call site in the module, as long as the caller stays within `MAX_CALLER_SIZE` (for an only
//! call site `MAX_CALLER_SIZE_FOR_ONLY_CALL`) and the module within
//! `2 * original + MODULE_SLACK`. A function that calls itself, alone in its
//! component, is first inlined into itself a few levels deep (`SELF_INLINE_LEVELS`), which
//! divides its calls by the number of self-calls per level to the power of the levels; fewer
//! levels where a self-call in a loop keeps many values live across it in a large body
//! (`SELF_INLINE_PRESSURE`). Where the recursion branches, the self-calls left then test
//! the base case first: a small returning arm behind an effect-free test at the entry runs
//! in place of the call (`base_case_guard`).
//!
//! The call's block is split after the call: the rest of it moves to a continuation block
//! (phis in its successors now name the continuation). The callee's blocks are copied
//! after the call's block, parameters replaced by the arguments; its `alloca`s go to the
//! caller's entry block, so stack slots stay static. Each `ret` becomes a branch to the
//! continuation, which merges several returned values with a phi.
//!
//! Needs: nothing (builds the call graph through the module facts). Preserves: behaviour;
//! the functions keep their numbering, but every changed function's analyses are dropped.

use crate::analysis::memoizable;
use crate::analysis::{Cfg, DomTree, LoopInfo, Preserved};
use crate::cost_model::CostModel;
use crate::ir::{Block, Callee, FuncId, Function, Inst, InstKind, Module, Type, Value};
use crate::passes::ModuleAnalyses;
use crate::transform::remove_blocks::remove_unreachable;

/// Callees of at most this many machine instructions are inlined at every call site. A
/// call costs about 10 instructions' worth (the `bl`, saving and restoring the link
/// register, argument moves, caller-saved registers spilled around it) and hides the
/// arguments' values from the callee; a body of 40 instructions grows each caller by
/// little more than that while letting constants and loop invariants flow in.
const SMALL_CALLEE: u32 = 40;

/// A caller is not grown past this many machine instructions, so that the register
/// allocator and the quadratic parts of other passes keep their compile time.
const MAX_CALLER_SIZE: u32 = 4000;

/// A function's only call is inlined into callers of up to this many machine instructions:
/// the copy replaces the original, which then goes, so the module does not grow, and the
/// callee's code meets its arguments (a thousand parameters all given one value become one
/// value).
const MAX_CALLER_SIZE_FOR_ONLY_CALL: u32 = 16000;

/// The module may grow to twice its size plus this much, so that small modules can still
/// inline freely while large ones stay bounded.
const MODULE_SLACK: u32 = 2000;

/// A function that calls itself (and no other function of its component) is inlined into
/// itself, the original body replacing each self-call, for at most this many levels and
/// while it stays within `SELF_INLINE_SIZE` machine instructions: with two self-calls per
/// level, four levels make sixteen times fewer calls. Not for functions `memoize` gives a
/// table, whose calls are the places the table is consulted.
const SELF_INLINE_LEVELS: u32 = 4;
const SELF_INLINE_SIZE: u32 = 400;

/// When a self-call sits in a loop, each level inlined into itself keeps the values live
/// across its self-call live through the next level's loop too, so `levels * across` values
/// compete for registers over bodies of `size` instructions each; past this product of the
/// three the allocator spills the outer levels' loop values inside their own loops (a
/// backtracking search's digit, cell and count reloaded and stored every round), which
/// costs more than the calls saved. A backtracking loop with 6 to 10 values across its call
/// and 50 to 90 instructions gets one level or none; a permutation generator with 3 across
/// and 23 instructions, four.
const SELF_INLINE_PRESSURE: u32 = 500;

pub fn run(m: &mut Module, am: &mut ModuleAnalyses) -> Preserved {
    let costs = am.costs();
    let facts = am.facts(m);
    let graph = &facts.call_graph;
    let main = m.find_function("main");
    let mut sizes: Vec<u32> = m.functions.iter().map(|f| costs.function_size(f)).collect();
    let mut sites = vec![0u32; m.functions.len()];
    for f in &m.functions {
        for (_, g) in f.calls() {
            sites[g.index()] += 1;
        }
    }
    let original: u32 = sizes.iter().sum();
    let limit = original.saturating_mul(2).saturating_add(MODULE_SLACK);
    let mut total = original;
    let mut changed = false;
    for (scc_index, scc) in graph.sccs().iter().enumerate() {
        if let [g] = scc[..] {
            if graph.is_recursive(g) && Some(g) != main && !memoizable::qualifies(m, &facts, g) {
                let room = limit.saturating_sub(total);
                let growth = inline_into_itself(m.function_mut(g), g, costs, room, &mut sites);
                sizes[g.index()] += growth;
                total += growth;
                changed |= growth > 0;
            }
        }
        for &caller in scc {
            for (call, g) in m.function(caller).calls().collect::<Vec<_>>() {
                let growth = sizes[g.index()];
                let only_call = sites[g.index()] == 1;
                let wanted = Some(g) != main
                    && graph.scc_of(g) != scc_index
                    && !graph.is_recursive(g)
                    && (growth <= SMALL_CALLEE || only_call);
                let cap = if only_call {
                    MAX_CALLER_SIZE_FOR_ONLY_CALL
                } else {
                    MAX_CALLER_SIZE
                };
                if !wanted || sizes[caller.index()] + growth > cap || total + growth > limit {
                    continue;
                }
                let (f, callee) = pair(&mut m.functions, caller, g);
                inline_call(f, call, callee);
                for (_, h) in callee.calls() {
                    sites[h.index()] += 1;
                }
                sites[g.index()] -= 1;
                sizes[caller.index()] += growth;
                total += growth;
                changed = true;
            }
        }
    }
    Preserved::nothing_if(changed)
}

/// Inlines function `g`, `f`, into itself level by level (see `SELF_INLINE_LEVELS`), growing
/// by at most `room` machine instructions and counting the calls it copies in `sites`; how
/// much it grew.
fn inline_into_itself(
    f: &mut Function,
    g: FuncId,
    costs: &dyn CostModel,
    room: u32,
    sites: &mut [u32],
) -> u32 {
    let original = f.clone();
    let original_calls: Vec<(Inst, FuncId)> = original.calls().collect();
    let size = costs.function_size(&original);
    let original_self_calls = self_calls(&original, g);
    let in_a_loop = any_in_a_loop(&original, &original_self_calls);
    let levels = self_inline_levels(&original, &original_self_calls, in_a_loop, size);
    let mut grown = 0;
    for _ in 0..levels {
        let self_calls = self_calls(f, g);
        let growth = size * self_calls.len() as u32;
        if self_calls.is_empty()
            || size + grown + growth > SELF_INLINE_SIZE
            || grown + growth > room
        {
            break;
        }
        for call in self_calls {
            inline_call(f, call, &original);
            for &(_, h) in &original_calls {
                sites[h.index()] += 1;
            }
            sites[g.index()] -= 1;
        }
        grown += growth;
    }
    let branching = original_self_calls.len() > 1 || in_a_loop;
    if let Some(guard) = base_case_guard(&original, g).filter(|_| branching) {
        let growth = costs.function_size(&guard);
        for call in self_calls(f, g) {
            if size + grown + growth > SELF_INLINE_SIZE || grown + growth > room {
                break;
            }
            inline_call(f, call, &guard);
            grown += growth;
        }
    }
    grown
}

/// The base cases of `f`, function `g`, as a function to inline at its remaining
/// self-calls when its recursion branches (two self-calls, or one in a loop: then about
/// half the calls are base cases, where a chain of single self-calls reaches one at its
/// end only): `f`'s way from its entry to its first conditional branch, one arm of which
/// returns (the base case) and the other calls `g` again with the same arguments. A
/// self-call whose arguments make a base case then runs it in place, with no call; the
/// call that remains tests again in the callee, which is cheap since the way to the test
/// has no effect and no call. `None` when `f` has no such shape, or when the way or the
/// base case is not small.
fn base_case_guard(f: &Function, g: FuncId) -> Option<Function> {
    const MAX_WAY: usize = 8;
    const MAX_BASE: usize = 8;
    let cfg = Cfg::new(f);
    let mut way = vec![f.entry()?];
    let (test, arms) = loop {
        let last = *way.last()?;
        match *f.kind(f.terminator(last)?) {
            InstKind::Br { targets: [next] } if way.len() < MAX_WAY && !way.contains(&next) => {
                way.push(next)
            }
            InstKind::CondBr { targets, .. } => break (last, targets),
            _ => return None,
        }
    };
    let returns = |b: Block| {
        cfg.preds(b) == [test]
            && f.terminator(b)
                .is_some_and(|t| matches!(f.kind(t), InstKind::Ret { .. }))
            && f.phis(b).next().is_none()
            && f.block_insts(b).count() <= MAX_BASE
            && f.block_insts(b)
                .all(|i| !matches!(f.kind(i), InstKind::Call { .. }))
    };
    let recursive_arm = match arms {
        [yes, _] if returns(yes) => 1,
        [_, no] if returns(no) => 0,
        _ => return None,
    };
    if arms[0] == arms[1] || way.contains(&arms[recursive_arm]) {
        return None;
    }
    let way_insts: Vec<Inst> = way.iter().flat_map(|&b| f.block_insts(b)).collect();
    let without_effects = way_insts.iter().all(|&i| {
        !matches!(
            f.kind(i),
            InstKind::Call { .. } | InstKind::Store { .. } | InstKind::Alloca { .. }
        )
    });
    if !without_effects || way_insts.len() > MAX_WAY {
        return None;
    }
    let mut guard = f.clone();
    let again = guard.add_block();
    let args = (0..f.params.len() as u32).map(Value::Param).collect();
    let call = guard.append_inst(
        again,
        InstKind::Call {
            callee: Callee::Function(g),
            args,
        },
        f.ret,
    );
    let result = (f.ret != Type::Void).then_some(Value::Inst(call));
    guard.append_inst(again, InstKind::Ret { args: result }, Type::Void);
    let branch = guard.terminator(test)?;
    guard.kind_mut_targets(branch)[recursive_arm] = again;
    let guard_cfg = Cfg::new(&guard);
    remove_unreachable(&mut guard, &guard_cfg);
    Some(guard)
}

/// How many levels `f`, of `size` instructions, may be inlined into itself, given its
/// `self_calls` and whether one of them sits in a loop: by the pressure on registers it
/// makes when a self-call is in a loop (`SELF_INLINE_PRESSURE`); 0 when not even one copy
/// fits `SELF_INLINE_SIZE`.
fn self_inline_levels(f: &Function, self_calls: &[Inst], in_a_loop: bool, size: u32) -> u32 {
    if 2 * size > SELF_INLINE_SIZE {
        return 0;
    }
    if !in_a_loop {
        return SELF_INLINE_LEVELS;
    }
    let cfg = Cfg::new(f);
    let dom = DomTree::new(&cfg);
    let across = self_calls
        .iter()
        .map(|&call| live_across(f, &cfg, &dom, call))
        .max()
        .unwrap_or(0);
    let per_level = (across as u32).max(1) * size.max(1);
    (SELF_INLINE_PRESSURE / per_level).min(SELF_INLINE_LEVELS)
}

/// The calls `f`, function `g`, makes of itself.
fn self_calls(f: &Function, g: FuncId) -> Vec<Inst> {
    f.calls()
        .filter(|&(_, h)| h == g)
        .map(|(call, _)| call)
        .collect()
}

/// Whether one of `calls` sits in a loop of `f`.
fn any_in_a_loop(f: &Function, calls: &[Inst]) -> bool {
    let cfg = Cfg::new(f);
    let dom = DomTree::new(&cfg);
    let loops = LoopInfo::new(&cfg, &dom);
    calls
        .iter()
        .any(|&call| f.inst_block(call).is_some_and(|b| loops.depth(b) > 0))
}

/// The caller mutably and the callee shared; they are different functions.
fn pair(functions: &mut [Function], caller: FuncId, callee: FuncId) -> (&mut Function, &Function) {
    let (a, b) = (caller.index(), callee.index());
    if a < b {
        let (low, high) = functions.split_at_mut(b);
        (&mut low[a], &high[0])
    } else {
        let (low, high) = functions.split_at_mut(a);
        (&mut high[0], &low[b])
    }
}

/// Replaces `call` in `f` by a copy of `callee`'s body.
fn inline_call(f: &mut Function, call: Inst, callee: &Function) {
    let (block, args) = match (f.inst_block(call), f.kind(call)) {
        (Some(b), InstKind::Call { args, .. }) => (b, args.clone()),
        _ => unreachable!("inlining a call that is no longer in the function"),
    };
    let ty = f.inst(call).ty;
    let entry = f
        .entry()
        .expect("a function with a call has an entry block");
    let cont = f.split_after(call);

    // The callee's blocks, copied in its layout order right after the call's block.
    let mut block_map: Vec<Option<Block>> = vec![None; callee.block_capacity()];
    let mut last = block;
    for b in callee.blocks() {
        let copy = f.create_block();
        f.insert_block_after(copy, last);
        block_map[b.index()] = Some(copy);
        last = copy;
    }
    f.insert_block_after(cont, last);
    let map_block =
        |b: Block| block_map[b.index()].expect("a target of the callee is a block of it");

    // First pass: every instruction copied, operands defined later in the layout left as
    // `undef` for the second pass.
    let alloca_anchor = f
        .block_insts(entry)
        .find(|&i| !matches!(f.kind(i), InstKind::Alloca { .. }))
        .expect("the entry block holds a terminator or the call");
    let mut inst_map: Vec<Option<Inst>> = vec![None; callee.inst_capacity()];
    let mut copies: Vec<(Inst, Inst)> = Vec::new();
    let mut returns: Vec<(Value, Block)> = Vec::new();
    for b in callee.blocks() {
        let copy_block = map_block(b);
        for i in callee.block_insts(b) {
            let data = callee.inst(i);
            let mut kind = data.kind.clone();
            match &mut kind {
                InstKind::Alloca { .. } => {
                    inst_map[i.index()] = Some(f.insert_inst_before(alloca_anchor, kind, data.ty));
                    continue;
                }
                InstKind::Ret { args } => {
                    if let Some(v) = args {
                        returns.push((*v, copy_block));
                    }
                    f.append_inst(copy_block, InstKind::Br { targets: [cont] }, Type::Void);
                    continue;
                }
                InstKind::Phi { blocks, .. } => {
                    for target in blocks.iter_mut() {
                        *target = map_block(*target);
                    }
                }
                _ => {
                    for target in kind.targets_mut() {
                        *target = map_block(*target);
                    }
                }
            }
            for v in kind.operands_mut() {
                *v = map_value(*v, &args, &inst_map, callee);
            }
            let copy = f.append_inst(copy_block, kind, data.ty);
            inst_map[i.index()] = Some(copy);
            copies.push((i, copy));
        }
    }
    // Second pass: the operands that were not copied yet when their user was.
    for (i, copy) in copies {
        for (index, &v) in callee.kind(i).operands().iter().enumerate() {
            if let Value::Inst(_) = v {
                f.set_operand(copy, index, map_value(v, &args, &inst_map, callee));
            }
        }
    }

    let result = match returns.as_slice() {
        [] => Value::Undef(ty),
        [(v, _)] => map_value(*v, &args, &inst_map, callee),
        _ => {
            let (values, blocks) = returns
                .iter()
                .map(|&(v, b)| (map_value(v, &args, &inst_map, callee), b))
                .unzip();
            let phi = InstKind::Phi {
                args: values,
                blocks,
            };
            Value::Inst(f.prepend_inst(cont, phi, ty))
        }
    };
    if ty != Type::Void {
        f.replace_all_uses(Value::Inst(call), result);
    }
    f.remove_inst(call);
    let callee_entry = callee.entry().expect("a callee has an entry block");
    f.append_inst(
        block,
        InstKind::Br {
            targets: [map_block(callee_entry)],
        },
        Type::Void,
    );
}

/// The caller's value for the callee's `v`: an argument for a parameter, the copy of an
/// instruction (`undef` while it has none), constants and globals as they are.
fn map_value(v: Value, args: &[Value], inst_map: &[Option<Inst>], callee: &Function) -> Value {
    match v {
        Value::Param(p) => args[p as usize],
        Value::Inst(i) => match inst_map[i.index()] {
            Some(copy) => Value::Inst(copy),
            None => Value::Undef(callee.value_type(v)),
        },
        _ => v,
    }
}

/// How many values live across `call`: parameters and results made before it that
/// something after it reads, on a way from the call that does not make them again.
fn live_across(f: &Function, cfg: &Cfg, dom: &DomTree, call: Inst) -> usize {
    let Some(at) = f.inst_block(call) else {
        return 0;
    };
    let order: Vec<Inst> = f.block_insts(at).collect();
    let index = |i: Inst| order.iter().position(|&x| x == i);
    let call_index = index(call).unwrap_or(0);
    let made_before = |v: Value| match v {
        Value::Param(_) => true,
        Value::Inst(i) if i == call => false,
        Value::Inst(i) => match f.inst_block(i) {
            Some(b) if b == at => index(i).is_some_and(|k| k < call_index),
            Some(b) => dom.dominates(b, at),
            None => false,
        },
        _ => false,
    };
    // Per block making a value (the first entry for parameters), the blocks a way from the
    // end of the call's block reaches before that block makes it again.
    let mut reached_before: Vec<Option<Vec<bool>>> = vec![None; f.block_capacity() + 1];
    let mut read_after = |v: Value| {
        let made_in = v.as_inst().and_then(|i| f.inst_block(i));
        let reached =
            reached_before[made_in.map_or(0, |b| b.index() + 1)].get_or_insert_with(|| {
                let mut reached = vec![false; f.block_capacity()];
                let mut todo: Vec<Block> = cfg.succs(at).to_vec();
                while let Some(b) = todo.pop() {
                    if reached[b.index()] || Some(b) == made_in {
                        continue;
                    }
                    reached[b.index()] = true;
                    todo.extend_from_slice(cfg.succs(b));
                }
                reached
            });
        f.uses(v).iter().any(|u| {
            let Some(b) = f.inst_block(u.inst) else {
                return false;
            };
            match f.kind(u.inst) {
                // A phi reads its operand at the end of the block it comes from.
                InstKind::Phi { blocks, .. } => {
                    let from = blocks[u.index as usize];
                    from == at || reached[from.index()]
                }
                _ => reached[b.index()] || b == at && index(u.inst).is_some_and(|k| k > call_index),
            }
        })
    };
    let params = (0..f.params.len() as u32).map(Value::Param);
    let results = f
        .all_insts()
        .map(Value::Inst)
        .filter(|&v| f.value_type(v) != Type::Void);
    params
        .chain(results)
        .filter(|&v| made_before(v) && read_after(v))
        .count()
}
