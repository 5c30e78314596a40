//! Branch clean-up on hand-built machine functions (physical registers, as after
//! allocation): jumps threaded past blocks that only jump, unreachable blocks left out,
//! conditional branches inverted to fall through, endless empty loops left endless.

use super::run;
use crate::emit::Emitter;
use crate::mir::test_build::{b, bcond};
use crate::mir::verifier::verify;
use crate::mir::*;

const R0: Reg = Reg::Phys(PReg::R0);

/// A function of `n` blocks with the given instructions, successors computed.
fn function(blocks: Vec<Vec<MInst>>) -> MFunction {
    let mut mf = MFunction::new("f", false);
    for insts in blocks {
        let b = mf.add_block(0);
        mf.block_mut(b).insts = insts;
    }
    mf.recompute_succs();
    assert_eq!(verify(&mf), Ok(()));
    mf
}

fn cleaned(mut mf: MFunction) -> MFunction {
    run(&mut mf);
    assert_eq!(verify(&mf), Ok(()));
    mf
}

fn emitted(mf: &MFunction) -> Vec<String> {
    let mut emitter = Emitter::new(false);
    emitter.function(0, mf);
    emitter
        .finish()
        .lines()
        .filter(|l| l.starts_with('\t') || l.starts_with(".L"))
        .map(|l| l.trim().to_string())
        .collect()
}

fn cmp(imm: u32) -> MInst {
    MInst::Cmp {
        cond: None,
        rn: R0,
        src: Operand2::Imm(imm),
    }
}

fn add_one() -> MInst {
    MInst::Alu {
        cond: None,
        op: AluOp::Add,
        rd: R0,
        rn: R0,
        src: Operand2::Imm(1),
    }
}

fn ret() -> MInst {
    MInst::Ret { uses: vec![R0] }
}

#[test]
fn a_latch_branches_straight_back_past_an_empty_edge_block() {
    // bb1 is a bottom-tested loop whose back edge went through bb2, a block left with
    // nothing but a jump.
    let mf = cleaned(function(vec![
        vec![b(1)],
        vec![add_one(), cmp(10), bcond(Cond::Lt, 2), b(3)],
        vec![b(1)],
        vec![ret()],
    ]));
    assert_eq!(mf.block(MBlockId(1)).insts[2], bcond(Cond::Lt, 1));
    assert_eq!(mf.block(MBlockId(1)).succs, [MBlockId(1), MBlockId(3)]);
    assert_eq!(mf.layout, [MBlockId(0), MBlockId(1), MBlockId(3)]);
    let asm = emitted(&mf);
    assert!(!asm.iter().any(|l| l == ".L0_2:"), "{asm:?}");
    let body = asm.iter().position(|l| l == ".L0_1:").expect("the loop");
    assert_eq!(
        asm[body..body + 5],
        [
            ".L0_1:",
            "add r0, r0, #1",
            "cmp r0, #10",
            "blt .L0_1",
            ".L0_3:"
        ],
        "{asm:#?}"
    );
}

#[test]
fn a_branch_to_the_next_block_is_inverted_to_fall_through() {
    let mf = cleaned(function(vec![
        vec![cmp(0), bcond(Cond::Eq, 1), b(2)],
        vec![add_one(), ret()],
        vec![ret()],
    ]));
    assert_eq!(mf.block(MBlockId(0)).insts[1..], [bcond(Cond::Ne, 2), b(1)]);
    assert_eq!(mf.block(MBlockId(0)).succs, [MBlockId(2), MBlockId(1)]);
    let asm = emitted(&mf);
    assert!(asm.contains(&"bne .L0_2".to_string()), "{asm:#?}");
    assert!(
        !asm.iter().any(|l| l == "b .L0_1" || l == "beq .L0_1"),
        "{asm:#?}"
    );
}

#[test]
fn two_conditional_branches_are_not_inverted() {
    // A float comparison may test two conditions; inverting one of them would be wrong.
    let mf = cleaned(function(vec![
        vec![cmp(0), bcond(Cond::Eq, 1), bcond(Cond::Vs, 1), b(2)],
        vec![ret()],
        vec![add_one(), ret()],
    ]));
    assert_eq!(
        mf.block(MBlockId(0)).insts[1..],
        [bcond(Cond::Eq, 1), bcond(Cond::Vs, 1), b(2)]
    );
}

