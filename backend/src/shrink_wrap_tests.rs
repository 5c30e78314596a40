//! Shrink-wrapping on hand-built functions, checked in the assembly: an early return runs
//! without the frame, callee-saved registers the way there writes move to free caller-saved
//! ones and come back after the prologue, a loop entered from the region gets the prologue
//! on its entering edge only; functions that cannot do without the frame keep it at the
//! entry.

use super::run;
use crate::mir::test_build::{add, b, bcond, emitted_after, func, mov, r, ret};
use crate::mir::*;

fn cmp(rn: Reg, imm: u32) -> MInst {
    MInst::Cmp {
        cond: None,
        rn,
        src: Operand2::Imm(imm),
    }
}

fn call(sym: &str) -> MInst {
    MInst::Bl {
        sym: sym.into(),
        uses: vec![r(0)],
        defs: vec![r(0)],
    }
}

fn sub_one(rd: Reg) -> MInst {
    MInst::Alu {
        cond: None,
        op: AluOp::Sub,
        rd,
        rn: rd,
        src: Operand2::Imm(1),
    }
}

fn copy(dst: Reg, src: Reg) -> MInst {
    MInst::Copy { dst, src }
}

/// The function's lines in the assembly (labels and instructions) after the pass.
fn emitted(blocks: Vec<Vec<MInst>>) -> Vec<String> {
    emitted_from(func(&[], blocks))
}

fn emitted_from(mf: MFunction) -> Vec<String> {
    emitted_after(run, mf)
}

/// `if (r0 == 0) return 1; r4 = r0; return f(r0) + r4;`, with `before` at the top.
fn base_case_then_call(before: Vec<MInst>, kept: Reg) -> Vec<Vec<MInst>> {
    let mut entry = before;
    entry.extend([cmp(r(0), 0), bcond(Cond::Ne, 2), b(1)]);
    vec![
        entry,
        vec![mov(r(0), 1), ret()],
        vec![call("f"), add(r(0), r(0), kept), ret()],
    ]
}

#[test]
fn a_base_case_returns_before_any_register_is_saved() {
    let out = emitted(base_case_then_call(vec![copy(r(4), r(0))], r(4)));
    assert_eq!(
        out,
        [
            ".L0_0:",
            "mov r1, r0",
            "cmp r0, #0",
            "bne .L0_2",
            ".L0_1:",
            "mov r0, #1",
            "bx lr",
            ".L0_2:",
            "push {r4, lr}",
            "mov r4, r1",
            "bl f",
            "add r0, r0, r4",
            "pop {r4, pc}",
        ]
    );
}

#[test]
fn a_copied_register_the_region_keeps_stands_in_for_the_copy() {
    // r4 = r1, and the region never writes r1: r1 serves until the prologue.
    let out = emitted(base_case_then_call(vec![copy(r(4), r(1))], r(4)));
    assert_eq!(&out[..3], [".L0_0:", "cmp r0, #0", "bne .L0_2"]);
    assert_eq!(&out[6..9], [".L0_2:", "push {r4, lr}", "mov r4, r1"]);
}

#[test]
fn constants_only_the_framed_code_reads_are_built_after_the_prologue() {
    let build = MInst::LoadSym {
        rd: r(5),
        sym: "table".into(),
    };
    let out = emitted(base_case_then_call(vec![build], r(5)));
    assert_eq!(&out[..3], [".L0_0:", "cmp r0, #0", "bne .L0_2"]);
    assert_eq!(
        &out[6..10],
        [
            ".L0_2:",
            "push {r5, lr}",
            "movw r5, #:lower16:table",
            "movt r5, #:upper16:table"
        ]
    );
}

