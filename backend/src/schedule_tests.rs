//! List scheduling on hand-built blocks of physical registers: latencies are filled with
//! independent work, and every dependence (registers both ways, flags, memory, calls,
//! branches) keeps its order.

use super::run;
use crate::mir::test_build::{add, func, ldr, mov, r, str_};
use crate::mir::verifier::verify;
use crate::mir::*;

fn mul(rd: Reg, rn: Reg, rm: Reg) -> MInst {
    MInst::Mul { rd, rn, rm }
}

fn cmp(rn: Reg, imm: u32) -> MInst {
    MInst::Cmp {
        cond: None,
        rn,
        src: Operand2::Imm(imm),
    }
}

fn movcc(cond: Cond, rd: Reg, imm: u32) -> MInst {
    MInst::Mov {
        cond: Some(cond),
        rd,
        src: Operand2::Imm(imm),
    }
}

fn ret() -> MInst {
    MInst::Ret { uses: vec![r(0)] }
}

/// The instructions of a one-block function after scheduling.
fn scheduled(insts: Vec<MInst>) -> Vec<String> {
    let mut mf = func(&[], vec![insts]);
    run(&mut mf);
    assert_eq!(verify(&mf), Ok(()));
    mf.blocks[0].insts.iter().map(|i| i.to_string()).collect()
}

#[test]
fn independent_work_fills_a_loads_latency() {
    assert_eq!(
        scheduled(vec![
            ldr(r(1), r(0), 0),
            add(r(2), r(1), r(1)),
            mov(r(3), 7),
            mov(r(4), 9),
            add(r(0), r(2), r(3)),
            ret(),
        ]),
        [
            "ldr r1, [r0]",
            "mov r3, #7",
            "mov r4, #9",
            "add r2, r1, r1",
            "add r0, r2, r3",
            "ret ; uses r0",
        ]
    );
}

#[test]
fn the_longest_chain_starts_first() {
    // The multiply heads the longer path (multiply 3, then an add), so it goes before the
    // independent add that came first.
    assert_eq!(
        scheduled(vec![
            add(r(5), r(6), r(6)),
            mul(r(1), r(2), r(3)),
            add(r(0), r(1), r(5)),
            ret(),
        ]),
        [
            "mul r1, r2, r3",
            "add r5, r6, r6",
            "add r0, r1, r5",
            "ret ; uses r0",
        ]
    );
}

#[test]
fn a_register_is_not_redefined_before_its_last_read() {
    // r1 is read by the first add and then redefined by the load: the load, though the
    // longest path, waits for the read.
    assert_eq!(
        scheduled(vec![
            add(r(2), r(1), r(1)),
            ldr(r(1), r(0), 4),
            add(r(0), r(1), r(2)),
            ret(),
        ]),
        [
            "add r2, r1, r1",
            "ldr r1, [r0, #4]",
            "add r0, r1, r2",
            "ret ; uses r0",
        ]
    );
}

#[test]
fn stores_stay_ordered_with_loads_and_stores() {
    // The second load cannot rise above the store (the addresses may be the same), nor
    // the second store above the first; the loads around no store may swap.
    assert_eq!(
        scheduled(vec![
            ldr(r(1), r(0), 0),
            str_(r(1), r(4), 0),
            ldr(r(2), r(5), 0),
            str_(r(2), r(6), 0),
            mov(r(3), 1),
            ret(),
        ]),
        [
            "ldr r1, [r0]",
            "mov r3, #1",
            "str r1, [r4]",
            "ldr r2, [r5]",
            "str r2, [r6]",
            "ret ; uses r0",
        ]
    );
}

#[test]
fn flags_stay_with_the_compare_that_set_them() {
    // Two compares, each read by a predicated move: neither move may cross the other's
    // compare (the first heads a long chain, which would otherwise start it first), and
    // the branch stays last, reading the second compare's flags.
    let out = scheduled(vec![
        cmp(r(1), 0),
        movcc(Cond::Eq, r(2), 1),
        mul(r(7), r(2), r(2)),
        add(r(8), r(7), r(7)),
        cmp(r(3), 5),
        movcc(Cond::Lt, r(4), 2),
        ldr(r(5), r(6), 0),
        MInst::BCond {
            cond: Cond::Gt,
            target: MBlockId(0),
        },
        ret(),
    ]);
    let at = |s: &str| out.iter().position(|i| i == s).unwrap();
    assert!(at("cmp r1, #0") < at("moveq r2, #1"));
    assert!(at("moveq r2, #1") < at("cmp r3, #5"));
    assert!(at("cmp r3, #5") < at("movlt r4, #2"));
    assert_eq!(&out[7..], ["bgt bb0", "ret ; uses r0"]);
}

#[test]
fn nothing_crosses_a_call() {
    let call = MInst::Bl {
        sym: "getint".into(),
        uses: vec![],
        defs: vec![r(0)],
    };
    assert_eq!(
        scheduled(vec![
            ldr(r(4), r(5), 0),
            add(r(6), r(4), r(4)),
            mov(r(7), 3),
            call,
            mov(r(8), 1),
            add(r(0), r(0), r(8)),
            ret(),
        ]),
        [
            "ldr r4, [r5]",
            "mov r7, #3",
            "add r6, r4, r4",
            "bl getint ; defs r0",
            "mov r8, #1",
            "add r0, r0, r8",
            "ret ; uses r0",
        ]
    );
}

#[test]
fn an_indexed_access_orders_the_readers_of_its_base() {
    // The post-indexed load writes r0: the load from the new r0, though heading the
    // longer chain, stays after it.
    let post = MInst::Ldr {
        cond: None,
        rd: r(1),
        addr: Addr::PostIndex(r(0), 4),
    };
    assert_eq!(
        scheduled(vec![
            post,
            ldr(r(2), r(0), 0),
            mul(r(3), r(2), r(2)),
            mul(r(4), r(3), r(1)),
            ret(),
        ])[..2],
        ["ldr r1, [r0], #4", "ldr r2, [r0]"]
    );
}

#[test]
fn a_load_multiple_is_a_load_and_a_store_multiple_a_store() {
    let ldm = MInst::Ldm {
        mode: BlockMode::Ia,
        base: r(5),
        writeback: false,
        regs: vec![r(1), r(2)],
    };
    let stm = MInst::Stm {
        mode: BlockMode::Ia,
        base: r(6),
        writeback: true,
        regs: vec![r(3), r(4)],
    };
    assert_eq!(
        scheduled(vec![stm, ldm, add(r(0), r(1), r(2)), ret()]),
        [
            "stmia r6!, {r3, r4}",
            "ldmia r5, {r1, r2}",
            "add r0, r1, r2",
            "ret ; uses r0",
        ]
    );
}

#[test]
fn one_multiply_pipe_takes_one_multiply_a_cycle() {
    // Two multiplies heading two chains cannot start together: the second goes a cycle
    // later, and the adds that have a slot fill the cycles in between. Single issue put
    // the independent `mov`s last; three-wide, they start beside the first multiply.
    assert_eq!(
        scheduled(vec![
            mul(r(1), r(2), r(3)),
            mul(r(4), r(2), r(3)),
            add(r(5), r(1), r(4)),
            mov(r(6), 1),
            mov(r(7), 2),
            add(r(0), r(5), r(6)),
            ret(),
        ]),
        [
            "mul r1, r2, r3",
            "mov r6, #1",
            "mov r7, #2",
            "mul r4, r2, r3",
            "add r5, r1, r4",
            "add r0, r5, r6",
            "ret ; uses r0",
        ]
    );
}
