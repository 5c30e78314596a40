//! sink-common: when every value a phi takes is the same computation on the same operands,
//! each made in its predecessor only for the phi (`j = j + 1` at the end of both sides of an
//! `if` that join), the computation is made once in the phi's block instead (LLVM's
//! SinkCommonCodeFromPredecessors, for operands that agree). A side left empty then
//! disappears in `simplify-cfg`, and the path through it no longer jumps over the other.
//!
//! The incoming values must be pure instructions (the opcode table: no side effects, no
//! memory access), of one kind and type, with the same operands, none defined in the phi's
//! block, each used by that phi alone. The operands are used in every predecessor, so they
//! dominate each one and therefore the phi's block.
//!
//! Stores sink the same way (LLVM's store merging into a successor): when every predecessor
//! of a block jumps to it and its last memory access or effect is a store to the same
//! address, the block stores a phi of the values once, at its top. The address is one
//! value, or in each predecessor a `gep` of the same operands, made there or before (the
//! block makes it again; one that nothing else uses goes), and no operand is defined in a
//! predecessor. No memory access happens between the old stores and the new one, so memory
//! sees the same writes in the same order. Then `if (c) a[i] = x; else a[i] = y;` is one
//! store of a value that `if-to-select` picks.
//!
//! Arithmetic may follow a store whose value its predecessor computes (an edit distance's
//! substitution cost after the LCS cell, whose load in the next round `predictive-commoning`
//! then takes from a register). Values computed before the branch are live together there,
//! and one side would copy its value into the phi's register: a merge's `tmp[k] = a[i]; i =
//! i + 1;` and `tmp[k] = a[j]; j = j + 1;` keep their stores.
//!
//! Needs: the CFG. Preserves: behaviour and the CFG.

use crate::analysis::Preserved;
use crate::ir::{Block, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let cfg = cx.analyses.cfg(f);
    let mut changed = false;
    let blocks: Vec<Block> = f.blocks().collect();
    for &b in &blocks {
        if let Some(stores) = common_store(f, cfg.preds(b)) {
            sink_store(f, b, cfg.preds(b), &stores);
            changed = true;
        }
    }
    for b in blocks {
        let phis: Vec<Inst> = f.phis(b).collect();
        for phi in phis {
            if let Some(computed) = common_computation(f, b, phi) {
                sink(f, b, phi, &computed);
                changed = true;
            }
        }
    }
    Preserved::cfg_if(changed)
}

/// The distinct instructions `phi` takes, when they are one pure computation made for it
/// alone, with operands from outside `b`.
fn common_computation(f: &Function, b: Block, phi: Inst) -> Option<Vec<Inst>> {
    let InstKind::Phi { args, .. } = f.kind(phi) else {
        return None;
    };
    let mut computed: Vec<Inst> = Vec::new();
    for &v in args {
        let i = v.as_inst()?;
        if !computed.contains(&i) {
            computed.push(i);
        }
    }
    if computed.len() < 2 {
        return None;
    }
    let first = computed[0];
    let kind = f.kind(first);
    let pure = is_pure(f, first);
    let outside = kind
        .operands()
        .iter()
        .all(|x| x.as_inst().and_then(|d| f.inst_block(d)) != Some(b));
    if !pure || !outside {
        return None;
    }
    let alike = computed.iter().all(|&i| {
        f.kind(i) == kind
            && f.inst(i).ty == f.inst(first).ty
            && f.inst_block(i) != Some(b)
            && f.uses(Value::Inst(i)).iter().all(|u| u.inst == phi)
    });
    alike.then_some(computed)
}

/// Makes the computation once at the top of `b` (after its phis), in place of `phi`.
fn sink(f: &mut Function, b: Block, phi: Inst, computed: &[Inst]) {
    let kind = f.kind(computed[0]).clone();
    let ty = f.inst(computed[0]).ty;
    let first_other = f.block_insts(b).find(|&i| !f.kind(i).is_phi());
    let made = match first_other {
        Some(at) => f.insert_inst_before(at, kind, ty),
        None => f.append_inst(b, kind, ty),
    };
    f.replace_all_uses(Value::Inst(phi), Value::Inst(made));
    f.remove_inst(phi);
    for &i in computed {
        f.remove_inst(i);
    }
}

