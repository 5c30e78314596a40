//! A function: instructions and blocks in arenas, their order (the layout) as linked lists,
//! and for every instruction and parameter the list of its uses.
//!
//! All changes to operands go through this type so that the use lists stay exact; that makes
//! `replace_all_uses` cost only the number of uses. Every operand also records its position
//! in the use list of the value it uses, so removing a use is constant time; these positions
//! live in one array, a run of it per instruction, so that a million instructions do not
//! cost a million small allocations.

use super::entities::{Block, FuncId, Inst, Use, Value};
use super::instructions::{Callee, InstData, InstKind};
use super::types::Type;

#[derive(Clone, Debug, Default)]
struct InstNode {
    block: Option<Block>,
    prev: Option<Inst>,
    next: Option<Inst>,
}

#[derive(Clone, Debug, Default)]
struct BlockNode {
    first: Option<Inst>,
    last: Option<Inst>,
    prev: Option<Block>,
    next: Option<Block>,
    in_layout: bool,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub params: Vec<Type>,
    pub ret: Type,
    insts: Vec<InstData>,
    inst_nodes: Vec<InstNode>,
    blocks: Vec<BlockNode>,
    first_block: Option<Block>,
    last_block: Option<Block>,
    inst_uses: Vec<Vec<Use>>,
    param_uses: Vec<Vec<Use>>,
    /// For each operand, its index in its value's use list (`UNTRACKED` for constants and
    /// other values without one): instruction `i`'s operands have the run of `slot_room[i]`
    /// entries from `slot_start[i]` on. An instruction that needs more room (a phi given
    /// another incoming value, a kind replaced by one with more operands) moves to the end.
    use_slots: Vec<u32>,
    slot_start: Vec<u32>,
    slot_room: Vec<u32>,
}

const UNTRACKED: u32 = u32::MAX;

impl Function {
    pub fn new(name: impl Into<String>, params: Vec<Type>, ret: Type) -> Function {
        let param_uses = vec![Vec::new(); params.len()];
        Function {
            name: name.into(),
            params,
            ret,
            insts: Vec::new(),
            inst_nodes: Vec::new(),
            blocks: Vec::new(),
            first_block: None,
            last_block: None,
            inst_uses: Vec::new(),
            param_uses,
            use_slots: Vec::new(),
            slot_start: Vec::new(),
            slot_room: Vec::new(),
        }
    }

    // ---- blocks --------------------------------------------------------------------------

    /// A new block, not yet in the layout.
    pub fn create_block(&mut self) -> Block {
        self.blocks.push(BlockNode::default());
        Block(self.blocks.len() as u32 - 1)
    }

    /// Creates a block and appends it to the layout.
    pub fn add_block(&mut self) -> Block {
        let b = self.create_block();
        self.append_block(b);
        b
    }

    pub fn append_block(&mut self, b: Block) {
        debug_assert!(!self.blocks[b.index()].in_layout);
        let prev = self.last_block;
        {
            let node = &mut self.blocks[b.index()];
            node.in_layout = true;
            node.prev = prev;
            node.next = None;
        }
        match prev {
            Some(p) => self.blocks[p.index()].next = Some(b),
            None => self.first_block = Some(b),
        }
        self.last_block = Some(b);
    }

    /// Puts `b` (not in the layout) right after `after` (in the layout).
    pub fn insert_block_after(&mut self, b: Block, after: Block) {
        let next = self.blocks[after.index()].next;
        {
            let node = &mut self.blocks[b.index()];
            node.in_layout = true;
            node.prev = Some(after);
            node.next = next;
        }
        self.blocks[after.index()].next = Some(b);
        match next {
            Some(n) => self.blocks[n.index()].prev = Some(b),
            None => self.last_block = Some(b),
        }
    }

    /// Takes `b` out of the layout, keeping its instructions.
    pub fn unlink_block(&mut self, b: Block) {
        let node = std::mem::take(&mut self.blocks[b.index()]);
        match node.prev {
            Some(p) => self.blocks[p.index()].next = node.next,
            None => self.first_block = node.next,
        }
        match node.next {
            Some(n) => self.blocks[n.index()].prev = node.prev,
            None => self.last_block = node.prev,
        }
        let block = &mut self.blocks[b.index()];
        block.first = node.first;
        block.last = node.last;
    }