#[test]
fn chains_of_jumps_are_followed_and_an_endless_empty_loop_stays_endless() {
    let mf = cleaned(function(vec![
        vec![cmp(0), bcond(Cond::Eq, 1), b(3)],
        vec![b(2)],
        vec![b(4)],
        vec![b(5)],
        vec![b(3)],
        vec![b(4)],
    ]));
    // bb1 -> bb2 -> bb4 -> bb3 -> bb5 -> bb4: the chain from bb0's branches ends in the
    // cycle bb3 -> bb5 -> bb4 -> bb3, which still loops forever.
    let entry = &mf.block(MBlockId(0)).insts;
    let MInst::BCond { target, .. } = entry[1] else {
        panic!("{entry:?}");
    };
    let mut at = target;
    for _ in 0..10 {
        let [MInst::B { target: next }] = mf.block(at).insts[..] else {
            panic!("{at} does more than jump: the endless loop ended");
        };
        at = next;
    }
}

#[test]
fn a_side_block_moves_between_its_branch_and_the_join() {
    // bb1 tests and falls through to bb2 (the join) or branches to bb3, laid out after the
    // join, which jumps back to it: bb3 moves between bb1 and bb2 and loses its jump.
    let mf = cleaned(function(vec![
        vec![b(1)],
        vec![cmp(0), bcond(Cond::Eq, 3), b(2)],
        vec![add_one(), ret()],
        vec![add_one(), b(2)],
    ]));
    assert_eq!(
        mf.layout,
        [MBlockId(0), MBlockId(1), MBlockId(3), MBlockId(2)]
    );
    assert_eq!(mf.block(MBlockId(1)).insts[1..], [bcond(Cond::Ne, 2), b(3)]);
    let asm = emitted(&mf);
    assert!(!asm.iter().any(|l| l == "b .L0_2"), "{asm:#?}");
}

#[test]
fn a_side_block_with_other_predecessors_stays() {
    // bb3 is also reached from bb0: moving it would not remove a jump on that way.
    let mf = cleaned(function(vec![
        vec![cmp(1), bcond(Cond::Eq, 3), b(1)],
        vec![cmp(0), bcond(Cond::Eq, 3), b(2)],
        vec![add_one(), ret()],
        vec![add_one(), b(2)],
    ]));
    assert_eq!(
        mf.layout,
        [MBlockId(0), MBlockId(1), MBlockId(2), MBlockId(3)]
    );
}

#[test]
fn a_jump_to_a_small_latch_becomes_a_copy_of_it() {
    // bb2 and bb3 are the two sides of an if in a loop, both going on to the latch bb4; bb3
    // falls through to it, bb2 jumps and gets a copy instead.
    let latch = vec![add_one(), cmp(10), bcond(Cond::Lt, 1), b(5)];
    let mf = cleaned(function(vec![
        vec![b(1)],
        vec![cmp(3), bcond(Cond::Eq, 2), b(3)],
        vec![add_one(), b(4)],
        vec![add_one(), add_one(), b(4)],
        latch.clone(),
        vec![ret()],
    ]));
    let mut copied = vec![add_one()];
    copied.extend(latch);
    assert_eq!(mf.block(MBlockId(2)).insts, copied);
    assert_eq!(mf.block(MBlockId(2)).succs, [MBlockId(1), MBlockId(5)]);
    assert_eq!(mf.block(MBlockId(3)).insts.last(), Some(&b(4)));
    assert_eq!(verify(&mf), Ok(()));
}

#[test]
fn large_blocks_and_blocks_with_calls_are_not_copied() {
    let call = MInst::Bl {
        sym: "f".into(),
        uses: vec![],
        defs: vec![],
    };
    let mf = cleaned(function(vec![
        vec![cmp(0), bcond(Cond::Eq, 1), b(2)],
        vec![add_one(), b(3)],
        vec![add_one(), b(4)],
        vec![
            add_one(),
            add_one(),
            add_one(),
            add_one(),
            cmp(1),
            bcond(Cond::Eq, 0),
            b(5),
        ],
        vec![call, cmp(1), bcond(Cond::Eq, 0), b(5)],
        vec![ret()],
    ]));
    assert_eq!(mf.block(MBlockId(1)).insts.last(), Some(&b(3)));
    assert_eq!(mf.block(MBlockId(2)).insts.last(), Some(&b(4)));
}

