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
