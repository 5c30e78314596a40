//! Memoisation: a recursive function whose result depends only on its arguments, and whose
//! recursion revisits the same arguments (Fibonacci, binomial coefficients, path counts,
//! Takeuchi's function, on integers or floats), remembers its results in a table emitted
//! into the program, turning exponential call trees into as many calls as there are
//! distinct arguments.
//!
//! A function qualifies when it is not `main`, takes only `i32` and `f32` parameters (at
//! least one), returns `i32` or `f32`, does no I/O and neither reads nor writes memory its
//! callers can see (the module facts' summary; it may use stack arrays of its own) but for
//! counters: scalar `i32` globals it only adds to (`calls = calls + 1`), when those are all
//! the memory it touches and it calls only itself and pure functions, so that what a call
//! adds to each counter depends only on its arguments too. And it calls itself from at
//! least two places, or from one place inside a loop, with arguments computed from its
//! parameters, constants, phis and its own results (`tak(tak(x - 1, y, z), ...)`) by `add`,
//! `sub` and `mul`, floats by `fadd` and `fsub` only. That last condition picks recursions
//! whose subproblems overlap (`f(n - 1) + f(n - 2)`); a divide-and-conquer recursion on
//! `(l + r) / 2` visits each range once, and a float scaled at each level (`x * 0.5 -
//! 0.2`) takes a new value on every path: a table would only cost lookups.
//!
//! The table is direct-mapped with `1 << TABLE_BITS` entries in new globals: `F.memo` holds
//! per entry a word that is 1 once the entry is filled, then the arguments' keys (an
//! integer itself, a float its bits: `-0.0` and `0.0` are two keys, as their results may
//! differ); `F.memo.value` the result; `F.memo.added`, for a function with counters, what
//! the call added to each (its value before the call's return less its value on entry). (A
//! SysY name has no '.', so these names are free.) The entry of a call is the top bits of a
//! multiplicative hash of its arguments. On entry the function compares the entry's
//! arguments with its own and, when they are equal, adds the stored amounts to the counters
//! and returns the stored result; otherwise it runs its body and, before each `ret`, stores
//! its arguments, result and amounts in the entry. A collision only costs a recomputation:
//! an entry is used only when every argument matches, so the program computes what it
//! computed before for every input.
//!
//! Needs: the module facts (summaries). Preserves: behaviour; adds two or three globals per
//! memoised function, so nothing else.

use crate::analysis::{memoizable, Preserved};
use crate::ir::{
    BinaryOp, CastOp, FuncId, Function, Global, GlobalId, Inst, InstKind, IntPred, Module, Type,
    Value,
};
use crate::passes::ModuleAnalyses;

/// The table of each memoised function has `1 << TABLE_BITS` entries.
const TABLE_BITS: u32 = 14;

/// Odd multipliers of the hash, one per argument position (cycled): each spreads its
/// argument's low bits over the top bits the entry index is taken from.
const HASH_MULTIPLIERS: [u32; 4] = [0x9e37_79b1, 0x85eb_ca77, 0xc2b2_ae3d, 0x27d4_eb2f];

pub fn run(m: &mut Module, am: &mut ModuleAnalyses) -> Preserved {
    let facts = am.facts(m);
    let mut changed = false;
    for id in m.function_ids().collect::<Vec<_>>() {
        let Some(counters) = memoizable::table_counters(m, &facts, id) else {
            continue;
        };
        let tables = add_tables(m, id, counters);
        memoize(m.function_mut(id), &tables);
        changed = true;
    }
    Preserved::nothing_if(changed)
}

/// The globals of one function's table.
struct Tables {
    /// Per entry: the filled flag, then the arguments.
    keys: GlobalId,
    /// Per entry: the result.
    values: GlobalId,
    /// The globals the function adds to (`counters`), and per entry what a call adds to
    /// each.
    counters: Vec<GlobalId>,
    added: Option<GlobalId>,
}

fn add_tables(m: &mut Module, id: FuncId, counters: Vec<GlobalId>) -> Tables {
    let f = m.function(id);
    let (name, arity, ret) = (f.name.clone(), f.params.len() as u32, f.ret);
    let entries = 1u32 << TABLE_BITS;
    let mut add = |name: String, elem: Type, len: u32| {
        m.globals.push(Global {
            name,
            elem,
            len,
            init: Vec::new(),
            is_const: false,
        });
        GlobalId(m.globals.len() as u32 - 1)
    };
    let width = counters.len() as u32;
    Tables {
        keys: add(format!("{name}.memo"), Type::I32, entries * (arity + 1)),
        values: add(format!("{name}.memo.value"), ret, entries),
        added: (width > 0).then(|| add(format!("{name}.memo.added"), Type::I32, entries * width)),
        counters,
    }
}

