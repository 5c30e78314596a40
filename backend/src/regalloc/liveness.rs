//! Liveness of registers on machine IR, one register class at a time. Registers are
//! numbered as nodes: physical register p is node p, virtual register v is node 48 + v.
//! A call defines (clobbers) every caller-saved register.
//!
//! Only registers read in some block before being written there can be live across a
//! block boundary; they are numbered densely as "globals" (in ascending node order), and
//! the live-in set of each block is a bit set over them. Each global's live range is
//! explored on its own, backwards from the blocks reading it over the predecessor lists
//! (from the stored successor lists) until blocks writing it: the cost is the size of the
//! live ranges, however deeply loops nest (an iterative solution needs a round per level
//! of nesting).

use crate::mir::*;

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
    /// The global of each node, `u32::MAX` for the others.
    global_of: Vec<u32>,
    blocks: usize,
    /// The globals live into each block, a bit per global; word `w` (globals `64w` to
    /// `64w + 63`) of block `b` is at `w * blocks + b`, so that exploring one global's
    /// live range touches one compact row.
    live_in: Vec<u64>,
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
        let mut live_in = vec![0u64; globals.len().div_ceil(64) * blocks];
        // Per block, the last global found written there.
        let mut writes = vec![usize::MAX; blocks];
        let mut stack = Vec::new();
        for g in 0..globals.len() {
            let (row, bit) = (&mut live_in[g / 64 * blocks..][..blocks], 1u64 << (g % 64));
            // Marks `g` live into `b`; returns whether it was not yet.
            let mut mark = |b: usize| {
                let new = row[b] & bit == 0;
                row[b] |= bit;
                new
            };
            for &b in &written_in[g] {
                writes[b] = g;
            }
            for &b in &read_in[g] {
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
        Liveness {
            globals,
            global_of,
            blocks,
            live_in,
        }
    }

    /// The globals live at the end of block `b`, a bit per global in 64-bit words.
    pub fn live_out_words(&self, mf: &MFunction, b: MBlockId) -> Vec<u64> {
        self.live_in
            .chunks(self.blocks.max(1))
            .map(|row| mf.succs(b).iter().fold(0, |acc, s| acc | row[s.index()]))
            .collect()
    }

    /// The nodes live at the end of block `b`, ascending.
    pub fn live_out(&self, mf: &MFunction, b: MBlockId) -> Vec<usize> {
        let mut live = Vec::new();
        for (w, mut word) in self.live_out_words(mf, b).into_iter().enumerate() {
            while word != 0 {
                live.push(self.globals[w * 64 + word.trailing_zeros() as usize]);
                word &= word - 1;
            }
        }
        live
    }

    /// How many globals there are.
    pub fn global_count(&self) -> usize {
        self.globals.len()
    }

    /// The global that node `x` is, if it is one.
    pub fn global(&self, x: usize) -> Option<usize> {
        Some(self.global_of[x] as usize).filter(|&g| g != u32::MAX as usize)
    }

    /// The node of global `g`.
    pub fn node(&self, g: usize) -> usize {
        self.globals[g]
    }
}
