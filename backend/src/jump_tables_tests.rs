//! Chains of compares turned into jump tables, on hand-built functions: the entries, the
//! default, the links left behind, and the chains that stay.

use super::run;
use crate::mir::test_build::{func, r, v};
use crate::mir::verifier::verify;
use crate::mir::*;

fn cmp(rn: Reg, imm: u32) -> MInst {
    MInst::Cmp {
        cond: None,
        rn,
        src: Operand2::Imm(imm),
    }
}

/// `cmp x, #c; bne next; b to`.
fn link(x: Reg, c: u32, next: u32, to: u32) -> Vec<MInst> {
    vec![
        cmp(x, c),
        MInst::BCond {
            cond: Cond::Ne,
            target: MBlockId(next),
        },
        MInst::B {
            target: MBlockId(to),
        },
    ]
}

/// A chain over `v0` of one link per constant (blocks 0, 1, ...), then the default block
/// and one returning block per constant.
fn chain(constants: &[u32]) -> MFunction {
    let n = constants.len() as u32;
    let mut blocks: Vec<Vec<MInst>> = constants
        .iter()
        .enumerate()
        .map(|(k, &c)| link(v(0), c, k as u32 + 1, n + 1 + k as u32))
        .collect();
    for _ in 0..=n {
        blocks.push(vec![MInst::Ret { uses: vec![r(0)] }]);
    }
    func(&[RegClass::Int], blocks)
}

fn text(mf: &MFunction, b: u32) -> Vec<String> {
    mf.block(MBlockId(b))
        .insts
        .iter()
        .map(|i| i.to_string())
        .collect()
}

#[test]
fn five_compares_of_one_register_become_a_table() {
    let mut mf = chain(&[1026, 1024, 1028, 1025, 1029]);
    run(&mut mf);
    assert_eq!(verify(&mf), Ok(()));
    assert_eq!(
        text(&mf, 0),
        [
            "sub %v1, %v0, #1024".to_string(),
            "movsym %v2, .Ljt_t_0".to_string(),
            "jumptable %v2 (.Ljt_t_0), %v1, bb5, [bb7, bb9, bb6, bb5, bb8, bb10]".to_string(),
        ]
    );
    for link in 1..5 {
        assert_eq!(text(&mf, link), ["b bb5"]);
    }
}

/// The pass's result on `chain(constants)`, verified: the head's second instruction (the
/// jump table, after the table's address).
fn jump_of(constants: &[u32]) -> String {
    let mut mf = chain(constants);
    run(&mut mf);
    assert_eq!(verify(&mf), Ok(()));
    text(&mf, 0)[1].clone()
}

/// Whether the pass leaves the head of `mf`'s chain as it was.
fn head_stays(mut mf: MFunction) -> bool {
    let before = text(&mf, 0);
    run(&mut mf);
    text(&mf, 0) == before
}

#[test]
fn small_constants_index_a_table_from_zero() {
    assert_eq!(
        jump_of(&[6, 2, 3, 5, 4]),
        "jumptable %v1 (.Ljt_t_0), %v0, bb5, [bb5, bb5, bb7, bb8, bb10, bb9, bb6]"
    );
}

#[test]
fn a_constant_met_twice_keeps_its_first_block() {
    assert_eq!(
        jump_of(&[0, 1, 2, 1, 3, 4]),
        "jumptable %v1 (.Ljt_t_0), %v0, bb6, [bb7, bb8, bb9, bb11, bb12]"
    );
}

#[test]
fn four_compares_stay() {
    assert!(head_stays(chain(&[1, 2, 3, 4])));
}

#[test]
fn constants_spread_too_far_stay() {
    assert!(head_stays(chain(&[1000, 1100, 1200, 1300, 1400])));
}

#[test]
fn a_link_entered_from_elsewhere_ends_the_chain() {
    let mut mf = chain(&[1, 2, 3, 4, 5, 6]);
    // The default block jumps into the fourth link instead of returning.
    mf.block_mut(MBlockId(6)).insts = vec![MInst::B {
        target: MBlockId(3),
    }];
    mf.recompute_succs();
    assert!(head_stays(mf), "three links are too few");
}

#[test]
fn a_chain_the_entry_does_not_reach_stays() {
    // Block 0 jumps past the chain (as a branch on a constant does): the chain's blocks
    // are left out of the output, so no table may be taken the address of.
    let constants = [1, 2, 3, 4, 5];
    let mut blocks = vec![vec![MInst::B {
        target: MBlockId(6),
    }]];
    for (k, &c) in constants.iter().enumerate() {
        let k = k as u32;
        blocks.push(link(v(0), c, k + 2, k + 7));
    }
    for _ in 0..=constants.len() {
        blocks.push(vec![MInst::Ret { uses: vec![r(0)] }]);
    }
    let mut mf = func(&[RegClass::Int], blocks);
    let before = text(&mf, 1);
    run(&mut mf);
    assert_eq!(verify(&mf), Ok(()));
    assert_eq!(text(&mf, 1), before);
    assert_eq!(text(&mf, 0), ["b bb6"]);
}
