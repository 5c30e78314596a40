//! Liveness of registers on machine IR, one register class at a time. Registers are
//! numbered as nodes: physical register p is node p, virtual register v is node 48 + v.
//! A call defines (clobbers) every caller-saved register.
//!
//! Only registers read in some block before being written there can be live across a
//! block boundary; they are numbered densely as "globals" (in ascending node order), and
//! the live-in set of each block is a bit set over them. The sets are solved backwards
//! over the blocks' stored successor lists with a worklist seeded in post-order, so that
//! a block is usually visited after its successors; a block whose live-in set changes
//! queues its predecessors again.

use crate::mir::*;
use middle::bitset::BitSet;
use std::collections::VecDeque;

pub const PHYS_NODES: usize = 48;

pub fn node(r: Reg) -> usize {
    match r {
        Reg::Phys(p) => p.0 as usize,
        Reg::Virt(v) => PHYS_NODES + v.0 as usize,
    }
}

pub fn reg_of(node: usize) -> Reg {
    if node < PHYS_NODES {
        Reg::Phys(PReg(node as u8))
    } else {
        Reg::Virt(VReg((node - PHYS_NODES) as u32))
    }
}

/// Sets `defs` and `uses` to the registers of class `class` that an instruction defines
/// and uses (a read-and-written register is in both).
pub fn defs_uses(
    mf: &MFunction,
    inst: &MInst,
    class: RegClass,
    defs: &mut Vec<usize>,
    uses: &mut Vec<usize>,
) {
    defs.clear();
    uses.clear();
    inst.for_each_reg(|r, role| {
        if mf.class_of(r) != class {
            return;
        }
        if role != Role::Use {
            defs.push(node(r));
        }
        if role != Role::Def {
            uses.push(node(r));
        }
    });
    if inst.is_call() {
        defs.extend(
            caller_saved()
                .filter(|p| p.class() == class)
                .map(|p| p.0 as usize),
        );
    }
}

/// Registers of one class live into each block.
pub struct Liveness {
    /// The node of each global, ascending.
    globals: Vec<usize>,
    /// Per block, the globals live on entry.
    live_in: Vec<BitSet>,
}

impl Liveness {
    pub fn new(mf: &MFunction, class: RegClass) -> Liveness {
        let n = PHYS_NODES + mf.vreg_classes.len();
        let blocks = mf.blocks.len();
        // Per block, the nodes read before any write (upward-exposed) and those written,
        // each once; `seen` holds, per node, 1 + the last block that mentioned it.
        let mut exposed: Vec<Vec<usize>> = vec![Vec::new(); blocks];
        let mut written: Vec<Vec<usize>> = vec![Vec::new(); blocks];
        let mut seen_use = vec![0usize; n];
        let mut seen_def = vec![0usize; n];
        let (mut defs, mut uses) = (Vec::new(), Vec::new());
        for (b, block) in mf.blocks.iter().enumerate() {
            let stamp = b + 1;
            for inst in &block.insts {
                defs_uses(mf, inst, class, &mut defs, &mut uses);
                for &u in &uses {
                    if seen_def[u] != stamp && seen_use[u] != stamp {
                        seen_use[u] = stamp;
                        exposed[b].push(u);
                    }
                }
                for &d in &defs {
                    if seen_def[d] != stamp {
                        seen_def[d] = stamp;
                        written[b].push(d);
                    }
                }
            }
        }
        // Dense numbering of the globals, by ascending node.
        let mut is_global = vec![false; n];
        for &u in exposed.iter().flatten() {
            is_global[u] = true;
        }
        let globals: Vec<usize> = (0..n).filter(|&x| is_global[x]).collect();
        let mut global_of = vec![u32::MAX; n];
        for (g, &x) in globals.iter().enumerate() {
            global_of[x] = g as u32;
        }
        let to_globals = |nodes: &[usize]| -> Vec<usize> {
            nodes
                .iter()
                .map(|&x| global_of[x])
                .filter(|&g| g != u32::MAX)
                .map(|g| g as usize)
                .collect()
        };
        let gen: Vec<Vec<usize>> = exposed.iter().map(|e| to_globals(e)).collect();
        let kill: Vec<Vec<usize>> = written.iter().map(|w| to_globals(w)).collect();
        let mut live_in = vec![BitSet::new(globals.len()); blocks];
        let preds = mf.preds();
        let mut order = mf.postorder();
        let mut queued = vec![false; blocks];
        for &b in &order {
            queued[b.index()] = true;
        }
        // Unreachable blocks still get allocated, so they get liveness too.
        for b in mf.block_ids() {
            if !queued[b.index()] {
                queued[b.index()] = true;
                order.push(b);
            }
        }
        let mut work: VecDeque<MBlockId> = order.into();
        while let Some(b) = work.pop_front() {
            queued[b.index()] = false;
            let mut live = BitSet::new(globals.len());
            for &s in mf.succs(b) {
                live.union_with(&live_in[s.index()]);
            }
            for &k in &kill[b.index()] {
                live.remove(k);
            }
            for &g in &gen[b.index()] {
                live.insert(g);
            }
            if live != live_in[b.index()] {
                live_in[b.index()] = live;
                for &p in &preds[b.index()] {
                    if !queued[p.index()] {
                        queued[p.index()] = true;
                        work.push_back(p);
                    }
                }
            }
        }
        Liveness { globals, live_in }
    }

    /// The nodes live at the end of block `b`, ascending.
    pub fn live_out(&self, mf: &MFunction, b: MBlockId) -> Vec<usize> {
        let mut live = BitSet::new(self.globals.len());
        for &s in mf.succs(b) {
            live.union_with(&self.live_in[s.index()]);
        }
        live.iter().map(|g| self.globals[g]).collect()
    }
}
