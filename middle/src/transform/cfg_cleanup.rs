//! Cleaning up a function's control flow, for the `simplify-cfg` pass and for
//! `loop-unroll`'s clean-up: a conditional branch on a constant (or with both targets
//! equal) becomes a jump; blocks unreachable from the entry are deleted; a block whose only
//! predecessor jumps only to it is merged into that predecessor; a block holding nothing but
//! a jump is bypassed when the phis of its target allow it.
//!
//! The rewrites happen in rounds, each a few linear sweeps: fold the branches, delete what
//! the entry no longer reaches, then merge and bypass blocks one step at a time (a step
//! merges the first mergeable block in layout order, then bypasses the first bypassable one,
//! until neither is left). Steps keep predecessor lists up to date and take candidates from
//! min-heaps of layout positions, re-examining only the blocks around each change; changes
//! to phis are queued and applied with one rewrite per phi (`phi_edits`). A new round is
//! needed only when a merge turns a branch condition into a constant. The order of the
//! rewrites, and so the result, is that of rescanning the whole function after every step.

use crate::analysis::Cfg;
use crate::ir::{Block, Function, InstKind, Type, Value};
use crate::transform::phi_edits::{has_phis, Edit, PhiEdits};
use crate::transform::remove_blocks::remove_unreachable;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Cleans up the control flow of `f` until no round exposes a constant branch; returns
/// whether it changed anything.
pub fn clean_up_cfg(f: &mut Function) -> bool {
    let mut changed = false;
    loop {
        changed |= fold_constant_branches(f);
        let cfg = Cfg::new(f);
        changed |= remove_unreachable(f, &cfg);
        let mut steps = Steps::new(f, cfg);
        changed |= steps.run();
        if !steps.exposed_constant {
            return changed;
        }
    }
}

fn fold_constant_branches(f: &mut Function) -> bool {
    let mut changed = false;
    let mut edits = PhiEdits::new(f.block_capacity());
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
            edits.queue(f, dropped, Edit::Remove(b));
        }
        f.replace_kind(t, InstKind::Br { targets: [taken] }, Type::Void);
        changed = true;
    }
    edits.flush_all(f);
    changed
}

/// Block positions with some property, smallest first: a min-heap whose entries for
/// positions that lost the property are dropped when they reach the top.
struct Candidates {
    member: Vec<bool>,
    heap: BinaryHeap<Reverse<u32>>,
}

impl Candidates {
    fn new(n: usize) -> Self {
        Candidates {
            member: vec![false; n],
            heap: BinaryHeap::new(),
        }
    }

    fn set(&mut self, k: u32, member: bool) {
        if member && !self.member[k as usize] {
            self.heap.push(Reverse(k));
        }
        self.member[k as usize] = member;
    }

    fn first(&mut self) -> Option<u32> {
        while let Some(&Reverse(k)) = self.heap.peek() {
            if self.member[k as usize] {
                return Some(k);
            }
            self.heap.pop();
        }
        None
    }
}

/// Merging and bypassing, step by step, over one snapshot of the CFG kept up to date.
struct Steps<'f> {
    f: &'f mut Function,
    /// The CFG when the steps began.
    cfg: Cfg,
    /// The predecessor lists that changed since (`own[b]`), else the CFG's. Either may
    /// still name blocks that have left the layout; readers skip those.
    preds: Vec<Vec<Block>>,
    own: Vec<bool>,
    /// How many predecessors each block has.
    npreds: Vec<u32>,
    /// Layout position of each block when the steps began (merging and bypassing never
    /// reorder the blocks that stay).
    position: Vec<u32>,
    layout: Vec<Block>,
    /// Blocks that can be merged into their predecessor.
    mergeable: Candidates,
    /// Forwarding blocks that can be bypassed.
    bypassable: Candidates,
    edits: PhiEdits,
    /// A merge replaced a branch condition by a constant: a new round must fold it (and
    /// delete what becomes unreachable) before further steps.
    exposed_constant: bool,
}

impl<'f> Steps<'f> {
    fn new(f: &'f mut Function, cfg: Cfg) -> Self {
        let n = f.block_capacity();
        let mut position = vec![u32::MAX; n];
        let layout: Vec<Block> = f.blocks().collect();
        let mut npreds = vec![0; n];
        for (k, &b) in layout.iter().enumerate() {
            position[b.index()] = k as u32;
            npreds[b.index()] = cfg.preds(b).iter().filter(|&&p| f.is_in_layout(p)).count() as u32;
        }
        let mut steps = Steps {
            edits: PhiEdits::new(n),
            f,
            cfg,
            preds: vec![Vec::new(); n],
            own: vec![false; n],
            npreds,
            position,
            mergeable: Candidates::new(layout.len()),
            bypassable: Candidates::new(layout.len()),
            layout,
            exposed_constant: false,
        };
        for k in 0..steps.layout.len() {
            steps.examine(steps.layout[k]);
        }
        steps
    }

