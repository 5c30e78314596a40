//! Compares repeated at the start of a block with one predecessor go, on hand-built
//! functions: only the same compare, only when neither block changes its registers between
//! the two, and only where that block is the only way in.

use super::run;
use crate::mir::test_build::{add, b, bcond, block_texts, func, mov, r, ret};
use crate::mir::verifier::verify;
use crate::mir::*;

fn cmp(rn: Reg, rm: Reg) -> MInst {
    MInst::Cmp {
        cond: None,
        rn,
        src: Operand2::Reg(rm),
    }
}

fn addle(rd: Reg) -> MInst {
    MInst::Alu {
        cond: Some(Cond::Le),
        op: AluOp::Add,
        rd,
        rn: rd,
        src: Operand2::Imm(1),
    }
}

/// Each block's instructions, as text, after the pass.
fn after(blocks: Vec<Vec<MInst>>) -> Vec<Vec<String>> {
    let mut mf = func(&[], blocks);
    run(&mut mf);
    assert_eq!(verify(&mf), Ok(()));
    block_texts(&mf)
}

/// The arm a compare branches to, testing the same registers again before a predicated add.
fn arm(first: Vec<MInst>) -> Vec<Vec<MInst>> {
    let mut arm = first;
    arm.extend([cmp(r(10), r(9)), addle(r(8)), ret()]);
    vec![
        vec![cmp(r(10), r(9)), bcond(Cond::Ge, 1), b(2)],
        arm,
        vec![ret()],
    ]
}

#[test]
fn the_arm_of_a_branch_keeps_its_flags() {
    let out = after(arm(vec![mov(r(1), 3)]));
    assert!(out[1].iter().all(|i| !i.starts_with("cmp")), "{out:?}");
    assert_eq!(out[0][0], "cmp r10, r9");
}

#[test]
fn a_compared_register_written_on_the_way_keeps_the_compare() {
    let out = after(arm(vec![add(r(9), r(9), r(1))]));
    assert!(out[1].iter().any(|i| i == "cmp r10, r9"), "{out:?}");
    let mut blocks = arm(vec![]);
    blocks[0].insert(1, mov(r(10), 0));
    let out = after(blocks);
    assert!(out[1].iter().any(|i| i == "cmp r10, r9"), "{out:?}");
}

#[test]
fn another_compare_or_another_way_in_keeps_the_compare() {
    let mut blocks = arm(vec![]);
    blocks[0][0] = cmp(r(10), r(8));
    let out = after(blocks);
    assert!(out[1].iter().any(|i| i == "cmp r10, r9"), "{out:?}");
    // The arm is also reached from the last block, which compares nothing.
    let mut blocks = arm(vec![]);
    blocks[2] = vec![mov(r(0), 1), b(1)];
    let out = after(blocks);
    assert!(out[1].iter().any(|i| i == "cmp r10, r9"), "{out:?}");
}
