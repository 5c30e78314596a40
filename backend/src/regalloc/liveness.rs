//! Liveness of registers on machine IR, one register class at a time. Registers are
//! numbered as nodes: physical register p is node p, virtual register v is node `PHYS_NODES` + v.
//! A call defines (clobbers) every caller-saved register.
//!
//! Only registers read in some block before being written there can be live across a
//! block boundary; they are numbered densely as "globals" (in ascending node order), and
//! the live-in set of each block is the ascending list of its globals. Each global's live
//! range is explored on its own, in ascending order, backwards from the blocks reading it
//! over the predecessor lists (from the stored successor lists) until blocks writing it:
//! the cost, time and memory, is the size of the live ranges, however deeply loops nest
//! (an iterative solution needs a round per level of nesting) and however many globals
//! and blocks there are (a bit matrix of globals by blocks grows with their product).

use crate::mir::*;

pub const PHYS_NODES: usize = PHYS_REGS;

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
    /// The globals live into each block, ascending.
    live_in: Vec<Vec<u32>>,
}

impl Liveness {
    pub fn new(mf: &MFunction, class: RegClass) -> Liveness {
        let n = PHYS_NODES + mf.vreg_classes.len();
        let blocks = mf.blocks.len();
        // Per block, the nodes read before any write (upward-exposed) and those written,
        // each once; `seen_use` and `seen_def` hold, per node, 1 + the last block found
        // reading or writing it.
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
        // Per global, the blocks reading it before writing it, and those writing it.
        let mut read_in = vec![Vec::new(); globals.len()];
        let mut written_in = vec![Vec::new(); globals.len()];
        for b in 0..blocks {
            for (nodes, by_global) in [(&exposed[b], &mut read_in), (&written[b], &mut written_in)]
            {
                for &x in nodes.iter() {
                    // Registers that are not globals have no list.
                    if let Some(list) = by_global.get_mut(global_of[x] as usize) {
                        list.push(b);
                    }
                }
            }
        }
        let preds = mf.preds();
        let mut live_in: Vec<Vec<u32>> = vec![Vec::new(); blocks];
        // Per block, the last global found written there.
        let mut writes = vec![u32::MAX; blocks];
        let mut stack = Vec::new();
        for g in 0..globals.len() as u32 {
            // Marks `g` live into `b`; returns whether it was not yet. Globals go in
            // ascending order, so each list stays sorted and its last entry tells.
            let mut mark = |b: usize| {
                let new = live_in[b].last() != Some(&g);
                if new {
                    live_in[b].push(g);
                }
                new
            };
            for &b in &written_in[g as usize] {
                writes[b] = g;
            }
            for &b in &read_in[g as usize] {
                if mark(b) {
                    stack.push(MBlockId(b as u32));
                }
            }
            while let Some(b) = stack.pop() {
                for &p in &preds[b.index()] {
                    if writes[p.index()] != g && mark(p.index()) {
                        stack.push(p);
                    }
                }
            }
        }
        Liveness { globals, live_in }
    }

    /// The nodes live at the start of block `b`, ascending.
    pub fn live_in(&self, b: MBlockId) -> impl Iterator<Item = usize> + '_ {
        self.live_in[b.index()]
            .iter()
            .map(|&g| self.globals[g as usize])
    }

    /// The nodes live at the end of block `b`, ascending.
    pub fn live_out(&self, mf: &MFunction, b: MBlockId) -> Vec<usize> {
        let mut live: Vec<u32> = Vec::new();
        for s in mf.succs(b) {
            live.extend(&self.live_in[s.index()]);
        }
        if mf.succs(b).len() > 1 {
            live.sort_unstable();
            live.dedup();
        }
        live.into_iter().map(|g| self.globals[g as usize]).collect()
    }
}
