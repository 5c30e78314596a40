//! Loops of machine blocks, for spill costs: nesting depths and estimated execution
//! frequencies. The loops are the IR's loop forest (`middle::analysis::LoopInfo`) found on
//! the machine function's graph (`Graph for MFunction`): natural loops, one per header,
//! nested; a block's depth is the number of loops holding it. `LoopNest` names each loop
//! by its header block.

use super::{MBlockId, MFunction, MInst, Reg, Role};
use middle::analysis::{Cfg, DomTree, LoopInfo};
use middle::fast_hash::FastHashMap;

/// The loop nesting depth of each block (0 outside loops and for unreachable blocks).
pub fn loop_depths(mf: &MFunction) -> Vec<u32> {
    LoopNest::new(mf).depths()
}

/// Which loops hold each block.
pub struct LoopNest {
    forest: LoopInfo<MBlockId>,
    /// How many blocks the function has.
    blocks: usize,
}

impl LoopNest {
    pub fn new(mf: &MFunction) -> LoopNest {
        let cfg = Cfg::new(mf);
        LoopNest {
            forest: LoopInfo::new(&cfg, &DomTree::new(&cfg)),
            blocks: mf.blocks.len(),
        }
    }

    /// The loop nesting depth of each block (0 outside loops and for unreachable blocks).
    pub fn depths(&self) -> Vec<u32> {
        (0..self.blocks as u32)
            .map(|b| self.forest.depth(MBlockId(b)))
            .collect()
    }

    /// The loop whose header is `b`, by index in the forest.
    fn headed_by(&self, b: MBlockId) -> Option<usize> {
        self.forest
            .innermost(b)
            .filter(|&k| self.forest.loops[k].header == b)
    }

    pub fn is_header(&self, b: MBlockId) -> bool {
        self.headed_by(b).is_some()
    }

    /// The header of every loop, in storage order.
    pub fn headers(&self) -> impl Iterator<Item = MBlockId> + '_ {
        (0..self.blocks as u32)
            .map(MBlockId)
            .filter(|&b| self.is_header(b))
    }

    /// The header of the loop enclosing the loop whose header is `header`, if any.
    pub fn parent(&self, header: MBlockId) -> Option<MBlockId> {
        let parent = self.forest.loops[self.headed_by(header)?].parent?;
        Some(self.forest.loops[parent].header)
    }

    /// The headers of the loops holding `b`, innermost first.
    pub fn loops_of(&self, b: MBlockId) -> impl Iterator<Item = MBlockId> + '_ {
        let loops = &self.forest.loops;
        std::iter::successors(self.forest.innermost(b), |&k| loops[k].parent)
            .map(|k| loops[k].header)
    }

    /// Whether the loop whose header is `header` holds block `b`.
    pub fn contains(&self, header: MBlockId, b: MBlockId) -> bool {
        self.headed_by(header)
            .is_some_and(|k| self.forest.contains(k, b))
    }

    /// The outermost loop that holds `from` but not `to`, if the edge leaves a loop.
    fn left(&self, from: MBlockId, to: MBlockId) -> Option<MBlockId> {
        self.loops_of(from)
            .take_while(|&h| !self.contains(h, to))
            .last()
    }
}

/// Rounds a loop is taken to run each time it is entered.
const ROUNDS: f64 = 10.0;

/// Estimated executions of each block per call of the function whose loops are `nest`, for
/// spill costs (0 for unreachable blocks). A block outside loops runs once; a block in a
/// loop runs as often as its innermost loop's header. A loop outside loops runs `ROUNDS`
/// times; a loop inside another runs `ROUNDS` times per round of the outer loop that enters
/// it, which depends on the tests on the way from the outer header: a test of data
/// (`tests_data`) passes half of what reaches it to each arm, any other test passes all of
/// it to both (the guard of a rotated loop, the choice between an unrolled loop and its
/// remainder: the way into the loop is the usual one), and a way through an inner loop
/// passes on what entered it. So where a static weight of 10 per loop depth makes every
/// inner loop ten times its outer one, an inner loop behind three tests of board cells in a
/// recursive search weighs 1.25 times its outer loop: it runs only for the moves that pass
/// them.
pub fn block_frequencies(mf: &MFunction, nest: &LoopNest) -> Vec<f64> {
    let n = mf.blocks.len();
    let data = tests_data(mf);
    // The share of a round of the innermost enclosing loop (or of the call) that reaches
    // each block, at most 1.
    let mut reach = vec![0.0f64; n];
    // What reached each header from outside its loop.
    let mut entered = vec![0.0f64; n];
    let mut freq = vec![0.0f64; n];
    if n > 0 {
        reach[0] = 1.0;
    }
    for b in mf.postorder().into_iter().rev() {
        let share = reach[b.index()].min(1.0);
        freq[b.index()] = match nest.loops_of(b).next() {
            Some(h) if h == b => {
                entered[b.index()] = share;
                match nest.parent(b) {
                    Some(outer) => freq[outer.index()] * ROUNDS * share,
                    None => ROUNDS,
                }
            }
            Some(h) => freq[h.index()],
            None => 1.0,
        };
        // A header starts a round of its own loop.
        let passed = if nest.is_header(b) { 1.0 } else { share };
        let inside = mf
            .succs(b)
            .iter()
            .filter(|&&s| nest.left(b, s).is_none())
            .count();
        for &s in mf.succs(b) {
            if nest.is_header(s) && nest.contains(s, b) {
                continue;
            }
            reach[s.index()] += match nest.left(b, s) {
                Some(h) => entered[h.index()],
                None if data[b.index()] => passed / inside as f64,
                None => passed,
            };
        }
    }
    freq
}

/// Per block, whether it ends in a test of a value read from memory, directly or through
/// one more operation (a board cell, a flag in an array): such a test may go either way,
/// where tests of counters and bounds mostly go one way.
fn tests_data(mf: &MFunction) -> Vec<bool> {
    let mut defs: FastHashMap<Reg, &MInst> = FastHashMap::default();
    for inst in mf.blocks.iter().flat_map(|b| &b.insts) {
        for (r, role) in inst.regs() {
            if role != Role::Use && matches!(r, Reg::Virt(_)) {
                defs.entry(r).or_insert(inst);
            }
        }
    }
    fn loaded(defs: &FastHashMap<Reg, &MInst>, r: Reg, depth: u32) -> bool {
        match defs.get(&r) {
            Some(MInst::Ldr { .. } | MInst::VLdr { .. }) => true,
            Some(inst) if depth > 0 => inst
                .regs()
                .into_iter()
                .any(|(u, role)| role == Role::Use && loaded(defs, u, depth - 1)),
            _ => false,
        }
    }
    mf.blocks
        .iter()
        .map(|block| {
            let last_test = block.insts.iter().rev().find(|i| i.sets_flags());
            last_test.is_some_and(|test| {
                test.regs()
                    .into_iter()
                    .any(|(r, role)| role == Role::Use && loaded(&defs, r, 1))
            })
        })
        .collect()
}