/// A loop header too large to be copied into the blocks that jump to it: it goes round
/// through `back` while `r0 < 10`, else on to `exit`.
fn large_header(back: u32, exit: u32) -> Vec<MInst> {
    vec![
        add_one(),
        add_one(),
        add_one(),
        add_one(),
        cmp(10),
        bcond(Cond::Lt, back),
        b(exit),
    ]
}

/// `function` with each block at the given loop depth.
fn at_depths(mut mf: MFunction, depths: &[u32]) -> MFunction {
    for (b, &depth) in depths.iter().enumerate() {
        mf.block_mut(MBlockId(b as u32)).loop_depth = depth;
    }
    mf
}

#[test]
fn a_back_edge_block_moves_before_its_header() {
    // bb2 holds the back edge's copies and jumps to the header bb1 (too large to be copied
    // into it); the entry, outside the loop, falls into bb1.
    let header = large_header(2, 3);
    let mf = cleaned(at_depths(
        function(vec![vec![b(1)], header, vec![add_one(), b(1)], vec![ret()]]),
        &[0, 1, 1, 0],
    ));
    assert_eq!(
        mf.layout,
        [MBlockId(0), MBlockId(2), MBlockId(1), MBlockId(3)]
    );
    let asm = emitted(&mf);
    let entry = asm.iter().position(|l| l == ".L0_0:").expect("the entry");
    assert_eq!(
        asm[entry..entry + 7],
        [
            ".L0_0:",
            "b .L0_1",
            ".L0_2:",
            "add r0, r0, #1",
            ".L0_1:",
            "add r0, r0, #1",
            "add r0, r0, #1"
        ]
    );
    assert_eq!(
        asm[entry + 9..entry + 13],
        ["cmp r0, #10", "blt .L0_2", ".L0_3:", "bx lr"]
    );
}

#[test]
fn a_back_edge_block_stays_when_the_header_follows_a_block_of_the_loop() {
    // The block before the header is as deep in loops as the back edge's block: moving it
    // would make that block jump on every iteration instead.
    let header = large_header(3, 4);
    let mf = cleaned(at_depths(
        function(vec![
            vec![b(1)],
            vec![add_one(), b(2)],
            header,
            vec![add_one(), b(2)],
            vec![ret()],
        ]),
        &[0, 1, 1, 1, 0],
    ));
    assert_eq!(
        mf.layout,
        [
            MBlockId(0),
            MBlockId(1),
            MBlockId(2),
            MBlockId(3),
            MBlockId(4)
        ]
    );
}

#[test]
fn a_conditional_branch_to_where_the_jump_goes_anyway_goes_with_its_compare() {
    // bb1's two ways both reach bb4 through blocks that only jump (the loop `loop-split`
    // emptied): the test decides nothing. bb2's two branches to bb4 go too, but its
    // compare stays, as the branch to bb3 still reads it.
    let mf = cleaned(function(vec![
        vec![b(1)],
        vec![add_one(), cmp(10), bcond(Cond::Lt, 5), b(6)],
        vec![
            cmp(3),
            bcond(Cond::Eq, 5),
            bcond(Cond::Gt, 3),
            bcond(Cond::Vs, 6),
            b(4),
        ],
        vec![ret()],
        vec![add_one(), ret()],
        vec![b(4)],
        vec![b(4)],
    ]));
    assert_eq!(mf.block(MBlockId(1)).insts, [add_one(), b(4)]);
    assert_eq!(mf.block(MBlockId(1)).succs, [MBlockId(4)]);
    assert_eq!(
        mf.block(MBlockId(2)).insts,
        [cmp(3), bcond(Cond::Gt, 3), b(4)]
    );
    let asm = emitted(&mf);
    assert!(!asm.iter().any(|l| l == "cmp r0, #10"), "{asm:#?}");
}