    /// Removes `b` and all its instructions. Their results must be unused outside `b`.
    pub fn remove_block(&mut self, b: Block) {
        let insts: Vec<Inst> = self.block_insts(b).collect();
        for &i in &insts {
            self.drop_operands(i);
        }
        for &i in insts.iter().rev() {
            self.unlink_inst(i);
        }
        self.unlink_block(b);
    }

    pub fn is_in_layout(&self, b: Block) -> bool {
        self.blocks[b.index()].in_layout
    }

    pub fn entry(&self) -> Option<Block> {
        self.first_block
    }

    /// Blocks in layout order.
    pub fn blocks(&self) -> impl Iterator<Item = Block> + '_ {
        std::iter::successors(self.first_block, |b| self.blocks[b.index()].next)
    }

    pub fn next_block(&self, b: Block) -> Option<Block> {
        self.blocks[b.index()].next
    }

    pub fn prev_block(&self, b: Block) -> Option<Block> {
        self.blocks[b.index()].prev
    }

    /// The number of block entities ever created (an upper bound for block indices).
    pub fn block_capacity(&self) -> usize {
        self.blocks.len()
    }

    // ---- instructions --------------------------------------------------------------------

    pub fn inst(&self, i: Inst) -> &InstData {
        &self.insts[i.index()]
    }

    pub fn kind(&self, i: Inst) -> &InstKind {
        &self.insts[i.index()].kind
    }

    /// The number of instruction entities ever created (an upper bound for their indices).
    pub fn inst_capacity(&self) -> usize {
        self.insts.len()
    }

    fn create_inst(&mut self, kind: InstKind, ty: Type) -> Inst {
        let inst = Inst(self.insts.len() as u32);
        self.insts.push(InstData { kind, ty });
        self.inst_nodes.push(InstNode::default());
        self.inst_uses.push(Vec::new());
        self.slot_start.push(self.use_slots.len() as u32);
        self.slot_room.push(0);
        self.add_operand_uses(inst);
        inst
    }

    /// Appends a new instruction at the end of `b`.
    pub fn append_inst(&mut self, b: Block, kind: InstKind, ty: Type) -> Inst {
        let inst = self.create_inst(kind, ty);
        self.link_at_end(inst, b);
        inst
    }

    fn link_at_end(&mut self, inst: Inst, b: Block) {
        let last = self.blocks[b.index()].last;
        self.inst_nodes[inst.index()] = InstNode {
            block: Some(b),
            prev: last,
            next: None,
        };
        match last {
            Some(l) => self.inst_nodes[l.index()].next = Some(inst),
            None => self.blocks[b.index()].first = Some(inst),
        }
        self.blocks[b.index()].last = Some(inst);
    }

    /// Inserts a new instruction right before `before`.
    pub fn insert_inst_before(&mut self, before: Inst, kind: InstKind, ty: Type) -> Inst {
        let inst = self.create_inst(kind, ty);
        self.link_before(inst, before);
        inst
    }

    /// Inserts a new instruction at the start of `b`.
    pub fn prepend_inst(&mut self, b: Block, kind: InstKind, ty: Type) -> Inst {
        match self.blocks[b.index()].first {
            Some(first) => self.insert_inst_before(first, kind, ty),
            None => self.append_inst(b, kind, ty),
        }
    }

    fn link_before(&mut self, inst: Inst, before: Inst) {
        let node = &self.inst_nodes[before.index()];
        let (block, prev) = (node.block, node.prev);
        self.inst_nodes[inst.index()] = InstNode {
            block,
            prev,
            next: Some(before),
        };
        self.inst_nodes[before.index()].prev = Some(inst);
        match prev {
            Some(p) => self.inst_nodes[p.index()].next = Some(inst),
            None => {
                if let Some(b) = block {
                    self.blocks[b.index()].first = Some(inst);
                }
            }
        }
    }

    /// Moves an instruction (already in some block) to right before `before`.
    pub fn move_inst_before(&mut self, inst: Inst, before: Inst) {
        self.unlink_inst(inst);
        self.link_before(inst, before);
    }

    /// Moves an instruction to the end of `b`.
    pub fn move_inst_to_end(&mut self, inst: Inst, b: Block) {
        self.unlink_inst(inst);
        self.link_at_end(inst, b);
    }

    fn unlink_inst(&mut self, inst: Inst) {
        let node = std::mem::take(&mut self.inst_nodes[inst.index()]);
        let Some(b) = node.block else { return };
        match node.prev {
            Some(p) => self.inst_nodes[p.index()].next = node.next,
            None => self.blocks[b.index()].first = node.next,
        }
        match node.next {
            Some(n) => self.inst_nodes[n.index()].prev = node.prev,
            None => self.blocks[b.index()].last = node.prev,
        }
    }

    /// Removes an instruction whose result is unused.
    pub fn remove_inst(&mut self, inst: Inst) {
        debug_assert!(
            self.inst_uses[inst.index()].is_empty(),
            "removing {inst:?} which still has uses"
        );
        self.drop_operands(inst);
        self.unlink_inst(inst);
    }

    /// The block holding `inst`, or `None` once it has been removed.
    pub fn inst_block(&self, inst: Inst) -> Option<Block> {
        self.inst_nodes[inst.index()].block
    }

    pub fn next_inst(&self, inst: Inst) -> Option<Inst> {
        self.inst_nodes[inst.index()].next
    }

    pub fn prev_inst(&self, inst: Inst) -> Option<Inst> {
        self.inst_nodes[inst.index()].prev
    }

    pub fn first_inst(&self, b: Block) -> Option<Inst> {
        self.blocks[b.index()].first
    }

    pub fn last_inst(&self, b: Block) -> Option<Inst> {
        self.blocks[b.index()].last
    }

    /// Instructions of `b` in order.
    pub fn block_insts(&self, b: Block) -> impl Iterator<Item = Inst> + '_ {
        std::iter::successors(self.blocks[b.index()].first, |i| {
            self.inst_nodes[i.index()].next
        })
    }

    /// The terminator of `b`, if its last instruction is one.
    pub fn terminator(&self, b: Block) -> Option<Inst> {
        self.last_inst(b)
            .filter(|&i| self.insts[i.index()].kind.is_terminator())
    }

    /// The condition and the (true, false) targets of `b`'s conditional branch, when the
    /// two targets differ.
    pub fn cond_branch(&self, b: Block) -> Option<(Value, [Block; 2])> {
        match self.kind(self.terminator(b)?) {
            InstKind::CondBr {
                args: [cond],
                targets,
            } if targets[0] != targets[1] => Some((*cond, *targets)),
            _ => None,
        }
    }

    /// The successors of `b` according to its terminator.
    pub fn successors(&self, b: Block) -> &[Block] {
        match self.terminator(b) {
            Some(t) => self.insts[t.index()].kind.targets(),
            None => &[],
        }
    }

    /// Every instruction in layout order.
    pub fn all_insts(&self) -> impl Iterator<Item = Inst> + '_ {
        self.blocks().flat_map(|b| self.block_insts(b))
    }

    // ---- values and uses -----------------------------------------------------------------

    pub fn value_type(&self, v: Value) -> Type {
        match v {
            Value::Inst(i) => self.insts[i.index()].ty,
            Value::Param(p) => self.params[p as usize],
            Value::Int(_) => Type::I32,
            Value::Bool(_) => Type::I1,
            Value::Float(_) => Type::F32,
            Value::Global(_) => Type::Ptr,
            Value::Undef(t) => t,
        }
    }

    /// The uses of an instruction's result or of a parameter; constants have none tracked.
    pub fn uses(&self, v: Value) -> &[Use] {
        match v {
            Value::Inst(i) => &self.inst_uses[i.index()],
            Value::Param(p) => &self.param_uses[p as usize],
            _ => &[],
        }
    }

    fn use_list(&mut self, v: Value) -> Option<&mut Vec<Use>> {
        match v {
            Value::Inst(i) => Some(&mut self.inst_uses[i.index()]),
            Value::Param(p) => Some(&mut self.param_uses[p as usize]),
            _ => None,
        }
    }

    /// Records that operand `index` of `inst` uses `v`.
    fn add_use(&mut self, v: Value, inst: Inst, index: u32) {
        let slot = match self.use_list(v) {
            Some(list) => {
                list.push(Use { inst, index });
                list.len() as u32 - 1
            }
            None => UNTRACKED,
        };
        *self.slot(inst, index) = slot;
    }

    /// Where operand `index` of `inst` records its position in its value's use list.
    fn slot(&mut self, inst: Inst, index: u32) -> &mut u32 {
        &mut self.use_slots[(self.slot_start[inst.index()] + index) as usize]
    }

    /// Gives `inst` room for `count` operand positions, keeping the first `keep`.
    fn make_slot_room(&mut self, inst: Inst, count: usize, keep: usize) {
        let i = inst.index();
        if count <= self.slot_room[i] as usize {
            return;
        }
        let (old, new) = (self.slot_start[i] as usize, self.use_slots.len());
        let room = count.max(2 * self.slot_room[i] as usize);
        self.use_slots.extend_from_within(old..old + keep);
        self.use_slots.resize(new + room, UNTRACKED);
        self.slot_start[i] = new as u32;
        self.slot_room[i] = room as u32;
    }

    /// Forgets that operand `index` of `inst` uses `v`.
    fn remove_use(&mut self, v: Value, inst: Inst, index: u32) {
        let slot = *self.slot(inst, index);
        if slot == UNTRACKED {
            return;
        }
        let Some(list) = self.use_list(v) else { return };
        list.swap_remove(slot as usize);
        if let Some(&moved) = list.get(slot as usize) {
            *self.slot(moved.inst, moved.index) = slot;
        }
        *self.slot(inst, index) = UNTRACKED;
    }

    fn add_operand_uses(&mut self, inst: Inst) {
        let count = self.insts[inst.index()].kind.operands().len();
        self.make_slot_room(inst, count, 0);
        let start = self.slot_start[inst.index()] as usize;
        self.use_slots[start..start + count].fill(UNTRACKED);
        for index in 0..count {
            let v = self.insts[inst.index()].kind.operands()[index];
            self.add_use(v, inst, index as u32);
        }
    }

    fn drop_operands(&mut self, inst: Inst) {
        for index in 0..self.insts[inst.index()].kind.operands().len() {
            let v = self.insts[inst.index()].kind.operands()[index];
            self.remove_use(v, inst, index as u32);
        }
    }

    /// Sets operand `index` of `inst` to `v`.
    pub fn set_operand(&mut self, inst: Inst, index: usize, v: Value) {
        let old = self.insts[inst.index()].kind.operands()[index];
        if old == v {
            return;
        }
        self.remove_use(old, inst, index as u32);
        self.insts[inst.index()].kind.operands_mut()[index] = v;
        self.add_use(v, inst, index as u32);
    }

    /// Replaces every use of `from` by `to`.
    pub fn replace_all_uses(&mut self, from: Value, to: Value) {
        if from == to {
            return;
        }
        let uses = match self.use_list(from) {
            Some(list) => std::mem::take(list),
            None => return,
        };
        for u in uses {
            self.insts[u.inst.index()].kind.operands_mut()[u.index as usize] = to;
            self.add_use(to, u.inst, u.index);
        }
    }

    /// Replaces what `inst` does, keeping its place and its uses.
    pub fn replace_kind(&mut self, inst: Inst, kind: InstKind, ty: Type) {
        self.drop_operands(inst);
        self.insts[inst.index()] = InstData { kind, ty };
        self.add_operand_uses(inst);
    }

    /// Removes parameter `p`, which must be unused; the parameters after it move down one
    /// place, their uses renamed.
    pub fn remove_param(&mut self, p: u32) {
        assert!(
            self.param_uses[p as usize].is_empty(),
            "removing parameter {p}, which still has uses"
        );
        for q in p + 1..self.params.len() as u32 {
            for u in &self.param_uses[q as usize] {
                self.insts[u.inst.index()].kind.operands_mut()[u.index as usize] =
                    Value::Param(q - 1);
            }
        }
        self.params.remove(p as usize);
        self.param_uses.remove(p as usize);
    }

    /// Changes what a call calls, keeping its arguments.
    pub fn set_callee(&mut self, call: Inst, to: Callee) {
        match &mut self.insts[call.index()].kind {
            InstKind::Call { callee, .. } => *callee = to,
            _ => panic!("{call:?} is not a call"),
        }
    }

    /// Changes block targets (of a terminator or a phi's incoming blocks) without touching
    /// operands.
    pub fn kind_mut_targets(&mut self, inst: Inst) -> &mut [Block] {
        match &mut self.insts[inst.index()].kind {
            InstKind::Phi { blocks, .. } => blocks,
            other => other.targets_mut(),
        }
    }

    /// Makes every target `from` of `inst` (a terminator's, or a phi's incoming block) `to`.
    pub fn replace_target(&mut self, inst: Inst, from: Block, to: Block) {
        for t in self.kind_mut_targets(inst) {
            if *t == from {
                *t = to;
            }
        }
    }

    /// The phis at the start of `b`.
    pub fn phis(&self, b: Block) -> impl Iterator<Item = Inst> + '_ {
        self.block_insts(b).take_while(|&i| self.kind(i).is_phi())
    }

    /// The value phi `phi` takes from block `from`, if `from` is one of its incoming blocks.
    pub fn phi_incoming(&self, phi: Inst, from: Block) -> Option<Value> {
        match self.kind(phi) {
            InstKind::Phi { args, blocks } => {
                blocks.iter().position(|&b| b == from).map(|k| args[k])
            }
            _ => None,
        }
    }

    /// The calls of functions of the module, with their callees, in layout order.
    pub fn calls(&self) -> impl Iterator<Item = (Inst, FuncId)> + '_ {
        self.all_insts().filter_map(|i| match self.kind(i) {
            InstKind::Call {
                callee: Callee::Function(g),
                ..
            } => Some((i, *g)),
            _ => None,
        })
    }

    /// Moves the instructions after `inst` to a new block, not yet in the layout, and renames
    /// `inst`'s block to the new one in the phis of its former successors. Returns the new
    /// block.
    pub fn split_after(&mut self, inst: Inst) -> Block {
        let block = self
            .inst_block(inst)
            .expect("splitting after an instruction in a block");
        let cont = self.create_block();
        while let Some(i) = self.next_inst(inst) {
            self.move_inst_to_end(i, cont);
        }
        self.rename_in_successors(block, cont);
        cont
    }

    /// Moves everything of the entry block but its `alloca`s to a new block after it, which
    /// the entry jumps to; returns the new block.
    pub fn split_entry(&mut self) -> Block {
        let entry = self
            .entry()
            .expect("a function with a body has an entry block");
        let rest = self.create_block();
        self.insert_block_after(rest, entry);
        let moved: Vec<Inst> = self
            .block_insts(entry)
            .filter(|&i| !matches!(self.kind(i), InstKind::Alloca { .. }))
            .collect();
        for i in moved {
            self.move_inst_to_end(i, rest);
        }
        self.append_inst(entry, InstKind::Br { targets: [rest] }, Type::Void);
        self.rename_in_successors(entry, rest);
        rest
    }

    /// After `to` took over the terminator of `from`: the phis of its successors name `to`
    /// where they named `from`.
    pub fn rename_in_successors(&mut self, from: Block, to: Block) {
        let mut successors = self.successors(to).to_vec();
        successors.sort_unstable();
        successors.dedup();
        for s in successors {
            let phis: Vec<Inst> = self.phis(s).collect();
            for phi in phis {
                for incoming in self.kind_mut_targets(phi) {
                    if *incoming == from {
                        *incoming = to;
                    }
                }
            }
        }
    }

    /// Appends an incoming (value, block) pair to a phi.
    pub fn add_phi_incoming(&mut self, phi: Inst, v: Value, from: Block) {
        let index = match &mut self.insts[phi.index()].kind {
            InstKind::Phi { args, blocks } => {
                args.push(v);
                blocks.push(from);
                args.len() - 1
            }
            _ => panic!("{phi:?} is not a phi"),
        };
        self.make_slot_room(phi, index + 1, index);
        self.add_use(v, phi, index as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parser::parse_module;
    use crate::ir::verifier::verify_module;

    /// The stored use lists are private, so only here can they be spoiled on purpose.
    #[test]
    fn the_verifier_catches_wrong_use_lists() {
        let text = "\
func @f(%a0: i32) -> i32 {
bb0:
  %0 = add %a0, 1
  %1 = mul %0, %0
  ret %1
}
";
        let add = |f: &Function| f.all_insts().next().unwrap().index();
        let spoilers: [fn(&mut Function, usize); 4] = [
            // A use twice.
            |f, add| {
                let u = f.inst_uses[add][0];
                f.inst_uses[add].push(u);
            },
            // A use missing.
            |f, add| {
                f.inst_uses[add].pop();
            },
            // One operand listed twice, the other not at all.
            |f, add| {
                let u = f.inst_uses[add][1];
                f.inst_uses[add][0] = u;
            },
            // The parameter's use listed under the instruction.
            |f, add| {
                let u = f.param_uses[0].pop().unwrap();
                let moved = f.inst_uses[add].pop().unwrap();
                f.inst_uses[add].push(u);
                f.param_uses[0].push(moved);
            },
        ];
        assert!(verify_module(&parse_module(text).unwrap()).is_ok());
        for spoil in spoilers {
            let mut m = parse_module(text).unwrap();
            let f = &mut m.functions[0];
            spoil(f, add(f));
            let e = verify_module(&m).unwrap_err();
            assert!(e.contains("stored use lists differ"), "{e}");
        }
    }
}