    /// Runs steps until none is left or a merge exposes a constant branch; returns
    /// whether anything changed.
    fn run(&mut self) -> bool {
        let mut changed = false;
        while !self.exposed_constant {
            let merged = self.mergeable.first().map(|k| self.layout[k as usize]);
            if let Some(b) = merged {
                self.merge_into_predecessor(b);
            }
            let bypassed = self.bypassable.first().map(|k| self.layout[k as usize]);
            if let Some(b) = bypassed {
                self.bypass(b);
            }
            if merged.is_none() && bypassed.is_none() {
                break;
            }
            changed = true;
        }
        self.edits.flush_all(self.f);
        changed
    }

    /// `b`'s predecessor list.
    fn pred_list(&self, b: Block) -> &[Block] {
        if self.own[b.index()] {
            &self.preds[b.index()]
        } else {
            self.cfg.preds(b)
        }
    }

    /// Drops from `b`'s predecessor list the blocks that have left the layout.
    fn clean_preds(&mut self, b: Block) {
        let f = &*self.f;
        if !self.own[b.index()] {
            if self.cfg.preds(b).iter().all(|&p| f.is_in_layout(p)) {
                return;
            }
            self.own[b.index()] = true;
            self.preds[b.index()] = self.cfg.preds(b).to_vec();
        }
        self.preds[b.index()].retain(|&p| f.is_in_layout(p));
    }

    /// Adds a predecessor to `b`'s list (not to its count).
    fn add_pred(&mut self, b: Block, p: Block) {
        if !self.own[b.index()] {
            self.own[b.index()] = true;
            self.preds[b.index()] = self.cfg.preds(b).to_vec();
        }
        self.preds[b.index()].push(p);
    }

    /// Files `b` under the steps it allows, after a change around it.
    fn examine(&mut self, b: Block) {
        let k = self.position[b.index()];
        let live = self.f.is_in_layout(b) && Some(b) != self.f.entry();
        let merge = live && self.can_merge(b);
        let bypass = live && self.can_bypass(b);
        self.mergeable.set(k, merge);
        self.bypassable.set(k, bypass);
    }

    /// Whether `b` has one predecessor, which jumps only to `b`.
    fn can_merge(&mut self, b: Block) -> bool {
        if self.npreds[b.index()] != 1 {
            return false;
        }
        self.clean_preds(b);
        let p = self.pred_list(b)[0];
        let f = &*self.f;
        p != b && !f.successors(p).is_empty() && f.successors(p).iter().all(|&x| x == b)
    }

    /// Whether `b` holds nothing but a jump that its predecessors can take directly: a
    /// predecessor that already reaches a target with phis would need two phi entries.
    fn can_bypass(&mut self, b: Block) -> bool {
        let Some(target) = forwarding_target(self.f, b) else {
            return false;
        };
        if target == b || self.npreds[b.index()] == 0 {
            return false;
        }
        if !has_phis(self.f, target) {
            return true;
        }
        self.clean_preds(b);
        let f = &*self.f;
        !self
            .pred_list(b)
            .iter()
            .any(|&p| f.successors(p).contains(&target))
    }

    fn merge_into_predecessor(&mut self, b: Block) {
        self.clean_preds(b);
        let p = self.pred_list(b)[0];
        self.edits.flush(self.f, b);
        for phi in self.f.phis(b).collect::<Vec<_>>() {
            let v = self.settled_value(self.f.kind(phi).operands()[0]);
            let f = &mut *self.f;
            if matches!(v, Value::Bool(_))
                && f.uses(Value::Inst(phi))
                    .iter()
                    .any(|u| matches!(f.kind(u.inst), InstKind::CondBr { .. }))
            {
                self.exposed_constant = true;
            }
            f.replace_all_uses(Value::Inst(phi), v);
            f.remove_inst(phi);
        }
        let f = &mut *self.f;
        if let Some(t) = f.terminator(p) {
            f.remove_inst(t);
        }
        for i in f.block_insts(b).collect::<Vec<_>>() {
            f.move_inst_to_end(i, p);
        }
        f.unlink_block(b);
        self.npreds[b.index()] = 0;
        self.examine(b);
        self.examine(p);
        for s in distinct_successors(self.f, p) {
            self.add_pred(s, p);
            self.edits.queue(self.f, s, Edit::Rename(b, p));
            self.examine(s);
        }
    }

