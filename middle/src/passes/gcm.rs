//! Global code motion (Click, "Global Code Motion / Global Value Numbering", PLDI 1995):
//! every instruction that is not pinned to its block (phis, terminators, allocas, memory
//! accesses and calls stay: see the opcode table) moves to the block on its legal range with
//! the shallowest loop nesting, so loop-invariant computation leaves its loops and work used
//! on one path only sinks into that path.
//!
//! Schedule early: the earliest legal block of an instruction is the deepest, in the
//! dominator tree, of its operands' earliest blocks (pinned operands: their own blocks;
//! parameters and constants: the entry). Schedule late, users first: the latest is the
//! nearest common dominator of the blocks of its uses (for a phi operand, the block the value
//! flows in from). Then walk the dominator tree from the latest block up to the earliest and
//! take the first block of the smallest loop depth, so an instruction rises only to leave a
//! loop and otherwise stays as late as it can. Moving is safe for every unpinned operation:
//! none of them traps (division by zero is defined), so executing one where the original
//! program would not have is only work.
//!
//! An instruction whose chosen block is its own block stays where it is, and the pass reports
//! a change only when some instruction changed block (a pass that moved code down and back
//! up and reported a change each time would keep a fixpoint loop spinning). A moved
//! instruction goes before its first user in the new block, or before the terminator.
//!
//! Needs: the CFG, the dominator tree, the loop forest. Preserves: behaviour and the CFG.

use crate::analysis::{Cfg, DomTree, LoopInfo, Preserved};
use crate::ir::{Block, Function, Inst, InstKind, Value};
use crate::passes::FunctionContext;
use crate::transform::pinned::is_pinned;
use crate::transform::positions::Positions;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let cfg = cx.analyses.cfg(f);
    let dom = cx.analyses.dom(f);
    let loops = cx.analyses.loops(f);
    let Some(entry) = f.entry() else {
        return Preserved::All;
    };
    // Every instruction of a reachable block, in an order where definitions come before
    // their non-phi uses: blocks in reverse post-order, instructions in block order.
    let order: Vec<Inst> = cfg.rpo().iter().flat_map(|&b| f.block_insts(b)).collect();
    let mut early = vec![entry; f.inst_capacity()];
    for &i in &order {
        early[i.index()] = if is_pinned(f, i) {
            f.inst_block(i).unwrap_or(entry)
        } else {
            earliest(f, &dom, &early, entry, i)
        };
    }
    let mut positions = Positions::new(f);
    let mut moved = false;
    for &i in order.iter().rev() {
        if is_pinned(f, i) || f.uses(Value::Inst(i)).is_empty() {
            continue;
        }
        let Some(late) = latest(f, &cfg, &dom, i) else {
            continue;
        };
        let best = shallowest(&dom, &loops, late, early[i.index()]);
        if Some(best) != f.inst_block(i) {
            move_to(f, &mut positions, i, best);
            moved = true;
        }
    }
    Preserved::cfg_if(moved)
}

/// Moves `i` into `b`, before its first user there or else before the terminator.
fn move_to(f: &mut Function, positions: &mut Positions, i: Inst, b: Block) {
    let first_user = f
        .uses(Value::Inst(i))
        .iter()
        .map(|u| u.inst)
        .filter(|&u| f.inst_block(u) == Some(b) && !f.kind(u).is_phi())
        .min_by_key(|&u| positions.of(f, u));
    if let Some(before) = first_user.or_else(|| f.terminator(b)) {
        positions.move_before(f, i, before);
    }
}

/// The deepest block (in the dominator tree) among the earliest blocks of `i`'s operands.
fn earliest(f: &Function, dom: &DomTree, early: &[Block], entry: Block, i: Inst) -> Block {
    let mut best = entry;
    for &v in f.kind(i).operands() {
        if let Value::Inst(d) = v {
            let b = early[d.index()];
            if dom.level(b) > dom.level(best) {
                best = b;
            }
        }
    }
    best
}

/// The nearest common dominator of the blocks where `i` is used (a phi uses its operand at
/// the end of the block it flows in from); `None` if every use is unreachable.
fn latest(f: &Function, cfg: &Cfg, dom: &DomTree, i: Inst) -> Option<Block> {
    let mut lca: Option<Block> = None;
    for u in f.uses(Value::Inst(i)) {
        let at = match f.kind(u.inst) {
            InstKind::Phi { blocks, .. } => Some(blocks[u.index as usize]),
            _ => f.inst_block(u.inst),
        };
        let Some(b) = at.filter(|&b| cfg.is_reachable(b)) else {
            continue;
        };
        lca = Some(match lca {
            None => b,
            Some(l) => dom.common_dominator(l, b),
        });
    }
    lca
}

/// From `late` up the dominator tree to `early`, the first block of the smallest loop depth.
fn shallowest(dom: &DomTree, loops: &LoopInfo, late: Block, early: Block) -> Block {
    let mut best = late;
    let mut b = late;
    while b != early {
        let Some(up) = dom.idom(b) else { break };
        b = up;
        if loops.depth(b) < loops.depth(best) {
            best = b;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use crate::cost_model::Unasked;
    use crate::ir::parser::parse_module;
    use crate::pass_manager::PassManager;

    /// A second run after the first finds every instruction in its block and says so.
    #[test]
    fn a_second_run_reports_no_change() {
        let text = "func @f(%a0: i32, %a1: i32) -> i32 {\nbb0:\n  %0 = mul %a0, %a1\n  br bb1\nbb1:\n  %i = phi i32 [0, bb0], [%i1, bb1]\n  %k = add %a0, 3\n  %i1 = add %i, %k\n  %c = icmp slt %i1, %a1\n  condbr %c, bb1, bb2\nbb2:\n  %r = add %0, %i1\n  ret %r\n}\n";
        let mut m = parse_module(text).unwrap();
        let pm = PassManager::parse("gcm,gcm", &Unasked).unwrap();
        let runs = pm.run(&mut m, &mut std::io::sink()).unwrap();
        assert!(runs[0].changed, "the first run moves %0 down and %k up");
        assert!(!runs[1].changed);
    }
}
