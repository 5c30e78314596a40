//! Compares with zero folded into the instruction computing the register, on hand-built
//! blocks: only for equality and sign tests, only when nothing between touches the flags
//! or the register.

use super::run;
use crate::mir::test_build::{alu, func, r};
use crate::mir::verifier::verify;
use crate::mir::*;

fn cmp(rn: Reg, imm: u32) -> MInst {
    MInst::Cmp {
        cond: None,
        rn,
        src: Operand2::Imm(imm),
    }
}

fn bcond(cond: Cond) -> MInst {
    MInst::BCond {
        cond,
        target: MBlockId(1),
    }
}

fn b() -> MInst {
    MInst::B {
        target: MBlockId(1),
    }
}

fn ret() -> MInst {
    MInst::Ret { uses: vec![r(0)] }
}

/// The first block's instructions after the pass (the second only returns).
fn folded(insts: Vec<MInst>) -> Vec<String> {
    let mut mf = func(&[], vec![insts, vec![ret()]]);
    run(&mut mf);
    assert_eq!(verify(&mf), Ok(()));
    mf.blocks[0].insts.iter().map(|i| i.to_string()).collect()
}

#[test]
fn an_and_tested_for_zero_sets_the_flags_itself() {
    assert_eq!(
        folded(vec![
            alu(AluOp::And, r(2), r(2), 1),
            cmp(r(2), 0),
            bcond(Cond::Eq),
            b(),
        ]),
        ["ands r2, r2, #1", "beq bb1", "b bb1"]
    );
}

#[test]
fn a_sign_test_folds_past_unrelated_work() {
    let mov = MInst::Mov {
        cond: None,
        rd: r(5),
        src: Operand2::Imm(3),
    };
    assert_eq!(
        folded(vec![
            alu(AluOp::Sub, r(4), r(4), 1),
            mov,
            cmp(r(4), 0),
            bcond(Cond::Mi),
            b(),
        ]),
        ["subs r4, r4, #1", "mov r5, #3", "bmi bb1", "b bb1"]
    );
}

#[test]
fn an_ordered_test_keeps_its_compare() {
    // `subs` sets V on overflow where `cmp #0` clears it: `gt` would differ at INT_MIN.
    let insts = vec![
        alu(AluOp::Sub, r(4), r(4), 1),
        cmp(r(4), 0),
        bcond(Cond::Gt),
        b(),
    ];
    assert_eq!(
        folded(insts),
        ["sub r4, r4, #1", "cmp r4, #0", "bgt bb1", "b bb1"]
    );
}

#[test]
fn a_later_reader_under_another_condition_keeps_the_compare() {
    let movlt = MInst::Mov {
        cond: Some(Cond::Lt),
        rd: r(6),
        src: Operand2::Imm(0),
    };
    let insts = vec![
        alu(AluOp::Add, r(3), r(3), 4),
        cmp(r(3), 0),
        movlt,
        bcond(Cond::Ne),
        b(),
    ];
    assert_eq!(folded(insts).len(), 5);
}

#[test]
fn flags_or_the_register_touched_between_keep_the_compare() {
    let between_compare = vec![
        alu(AluOp::And, r(2), r(2), 1),
        cmp(r(7), 9),
        cmp(r(2), 0),
        bcond(Cond::Eq),
        b(),
    ];
    assert_eq!(folded(between_compare).len(), 5);
    let rewritten = vec![
        alu(AluOp::And, r(2), r(2), 1),
        MInst::Ldr {
            cond: None,
            rd: r(2),
            addr: Addr::Imm(r(0), 0),
        },
        cmp(r(2), 0),
        bcond(Cond::Eq),
        b(),
    ];
    assert_eq!(folded(rewritten).len(), 5);
}

#[test]
fn a_compare_with_another_constant_stays() {
    let insts = vec![
        alu(AluOp::And, r(2), r(2), 1),
        cmp(r(2), 1),
        bcond(Cond::Eq),
        b(),
    ];
    assert_eq!(folded(insts).len(), 4);
}

#[test]
fn flags_a_predicated_compare_may_leave_are_read_after_it() {
    // and; cmp r2, #0; cmpne r3, #5; ble: where r2 is 0 the cmpne does not run and ble
    // reads the first compare's flags, whose V an `ands` would leave stale.
    let chained = vec![
        alu(AluOp::And, r(2), r(2), 1),
        cmp(r(2), 0),
        MInst::Cmp {
            cond: Some(Cond::Ne),
            rn: r(3),
            src: Operand2::Imm(5),
        },
        bcond(Cond::Le),
        b(),
    ];
    assert_eq!(
        folded(chained),
        [
            "and r2, r2, #1",
            "cmp r2, #0",
            "cmpne r3, #5",
            "ble bb1",
            "b bb1"
        ]
    );
}
