//! Global value numbering over the dominator tree, the dominator-based scheme of Briggs,
//! Cooper and Simpson ("Value Numbering", Software: Practice and Experience 27(6), 1997):
//! a pre-order walk of the dominator tree keeps a scoped table from value keys
//! (`ir::value_key`: opcode, immediates, type and the operands' value numbers, commutative
//! operands and comparisons in canonical order) to the instruction that first computed
//! each. An instruction whose key is in the table is replaced by that instruction, which
//! dominates it; otherwise it enters the table. Leaving a block's subtree forgets what the
//! block added, so siblings never see each other's values.
//!
//! An instruction's value number is that of its entity: a replaced instruction's uses go
//! to its replacement at once, so operands always name the representative of their value.
//! Constants, parameters, globals and `undef`s of one type get numbers above every
//! instruction's, equal for equal values. Keys hold numbers, never instructions, so
//! rewriting operands cannot change a key already in the table.
//!
//! What is numbered:
//! - pure instructions (the opcode table pins none of them: no side effects, no memory
//!   access): arithmetic, comparisons, conversions, geps;
//! - loads of a global scalar that nothing in the module writes: its initial value;
//! - loads, inside a block: a load reads what an earlier load of the same address and type
//!   read, or what an earlier store there wrote, when no store or call between them may
//!   write that memory (`analysis::alias`). Across blocks no memory is assumed unchanged;
//!   memory SSA is what would take this further;
//! - calls of a function that touches no memory and does no I/O, by callee and arguments'
//!   numbers: an earlier equal call that returned gave the value this one would (the
//!   function may not return for some arguments, as a recursive one is presumed to, but
//!   then the earlier call never returned either);
//! - phis: two phis of one block with the same incoming (value number, block) pairs are
//!   equal, a phi's own value counting as equal to the other's (`phi [a, b0], [%self, b1]`
//!   in both). Loop-carried congruences that need optimistic numbering are not found.
//!
//! Needs: the dominator tree and the module facts (what calls write). Preserves: behaviour
//! and the CFG.

use crate::analysis::alias::{call_may_write, locate, may_alias_in, Location};
use crate::analysis::ModuleFacts;
use crate::analysis::{Preserved, ScopedState};
use crate::fast_hash::FastHashMap;
use crate::ir::{
    load_key, value_key, Block, Callee, FuncId, Function, Immediate, Inst, InstKind, Opcode, Type,
    Value, ValueKey,
};
use crate::passes::FunctionContext;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let Some(entry) = f.entry() else {
        return Preserved::All;
    };
    let dom = cx.analyses.dom(f);
    let facts = cx.facts();
    let cx_id = cx.id;
    let mut gvn = Gvn {
        first_other: f.inst_capacity() as u32,
        others: FastHashMap::default(),
        scoped: FastHashMap::default(),
        calls: FastHashMap::default(),
        undo: Vec::new(),
        changed: false,
    };
    // What a block adds to the table serves the blocks it dominates.
    dom.walk_scoped(entry, &mut gvn, |gvn, b| {
        gvn.number_block(f, facts, cx_id, b)
    });
    Preserved::cfg_if(gvn.changed)
}

/// The value a load of a global scalar that nothing writes reads: its initial value.
fn constant_load(f: &Function, facts: &ModuleFacts, i: Inst) -> Option<Value> {
    let InstKind::Load {
        args: [Value::Global(g)],
    } = *f.kind(i)
    else {
        return None;
    };
    let bits = facts.constant_scalars[g.index()]?;
    match f.inst(i).ty {
        Type::I32 => Some(Value::Int(bits as i32)),
        Type::F32 => Some(Value::Float(bits)),
        _ => None,
    }
}

/// A phi's incoming pairs as (value number, block), sorted by block; the phi's own value
/// is `u32::MAX`.
type PhiKey = Vec<(u32, Block)>;

/// A call's callee and its arguments' value numbers.
type CallKey = (FuncId, Vec<u32>);

/// A key that entered one of the scoped tables.
enum Entered {
    Value(ValueKey),
    Call(CallKey),
}

struct Gvn {
    /// Numbers of values other than instructions start here.
    first_other: u32,
    others: FastHashMap<Value, u32>,
    /// The keys of the instructions that dominate the current block, with the instruction
    /// that computes each. Looked up, never iterated.
    scoped: FastHashMap<ValueKey, Inst>,
    /// Calls of functions without memory access or I/O that dominate the current block, by
    /// callee and arguments' numbers. Looked up, never iterated.
    calls: FastHashMap<CallKey, Inst>,
    /// The keys in `scoped` and `calls`, in the order they entered, to forget on leaving a
    /// subtree. A key in a table never enters again, so nothing is shadowed.
    undo: Vec<Entered>,
    changed: bool,
}

