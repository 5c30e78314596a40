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
//! Needs: nothing. Preserves: behaviour and the CFG.

use crate::analysis::Preserved;
use crate::ir::{Block, Function, Inst, InstKind, Value};
use crate::passes::FunctionContext;

pub fn run(f: &mut Function, _: &mut FunctionContext) -> Preserved {
    let mut changed = false;
    let blocks: Vec<Block> = f.blocks().collect();
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
    let pure = !kind.is_phi()
        && !kind.is_terminator()
        && !matches!(kind, InstKind::Alloca { .. })
        && !kind.has_side_effects()
        && !kind.opcode().reads_memory()
        && !kind.opcode().writes_memory();
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
