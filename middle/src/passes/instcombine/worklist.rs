//! instcombine's worklist: the instructions still to visit, each at most once at a time.

use crate::ir::{Function, Inst, Value};

/// The instructions still to visit, each at most once at a time.
pub(super) struct Worklist {
    stack: Vec<Inst>,
    queued: Vec<bool>,
}

impl Worklist {
    pub(super) fn new(f: &Function) -> Worklist {
        let mut stack: Vec<Inst> = f.all_insts().collect();
        stack.reverse();
        let mut queued = vec![false; f.inst_capacity()];
        for &i in &stack {
            queued[i.index()] = true;
        }
        Worklist { stack, queued }
    }

    pub(super) fn pop(&mut self) -> Option<Inst> {
        let i = self.stack.pop()?;
        self.queued[i.index()] = false;
        Some(i)
    }

    pub(super) fn push(&mut self, i: Inst) {
        if self.queued.len() <= i.index() {
            self.queued.resize(i.index() + 1, false);
        }
        if !std::mem::replace(&mut self.queued[i.index()], true) {
            self.stack.push(i);
        }
    }

    pub(super) fn push_users(&mut self, f: &Function, i: Inst) {
        for k in 0..f.uses(Value::Inst(i)).len() {
            self.push(f.uses(Value::Inst(i))[k].inst);
        }
    }

    pub(super) fn push_operands(&mut self, f: &Function, i: Inst) {
        for k in 0..f.kind(i).operands().len() {
            if let Value::Inst(d) = f.kind(i).operands()[k] {
                self.push(d);
            }
        }
    }

    /// Pushes the instructions a rule inserted right before `i`, down to `before`.
    pub(super) fn push_created(&mut self, f: &Function, i: Inst, before: Option<Inst>) {
        let mut at = f.prev_inst(i);
        while at != before {
            let Some(n) = at else { break };
            self.push(n);
            at = f.prev_inst(n);
        }
    }
}
