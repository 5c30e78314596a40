//! share-constants: a constant that takes two instructions to build (`movw` and `movt`) and
//! is built in several blocks outside loops is built once, in the block nearest the entry
//! that dominates them all, and the registers of the former builds are renamed to its. Instruction selection already builds the constants of a loop once, in its
//! preheader; this covers straight-line code such as the levels of a recursion inlined into
//! itself, each of which takes a remainder by the same large modulus.
//!
//! Where registers run short, the allocator rematerialises the shared constant before its
//! uses, which is what the separate builds did. Only a value built by one `movw` and the
//! `movt` right after it, and defined nowhere else, is shared; the dominating block must lie
//! outside loops too (else the nearest one that does is taken), and the new build goes
//! before its first instruction that builds the constant, or else before its branch.
//!
//! Needs: virtual registers. Preserves: behaviour.

use crate::mir::loops::loop_depths;
use crate::mir::*;
use middle::analysis::{Cfg, DomTree};
use middle::fast_hash::FastHashMap;

pub fn run(mf: &mut MFunction) {
    let depth = loop_depths(mf);
    let builds = builds(mf, &depth);
    if builds.is_empty() {
        return;
    }
    let dom = DomTree::new(&Cfg::new(mf));
    let mut renamed: FastHashMap<Reg, Reg> = FastHashMap::default();
    for (value, sites) in builds {
        let mut blocks: Vec<MBlockId> = sites.iter().map(|&(b, _)| b).collect();
        blocks.dedup();
        if blocks.len() < 2 || blocks.iter().any(|&b| !dom.is_reachable(b)) {
            continue;
        }
        let mut at = blocks[0];
        for &b in &blocks[1..] {
            while !dom.dominates(at, b) {
                at = dom
                    .idom(at)
                    .expect("a reachable block has an immediate dominator");
            }
        }
        while depth[at.index()] > 0 {
            at = dom.idom(at).expect("a block in a loop is not the entry");
        }
        let shared = share(mf, value, at, &sites);
        renamed.extend(sites.iter().map(|&(_, v)| (v, shared)));
    }
    if renamed.is_empty() {
        return;
    }
    for inst in mf.blocks.iter_mut().flat_map(|b| &mut b.insts) {
        inst.visit_regs(|r, _| {
            if let Some(&to) = renamed.get(r) {
                *r = to;
            }
        });
    }
}

/// For each constant built by `movw v` then `movt v` in blocks outside loops (loop `depth`
/// 0), with `v` defined nowhere else: the builds as (block, v), in layout order.
fn builds(mf: &MFunction, depth: &[u32]) -> Vec<(u32, Vec<(MBlockId, Reg)>)> {
    let mut defs: FastHashMap<Reg, u32> = FastHashMap::default();
    for inst in mf.blocks.iter().flat_map(|b| &b.insts) {
        inst.for_each_reg(|r, role| {
            if role != Role::Use {
                *defs.entry(r).or_insert(0) += 1;
            }
        });
    }
    let mut by_value: FastHashMap<u32, usize> = FastHashMap::default();
    let mut out: Vec<(u32, Vec<(MBlockId, Reg)>)> = Vec::new();
    for (b, block) in mf.blocks.iter().enumerate() {
        if depth[b] > 0 {
            continue;
        }
        for pair in block.insts.windows(2) {
            let [MInst::Movw { rd, imm: low }, MInst::Movt { rd: rt, imm: high }] = pair else {
                continue;
            };
            if rd != rt || !matches!(rd, Reg::Virt(_)) || defs.get(rd) != Some(&2) {
                continue;
            }
            let value = (*high as u32) << 16 | *low as u32;
            let slot = *by_value.entry(value).or_insert_with(|| {
                out.push((value, Vec::new()));
                out.len() - 1
            });
            out[slot].1.push((MBlockId(b as u32), *rd));
        }
    }
    out
}