/// A store sinking removes: the instruction, the value it stores and its address.
type Store = (Inst, Value, Value);

/// The store each of `preds` makes right before jumping to their common successor, when
/// they are stores to the same address as the module comment describes.
fn common_store(f: &Function, preds: &[Block]) -> Option<Vec<Store>> {
    if preds.len() < 2 {
        return None;
    }
    let mut stores: Vec<Store> = Vec::with_capacity(preds.len());
    for (n, &p) in preds.iter().enumerate() {
        let jump = f.terminator(p)?;
        if !matches!(f.kind(jump), InstKind::Br { .. }) || preds[..n].contains(&p) {
            return None;
        }
        // The block's last memory access or effect, past computations that have neither.
        let mut store = f.prev_inst(jump)?;
        let mut moves_past = false;
        while is_pure(f, store) {
            store = f.prev_inst(store)?;
            moves_past = true;
        }
        let InstKind::Store {
            args: [value, addr],
        } = *f.kind(store)
        else {
            return None;
        };
        let computed_here = value.as_inst().and_then(|v| f.inst_block(v)) == Some(p);
        if moves_past && !computed_here {
            return None;
        }
        if stores
            .first()
            .is_some_and(|&(_, v, _)| f.value_type(v) != f.value_type(value))
        {
            return None;
        }
        stores.push((store, value, addr));
    }
    let first = stores[0].2;
    let defined_in_preds = |v: Value| {
        v.as_inst()
            .and_then(|d| f.inst_block(d))
            .is_some_and(|b| preds.contains(&b))
    };
    if stores.iter().all(|&(_, _, a)| a == first) {
        return (!defined_in_preds(first)).then_some(stores);
    }
    let gep = first.as_inst()?;
    let kind = f.kind(gep);
    let alike = matches!(kind, InstKind::Gep { .. })
        && !kind.operands().iter().any(|&x| defined_in_preds(x))
        && stores
            .iter()
            .all(|&(_, _, a)| a.as_inst().is_some_and(|g| f.kind(g) == kind));
    alike.then_some(stores)
}

/// Whether `i` is a computation that neither accesses memory nor has effects, and is
/// bound to no place (a phi, a terminator, an `alloca`): it may be made in another block,
/// and a store may move past it.
fn is_pure(f: &Function, i: Inst) -> bool {
    let kind = f.kind(i);
    !kind.is_phi()
        && !kind.is_terminator()
        && !matches!(kind, InstKind::Alloca { .. })
        && !kind.has_side_effects()
        && !kind.opcode().reads_memory()
        && !kind.opcode().writes_memory()
}

/// Makes one store at the top of `b` (after its phis) in place of `stores`, one at the end
/// of each of `preds`, in order.
fn sink_store(f: &mut Function, b: Block, preds: &[Block], stores: &[Store]) {
    let values: Vec<Value> = stores.iter().map(|&(_, v, _)| v).collect();
    let ty: Type = f.value_type(values[0]);
    let value = if values.iter().all(|&v| v == values[0]) {
        values[0]
    } else {
        Value::Inst(f.prepend_inst(
            b,
            InstKind::Phi {
                args: values,
                blocks: preds.to_vec(),
            },
            ty,
        ))
    };
    let first_other = f
        .block_insts(b)
        .find(|&i| !f.kind(i).is_phi())
        .expect("a block ends in a terminator");
    let first = stores[0].2;
    let addr = if stores.iter().all(|&(_, _, a)| a == first) {
        first
    } else {
        let kind = f.kind(first.as_inst().expect("a gep")).clone();
        Value::Inst(f.insert_inst_before(first_other, kind, Type::Ptr))
    };
    f.insert_inst_before(
        first_other,
        InstKind::Store {
            args: [value, addr],
        },
        Type::Void,
    );
    for &(s, _, _) in stores {
        f.remove_inst(s);
    }
    for &(_, _, a) in stores {
        if let Some(g) = a.as_inst().filter(|_| a != addr) {
            if f.inst_block(g).is_some() && f.uses(a).is_empty() {
                f.remove_inst(g);
            }
        }
    }
}
