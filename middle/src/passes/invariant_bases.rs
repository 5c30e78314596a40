//! invariant-bases: an address `gep b, x + i` in a loop, where the base `b` and the term
//! `x` are fixed for the loop and `i` is a phi of the loop's header (its counter), becomes
//! `gep (gep b, x), i`, the inner `gep` computed once in the preheader. A flattened two-dimensional access `a[i * n + j]` in a
//! loop over `j` then adds nothing per round: the back end folds `gep g, j` into the load's
//! `[g, j, lsl #2]`, where it computed `i * n + j` first.
//!
//! Only sums used by nothing but such addresses are split (the sum then goes), so no
//! value that was computed anyway gets a second register; a term that is a constant (the
//! access's immediate offset) or a product of the counter (a column walk, `a[i * n + j]`
//! in a loop over `i`, whose sum the loop's several accesses share) stays.
//!
//! Needs: the loop forest. Preserves: behaviour and the CFG.

use crate::analysis::{LoopInfo, Preserved};
use crate::ir::{BinaryOp, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let loops = cx.analyses.loops(f);
    let mut changed = false;
    for k in 0..loops.loops.len() {
        let Some(preheader) = loops.loops[k].preheader else {
            continue;
        };
        let blocks = loops.loops[k].blocks.clone();
        for b in blocks {
            let geps: Vec<Inst> = f.block_insts(b).collect();
            for gep in geps {
                let Some((sum, x, y)) = split_index(f, &loops, k, gep) else {
                    continue;
                };
                let InstKind::Gep {
                    args: [base, _],
                    stride,
                } = *f.kind(gep)
                else {
                    unreachable!("split_index takes a gep");
                };
                let end = f.terminator(preheader).expect("a preheader ends in a jump");
                let kind = InstKind::Gep {
                    args: [base, x],
                    stride,
                };
                let inner = f.insert_inst_before(end, kind, Type::Ptr);
                f.set_operand(gep, 0, Value::Inst(inner));
                f.set_operand(gep, 1, y);
                if f.uses(Value::Inst(sum)).is_empty() {
                    f.remove_inst(sum);
                }
                changed = true;
            }
        }
    }
    Preserved::cfg_if(changed)
}

/// For a `gep b, x + i` in loop `k` with `b` and `x` fixed for the loop, `i` a phi of its
/// header, and the sum used by addresses only: the sum, `x` and `i`.
fn split_index(
    f: &Function,
    loops: &LoopInfo,
    k: usize,
    gep: Inst,
) -> Option<(Inst, Value, Value)> {
    let InstKind::Gep {
        args: [base, Value::Inst(sum)],
        ..
    } = *f.kind(gep)
    else {
        return None;
    };
    let InstKind::Binary {
        op: BinaryOp::Add,
        args: [a, b],
    } = *f.kind(sum)
    else {
        return None;
    };
    let fixed = |v: Value| match v {
        Value::Inst(i) => f.inst_block(i).is_some_and(|d| !loops.contains(k, d)),
        _ => true,
    };
    let only_addresses = f
        .uses(Value::Inst(sum))
        .iter()
        .all(|u| u.index == 1 && matches!(f.kind(u.inst), InstKind::Gep { .. }));
    if !fixed(base) || !only_addresses {
        return None;
    }
    // A constant term stays: the back end takes it as the access's immediate offset.
    let term = |v: Value| matches!(v, Value::Inst(_) | Value::Param(_)) && fixed(v);
    let header = loops.loops[k].header;
    let counter = |v: Value| {
        v.as_inst()
            .is_some_and(|i| f.kind(i).is_phi() && f.inst_block(i) == Some(header))
    };
    match (term(a), counter(b), term(b), counter(a)) {
        (true, true, _, _) => Some((sum, a, b)),
        (_, _, true, true) => Some((sum, b, a)),
        _ => None,
    }
}
