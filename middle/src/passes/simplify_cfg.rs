//! Control-flow clean-up, repeated until nothing changes: a conditional branch on a constant
//! becomes a jump; blocks unreachable from the entry are deleted; a block whose only
//! predecessor jumps only to it is merged into that predecessor; a block holding nothing but
//! a jump is bypassed when the phis of its target allow it.
//!
//! Needs: nothing. Preserves: behaviour; phis stay consistent with predecessors.

use crate::analysis::{Cfg, Preserved};
use crate::ir::{Block, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;

pub fn run(f: &mut Function, _: &mut FunctionContext) -> Preserved {
    let mut changed = false;
    loop {
        let step = fold_constant_branches(f)
            | remove_unreachable(f)
            | merge_into_predecessor(f)
            | bypass_forwarding_blocks(f);
        if !step {
            return Preserved::nothing_if(changed);
        }
        changed = true;
    }
}

/// The phis at the start of `b`.
fn phis(f: &Function, b: Block) -> Vec<Inst> {
    f.block_insts(b)
        .take_while(|&i| f.kind(i).is_phi())
        .collect()
}

/// Drops the incoming pairs of `b`'s phis that come from `pred`.
fn remove_incoming(f: &mut Function, b: Block, pred: Block) {
    for phi in phis(f, b) {
        while let Some(k) = match f.kind(phi) {
            InstKind::Phi { blocks, .. } => blocks.iter().position(|&x| x == pred),
            _ => None,
        } {
            f.remove_phi_incoming(phi, k);
        }
    }
}

fn fold_constant_branches(f: &mut Function) -> bool {
    let mut changed = false;
    for b in f.blocks().collect::<Vec<_>>() {
        let Some(t) = f.terminator(b) else { continue };
        let InstKind::CondBr {
            args: [c],
            targets: [yes, no],
        } = *f.kind(t)
        else {
            continue;
        };
        let taken = match c {
            Value::Bool(v) => {
                if v {
                    yes
                } else {
                    no
                }
            }
            _ if yes == no => yes,
            _ => continue,
        };
        let dropped = if taken == yes { no } else { yes };
        if dropped != taken {
            remove_incoming(f, dropped, b);
        }
        f.replace_kind(t, InstKind::Br { targets: [taken] }, Type::Void);
        changed = true;
    }
    changed
}

fn remove_unreachable(f: &mut Function) -> bool {
    let cfg = Cfg::new(f);
    let dead: Vec<Block> = f.blocks().filter(|&b| !cfg.is_reachable(b)).collect();
    if dead.is_empty() {
        return false;
    }
    for &b in &dead {
        for &s in cfg.succs(b) {
            if cfg.is_reachable(s) {
                remove_incoming(f, s, b);
            }
        }
    }
    // Values of dead blocks may be used only by other dead code.
    for &b in &dead {
        for i in f.block_insts(b).collect::<Vec<_>>() {
            let ty = f.inst(i).ty;
            if ty != Type::Void {
                f.replace_all_uses(Value::Inst(i), Value::Undef(ty));
            }
        }
    }
    for b in dead {
        f.remove_block(b);
    }
    true
}

fn merge_into_predecessor(f: &mut Function) -> bool {
    let cfg = Cfg::new(f);
    let entry = f.entry();
    for b in f.blocks().collect::<Vec<_>>() {
        let [p] = cfg.preds(b) else { continue };
        let p = *p;
        if Some(b) == entry || p == b || cfg.succs(p) != [b] {
            continue;
        }
        for phi in phis(f, b) {
            let v = f.kind(phi).operands()[0];
            f.replace_all_uses(Value::Inst(phi), v);
            f.remove_inst(phi);
        }
        if let Some(t) = f.terminator(p) {
            f.remove_inst(t);
        }
        for i in f.block_insts(b).collect::<Vec<_>>() {
            f.move_inst_to_end(i, p);
        }
        for &s in cfg.succs(b) {
            for phi in phis(f, s) {
                for incoming in f.kind_mut_targets(phi) {
                    if *incoming == b {
                        *incoming = p;
                    }
                }
            }
        }
        f.unlink_block(b);
        return true;
    }
    false
}

fn bypass_forwarding_blocks(f: &mut Function) -> bool {
    let cfg = Cfg::new(f);
    let entry = f.entry();
    for b in f.blocks().collect::<Vec<_>>() {
        let Some(first) = f.first_inst(b) else {
            continue;
        };
        let InstKind::Br { targets: [target] } = *f.kind(first) else {
            continue;
        };
        if Some(b) == entry || target == b || cfg.preds(b).is_empty() {
            continue;
        }
        let target_phis = phis(f, target);
        // A predecessor that already reaches the target would need two phi entries.
        if !target_phis.is_empty() && cfg.preds(b).iter().any(|p| cfg.preds(target).contains(p)) {
            continue;
        }
        for phi in target_phis {
            let k = match f.kind(phi) {
                InstKind::Phi { blocks, .. } => blocks.iter().position(|&x| x == b),
                _ => None,
            };
            let Some(k) = k else { continue };
            let v = f.kind(phi).operands()[k];
            f.remove_phi_incoming(phi, k);
            for &p in cfg.preds(b) {
                f.add_phi_incoming(phi, v, p);
            }
        }
        for &p in cfg.preds(b) {
            if let Some(t) = f.terminator(p) {
                for target_slot in f.kind_mut_targets(t) {
                    if *target_slot == b {
                        *target_slot = target;
                    }
                }
            }
        }
        f.remove_block(b);
        return true;
    }
    false
}