    /// The value `v` stands for: a phi with one incoming value, in a block with one
    /// predecessor, is that value. Such chains arise where nested loops exit together, and
    /// merging their blocks one by one would move the uses along the chain once per link
    /// (quadratic in 10,000 nested loops); the walk sends each use straight to the end of
    /// the chain and points the phis it passed there too.
    fn settled_value(&mut self, v: Value) -> Value {
        let mut chain = Vec::new();
        let mut end = v;
        while let Value::Inst(q) = end {
            let Some(c) = self.f.inst_block(q) else {
                break;
            };
            if !self.f.kind(q).is_phi()
                || self.npreds[c.index()] != 1
                || chain.len() > self.layout.len()
            {
                break;
            }
            self.edits.flush(self.f, c);
            let operands = self.f.kind(q).operands();
            if operands.len() != 1 || operands[0] == end {
                break;
            }
            chain.push(q);
            end = operands[0];
        }
        for q in chain {
            self.f.set_operand(q, 0, end);
        }
        end
    }

    fn bypass(&mut self, b: Block) {
        let target = forwarding_target(self.f, b).expect("a forwarding block");
        self.clean_preds(b);
        let mut preds = self.pred_list(b).to_vec();
        // Phi entries follow the predecessors in layout order, as a fresh CFG lists them.
        preds.sort_by_key(|p| self.position[p.index()]);
        for &p in &preds {
            let f = &mut *self.f;
            let reached = f.successors(p).contains(&target);
            let Some(t) = f.terminator(p) else { continue };
            for slot in f.kind_mut_targets(t) {
                if *slot == b {
                    *slot = target;
                }
            }
            // Both ways now lead to the target: a jump (what the next fold would do).
            if let InstKind::CondBr {
                targets: [x, y], ..
            } = *f.kind(t)
            {
                if x == y {
                    f.replace_kind(t, InstKind::Br { targets: [x] }, Type::Void);
                }
            }
            if !reached {
                self.add_pred(target, p);
                self.npreds[target.index()] += 1;
            }
        }
        self.npreds[target.index()] -= 1;
        self.npreds[b.index()] = 0;
        self.f.remove_block(b);
        self.examine(b);
        self.examine(target);
        for &p in &preds {
            self.examine(p);
            for s in distinct_successors(self.f, p) {
                self.examine(s);
            }
        }
        self.edits.queue(self.f, target, Edit::Expand(b, preds));
    }
}

/// The target of `b` if `b` holds nothing but a jump.
fn forwarding_target(f: &Function, b: Block) -> Option<Block> {
    match *f.kind(f.first_inst(b)?) {
        InstKind::Br { targets: [target] } => Some(target),
        _ => None,
    }
}

/// The successors of `b`, each once (a terminator has at most two targets).
fn distinct_successors(f: &Function, b: Block) -> impl Iterator<Item = Block> {
    let targets = f.successors(b);
    let first = targets.first().copied();
    let second = targets.get(1).copied().filter(|&s| Some(s) != first);
    first.into_iter().chain(second)
}

#[cfg(test)]
mod tests {
    use crate::cost_model::Unasked;
    use crate::ir::parser::parse_module;
    use crate::ir::printer::print_module;
    use crate::pass_manager::PassManager;

    /// Runs simplify-cfg once, verifying the IR and the analyses after it.
    fn simplify(input: &str) -> String {
        let mut m = parse_module(input).unwrap();
        let mut pm = PassManager::parse("simplify-cfg", &Unasked).unwrap();
        pm.verify_each = true;
        pm.run(&mut m, &mut std::io::sink()).unwrap();
        print_module(&m)
    }

    #[test]
    fn a_merge_that_exposes_a_constant_branch_is_cleaned_up_in_the_same_run() {
        let input = "\
func @f() -> i32 {
bb0:
  br bb1
bb1:
  %0 = phi i1 [true, bb0]
  condbr %0, bb2, bb3
bb2:
  ret 1
bb3:
  ret 2
}
";
        assert_eq!(simplify(input), "func @f() -> i32 {\nbb0:\n  ret 1\n}\n");
    }

    #[test]
    fn bypassed_blocks_hand_their_predecessors_to_the_phis_in_layout_order() {
        // bb3 and bb4 only jump to bb5: bb1 and bb2 then reach bb5 directly, their phi
        // entries replacing those of the bypassed blocks at the end, in layout order.
        let input = "\
func @f(%a0: i1, %a1: i32) -> i32 {
bb0:
  condbr %a0, bb1, bb2
bb1:
  condbr %a0, bb3, bb6
bb2:
  condbr %a0, bb4, bb6
bb3:
  br bb5
bb4:
  br bb5
bb6:
  br bb5
bb5:
  %0 = phi i32 [1, bb3], [2, bb4], [%a1, bb6]
  ret %0
}
";
        assert_eq!(
            simplify(input),
            "\
func @f(%a0: i1, %a1: i32) -> i32 {
bb0:
  condbr %a0, bb1, bb2
bb1:
  condbr %a0, bb4, bb3
bb2:
  condbr %a0, bb4, bb3
bb3:
  br bb4
bb4:
  %0 = phi i32 [%a1, bb3], [1, bb1], [2, bb2]
  ret %0
}
"
        );
    }
}