impl Gvn {
    /// Numbers the values `kind` uses that are not instructions.
    fn number_others(&mut self, kind: &InstKind) {
        for &v in kind.operands() {
            if v.as_inst().is_none() {
                let next = self.first_other + self.others.len() as u32;
                self.others.entry(v).or_insert(next);
            }
        }
    }

    /// The value number of `v`; a value other than an instruction must have been numbered.
    fn number(&self, v: Value) -> u32 {
        match v {
            Value::Inst(i) => i.0,
            other => self.others[&other],
        }
    }

    fn number_block(&mut self, f: &mut Function, facts: &ModuleFacts, id: FuncId, b: Block) {
        let mut phis: FastHashMap<PhiKey, Inst> = FastHashMap::default();
        // The value each load key is known to read, and where that is.
        let mut loads: FastHashMap<ValueKey, (Value, Location)> = FastHashMap::default();
        let insts: Vec<Inst> = f.block_insts(b).collect();
        for i in insts {
            self.number_others(f.kind(i));
            let leader = if let InstKind::Phi { args, blocks } = f.kind(i) {
                let mut key: PhiKey = args
                    .iter()
                    .zip(blocks)
                    .map(|(&v, &from)| {
                        let n = if v == Value::Inst(i) {
                            u32::MAX
                        } else {
                            self.number(v)
                        };
                        (n, from)
                    })
                    .collect();
                key.sort_unstable_by_key(|&(_, from)| from);
                *phis.entry(key).or_insert(i)
            } else if let Some(value) = constant_load(f, facts, i) {
                f.replace_all_uses(Value::Inst(i), value);
                f.remove_inst(i);
                self.changed = true;
                continue;
            } else if let Some(key) = load_key(f, i, |v| self.number(v)) {
                let InstKind::Load { args } = f.kind(i) else {
                    unreachable!("a load");
                };
                let at = locate(f, args[0]);
                let known = loads.entry(key).or_insert((Value::Inst(i), at)).0;
                if known != Value::Inst(i) {
                    f.replace_all_uses(Value::Inst(i), known);
                    f.remove_inst(i);
                    self.changed = true;
                }
                continue;
            } else if let Some(key) = value_key(f, i, |v| self.number(v)) {
                self.find_or_insert(key, i)
            } else {
                match f.kind(i) {
                    InstKind::Store { args } => {
                        let [value, addr] = *args;
                        let at = locate(f, addr);
                        loads.retain(|_, &mut (_, loc)| !may_alias_in(facts, id, loc, at));
                        let key = ValueKey {
                            opcode: Opcode::Load,
                            immediate: Immediate::None,
                            ty: f.value_type(value),
                            operands: [self.number(addr), 0, 0],
                        };
                        loads.insert(key, (value, at));
                        i
                    }
                    InstKind::Call {
                        callee: Callee::Function(g),
                        args,
                    } if f.inst(i).ty != Type::Void && {
                        let s = facts.summary(*g);
                        !s.reads_memory && !s.writes_memory && !s.has_io
                    } =>
                    {
                        let key = (*g, args.iter().map(|&v| self.number(v)).collect());
                        self.find_or_insert_call(key, i)
                    }
                    InstKind::Call { .. } => {
                        loads.retain(|_, &mut (_, loc)| !call_may_write(f, facts, i, loc));
                        i
                    }
                    kind if kind.opcode().writes_memory() => {
                        loads.clear();
                        i
                    }
                    _ => i,
                }
            };
            if leader != i {
                f.replace_all_uses(Value::Inst(i), Value::Inst(leader));
                f.remove_inst(i);
                self.changed = true;
            }
        }
    }

    /// The instruction in scope with this key, else `i`, which enters the table.
    fn find_or_insert(&mut self, key: ValueKey, i: Inst) -> Inst {
        if let Some(&leader) = self.scoped.get(&key) {
            return leader;
        }
        self.scoped.insert(key, i);
        self.undo.push(Entered::Value(key));
        i
    }

    /// The call in scope with this key, else `i`, which enters the table.
    fn find_or_insert_call(&mut self, key: CallKey, i: Inst) -> Inst {
        if let Some(&leader) = self.calls.get(&key) {
            return leader;
        }
        self.calls.insert(key.clone(), i);
        self.undo.push(Entered::Call(key));
        i
    }
}

impl ScopedState for Gvn {
    fn mark(&self) -> usize {
        self.undo.len()
    }

    fn forget_since(&mut self, mark: usize) {
        if mark == 0 {
            // Leaving the entry block's scope forgets everything: at once, rather than entry
            // by entry (a 100,000-statement block holds 400,000).
            self.undo.clear();
            self.scoped.clear();
            self.calls.clear();
            return;
        }
        for entered in self.undo.drain(mark..) {
            match entered {
                Entered::Value(key) => self.scoped.remove(&key),
                Entered::Call(key) => self.calls.remove(&key),
            };
        }
    }
}
