//! The order of instructions inside blocks as numbers, for passes that move instructions
//! and compare where they stand (GCM, LCM). Each block is numbered on first use with gaps
//! between neighbours; an instruction moved in front of another takes the middle of the gap
//! before it, and a block whose gap there has run out is renumbered. So comparing two
//! positions costs nothing and a move rescans no block, except rarely to renumber it.

use crate::ir::{Block, Function, Inst};

pub struct Positions {
    position: Vec<u64>,
    numbered: Vec<bool>,
}

const STRIDE: u64 = 1 << 20;

impl Positions {
    pub fn new(f: &Function) -> Positions {
        Positions {
            position: vec![0; f.inst_capacity()],
            numbered: vec![false; f.block_capacity()],
        }
    }

    fn number(&mut self, f: &Function, b: Block) {
        for (k, i) in f.block_insts(b).enumerate() {
            self.position[i.index()] = (k as u64 + 1) * STRIDE;
        }
        self.numbered[b.index()] = true;
    }

    /// Where `i` stands in its block: smaller comes first.
    pub fn of(&mut self, f: &Function, i: Inst) -> u64 {
        if let Some(b) = f.inst_block(i) {
            if !self.numbered[b.index()] {
                self.number(f, b);
            }
        }
        self.position[i.index()]
    }

    /// Moves `i` (from anywhere) right before `before`.
    pub fn move_before(&mut self, f: &mut Function, i: Inst, before: Inst) {
        self.of(f, before);
        f.move_inst_before(i, before);
        let gap = |p: &Positions, f: &Function| {
            let low = f.prev_inst(i).map_or(0, |q| p.position[q.index()]);
            (low, p.position[before.index()])
        };
        let (mut low, mut high) = gap(self, f);
        if high - low < 2 {
            if let Some(b) = f.inst_block(i) {
                self.number(f, b);
            }
            (low, high) = gap(self, f);
        }
        self.position[i.index()] = low + (high - low) / 2;
    }
}