/// Builds `value` once in `at`, in a new register that it returns, and removes the builds
/// at `sites`.
fn share(mf: &mut MFunction, value: u32, at: MBlockId, sites: &[(MBlockId, Reg)]) -> Reg {
    let shared = mf.new_vreg(RegClass::Int);
    let mut first_in_at = None;
    for &(b, v) in sites {
        let insts = &mut mf.block_mut(b).insts;
        let k = insts
            .iter()
            .position(|i| matches!(i, MInst::Movw { rd, .. } if *rd == v))
            .expect("the movw of a build");
        insts.drain(k..k + 2);
        if b == at && first_in_at.is_none() {
            first_in_at = Some(k);
        }
    }
    let block = mf.block_mut(at);
    let place = first_in_at.unwrap_or_else(|| block.first_branch());
    let insts = &mut block.insts;
    insts.splice(
        place..place,
        [
            MInst::Movw {
                rd: shared,
                imm: value as u16,
            },
            MInst::Movt {
                rd: shared,
                imm: (value >> 16) as u16,
            },
        ],
    );
    shared
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::test_build::*;

    fn build(rd: Reg, value: u32) -> [MInst; 2] {
        [
            MInst::Movw {
                rd,
                imm: value as u16,
            },
            MInst::Movt {
                rd,
                imm: (value >> 16) as u16,
            },
        ]
    }

    fn branch_on(rn: Reg, yes: u32) -> [MInst; 2] {
        [
            MInst::Cmp {
                cond: None,
                rn,
                src: Operand2::Imm(0),
            },
            MInst::BCond {
                cond: Cond::Ne,
                target: MBlockId(yes),
            },
        ]
    }

    fn jump(to: u32) -> MInst {
        MInst::B {
            target: MBlockId(to),
        }
    }

    fn builds_per_block(mf: &MFunction) -> Vec<usize> {
        mf.blocks
            .iter()
            .map(|b| {
                b.insts
                    .iter()
                    .filter(|i| matches!(i, MInst::Movw { .. }))
                    .count()
            })
            .collect()
    }

    const BIG: u32 = 998_244_353;

    #[test]
    fn builds_on_both_sides_of_a_branch_move_above_it() {
        // b0: if v0 goto b2 else b1; b1 and b2 each build BIG and add it to v0; b3 returns.
        let [cmp, bne] = branch_on(v(0), 2);
        let mut b1: Vec<MInst> = build(v(1), BIG).into();
        b1.extend([add(v(2), v(0), v(1)), jump(3)]);
        let mut b2: Vec<MInst> = build(v(3), BIG).into();
        b2.extend([add(v(4), v(3), v(0)), jump(3)]);
        let mut mf = func(
            &[RegClass::Int; 5],
            vec![
                vec![cmp, bne.clone(), jump(1)],
                b1,
                b2,
                vec![MInst::Ret { uses: vec![] }],
            ],
        );
        run(&mut mf);
        assert_eq!(builds_per_block(&mf), [1, 0, 0, 0]);
        let shared = v(5);
        assert_eq!(mf.blocks[0].insts[1], build(shared, BIG)[0]);
        assert_eq!(mf.blocks[0].insts[3], bne);
        assert_eq!(mf.blocks[1].insts[0], add(v(2), v(0), shared));
        assert_eq!(mf.blocks[2].insts[0], add(v(4), shared, v(0)));
    }

    #[test]
    fn one_build_a_loop_or_a_register_defined_twice_stays() {
        // b0 builds BIG once and 0x12345678 once; b1 is a loop building 0x12345678 again;
        // b2 builds 0x12345678 into v3, which b2 also defines otherwise.
        let mut b0: Vec<MInst> = build(v(0), BIG).into();
        b0.extend(build(v(1), 0x1234_5678));
        b0.push(jump(1));
        let mut b1: Vec<MInst> = build(v(2), 0x1234_5678).into();
        b1.extend(branch_on(v(2), 1));
        b1.push(jump(2));
        let mut b2: Vec<MInst> = build(v(3), 0x1234_5678).into();
        b2.extend([add(v(3), v(3), v(0)), MInst::Ret { uses: vec![] }]);
        let mut mf = func(&[RegClass::Int; 4], vec![b0, b1, b2]);
        let before: Vec<Vec<MInst>> = mf.blocks.iter().map(|b| b.insts.clone()).collect();
        run(&mut mf);
        let after: Vec<Vec<MInst>> = mf.blocks.iter().map(|b| b.insts.clone()).collect();
        assert_eq!(after, before);
    }
}
