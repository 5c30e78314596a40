//! The rules for prologues, as the machine verifier applies them.

use super::frame_up_at_start;
use crate::mir::test_build::{b, bcond, func, mov, r, ret};
use crate::mir::verifier::verify;
use crate::mir::*;

fn call() -> MInst {
    MInst::Bl {
        sym: "f".into(),
        uses: vec![],
        defs: vec![],
    }
}

/// bb0 branches to bb1 or bb2, which both go to bb3.
fn diamond(left: Vec<MInst>, right: Vec<MInst>, join: Vec<MInst>) -> MFunction {
    let mut left = left;
    left.push(b(3));
    let mut right = right;
    right.push(b(3));
    let mut join = join;
    join.push(ret());
    func(&[], vec![vec![bcond(Cond::Eq, 2), b(1)], left, right, join])
}

#[test]
fn a_prologue_on_every_way_to_a_call_is_accepted() {
    let mf = diamond(vec![MInst::Prologue], vec![MInst::Prologue], vec![call()]);
    assert_eq!(verify(&mf), Ok(()));
    assert_eq!(frame_up_at_start(&mf), Ok(vec![false, false, false, true]));
}

#[test]
fn without_prologues_the_frame_is_up_everywhere() {
    let mf = diamond(vec![], vec![], vec![call()]);
    assert_eq!(frame_up_at_start(&mf), Ok(vec![true; 4]));
}

#[test]
fn a_block_reached_with_and_without_the_frame_is_rejected() {
    let mf = diamond(vec![MInst::Prologue], vec![], vec![]);
    assert!(verify(&mf).is_err_and(|e| e.contains("with and without")));
}

#[test]
fn a_call_before_the_prologue_is_rejected() {
    let mf = diamond(vec![call(), MInst::Prologue], vec![MInst::Prologue], vec![]);
    assert!(verify(&mf).is_err_and(|e| e.contains("without the frame")));
}

#[test]
fn a_callee_saved_register_written_before_the_prologue_is_rejected() {
    let mf = diamond(
        vec![mov(r(5), 1), MInst::Prologue],
        vec![MInst::Prologue],
        vec![],
    );
    assert!(verify(&mf).is_err_and(|e| e.contains("the prologue saves")));
}

#[test]
fn a_second_prologue_on_a_path_is_rejected() {
    let mf = diamond(
        vec![MInst::Prologue],
        vec![MInst::Prologue],
        vec![MInst::Prologue],
    );
    assert!(verify(&mf).is_err_and(|e| e.contains("second prologue")));
}
