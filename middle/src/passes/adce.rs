//! Aggressive dead code elimination (Cytron, Ferrante, Rosen, Wegman and Zadeck's "dead"
//! code elimination, as LLVM's ADCE does it): everything is dead until proved live.
//!
//! Live to begin with: returns, stores, and calls that write memory or do input/output
//! (a call to a function whose module summary shows neither is removable, and so are its
//! callers' unused calls in turn, once the summary is recomputed). Then, until nothing
//! changes: the operands of a live instruction are live; a block holding a live instruction
//! is live, and so are the branches it is control dependent on (its post-dominance
//! frontier); a live phi makes each of its incoming blocks live. What stays dead goes,
//! including cycles of phis and arithmetic that only feed each other, which `dce` cannot
//! remove. A dead conditional branch becomes a jump to its block's immediate
//! post-dominator: no live instruction lies in between, so a loop that computes nothing
//! used later disappears with its branches.
//!
//! Removing a loop or a call that might not end is what C11 allows for loops whose control
//! expression is not constant; here it rests on the judge: only a run that ends has an
//! output to compare, and in such a run every loop and call ends. A branch whose immediate
//! post-dominator is the virtual exit (one side never returns) is kept.
//!
//! Needs: the CFG, the post-dominator tree and the module's function summaries. Preserves:
//! behaviour; the CFG when no branch was dead.

use crate::analysis::{Cfg, PostDomTree, Preserved};
use crate::ir::{Block, Callee, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::phi_edits::{Edit, PhiEdits};
use crate::transform::remove_blocks::remove_unreachable;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let cfg = cx.analyses.cfg(f);
    let postdom = cx.analyses.postdom(f);
    let live = {
        let facts = cx.facts();
        let removable_call = |callee: &Callee| match callee {
            Callee::Function(g) => facts.summary(*g).is_read_only(),
            _ => false,
        };
        Marking::new(f, &cfg, &postdom).run(f, &cfg, &postdom, removable_call)
    };
    let rewired = rewire_dead_branches(f, &cfg, &postdom, &live);
    let removed = remove_dead(f, &cfg, &live);
    if rewired {
        remove_unreachable(f, &Cfg::new(f));
        Preserved::Nothing
    } else {
        Preserved::cfg_if(removed)
    }
}

/// The liveness marking: which instructions are live, which blocks hold one.
struct Marking {
    live: Vec<bool>,
    live_block: Vec<bool>,
    worklist: Vec<Inst>,
    /// For each block, the blocks whose branch decides whether it runs.
    control_deps: Vec<Vec<Block>>,
}

impl Marking {
    fn new(f: &Function, cfg: &Cfg, postdom: &PostDomTree) -> Marking {
        Marking {
            live: vec![false; f.inst_capacity()],
            live_block: vec![false; f.block_capacity()],
            worklist: Vec::new(),
            control_deps: control_dependences(f, cfg, postdom),
        }
    }

    fn run(
        mut self,
        f: &Function,
        cfg: &Cfg,
        postdom: &PostDomTree,
        removable_call: impl Fn(&Callee) -> bool,
    ) -> Vec<bool> {
        for &b in cfg.rpo() {
            for i in f.block_insts(b) {
                let root = match f.kind(i) {
                    InstKind::Call { callee, .. } => !removable_call(callee),
                    InstKind::CondBr { .. } => postdom.ipdom(b).is_none(),
                    InstKind::Br { .. } => false,
                    kind => kind.has_side_effects(),
                };
                if root {
                    self.mark(i);
                }
            }
        }
        while let Some(i) = self.worklist.pop() {
            for &v in f.kind(i).operands() {
                if let Value::Inst(d) = v {
                    self.mark(d);
                }
            }
            if let InstKind::Phi { blocks, .. } = f.kind(i) {
                for &p in blocks {
                    self.mark_block(f, cfg, p);
                }
            }
            if let Some(b) = f.inst_block(i) {
                self.mark_block(f, cfg, b);
            }
        }
        self.live
    }

    fn mark(&mut self, i: Inst) {
        if !std::mem::replace(&mut self.live[i.index()], true) {
            self.worklist.push(i);
        }
    }

    /// Marks `b` live: the branches it depends on decide whether live code runs.
    fn mark_block(&mut self, f: &Function, cfg: &Cfg, b: Block) {
        if !cfg.is_reachable(b) || std::mem::replace(&mut self.live_block[b.index()], true) {
            return;
        }
        for k in 0..self.control_deps[b.index()].len() {
            let p = self.control_deps[b.index()][k];
            if let Some(t) = f.terminator(p) {
                self.mark(t);
            }
        }
    }
}

/// For each reachable block, the branch blocks it is control dependent on: `b` depends on
/// `p` when `b` post-dominates a successor of `p` but not `p` itself. Found by walking up
/// the post-dominator tree from each successor of each branch to the branch's own
/// immediate post-dominator (Ferrante, Ottenstein and Warren).
fn control_dependences(f: &Function, cfg: &Cfg, postdom: &PostDomTree) -> Vec<Vec<Block>> {
    let mut deps = vec![Vec::new(); f.block_capacity()];
    for &p in cfg.rpo() {
        let succs = cfg.succs(p);
        if succs.len() < 2 {
            continue;
        }
        let stop = postdom.ipdom(p);
        for (k, &s) in succs.iter().enumerate() {
            if succs[..k].contains(&s) {
                continue;
            }
            let mut runner = Some(s);
            while let Some(r) = runner {
                if Some(r) == stop {
                    break;
                }
                if deps[r.index()].last() != Some(&p) {
                    deps[r.index()].push(p);
                }
                runner = postdom.ipdom(r);
            }
        }
    }
    deps
}

/// Turns each dead conditional branch into a jump to its block's immediate post-dominator;
/// returns whether there was one.
fn rewire_dead_branches(f: &mut Function, cfg: &Cfg, postdom: &PostDomTree, live: &[bool]) -> bool {
    let mut edits = PhiEdits::new(f.block_capacity());
    let mut rewired = false;
    for &b in cfg.rpo() {
        let Some(t) = f.terminator(b) else { continue };
        if live[t.index()] || !matches!(f.kind(t), InstKind::CondBr { .. }) {
            continue;
        }
        let Some(target) = postdom.ipdom(b) else {
            continue;
        };
        let succs = cfg.succs(b);
        for (k, &s) in succs.iter().enumerate() {
            if s != target && !succs[..k].contains(&s) {
                edits.queue(f, s, Edit::Remove(b));
            }
        }
        f.replace_kind(t, InstKind::Br { targets: [target] }, Type::Void);
        rewired = true;
    }
    edits.flush_all(f);
    rewired
}

/// Removes the dead instructions of reachable blocks (terminators stay); returns whether
/// there was one. Dead values may use each other in cycles, so their uses become `undef`
/// first.
fn remove_dead(f: &mut Function, cfg: &Cfg, live: &[bool]) -> bool {
    let dead: Vec<Inst> = cfg
        .rpo()
        .iter()
        .flat_map(|&b| f.block_insts(b))
        .filter(|&i| !live[i.index()] && !f.kind(i).is_terminator())
        .collect();
    for &i in &dead {
        let ty = f.inst(i).ty;
        if ty != Type::Void {
            f.replace_all_uses(Value::Inst(i), Value::Undef(ty));
        }
    }
    for &i in &dead {
        f.remove_inst(i);
    }
    !dead.is_empty()
}
