//! Inlining: replaces calls of small functions, and of functions called from one place
//! only, by a copy of the callee's body.
//!
//! Functions are visited bottom-up over the call graph's strongly connected components, so
//! a callee has had its own calls inlined before its size is measured and before it is
//! copied into its callers. A call is never inlined when its callee is `main`, lies in the
//! caller's own component or is recursive. A call is inlined when the callee's size
//! (`cost_model::function_size`) is at most `SMALL_CALLEE`, or when it is the callee's only
//! call site in the module, as long as the caller stays within `MAX_CALLER_SIZE` (for an only
//! call site `MAX_CALLER_SIZE_FOR_ONLY_CALL`) and the module within
//! `2 * original + MODULE_SLACK`. A function that calls itself, alone in its
//! component, is first inlined into itself a few levels deep (`SELF_INLINE_LEVELS`), which
//! divides its calls by the number of self-calls per level to the power of the levels.
//!
//! The call's block is split after the call: the rest of it moves to a continuation block
//! (phis in its successors now name the continuation). The callee's blocks are copied
//! after the call's block, parameters replaced by the arguments; its `alloca`s go to the
//! caller's entry block, so stack slots stay static. Each `ret` becomes a branch to the
//! continuation, which merges several returned values with a phi.
//!
//! Needs: nothing (builds the call graph through the module facts). Preserves: behaviour;
//! the functions keep their numbering, but every changed function's analyses are dropped.

use crate::analysis::Preserved;
use crate::cost_model::function_size;
use crate::ir::{Block, FuncId, Function, Inst, InstKind, Module, Type, Value};
use crate::passes::{memoize, ModuleAnalyses};

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

pub fn run(m: &mut Module, am: &mut ModuleAnalyses) -> Preserved {
    let facts = am.facts(m);
    let graph = &facts.call_graph;
    let main = m.find_function("main");
    let mut sizes: Vec<u32> = m.functions.iter().map(function_size).collect();
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
            if graph.is_recursive(g) && Some(g) != main && !memoize::qualifies(m, &facts, g) {
                let room = limit.saturating_sub(total);
                let growth = inline_into_itself(m.function_mut(g), g, room, &mut sites);
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
fn inline_into_itself(f: &mut Function, g: FuncId, room: u32, sites: &mut [u32]) -> u32 {
    let original = f.clone();
    let original_calls: Vec<(Inst, FuncId)> = original.calls().collect();
    let size = function_size(&original);
    let mut grown = 0;
    for _ in 0..SELF_INLINE_LEVELS {
        let self_calls: Vec<Inst> = f
            .calls()
            .filter(|&(_, h)| h == g)
            .map(|(call, _)| call)
            .collect();
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
    grown
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
