//! Changes to the incoming blocks of phis, queued per block and applied with one rewrite per
//! phi. Applying each change at once would cost the phi's size every time (finding the pair,
//! then rebuilding the operands): a block with thousands of predecessors that lose or change
//! one at a time would take quadratic time. simplify-cfg queues its changes here.

use crate::ir::{Block, Function, Inst, InstKind, Value};

/// A change to the incoming pairs of the phis of one block.
pub enum Edit {
    /// The pair from this block goes.
    Remove(Block),
    /// The pair from the first block comes from the second instead, in the same place.
    Rename(Block, Block),
    /// The pair from the first block is replaced by pairs with the same value from each of
    /// the given blocks, appended at the end.
    Expand(Block, Vec<Block>),
}

const ABSENT: u32 = u32::MAX;

pub struct PhiEdits {
    edits: Vec<Vec<Edit>>,
    /// Blocks with queued changes.
    edited: Vec<Block>,
    /// Scratch for `flush`: where the pair of each incoming block is.
    slot: Vec<u32>,
    /// Scratch for `flush`: a phi's pairs as the changes go (`None` once gone).
    pairs: Vec<Option<(Value, Block)>>,
}

impl PhiEdits {
    pub fn new(capacity: usize) -> Self {
        PhiEdits {
            edits: (0..capacity).map(|_| Vec::new()).collect(),
            edited: Vec::new(),
            slot: vec![ABSENT; capacity],
            pairs: Vec::new(),
        }
    }

    /// Queues a change to the phis of `b`, if it has any.
    pub fn queue(&mut self, f: &Function, b: Block, edit: Edit) {
        if !has_phis(f, b) {
            return;
        }
        if self.edits[b.index()].is_empty() {
            self.edited.push(b);
        }
        self.edits[b.index()].push(edit);
    }

    /// Applies the changes queued for `b`, in the order they came.
    pub fn flush(&mut self, f: &mut Function, b: Block) {
        let edits = std::mem::take(&mut self.edits[b.index()]);
        if edits.is_empty() {
            return;
        }
        let mut phi = f.first_inst(b).filter(|&i| f.kind(i).is_phi());
        while let Some(p) = phi {
            self.apply(f, p, &edits);
            phi = f.next_inst(p).filter(|&i| f.kind(i).is_phi());
        }
    }

    fn apply(&mut self, f: &mut Function, phi: Inst, edits: &[Edit]) {
        let InstKind::Phi { args, blocks } = f.kind(phi) else {
            return;
        };
        let count = args.len();
        self.pairs.clear();
        self.pairs
            .extend(args.iter().zip(blocks).map(|(&v, &x)| Some((v, x))));
        for (k, &x) in blocks.iter().enumerate() {
            self.slot[x.index()] = k as u32;
        }
        for edit in edits {
            let (Edit::Remove(from) | Edit::Rename(from, _) | Edit::Expand(from, _)) = edit;
            let k = self.slot[from.index()] as usize;
            let Some((v, _)) = self.pairs.get(k).copied().flatten() else {
                continue;
            };
            self.slot[from.index()] = ABSENT;
            self.pairs[k] = None;
            match edit {
                Edit::Remove(_) => {}
                Edit::Rename(_, to) => {
                    self.pairs[k] = Some((v, *to));
                    self.slot[to.index()] = k as u32;
                }
                Edit::Expand(_, into) => {
                    for &p in into {
                        self.slot[p.index()] = self.pairs.len() as u32;
                        self.pairs.push(Some((v, p)));
                    }
                }
            }
        }
        let pairs = self.pairs.iter().flatten();
        for &(_, x) in pairs.clone() {
            self.slot[x.index()] = ABSENT;
        }
        if pairs.clone().count() == count {
            // As many pairs as before: rewrite in place, touching only what changed.
            for (k, &(v, x)) in pairs.enumerate() {
                f.set_operand(phi, k, v);
                f.kind_mut_targets(phi)[k] = x;
            }
        } else {
            let ty = f.inst(phi).ty;
            let (args, blocks) = pairs.copied().unzip();
            f.replace_kind(phi, InstKind::Phi { args, blocks }, ty);
        }
    }

    /// Applies every queued change.
    pub fn flush_all(&mut self, f: &mut Function) {
        for b in std::mem::take(&mut self.edited) {
            self.flush(f, b);
        }
    }
}

/// The position of the pair from block `from` among phi `phi`'s incoming pairs.
pub fn incoming_index(f: &Function, phi: Inst, from: Block) -> usize {
    match f.kind(phi) {
        InstKind::Phi { blocks, .. } => blocks
            .iter()
            .position(|&b| b == from)
            .expect("an incoming pair from the block"),
        _ => unreachable!("a phi"),
    }
}

pub fn has_phis(f: &Function, b: Block) -> bool {
    f.first_inst(b).is_some_and(|i| f.kind(i).is_phi())
}
