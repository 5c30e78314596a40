//! The dependence graph of a region of straight machine code (no call, no branch), shared
//! by the list schedulers before register allocation (`pre_schedule`) and after it
//! (`schedule`). An instruction stays after
//! - the last instruction defining a register it reads (by that instruction's latency),
//!   and after the last reader and writer of a register it defines;
//! - for the flags, likewise: compares define them, predicated instructions read them;
//! - for memory, the last store before it, and a store after every load and store before
//!   it (loads may pass each other);
//! - with copy partners (before allocation), the readers of every register it is copied to
//!   or from, so that reordering never makes two registers a copy joins interfere where
//!   they did not, which would keep the allocator from coalescing them.
//!
//! Besides the edges, the graph holds each instruction's result latency (the cost model's
//! Cortex-A72 figures) and its height: the longest latency-weighted path from it to the
//! region's end, the schedulers' priority.

use crate::cost_model::{CostClass, Pipe, DISPATCH_WIDTH};
use crate::mir::*;
use crate::regalloc::liveness::node;
use std::ops::Range;

/// The class of an instruction for its latency and pipeline; `vreg_classes` gives a virtual
/// register's class (a float or vector copy waits like VFP arithmetic). NEON instructions
/// take the class of their VFP counterparts, moves between lanes and core registers that of
/// transfers.
pub fn class(inst: &MInst, vreg_classes: &[RegClass]) -> CostClass {
    match inst {
        MInst::Mul { .. } | MInst::Smmul { .. } | MInst::Mla { .. } | MInst::Mls { .. } => {
            CostClass::Multiply
        }
        MInst::SDiv { .. } => CostClass::Divide,
        MInst::Ldr { .. } | MInst::Ldm { .. } => CostClass::Load,
        MInst::Str { .. } | MInst::Stm { .. } => CostClass::Store,
        MInst::VLdr { .. } | MInst::VLdm { .. } | MInst::VecLoad { .. } => CostClass::VfpLoad,
        MInst::VStr { .. } | MInst::VStm { .. } | MInst::VecStore { .. } => CostClass::VfpStore,
        MInst::VecBin {
            op: VecOp::Mul | VecOp::FMul,
            ..
        } => CostClass::VfpMulAcc,
        MInst::VecBin { .. } => CostClass::VfpArith,
        MInst::VecDup { .. }
        | MInst::VecGetLane { .. }
        | MInst::VecSetLane { .. }
        | MInst::VecReduce { .. } => CostClass::Transfer,
        MInst::VBin { op: VOp::Div, .. } => CostClass::VfpDivide,
        MInst::VMla { .. } => CostClass::VfpMulAcc,
        MInst::VBin { .. } | MInst::VNeg { .. } | MInst::VMovIf { .. } | MInst::VMovImm { .. } => {
            CostClass::VfpArith
        }
        MInst::VCvtToFloat { .. } | MInst::VCvtToInt { .. } => CostClass::VfpConvert,
        MInst::VMovFromCore { .. }
        | MInst::VMovToCore { .. }
        | MInst::VCmp { .. }
        | MInst::VCmpZero { .. }
        | MInst::VToDoubleCore { .. } => CostClass::Transfer,
        MInst::Copy { dst, .. } if !is_core(*dst, vreg_classes) => CostClass::VfpArith,
        MInst::Mov {
            src: Operand2::ShiftedBy(..),
            ..
        }
        | MInst::Alu {
            src: Operand2::Shifted(..),
            ..
        }
        | MInst::AluS {
            src: Operand2::Shifted(..),
            ..
        }
        | MInst::Cmp {
            src: Operand2::Shifted(..),
            ..
        }
        | MInst::Cmn {
            src: Operand2::Shifted(..),
            ..
        }
        | MInst::Tst {
            src: Operand2::Shifted(..),
            ..
        } => CostClass::ShiftedAlu,
        _ => CostClass::Alu,
    }
}

fn is_core(r: Reg, vreg_classes: &[RegClass]) -> bool {
    match r {
        Reg::Phys(p) => p.class() == RegClass::Int,
        Reg::Virt(v) => vreg_classes
            .get(v.0 as usize)
            .is_none_or(|&c| c == RegClass::Int),
    }
}

/// Per register node, the registers copied to or from it anywhere in the function.
#[derive(Default)]
pub struct CopyPartners {
    partners: Vec<Vec<Reg>>,
}

impl CopyPartners {
    /// The partners of every register copied in `mf`.
    pub fn new(mf: &MFunction) -> CopyPartners {
        let mut partners: Vec<Vec<Reg>> = Vec::new();
        let mut add = |a: Reg, b: Reg| {
            let x = node(a);
            if partners.len() <= x {
                partners.resize_with(x + 1, Vec::new);
            }
            if !partners[x].contains(&b) {
                partners[x].push(b);
            }
        };
        for block in &mf.blocks {
            for inst in &block.insts {
                if let MInst::Copy { dst, src } = *inst {
                    add(dst, src);
                    add(src, dst);
                }
            }
        }
        CopyPartners { partners }
    }

