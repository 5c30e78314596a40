//! loop-closed-form: a loop whose only effect is to compute values that follow polynomials in
//! the iteration number (sums, sums of multiples of a counter, counters) has those values
//! computed after it by formula, so that `loop-deletion` can remove it.
//!
//! The loop needs a preheader, a single latch, one exiting block that dominates the latch
//! and one exit block reached only from it (`loop-simplify`'s form), no store and no call
//! that writes memory or does I/O, a computable exit count (`analysis::scev`), and every value
//! it defines that is used after it must be a recurrence. Each such value is then computed at
//! the start of the exit block as `c0 + c1*C(n,1) + c2*C(n,2) + c3*C(n,3)`, `n` the exit
//! count, and takes the place of the loop's value in every use outside the loop (the exit
//! block's phis, which have one incoming value, go first).
//!
//! The arithmetic (`transform/closed_form.rs`) wraps exactly as the loop's does.
//!
//! Loops are visited innermost first, so a loop around one just replaced sees the formula.
//! Loops of more than `MAX_BLOCKS` blocks (`closed_form`) or `MAX_INSTRUCTIONS`
//! instructions stay.
//!
//! Needs: the CFG, the dominator tree, the loop forest, the module's function summaries.
//! Preserves: behaviour and the CFG.

use crate::analysis::scev::LoopEvolution;
use crate::analysis::{Cfg, DomTree, LoopInfo, ModuleFacts, Preserved};
use crate::ir::{Function, Value};
use crate::passes::FunctionContext;
use crate::transform::closed_form::{apply, results_of, Plan};

/// Loops of more instructions than this (their inner loops' included) are left alone:
/// looking at each loop whole would make deep nests cost their depth squared.
const MAX_INSTRUCTIONS: usize = 2000;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let loops = cx.analyses.loops(f);
    if loops.loops.is_empty() {
        return Preserved::All;
    }
    let cfg = cx.analyses.cfg(f);
    let dom = cx.analyses.dom(f);
    let facts = cx.facts();
    let mut changed = false;
    for k in (0..loops.loops.len()).rev() {
        if let Some(plan) = plan(f, &cfg, &dom, &loops, facts, k) {
            apply(f, &loops, k, plan);
            changed = true;
        }
    }
    Preserved::cfg_if(changed)
}

fn plan(
    f: &Function,
    cfg: &Cfg,
    dom: &DomTree,
    loops: &LoopInfo,
    facts: &ModuleFacts,
    k: usize,
) -> Option<Plan> {
    let (exiting, exit, used_after) = results_of(f, cfg, loops, facts, k, MAX_INSTRUCTIONS)?;
    if used_after.is_empty() {
        return None;
    }
    let mut evolution = LoopEvolution::new(f, loops, k)?;
    let mut results = Vec::with_capacity(used_after.len());
    for i in used_after {
        let v = Value::Inst(i);
        results.push((v, evolution.recurrence(v)?));
    }
    let count = evolution.exit_count(dom, exiting)?;
    Some(Plan {
        exit,
        count,
        results,
    })
}