#[test]
fn a_return_shared_with_framed_code_is_copied_for_the_early_way() {
    // bb0: if (r0 != 0) goto bb2; bb1 and bb2 (which calls) both end in bb3: return 1.
    let out = emitted(vec![
        vec![cmp(r(0), 0), bcond(Cond::Ne, 2), b(1)],
        vec![cmp(r(1), 0), bcond(Cond::Ne, 2), b(3)],
        vec![call("f"), b(3)],
        vec![mov(r(0), 1), ret()],
    ]);
    assert_eq!(
        out,
        [
            ".L0_0:",
            "cmp r0, #0",
            "bne .L0_2",
            ".L0_1:",
            "cmp r1, #0",
            "bne .L0_2",
            ".L0_4:",
            "mov r0, #1",
            "bx lr",
            ".L0_2:",
            "push {lr}",
            "sub sp, sp, #4",
            "bl f",
            ".L0_3:",
            "mov r0, #1",
            "add sp, sp, #4",
            "pop {pc}",
        ]
    );
}

#[test]
fn the_stand_in_register_is_one_the_rest_of_the_function_does_not_need() {
    // r1 and r2 are read after the prologue, so r4's value waits in r3.
    let mut blocks = base_case_then_call(vec![copy(r(4), r(0))], r(4));
    blocks[2].insert(0, add(r(0), r(1), r(2)));
    let out = emitted(blocks);
    assert_eq!(out[1], "mov r3, r0");
    assert!(out.contains(&"mov r4, r3".to_string()), "{out:?}");
}

#[test]
fn without_a_free_register_the_frame_stays_at_the_entry() {
    let mut blocks = base_case_then_call(vec![copy(r(4), r(0))], r(4));
    blocks[2].insert(0, add(r(0), r(1), r(2)));
    blocks[2].insert(0, add(r(0), r(3), r(12)));
    let out = emitted(blocks);
    assert_eq!(out[0], "push {r4, lr}");
    assert_eq!(out[2], "mov r4, r0");
}

#[test]
fn a_loop_entered_from_the_region_gets_the_prologue_on_the_entering_edge() {
    // bb0: if (r0 == 0) return; bb2: loop header, bb3: latch calling f.
    let out = emitted(vec![
        vec![cmp(r(0), 0), bcond(Cond::Ne, 2), b(1)],
        vec![mov(r(0), 1), ret()],
        vec![copy(r(4), r(0)), b(3)],
        vec![call("f"), cmp(r(0), 0), bcond(Cond::Ne, 2), b(4)],
        vec![copy(r(0), r(4)), ret()],
    ]);
    assert_eq!(
        out,
        [
            ".L0_0:",
            "cmp r0, #0",
            "bne .L0_5",
            ".L0_1:",
            "mov r0, #1",
            "bx lr",
            ".L0_2:",
            "mov r4, r0",
            ".L0_3:",
            "bl f",
            "cmp r0, #0",
            "bne .L0_2",
            ".L0_4:",
            "mov r0, r4",
            "pop {r4, pc}",
            ".L0_5:",
            "push {r4, lr}",
            "b .L0_2",
        ]
    );
}

#[test]
fn a_loop_on_the_way_to_the_early_return_runs_without_the_frame() {
    // bb0: if (r0 != 0) goto bb3; bb1: r4 counts down in a loop; bb2: return r4.
    let out = emitted(vec![
        vec![copy(r(4), r(1)), cmp(r(0), 0), bcond(Cond::Ne, 3), b(1)],
        vec![sub_one(r(4)), cmp(r(4), 0), bcond(Cond::Gt, 1), b(2)],
        vec![copy(r(0), r(4)), ret()],
        vec![call("f"), add(r(0), r(0), r(4)), ret()],
    ]);
    assert_eq!(
        out,
        [
            ".L0_0:",
            "mov r2, r1",
            "cmp r0, #0",
            "bne .L0_3",
            ".L0_1:",
            "sub r2, r2, #1",
            "cmp r2, #0",
            "bgt .L0_1",
            ".L0_2:",
            "mov r0, r2",
            "bx lr",
            ".L0_3:",
            "push {r4, lr}",
            "mov r4, r2",
            "bl f",
            "add r0, r0, r4",
            "pop {r4, pc}",
        ]
    );
}

