//! Which functions `memoize` can give a table of results (see that pass for the whole
//! story): recursions whose result, and what they add to counters, depend only on their
//! arguments, and whose self-calls revisit arguments. `inline` asks it too, to leave such
//! functions' self-calls in place for the table.

use crate::analysis::ModuleFacts;
use crate::ir::{
    BinaryOp, Block, Callee, FuncId, Function, GlobalId, Inst, InstKind, Module, Type, Value,
};

/// Whether `memoize` gives function `id` a table.
pub fn qualifies(m: &Module, facts: &ModuleFacts, id: FuncId) -> bool {
    table_counters(m, facts, id).is_some()
}

/// When `memoize` gives function `id` a table, the counters the table keeps what a call
/// added to (none for a function without visible memory); `None` when it gives none.
pub fn table_counters(m: &Module, facts: &ModuleFacts, id: FuncId) -> Option<Vec<GlobalId>> {
    let f = m.function(id);
    let summary = facts.summary(id);
    let signature = !f.params.is_empty()
        && f.params.iter().all(|&t| matches!(t, Type::I32 | Type::F32))
        && matches!(f.ret, Type::I32 | Type::F32);
    if !signature || f.name == "main" || summary.has_io || !overlapping_self_calls(f, id) {
        return None;
    }
    if !summary.reads_memory && !summary.writes_memory {
        return Some(Vec::new());
    }
    counters(m, facts, id).filter(|c| !c.is_empty())
}

/// The scalar `i32` globals that function `id` only adds to (`calls = calls + 1`: a load
/// whose one use starts a chain of additions, and subtractions from it, stored back in the
/// same block with no call between; see `added_back`), when those accesses are all the
/// memory the function touches and it calls only itself and pure functions; `None`
/// otherwise. What a call adds to each then depends only on its arguments, so the table can
/// keep it beside the result.
fn counters(m: &Module, facts: &ModuleFacts, id: FuncId) -> Option<Vec<GlobalId>> {
    let f = m.function(id);
    let mut found = Vec::new();
    let mut stores = Vec::new();
    for b in f.blocks() {
        let insts: Vec<Inst> = f.block_insts(b).collect();
        for (at, &i) in insts.iter().enumerate() {
            match f.kind(i) {
                InstKind::Call {
                    callee: Callee::Function(g),
                    ..
                } if *g == id || facts.summary(*g).is_pure() => {}
                InstKind::Call { .. } => return None,
                // Found with the load whose sum it stores, which comes first.
                InstKind::Store { .. } if !stores.contains(&i) => return None,
                InstKind::Load {
                    args: [Value::Global(g)],
                } if f.value_type(Value::Inst(i)) == Type::I32 && m.global(*g).len == 1 => {
                    let store = added_back(f, i, *g)?;
                    let between = insts[at..].iter().take_while(|&&x| x != store);
                    if between
                        .clone()
                        .any(|&x| matches!(f.kind(x), InstKind::Call { .. }))
                        || between.count() == insts.len() - at
                    {
                        return None;
                    }
                    stores.push(store);
                    if !found.contains(g) {
                        found.push(*g);
                    }
                }
                InstKind::Load { .. } | InstKind::Alloca { .. } => return None,
                _ => {}
            }
        }
    }
    Some(found)
}

/// The store back into `g` of the load plus or minus other values (`g = g + r * 3 - c`: a
/// chain of additions, and subtractions from the chain, each the only use of the one
/// before), when none of those values is a load.
fn added_back(f: &Function, load: Inst, g: GlobalId) -> Option<Inst> {
    let not_loaded = |v: Value| {
        v.as_inst()
            .is_none_or(|o| !matches!(f.kind(o), InstKind::Load { .. }))
    };
    let mut at = load;
    loop {
        let [u] = f.uses(Value::Inst(at)) else {
            return None;
        };
        let here = Value::Inst(at);
        match *f.kind(u.inst) {
            InstKind::Binary {
                op: BinaryOp::Add,
                args: [a, b],
            } if (a == here && not_loaded(b)) || (b == here && not_loaded(a)) => at = u.inst,
            InstKind::Binary {
                op: BinaryOp::Sub,
                args: [a, b],
            } if a == here && not_loaded(b) => at = u.inst,
            InstKind::Store {
                args: [v, Value::Global(to)],
            } if v == here && to == g && at != load => return Some(u.inst),
            _ => return None,
        }
    }
}

/// Whether `f` calls itself from two places, or from one inside a loop, with every
/// argument of every such call built from parameters, constants and phis by `add`, `sub`
/// and `mul`.
fn overlapping_self_calls(f: &Function, id: FuncId) -> bool {
    let calls: Vec<Inst> = f
        .calls()
        .filter(|&(_, g)| g == id)
        .map(|(call, _)| call)
        .collect();
    let in_loop = || {
        calls.iter().any(|&call| {
            let b = f.inst_block(call).expect("in a block");
            reaches_itself(f, b)
        })
    };
    !calls.is_empty()
        && calls.iter().all(|&call| {
            f.kind(call)
                .operands()
                .iter()
                .all(|&a| is_shift_of_parameters(f, id, a))
        })
        && (calls.len() >= 2 || in_loop())
}

/// How deep `is_shift_of_parameters` looks before giving up.
const ARGUMENT_DEPTH: u32 = 8;

/// Whether `v` is built from parameters, constants, phis and the results of calls of the
/// function itself (`id`: Takeuchi's `tak(tak(x - 1, y, z), ...)`) by `add`, `sub` and
/// `mul`, or for floats by `fadd` and `fsub` only: a float argument scaled at each level
/// (`x * 0.5 - 0.2`) takes a new value on every path of the call tree, while one stepped by
/// constants (`x - 1.0`, `x - 2.0`) meets its earlier values again.
fn is_shift_of_parameters(f: &Function, id: FuncId, v: Value) -> bool {
    fn walk(f: &Function, id: FuncId, v: Value, depth: u32) -> bool {
        match v {
            Value::Param(_) | Value::Int(_) | Value::Float(_) => true,
            Value::Inst(i) if depth > 0 => match f.kind(i) {
                InstKind::Phi { .. } => true,
                InstKind::Call { callee, .. } => *callee == Callee::Function(id),
                InstKind::Binary {
                    op:
                        BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::FAdd | BinaryOp::FSub,
                    args: [a, b],
                } => walk(f, id, *a, depth - 1) && walk(f, id, *b, depth - 1),
                _ => false,
            },
            _ => false,
        }
    }
    walk(f, id, v, ARGUMENT_DEPTH)
}

/// Whether block `b` can reach itself: it lies on a cycle of the control flow.
fn reaches_itself(f: &Function, b: Block) -> bool {
    let mut seen = vec![false; f.block_capacity()];
    let mut stack: Vec<Block> = f.successors(b).to_vec();
    while let Some(x) = stack.pop() {
        if x == b {
            return true;
        }
        if !std::mem::replace(&mut seen[x.index()], true) {
            stack.extend_from_slice(f.successors(x));
        }
    }
    false
}