/// Adds the table lookup to `f`'s entry and the table update before each of its returns.
fn memoize(f: &mut Function, tables: &Tables) {
    let entry = f.entry().expect("a function with a body");
    let arity = f.params.len() as u32;
    // The entry keeps its allocas and gets the lookup; the rest of it runs on a miss.
    let body = f.split_entry();
    let jump = f
        .terminator(entry)
        .expect("the entry jumps to the rest of it");
    f.remove_inst(jump);
    let emit =
        |f: &mut Function, kind: InstKind, ty: Type| Value::Inst(f.append_inst(entry, kind, ty));
    // Each argument's key: an integer itself, a float its bits (so that -0.0 and 0.0 are
    // two keys, as their results may differ, and a NaN matches its own bits).
    let keys: Vec<Value> = (0..arity)
        .map(|p| match f.params[p as usize] {
            Type::F32 => {
                let bits = InstKind::Cast {
                    op: CastOp::FloatBits,
                    args: [Value::Param(p)],
                };
                emit(f, bits, Type::I32)
            }
            _ => Value::Param(p),
        })
        .collect();
    let mut hash = Value::Int(0);
    for (p, &key) in keys.iter().enumerate() {
        let multiplier = HASH_MULTIPLIERS[p % HASH_MULTIPLIERS.len()] as i32;
        let scaled = emit(
            f,
            InstKind::binary(BinaryOp::Mul, key, Value::Int(multiplier)),
            Type::I32,
        );
        hash = match hash {
            Value::Int(0) => scaled,
            _ => emit(f, InstKind::binary(BinaryOp::Add, hash, scaled), Type::I32),
        };
    }
    let index = emit(
        f,
        InstKind::binary(BinaryOp::LShr, hash, Value::Int(32 - TABLE_BITS as i32)),
        Type::I32,
    );
    let key_entry = emit(
        f,
        InstKind::Gep {
            args: [Value::Global(tables.keys), index],
            stride: 4 * (arity + 1),
        },
        Type::Ptr,
    );
    let value_slot = emit(
        f,
        InstKind::Gep {
            args: [Value::Global(tables.values), index],
            stride: 4,
        },
        Type::Ptr,
    );
    let word = |f: &mut Function, k: u32| {
        emit(
            f,
            InstKind::Gep {
                args: [key_entry, Value::Int(k as i32)],
                stride: 4,
            },
            Type::Ptr,
        )
    };
    let words: Vec<Value> = (0..=arity).map(|k| word(f, k)).collect();
    // Each counter as the call finds it, and where the entry keeps what the call adds.
    let width = tables.counters.len() as u32;
    let before: Vec<Value> = tables
        .counters
        .iter()
        .map(|&g| {
            emit(
                f,
                InstKind::Load {
                    args: [Value::Global(g)],
                },
                Type::I32,
            )
        })
        .collect();
    let added_slots: Vec<Value> = match tables.added {
        Some(added) => {
            let row = emit(
                f,
                InstKind::Gep {
                    args: [Value::Global(added), index],
                    stride: 4 * width,
                },
                Type::Ptr,
            );
            (0..width)
                .map(|k| {
                    let kind = InstKind::Gep {
                        args: [row, Value::Int(k as i32)],
                        stride: 4,
                    };
                    emit(f, kind, Type::Ptr)
                })
                .collect()
        }
        None => Vec::new(),
    };
    let hit = f.create_block();
    for ((&g, &start), &slot) in tables.counters.iter().zip(&before).zip(&added_slots) {
        let added = f.append_inst(hit, InstKind::Load { args: [slot] }, Type::I32);
        let sum = InstKind::binary(BinaryOp::Add, start, Value::Inst(added));
        let sum = f.append_inst(hit, sum, Type::I32);
        let store = InstKind::Store {
            args: [Value::Inst(sum), Value::Global(g)],
        };
        f.append_inst(hit, store, Type::Void);
    }
    let ret_ty = f.ret;
    let value = f.append_inst(hit, InstKind::Load { args: [value_slot] }, ret_ty);
    f.append_inst(
        hit,
        InstKind::Ret {
            args: Some(Value::Inst(value)),
        },
        Type::Void,
    );
    // The compare chain: the filled flag against 0, then each argument against its own.
    let mut from = entry;
    for k in 0..=arity {
        let stored = f.append_inst(
            from,
            InstKind::Load {
                args: [words[k as usize]],
            },
            Type::I32,
        );
        let (pred, expected) = match k {
            0 => (IntPred::Ne, Value::Int(0)),
            _ => (IntPred::Eq, keys[k as usize - 1]),
        };
        let test = f.append_inst(
            from,
            InstKind::Icmp {
                pred,
                args: [Value::Inst(stored), expected],
            },
            Type::I1,
        );
        let next = if k == arity { hit } else { f.create_block() };
        f.append_inst(
            from,
            InstKind::CondBr {
                args: [Value::Inst(test)],
                targets: [next, body],
            },
            Type::Void,
        );
        let after = f.inst_block(test).expect("just appended");
        f.insert_block_after(next, after);
        from = next;
    }
    let returns: Vec<Inst> = f
        .blocks()
        .filter(|&b| b != hit)
        .filter_map(|b| f.terminator(b))
        .filter(|&t| matches!(f.kind(t), InstKind::Ret { .. }))
        .collect();
    for ret in returns {
        let result = f.kind(ret).operands()[0];
        let mut store = |v: Value, at: Value| {
            f.insert_inst_before(ret, InstKind::Store { args: [v, at] }, Type::Void);
        };
        for k in 1..=arity {
            store(keys[k as usize - 1], words[k as usize]);
        }
        store(result, value_slot);
        for ((&g, &start), &slot) in tables.counters.iter().zip(&before).zip(&added_slots) {
            let now = f.insert_inst_before(
                ret,
                InstKind::Load {
                    args: [Value::Global(g)],
                },
                Type::I32,
            );
            let added = InstKind::binary(BinaryOp::Sub, Value::Inst(now), start);
            let added = f.insert_inst_before(ret, added, Type::I32);
            let store = InstKind::Store {
                args: [Value::Inst(added), slot],
            };
            f.insert_inst_before(ret, store, Type::Void);
        }
        f.insert_inst_before(
            ret,
            InstKind::Store {
                args: [Value::Int(1), words[0]],
            },
            Type::Void,
        );
    }
}
