//! Shifted operands unfolded on hand-built loops of one block: where multiplies keep the
//! multi-cycle pipeline busy, only as many as make the block's estimate smaller, and never
//! in a block that dispatch or the integer pipelines limit, nor outside loops.

use super::run;
use crate::mir::test_build::{alu, b, bcond, func, r, ret, str_};
use crate::mir::verifier::verify;
use crate::mir::*;

/// The instructions of `body` after the pass, as a loop of one block (`bne` back to itself)
/// or, with `in_loop` false, a block that returns.
fn after(body: Vec<MInst>, in_loop: bool) -> Vec<String> {
    let n = body.len();
    let mut first = body;
    let blocks = if in_loop {
        first.extend([bcond(Cond::Ne, 0), b(1)]);
        vec![first, vec![ret()]]
    } else {
        first.push(ret());
        vec![first]
    };
    let mut mf = func(&[], blocks);
    run(&mut mf);
    assert_eq!(verify(&mf), Ok(()));
    let insts = &mf.blocks[0].insts;
    let added = insts.len() - n - if in_loop { 2 } else { 1 };
    insts[..n + added].iter().map(|i| i.to_string()).collect()
}

fn shifted(op: AluOp, rd: Reg, rn: Reg, rm: Reg, shift: Shift, amount: u8) -> MInst {
    MInst::Alu {
        cond: None,
        op,
        rd,
        rn,
        src: Operand2::Shifted(rm, shift, amount),
    }
}

/// `r2 = (r2 + r3 * r4) % p` as a division by a magic number leaves it: `mla`, `smmul`,
/// the quotient's shift and sign fix, `mls`, then the store.
fn modulo(k: u8) -> Vec<MInst> {
    let (x, q) = (r(2 + k), r(8 + k));
    vec![
        MInst::Mla {
            rd: x,
            rn: r(0),
            rm: x,
            ra: x,
        },
        MInst::Smmul {
            rd: q,
            rn: x,
            rm: r(1),
        },
        MInst::Mov {
            cond: None,
            rd: q,
            src: Operand2::Shifted(q, Shift::Asr, 12),
        },
        shifted(AluOp::Add, q, q, q, Shift::Lsr, 31),
        MInst::Mls {
            rd: x,
            rn: q,
            rm: r(12),
            ra: x,
        },
        str_(x, r(13), 4 * i32::from(k)),
    ]
}

#[test]
fn the_sign_fix_of_a_modulo_among_multiplies_becomes_a_shift_and_an_add() {
    let block: Vec<MInst> = (0..2).flat_map(modulo).collect();
    let after = after(block, true);
    let fixes: Vec<&String> = after
        .iter()
        .filter(|i| i.contains("lsr") || i.contains("add"))
        .collect();
    assert_eq!(
        fixes,
        [
            "mov %v0, r8, lsr #31",
            "add r8, r8, %v0",
            "mov %v1, r9, lsr #31",
            "add r9, r9, %v1"
        ]
    );
}

#[test]
fn only_as_many_unfold_as_make_the_block_cheaper() {
    // Four shifted adds alone: the multi-cycle pipeline takes 4 cycles. Unfolding two
    // makes it 2 (2 there, 4 on the integer pipes, 6 dispatched); a third would give the
    // integer pipes 6 instructions, 3 cycles.
    let block = vec![
        shifted(AluOp::Add, r(0), r(1), r(2), Shift::Lsl, 2),
        shifted(AluOp::Sub, r(3), r(1), r(2), Shift::Lsl, 3),
        shifted(AluOp::Add, r(4), r(1), r(2), Shift::Asr, 1),
        shifted(AluOp::Orr, r(5), r(1), r(2), Shift::Lsl, 4),
    ];
    assert_eq!(
        after(block, true),
        [
            "mov %v0, r2, lsl #2",
            "add r0, r1, %v0",
            "mov %v1, r2, lsl #3",
            "sub r3, r1, %v1",
            "add r4, r1, r2, asr #1",
            "orr r5, r1, r2, lsl #4"
        ]
    );
}

#[test]
fn a_block_that_the_integer_pipes_limit_keeps_its_shifted_operands() {
    // One shifted add among six plain ones: three cycles of integer pipes against one
    // of the multi-cycle pipeline.
    let mut block: Vec<MInst> = (0..6).map(|k| alu(AluOp::Add, r(k), r(k), 1)).collect();
    block.push(shifted(AluOp::Add, r(7), r(1), r(2), Shift::Lsl, 2));
    let before: Vec<String> = block.iter().map(|i| i.to_string()).collect();
    assert_eq!(after(block, true), before);
}

#[test]
fn a_compare_with_a_shifted_operand_unfolds_too() {
    let block = vec![
        MInst::Smmul {
            rd: r(0),
            rn: r(1),
            rm: r(2),
        },
        MInst::Cmp {
            cond: None,
            rn: r(0),
            src: Operand2::Shifted(r(3), Shift::Lsl, 2),
        },
    ];
    assert_eq!(
        after(block, true)[1..],
        ["mov %v0, r3, lsl #2", "cmp r0, %v0"]
    );
}

#[test]
fn a_block_outside_loops_keeps_its_shifted_operands() {
    // Straight-line code waits on its chains, which an unfolded shift does not shorten.
    let block: Vec<MInst> = (0..2).flat_map(modulo).collect();
    let before: Vec<String> = block.iter().map(|i| i.to_string()).collect();
    assert_eq!(after(block, false), before);
}

#[test]
fn a_block_of_a_loop_around_another_keeps_its_shifted_operands() {
    // Block 0 runs once per round of the outer loop, the inner loop (block 1) in between:
    // its rounds never overlap.
    let mut outer: Vec<MInst> = (0..2).flat_map(modulo).collect();
    let before: Vec<String> = outer.iter().map(|i| i.to_string()).collect();
    outer.push(b(1));
    let inner = vec![bcond(Cond::Ne, 1), bcond(Cond::Eq, 0), b(2)];
    let mut mf = func(&[], vec![outer, inner, vec![ret()]]);
    run(&mut mf);
    assert_eq!(verify(&mf), Ok(()));
    let n = mf.blocks[0].insts.len() - 1;
    let after: Vec<String> = mf.blocks[0].insts[..n]
        .iter()
        .map(|i| i.to_string())
        .collect();
    assert_eq!(after, before);
}