/// The base case then a call, with `stored` spilled at the top and reloaded into r1 after
/// the call.
fn spilled(stored: Reg) -> MFunction {
    let slot = Addr::Slot(Slot::Local(0), 0);
    let spill = MInst::Str {
        cond: None,
        rs: stored,
        addr: slot,
    };
    let reload = MInst::Ldr {
        cond: None,
        rd: r(1),
        addr: slot,
    };
    let mut blocks = base_case_then_call(vec![spill], r(1));
    blocks[2].insert(1, reload);
    let mut mf = func(&[], blocks);
    mf.objects.push(StackObject { size: 4 });
    mf
}

#[test]
fn a_spilled_argument_is_stored_after_the_prologue() {
    let out = emitted_from(spilled(r(1)));
    assert_eq!(
        out,
        [
            ".L0_0:",
            "cmp r0, #0",
            "bne .L0_2",
            ".L0_1:",
            "mov r0, #1",
            "bx lr",
            ".L0_2:",
            "push {lr}",
            "sub sp, sp, #4",
            "str r1, [sp]",
            "bl f",
            "ldr r1, [sp]",
            "add r0, r0, r1",
            "add sp, sp, #4",
            "pop {pc}",
        ]
    );
}

#[test]
fn a_spilled_register_the_region_overwrites_is_stored_from_a_copy() {
    // r0 is the argument, stored, then the base case overwrites it with its result.
    let out = emitted_from(spilled(r(0)));
    assert_eq!(out[1], "mov r1, r0");
    assert!(out.contains(&"str r1, [sp]".to_string()), "{out:?}");
}

#[test]
fn a_recursion_whose_every_self_call_is_tested_first_keeps_its_frame_at_the_entry() {
    // bb0: if (r0 == 0) return 1; bb2: if (r1 != 0) t(r0); bb3: return r4.
    let blocks = vec![
        vec![cmp(r(0), 0), bcond(Cond::Ne, 2), b(1)],
        vec![mov(r(0), 1), ret()],
        vec![copy(r(4), r(0)), cmp(r(1), 0), bcond(Cond::Ne, 4), b(3)],
        vec![copy(r(0), r(4)), ret()],
        vec![call("t"), b(3)],
    ];
    let guarded = emitted(blocks.clone());
    assert_eq!(guarded[0], "push {r4, lr}");
    // A second call right after the first is not behind a test.
    let mut twice = blocks;
    twice[4].insert(1, call("t"));
    let unguarded = emitted(twice);
    assert_eq!(&unguarded[..3], [".L0_0:", "cmp r0, #0", "bne .L0_2"]);
}

#[test]
fn a_function_without_an_early_return_keeps_its_frame_at_the_entry() {
    let out = emitted(vec![vec![
        copy(r(4), r(0)),
        call("f"),
        add(r(0), r(0), r(4)),
        ret(),
    ]]);
    assert_eq!(out[0], "push {r4, lr}");
}

#[test]
fn a_stack_slot_before_the_test_keeps_the_frame_at_the_entry() {
    let load = MInst::Ldr {
        cond: None,
        rd: r(1),
        addr: Addr::Slot(Slot::Incoming(0), 0),
    };
    let out = emitted(base_case_then_call(vec![load], r(1)));
    assert_eq!(out[0], "push {lr}");
}

#[test]
fn float_callee_saved_registers_move_to_free_float_registers() {
    let blocks = vec![
        vec![
            copy(Reg::Phys(PReg::s(16)), Reg::Phys(PReg::s(0))),
            copy(Reg::Phys(PReg::s(0)), Reg::Phys(PReg::s(2))),
            cmp(r(0), 0),
            bcond(Cond::Ne, 2),
            b(1),
        ],
        vec![ret()],
        vec![
            call("f"),
            copy(Reg::Phys(PReg::s(0)), Reg::Phys(PReg::s(16))),
            ret(),
        ],
    ];
    let out = emitted(blocks);
    assert_eq!(out[1], "vmov.f32 s1, s0");
    let prologue = out
        .iter()
        .position(|l| l == "vpush {s16}")
        .expect("a vpush");
    assert_eq!(out[prologue + 1], "vmov.f32 s16, s1");
}
