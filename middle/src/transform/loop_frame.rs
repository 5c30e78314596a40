//! Where a block of a counted loop's rounds sits (`Frame`): the copies of its body when it
//! unrolls by a factor, or its rounds four at a time in vectors. The way into them from the
//! preheader, the test after the block, and the entry to the original loop, which finishes
//! the last rounds. For loops of one block and for those whose body branches.

use super::counter_test::CounterTest;
use super::phi_edits::incoming_index;
use super::value_map::{mapped, ValueMap};
use crate::ir::{Block, Function, Inst, InstKind, Type, Value};

/// Where a block of copies of a loop's body sits: P, which enters PU (its way into the
/// copies) or PH; C after the last copy, which makes the loop's own test, to PH or E; PH,
/// which gives H (the original loop, finishing the last rounds) its entry values; and E,
/// which `exiting` (H, or the latch) leaves to.
pub struct Frame {
    pub p: Block,
    pub h: Block,
    pub exiting: Block,
    pub e: Block,
    pub pu: Block,
    pub c: Block,
    pub ph: Block,
    pub lim: Value,
    pub test: CounterTest,
    /// The trip count is known (at least the factor): the copies are entered for sure. A
    /// constant start and bound alone do not make it so (the count is unknown where a
    /// counter would wrap).
    pub always: bool,
}

impl Frame {
    /// The frame around the loop of one block `h` (preheader `p`, exit `e`, exit test
    /// `test`) for blocks of `factor` rounds: PU, the block of rounds (returned beside the
    /// frame), C and PH laid out after P, and the limit computed before P's branch.
    pub fn around_one_block(
        f: &mut Function,
        [p, h, e]: [Block; 3],
        test: CounterTest,
        factor: u32,
        always: bool,
    ) -> (Frame, Block) {
        let term_p = f.terminator(p).expect("a preheader ends in br");
        let lim = test.limit(f, factor, term_p);
        let [pu, u, c, ph] = [(); 4].map(|_| f.create_block());
        f.insert_block_after(pu, p);
        f.insert_block_after(u, pu);
        f.insert_block_after(c, u);
        f.insert_block_after(ph, c);
        let frame = Frame {
            p,
            h,
            exiting: h,
            e,
            pu,
            c,
            ph,
            lim,
            test,
            always,
        };
        (frame, u)
    }

    /// P's branch: into PU, for sure or while `init` is before the limit.
    pub fn enter(&self, f: &mut Function, init: Value) {
        let term_p = f.terminator(self.p).expect("a preheader ends in br");
        let branch = if self.always {
            InstKind::Br { targets: [self.pu] }
        } else {
            let enter = InstKind::icmp(self.test.before(), init, self.lim);
            let enter = Value::Inst(f.insert_inst_before(term_p, enter, Type::I1));
            InstKind::CondBr {
                args: [enter],
                targets: [self.pu, self.ph],
            }
        };
        f.replace_kind(term_p, branch, Type::Void);
    }

    /// C's test of the last copy's stepped `counter`; PH's phis for H's `phis`, of what the
    /// last copy takes back to them (`last`); E's phis, and phis of E for the loop's values
    /// used after it otherwise (`after`), taking from C what `at` (the last copy's) maps
    /// them to.
    pub fn leave(
        &self,
        f: &mut Function,
        counter: Value,
        phis: &[Inst],
        last: &[Value],
        after: Vec<(Inst, Inst, usize)>,
        at: &ValueMap,
    ) {
        let (e, c, ph) = (self.e, self.c, self.ph);
        let go_on = self.test.append(f, c, counter);
        let branch = InstKind::CondBr {
            args: [Value::Inst(go_on)],
            targets: [ph, e],
        };
        f.append_inst(c, branch, Type::Void);
        self.enter_remainder(f, phis, last);
        let e_phis: Vec<Inst> = f.phis(e).collect();
        for phi in e_phis {
            if let Some(x) = f.phi_incoming(phi, self.exiting) {
                f.add_phi_incoming(phi, mapped(x, at), c);
            }
        }
        let mut merged = ValueMap::default();
        for (v, user, index) in after {
            let phi = *merged.entry(v).or_insert_with(|| {
                let kind = InstKind::Phi {
                    args: vec![Value::Inst(v), mapped(Value::Inst(v), at)],
                    blocks: vec![self.exiting, c],
                };
                let ty = f.inst(v).ty;
                Value::Inst(f.prepend_inst(e, kind, ty))
            });
            f.set_operand(user, index, phi);
        }
    }

    /// PH's phis for H's `phis`: the first values from P (unless the copies are entered
    /// for sure), what the last copy takes back to them (`last`) from C; PH jumps to H.
    pub fn enter_remainder(&self, f: &mut Function, phis: &[Inst], last: &[Value]) {
        let (p, h, c, ph) = (self.p, self.h, self.c, self.ph);
        for (&phi, &v) in phis.iter().zip(last) {
            let first = f.phi_incoming(phi, p).expect("from the preheader");
            let ty = f.inst(phi).ty;
            let (args, blocks) = if self.always {
                (vec![v], vec![c])
            } else {
                (vec![first, v], vec![p, c])
            };
            let kind = InstKind::Phi { args, blocks };
            let entry = f.append_inst(ph, kind, ty);
            let index = incoming_index(f, phi, p);
            f.set_operand(phi, index, Value::Inst(entry));
            f.kind_mut_targets(phi)[index] = ph;
        }
        f.append_inst(ph, InstKind::Br { targets: [h] }, Type::Void);
    }
}

/// The uses of the values of a loop with these blocks after it, other than by a phi for
/// an edge from it: (value, user, operand index).
pub fn uses_after(f: &Function, blocks: &[Block]) -> Vec<(Inst, Inst, usize)> {
    let mut after = Vec::new();
    for &b in blocks {
        for v in f.block_insts(b) {
            for u in f.uses(Value::Inst(v)) {
                let at = match f.kind(u.inst) {
                    InstKind::Phi { blocks: from, .. } => from[u.index as usize],
                    _ => f.inst_block(u.inst).expect("a user is in a block"),
                };
                if !blocks.contains(&at) {
                    after.push((v, u.inst, u.index as usize));
                }
            }
        }
    }
    after
}
