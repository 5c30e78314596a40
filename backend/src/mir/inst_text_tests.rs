//! The two syntaxes of the one printer: where the text form of machine IR and assembly
//! write the same instruction differently, and where they agree.

use super::super::test_build::{bcond, emitted_after, func, r, s};
use super::*;

#[test]
fn assembly_resolves_and_expands_what_the_text_form_writes_as_it_is() {
    let mut mf = func(
        &[],
        vec![
            vec![
                MInst::Mov {
                    cond: None,
                    rd: r(0),
                    src: Operand2::Shifted(r(1), Shift::Lsr, 0),
                },
                MInst::Bl {
                    sym: "f".to_string(),
                    uses: vec![r(0)],
                    defs: vec![r(0)],
                },
                MInst::VCmp { sn: s(0), sm: s(1) },
                MInst::Ldr {
                    cond: None,
                    rd: r(4),
                    addr: Addr::Slot(Slot::Local(0), 4),
                },
                MInst::Copy {
                    dst: r(4),
                    src: r(4),
                },
                bcond(Cond::Ne, 1),
                MInst::B {
                    target: MBlockId(1),
                },
            ],
            vec![MInst::Ret { uses: vec![r(0)] }],
        ],
    );
    mf.new_object(8);
    let text: Vec<String> = mf.blocks[0].insts.iter().map(MInst::to_string).collect();
    assert_eq!(
        text,
        [
            "mov r0, r1, lsr #0",
            "bl f ; uses r0 ; defs r0",
            "vcmp.f32 s0, s1",
            "ldr r4, [local0, #4]",
            "copy r4, r4",
            "bne bb1",
            "b bb1",
        ]
    );
    assert_eq!(mf.blocks[1].insts[0].to_string(), "ret ; uses r0");
    assert_eq!(
        emitted_after(|_| {}, mf),
        [
            "push {r4, lr}",
            "sub sp, sp, #8",
            ".L0_0:",
            "mov r0, r1",
            "bl f",
            "vcmp.f32 s0, s1",
            "vmrs APSR_nzcv, fpscr",
            "ldr r4, [sp, #4]",
            "bne .L0_1",
            ".L0_1:",
            "add sp, sp, #8",
            "pop {r4, pc}",
        ]
    );
}

#[test]
fn vector_registers_are_written_as_their_double_word_halves_in_assembly() {
    let q = |n| Reg::Phys(PReg::q(n));
    let mut mf = func(
        &[],
        vec![vec![
            MInst::VecLoad {
                qd: q(9),
                addr: Addr::Imm(r(0), 0),
            },
            MInst::VecLoad {
                qd: q(10),
                addr: Addr::PostIndex(r(1), 16),
            },
            MInst::VecStore {
                qs: q(10),
                addr: Addr::Slot(Slot::Local(0), 0),
            },
            MInst::VecGetLane {
                rd: r(2),
                qn: q(9),
                lane: 3,
            },
            MInst::VecSetLane {
                qd: q(11),
                rn: r(2),
                lane: 0,
            },
            MInst::VecReduce {
                op: PairOp::Add,
                rd: r(0),
                qn: q(11),
                qt: q(12),
            },
            MInst::Copy {
                dst: q(13),
                src: q(9),
            },
            MInst::Ret { uses: vec![r(0)] },
        ]],
    );
    mf.new_object(16);
    let text: Vec<String> = mf.blocks[0].insts.iter().map(MInst::to_string).collect();
    assert_eq!(
        text[..6],
        [
            "vld1.32 q9, [r0]",
            "vld1.32 q10, [r1], #16",
            "vst1.32 q10, [local0]",
            "vmov.32 r2, q9[3]",
            "vmov.32 q11[0], r2",
            "vreduce vpadd.i32 r0, q11, q12",
        ]
    );
    assert_eq!(
        emitted_after(|_| {}, mf),
        [
            "sub sp, sp, #16",
            ".L0_0:",
            "vld1.32 {d18-d19}, [r0]",
            "vld1.32 {d20-d21}, [r1]!",
            "vstr d20, [sp]",
            "vstr d21, [sp, #8]",
            "vmov.32 r2, d19[1]",
            "vmov.32 d22[0], r2",
            "vpadd.i32 d24, d22, d23",
            "vpadd.i32 d24, d24, d24",
            "vmov.32 r0, d24[0]",
            "vmov q13, q9",
            "add sp, sp, #16",
            "bx lr",
        ]
    );
}
