//! Tail calls on hand-built functions, checked in the assembly: the frame comes down and a
//! jump replaces call and return; a function whose frame the callee may need, or that does
//! anything after the call, keeps both.

use super::run;
use crate::mir::test_build::{add, emitted_after, func, mov, r};
use crate::mir::*;

fn call(sym: &str, defs: Vec<Reg>) -> MInst {
    MInst::Bl {
        sym: sym.into(),
        uses: vec![r(0)],
        defs,
    }
}

fn ret() -> MInst {
    MInst::Ret { uses: vec![r(0)] }
}

/// The function's instructions in the assembly, after the pass.
fn emitted(blocks: Vec<Vec<MInst>>) -> Vec<String> {
    emitted_from(func(&[], blocks))
}

fn emitted_from(mf: MFunction) -> Vec<String> {
    emitted_after(run, mf)
        .into_iter()
        .filter(|l| !l.ends_with(':'))
        .collect()
}

#[test]
fn a_returned_call_result_becomes_a_jump_after_the_frame_comes_down() {
    assert_eq!(
        emitted(vec![vec![
            mov(r(4), 3),
            call("g", vec![r(0)]),
            add(r(0), r(0), r(4)),
            call("f", vec![r(0)]),
            ret(),
        ]]),
        [
            "push {r4, lr}",
            "mov r4, #3",
            "bl g",
            "add r0, r0, r4",
            "pop {r4, lr}",
            "b f",
        ]
    );
}

#[test]
fn a_function_whose_only_call_is_a_tail_call_saves_no_link_register() {
    assert_eq!(
        emitted(vec![vec![
            add(r(0), r(0), r(0)),
            call("f", vec![r(0)]),
            ret()
        ]]),
        ["add r0, r0, r0", "b f"]
    );
}

#[test]
fn work_after_the_call_keeps_it_a_call() {
    let out = emitted(vec![vec![
        call("f", vec![r(0)]),
        add(r(0), r(0), r(0)),
        ret(),
    ]]);
    assert_eq!(
        out,
        [
            "push {lr}",
            "sub sp, sp, #4",
            "bl f",
            "add r0, r0, r0",
            "add sp, sp, #4",
            "pop {pc}"
        ]
    );
}

#[test]
fn a_result_the_call_does_not_give_keeps_it_a_call() {
    // A void call, then a return of r0 set before it: r0 is the caller's value, lost by
    // the call only in this made-up block, but the pass must not assume the callee set it.
    let out = emitted(vec![vec![call("f", vec![]), ret()]]);
    assert_eq!(
        out,
        [
            "push {lr}",
            "sub sp, sp, #4",
            "bl f",
            "add sp, sp, #4",
            "pop {pc}"
        ]
    );
}

#[test]
fn a_frame_the_callee_may_need_keeps_the_call() {
    // The address of a local passed down.
    let mut escapes = func(
        &[],
        vec![vec![
            MInst::SlotAddr {
                rd: r(0),
                slot: Slot::Local(0),
                offset: 0,
            },
            call("f", vec![r(0)]),
            ret(),
        ]],
    );
    escapes.objects.push(StackObject { size: 4 });
    let escapes = emitted_from(escapes);
    assert!(escapes.contains(&"bl f".to_string()), "{escapes:?}");
    // An argument on the stack.
    let mut stacked = func(
        &[],
        vec![vec![
            MInst::Str {
                cond: None,
                rs: r(0),
                addr: Addr::Slot(Slot::Outgoing(0), 0),
            },
            call("f", vec![r(0)]),
            ret(),
        ]],
    );
    stacked.outgoing_bytes = 4;
    let stacked = emitted_from(stacked);
    assert!(stacked.contains(&"bl f".to_string()), "{stacked:?}");
}
