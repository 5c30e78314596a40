//! Frame layout: how much stack a function reserves below its saved registers.

use super::Frame;
use crate::mir::test_build::{add, func, r, ret};
use crate::mir::*;

fn call() -> MInst {
    MInst::Bl {
        sym: "f".into(),
        uses: vec![],
        defs: vec![],
    }
}

#[test]
fn a_function_that_calls_pads_its_pushes_to_eight_bytes() {
    // push {r4, lr} is 8 bytes; with r5 too it is 12, padded to 16.
    let mf = func(
        &[],
        vec![vec![
            add(r(4), r(0), r(0)),
            add(r(5), r(4), r(4)),
            call(),
            ret(),
        ]],
    );
    let frame = Frame::new(&mf);
    assert_eq!(frame.pushed_bytes(), 12);
    assert_eq!(frame.frame_bytes, 4);
}

#[test]
fn a_function_that_calls_nothing_reserves_no_padding() {
    // push {r4, r5, lr}: lr is allocated, nothing is called, sp may stay 4-byte aligned.
    let mf = func(
        &[],
        vec![vec![
            add(r(4), r(0), r(0)),
            add(r(5), r(4), r(4)),
            add(r(14), r(5), r(4)),
            add(r(0), r(14), r(5)),
            ret(),
        ]],
    );
    let frame = Frame::new(&mf);
    assert_eq!(frame.pushed_bytes(), 12);
    assert_eq!(frame.frame_bytes, 0);
}
