//! Machine functions: blocks in storage, addressed by `MBlockId`, and a separate layout
//! order in which they are emitted. Reordering the layout never renumbers a branch. Each
//! block keeps its successor list; whoever builds or changes a block's terminator keeps
//! `succs` in step (`MFunction::recompute_succs` rebuilds them from the terminators, and
//! the verifier checks that they agree). As a `Graph`, a function is its blocks in storage
//! order with the stored successors, so the IR's control-flow analyses (`Cfg`, `DomTree`,
//! `LoopInfo`) run on it.

use super::{MInst, Reg, RegClass, Role, Slot, VReg, PHYS_REGS};
use middle::analysis::{Graph, Node};
use middle::fast_hash::FastHashSet;

/// A block of a machine function: its index in the function's block storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MBlockId(pub u32);

impl MBlockId {
    /// The entry block: the first block created, and the first in every layout.
    pub const ENTRY: MBlockId = MBlockId(0);

    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl Node for MBlockId {
    fn index(self) -> usize {
        self.0 as usize
    }

    fn from_index(index: usize) -> MBlockId {
        MBlockId(index as u32)
    }
}

#[derive(Clone, Debug, Default)]
pub struct MBlock {
    /// Instructions, ending with a run of branches closed by `B`, or with `Ret`.
    pub insts: Vec<MInst>,
    /// Distinct branch targets, in the order the terminators name them.
    pub succs: Vec<MBlockId>,
    /// Loop nesting depth.
    pub loop_depth: u32,
    /// Estimated executions per call of the function (`loops::block_frequencies`),
    /// weighting spill costs.
    pub frequency: f64,
}

impl MBlock {
    /// The successors as the block's terminators name them, each once.
    pub fn terminator_succs(&self) -> Vec<MBlockId> {
        let mut succs = Vec::new();
        for t in self.insts.iter().flat_map(MInst::targets) {
            if !succs.contains(&t) {
                succs.push(t);
            }
        }
        succs
    }

    /// Where the block's branches start: the index of its first terminator, or its length
    /// when it has none.
    pub fn first_branch(&self) -> usize {
        self.insts
            .iter()
            .position(MInst::is_terminator)
            .unwrap_or(self.insts.len())
    }

    /// Inserts `inst` at the end of the block, before its branches.
    pub fn insert_before_branches(&mut self, inst: MInst) {
        let at = self.first_branch();
        self.insts.insert(at, inst);
    }
}

/// A stack object: an `alloca` or a spill slot.
#[derive(Clone, Copy, Debug)]
pub struct StackObject {
    pub size: u32,
}

#[derive(Clone, Debug)]
pub struct MFunction {
    /// The assembly symbol.
    pub symbol: String,
    /// Whether the symbol is visible to the linker (only `main`).
    pub global: bool,
    /// Block storage: `MBlockId(n)` is `blocks[n]`.
    pub blocks: Vec<MBlock>,
    /// The blocks to emit, in order, the entry first: every block once, until the last pass
    /// before emission leaves out those the entry does not reach.
    pub layout: Vec<MBlockId>,
    pub vreg_classes: Vec<RegClass>,
    pub objects: Vec<StackObject>,
    /// Bytes of stack arguments this function passes to callees, at most.
    pub outgoing_bytes: u32,
}

impl MFunction {
    /// A function without blocks, registers or stack objects.
    pub fn new(symbol: impl Into<String>, global: bool) -> MFunction {
        MFunction {
            symbol: symbol.into(),
            global,
            blocks: Vec::new(),
            layout: Vec::new(),
            vreg_classes: Vec::new(),
            objects: Vec::new(),
            outgoing_bytes: 0,
        }
    }

    /// Adds an empty block at the end of storage and of the layout, run 10 times per
    /// enclosing loop.
    pub fn add_block(&mut self, loop_depth: u32) -> MBlockId {
        let id = MBlockId(self.blocks.len() as u32);
        self.blocks.push(MBlock {
            insts: Vec::new(),
            succs: Vec::new(),
            loop_depth,
            frequency: 10f64.powi(loop_depth as i32),
        });
        self.layout.push(id);
        id
    }

    pub fn block(&self, b: MBlockId) -> &MBlock {
        &self.blocks[b.index()]
    }

    pub fn block_mut(&mut self, b: MBlockId) -> &mut MBlock {
        &mut self.blocks[b.index()]
    }

    /// Every block id, in storage order.
    pub fn block_ids(&self) -> impl Iterator<Item = MBlockId> {
        (0..self.blocks.len() as u32).map(MBlockId)
    }

    pub fn succs(&self, b: MBlockId) -> &[MBlockId] {
        &self.block(b).succs
    }