    fn of(&self, r: Reg) -> &[Reg] {
        self.partners.get(node(r)).map_or(&[], Vec::as_slice)
    }
}

/// The key of the flags; register `k` of the region's sorted list has key `k + 1`.
const FLAGS: usize = 0;

/// What the edges of a region are built from: for each register (and the flags), its last
/// writer and its readers since; for memory, the last store and the loads since.
struct Tracker {
    /// The region's registers, sorted by node.
    regs: Vec<usize>,
    last_def: Vec<Option<u32>>,
    uses_since: Vec<Vec<u32>>,
    last_store: Option<u32>,
    loads_since: Vec<u32>,
    /// Edges (from, to, delay), from < to, in the order of `to`.
    edges: Vec<(u32, u32, u32)>,
}

impl Tracker {
    fn new(region: &[MInst]) -> Tracker {
        let mut regs = Vec::new();
        for inst in region {
            inst.for_each_reg(|r, _| regs.push(node(r)));
        }
        regs.sort_unstable();
        regs.dedup();
        let keys = regs.len() + 1;
        Tracker {
            regs,
            last_def: vec![None; keys],
            uses_since: vec![Vec::new(); keys],
            last_store: None,
            loads_since: Vec::new(),
            edges: Vec::new(),
        }
    }

    fn key(&self, r: Reg) -> Option<usize> {
        self.regs.binary_search(&node(r)).ok().map(|k| k + 1)
    }

    fn read(&mut self, i: u32, k: usize, latency: &[u32]) {
        if let Some(d) = self.last_def[k] {
            self.edges.push((d, i, latency[d as usize]));
        }
        self.uses_since[k].push(i);
    }

    /// Orders `i` after the readers of key `k` since its last definition.
    fn after_readers(&mut self, i: u32, k: usize) {
        for &u in &self.uses_since[k] {
            if u != i {
                self.edges.push((u, i, 0));
            }
        }
    }

    fn write(&mut self, i: u32, k: usize) {
        if let Some(d) = self.last_def[k] {
            self.edges.push((d, i, 0));
        }
        self.after_readers(i, k);
        self.uses_since[k].clear();
        self.last_def[k] = Some(i);
    }

    fn memory(&mut self, i: u32, inst: &MInst) {
        match inst.memory_effects() {
            (true, false) => {
                if let Some(s) = self.last_store {
                    self.edges.push((s, i, 0));
                }
                self.loads_since.push(i);
            }
            (false, true) => {
                if let Some(s) = self.last_store {
                    self.edges.push((s, i, 0));
                }
                for l in self.loads_since.drain(..) {
                    self.edges.push((l, i, 0));
                }
                self.last_store = Some(i);
            }
            _ => {}
        }
    }
}

/// The dependence graph of a region: successor lists with delays, predecessor counts,
/// latencies and heights.
pub struct DepGraph {
    pub latency: Vec<u32>,
    /// Per instruction, the number of instructions it must follow.
    pub preds: Vec<u32>,
    /// The longest latency-weighted path from each instruction to the region's end.
    pub height: Vec<u32>,
    first: Vec<usize>,
    succs: Vec<(u32, u32)>,
}

impl DepGraph {
    pub fn new(region: &[MInst], vreg_classes: &[RegClass], partners: &CopyPartners) -> DepGraph {
        let latency: Vec<u32> = region
            .iter()
            .map(|i| class(i, vreg_classes).latency())
            .collect();
        let mut t = Tracker::new(region);
        for (index, inst) in region.iter().enumerate() {
            let i = index as u32;
            if inst.flags_read().is_some() {
                t.read(i, FLAGS, &latency);
            }
            inst.for_each_reg(|r, role| {
                if let (true, Some(k)) = (role != Role::Def, t.key(r)) {
                    t.read(i, k, &latency);
                }
            });
            inst.for_each_reg(|r, role| {
                if role == Role::Use {
                    return;
                }
                for &p in partners.of(r) {
                    if let Some(k) = t.key(p) {
                        t.after_readers(i, k);
                    }
                }
                if let Some(k) = t.key(r) {
                    t.write(i, k);
                }
            });
            if inst.sets_flags() {
                t.write(i, FLAGS);
            }
            t.memory(i, inst);
        }
        DepGraph::from_edges(latency, &t.edges)
    }