    /// For each block in storage order, whether the entry reaches it.
    pub fn reached(&self) -> Vec<bool> {
        let mut reached = vec![false; self.blocks.len()];
        if reached.is_empty() {
            return reached;
        }
        reached[MBlockId::ENTRY.index()] = true;
        let mut stack = vec![MBlockId::ENTRY];
        while let Some(b) = stack.pop() {
            for &s in self.succs(b) {
                if !reached[s.index()] {
                    reached[s.index()] = true;
                    stack.push(s);
                }
            }
        }
        reached
    }

    /// Predecessor lists, from the stored successor lists, each in storage order.
    pub fn preds(&self) -> Vec<Vec<MBlockId>> {
        let mut preds = vec![Vec::new(); self.blocks.len()];
        for b in self.block_ids() {
            for &s in self.succs(b) {
                preds[s.index()].push(b);
            }
        }
        preds
    }

    /// The predecessors of each block that the entry reaches: blocks it does not reach lead
    /// nowhere.
    pub fn reached_preds(&self) -> Vec<Vec<MBlockId>> {
        let reached = self.reached();
        let mut preds = self.preds();
        for list in &mut preds {
            list.retain(|p| reached[p.index()]);
        }
        preds
    }

    /// Blocks reachable from the entry, in post-order of a depth-first walk over the stored
    /// successor lists.
    pub fn postorder(&self) -> Vec<MBlockId> {
        let mut order = Vec::with_capacity(self.blocks.len());
        if self.blocks.is_empty() {
            return order;
        }
        let mut visited = vec![false; self.blocks.len()];
        // (block, index of the next successor to visit)
        let mut stack = vec![(MBlockId::ENTRY, 0usize)];
        visited[0] = true;
        while let Some(top) = stack.last_mut() {
            let (b, next) = *top;
            match self.succs(b).get(next) {
                Some(&s) => {
                    top.1 += 1;
                    if !visited[s.index()] {
                        visited[s.index()] = true;
                        stack.push((s, 0));
                    }
                }
                None => {
                    order.push(b);
                    stack.pop();
                }
            }
        }
        order
    }

    /// Sets every block's successor list from its terminators.
    pub fn recompute_succs(&mut self) {
        for block in &mut self.blocks {
            block.succs = block.terminator_succs();
        }
    }

    pub fn new_vreg(&mut self, class: RegClass) -> Reg {
        self.vreg_classes.push(class);
        Reg::Virt(VReg(self.vreg_classes.len() as u32 - 1))
    }

    pub fn new_object(&mut self, size: u32) -> u32 {
        self.objects.push(StackObject { size });
        self.objects.len() as u32 - 1
    }

    pub fn class_of(&self, r: Reg) -> RegClass {
        match r {
            Reg::Phys(p) => p.class(),
            Reg::Virt(v) => self.vreg_classes[v.0 as usize],
        }
    }

    pub fn has_calls(&self) -> bool {
        self.blocks
            .iter()
            .flat_map(|b| &b.insts)
            .any(MInst::is_call)
    }

    /// Per physical register (by number), whether some instruction writes it.
    pub fn written_registers(&self) -> [bool; PHYS_REGS] {
        let mut written = [false; PHYS_REGS];
        for inst in self.blocks.iter().flat_map(|b| &b.insts) {
            inst.for_each_reg(|r, role| {
                if let (Reg::Phys(p), Role::Def | Role::UseDef) = (r, role) {
                    written[p.0 as usize] = true;
                }
            });
        }
        written
    }

    /// Whether some instruction names a NEON register.
    pub fn uses_vectors(&self) -> bool {
        self.blocks.iter().flat_map(|b| &b.insts).any(|inst| {
            let mut vector = false;
            inst.for_each_reg(|r, _| {
                vector |= r.phys().is_some_and(|p| p.class() == RegClass::Vector)
            });
            vector
        })
    }

    /// The stack slots whose address the code takes: a store through a pointer may change
    /// them, so only the others are known from their direct loads and stores alone.
    pub fn address_taken_slots(&self) -> FastHashSet<Slot> {
        self.blocks
            .iter()
            .flat_map(|b| &b.insts)
            .filter_map(|i| match i {
                MInst::SlotAddr { slot, .. } => Some(*slot),
                _ => None,
            })
            .collect()
    }
}

/// Blocks in storage order, the entry first, over their stored successor lists.
impl Graph for MFunction {
    type Node = MBlockId;

    fn capacity(&self) -> usize {
        self.blocks.len()
    }

    fn entry(&self) -> Option<MBlockId> {
        (!self.blocks.is_empty()).then_some(MBlockId::ENTRY)
    }

    fn nodes(&self) -> impl Iterator<Item = MBlockId> + '_ {
        self.block_ids()
    }

    fn successors(&self, b: MBlockId) -> &[MBlockId] {
        self.succs(b)
    }
}