    /// Groups the edges by source (a counting sort) and computes the heights.
    fn from_edges(latency: Vec<u32>, edges: &[(u32, u32, u32)]) -> DepGraph {
        let n = latency.len();
        let mut first = vec![0usize; n + 1];
        let mut preds = vec![0u32; n];
        for &(from, to, _) in edges {
            first[from as usize + 1] += 1;
            preds[to as usize] += 1;
        }
        for k in 0..n {
            first[k + 1] += first[k];
        }
        let mut next = first.clone();
        let mut succs = vec![(0, 0); edges.len()];
        for &(from, to, delay) in edges {
            succs[next[from as usize]] = (to, delay);
            next[from as usize] += 1;
        }
        let mut graph = DepGraph {
            latency,
            preds,
            height: vec![0; n],
            first,
            succs,
        };
        for k in (0..n).rev() {
            graph.height[k] = graph
                .succs(k)
                .iter()
                .map(|&(to, delay)| delay.max(1) + graph.height[to as usize])
                .max()
                .unwrap_or(graph.latency[k]);
        }
        graph
    }

    /// The instructions that must follow instruction `k`, each with its delay in cycles.
    pub fn succs(&self, k: usize) -> &[(u32, u32)] {
        &self.succs[self.first[k]..self.first[k + 1]]
    }
}

/// A list scheduler's progress through a region: how many predecessors of each
/// instruction are still to issue, and the first cycle each may start.
pub struct Progress {
    preds: Vec<u32>,
    pub earliest: Vec<u32>,
}

impl Progress {
    pub fn new(graph: &DepGraph) -> Progress {
        Progress {
            preds: graph.preds.clone(),
            earliest: vec![0; graph.preds.len()],
        }
    }

    /// The instructions that follow nothing.
    pub fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.preds.len()).filter(|&k| self.preds[k] == 0)
    }

    /// Records instruction `k` issued in `cycle`: each successor may start no earlier than
    /// the edge's delay after it, and `ready` gets those whose last predecessor it was,
    /// with the cycle they may start.
    pub fn issue(
        &mut self,
        graph: &DepGraph,
        k: usize,
        cycle: u32,
        mut ready: impl FnMut(usize, u32),
    ) {
        for &(to, delay) in graph.succs(k) {
            let to = to as usize;
            self.earliest[to] = self.earliest[to].max(cycle + delay);
            self.preds[to] -= 1;
            if self.preds[to] == 0 {
                ready(to, self.earliest[to]);
            }
        }
    }
}

/// The pipelines' slots in each cycle as a list scheduler fills them: at most
/// `DISPATCH_WIDTH` instructions start in a cycle, and at most as many of one kind of
/// pipeline as it has (`Pipe::width`), a divide or a square root holding its slot for
/// several cycles (`CostClass::occupancy`).
#[derive(Default)]
pub struct Slots {
    /// Per cycle: the instructions started, then per kind of pipeline its slots taken.
    used: Vec<[u32; 1 + Pipe::ALL.len()]>,
}

impl Slots {
    fn at(&mut self, cycle: u32) -> &mut [u32; 1 + Pipe::ALL.len()] {
        let c = cycle as usize;
        if self.used.len() <= c {
            self.used.resize(c + 1, [0; 1 + Pipe::ALL.len()]);
        }
        &mut self.used[c]
    }

    fn pipe_index(class: CostClass) -> usize {
        1 + class.pipe().index()
    }

    /// Whether an instruction of `class` can start in `cycle`.
    pub fn fits(&mut self, class: CostClass, cycle: u32) -> bool {
        if self.at(cycle)[0] >= DISPATCH_WIDTH {
            return false;
        }
        let p = Slots::pipe_index(class);
        let width = class.pipe().width();
        (cycle..cycle + class.occupancy()).all(|c| self.at(c)[p] < width)
    }

    /// Starts an instruction of `class` in `cycle`; returns whether the cycle's dispatch is
    /// now full.
    pub fn take(&mut self, class: CostClass, cycle: u32) -> bool {
        let p = Slots::pipe_index(class);
        for c in cycle..cycle + class.occupancy() {
            self.at(c)[p] += 1;
        }
        let slots = self.at(cycle);
        slots[0] += 1;
        slots[0] >= DISPATCH_WIDTH
    }
}

/// The regions of a block's instructions: the runs between calls and branches (a call reads
/// and clobbers registers and memory the machine IR does not list; branches stay last),
/// cut into pieces of at most `max` instructions.
pub fn regions(insts: &[MInst], max: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (k, inst) in insts.iter().enumerate() {
        if inst.is_call() || inst.is_terminator() {
            if start < k {
                out.push(start..k);
            }
            start = k + 1;
        } else if k + 1 - start == max {
            out.push(start..k + 1);
            start = k + 1;
        }
    }
    if start < insts.len() {
        out.push(start..insts.len());
    }
    out
}

/// Puts a region's instructions in `order` (a permutation of their indices).
pub fn reorder(region: &mut [MInst], order: &[usize]) {
    let ordered: Vec<MInst> = order.iter().map(|&k| region[k].clone()).collect();
    for (slot, inst) in region.iter_mut().zip(ordered) {
        *slot = inst;
    }
}
