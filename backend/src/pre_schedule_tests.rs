//! Scheduling before allocation on hand-built blocks of virtual registers: loads start
//! early while the pressure allows, every dependence keeps its order, copies keep their
//! registers apart, and a crowded block keeps its order.

use super::{run, schedule, schedule_function, Context, LiveSet};
use crate::mir::test_build::{add, func, ldr, mov, r, str_, v};
use crate::mir::verifier::verify;
use crate::mir::*;
use crate::regalloc::liveness::PHYS_NODES;

fn copy(dst: Reg, src: Reg) -> MInst {
    MInst::Copy { dst, src }
}

fn mul(rd: Reg, rn: Reg, rm: Reg) -> MInst {
    MInst::Mul { rd, rn, rm }
}

fn ret() -> MInst {
    MInst::Ret { uses: vec![r(0)] }
}

/// A one-block function of `n` integer virtual registers.
fn block(n: usize, insts: Vec<MInst>) -> MFunction {
    func(&vec![RegClass::Int; n], vec![insts])
}

/// The instructions of a one-block function after its blocks are scheduled.
fn scheduled(n: usize, insts: Vec<MInst>) -> Vec<String> {
    let mut mf = block(n, insts);
    schedule_function(&mut mf);
    assert_eq!(verify(&mf), Ok(()));
    mf.blocks[0].insts.iter().map(|i| i.to_string()).collect()
}

fn position(out: &[String], s: &str) -> usize {
    out.iter()
        .position(|i| i == s)
        .unwrap_or_else(|| panic!("{s} not in {out:?}"))
}

#[test]
fn a_load_rises_above_independent_alu_work() {
    let mut mf = block(
        5,
        vec![
            copy(v(0), r(0)),
            mov(v(1), 7),
            add(v(2), v(1), v(1)),
            ldr(v(3), v(0), 0),
            add(v(4), v(3), v(2)),
            copy(r(0), v(4)),
            ret(),
        ],
    );
    run(&mut mf, 2);
    assert_eq!(verify(&mf), Ok(()));
    let out: Vec<String> = mf.blocks[0].insts.iter().map(|i| i.to_string()).collect();
    assert_eq!(
        out[..2],
        ["copy %v0, r0", "ldr %v3, [%v0]"],
        "the load starts right after its base: {out:?}"
    );
}

#[test]
fn registers_keep_their_reads_and_writes_in_order() {
    // %v1 is read, then redefined by a load (WAR), then read (RAW); %v2 is written twice
    // (WAW) and the second value is the one returned.
    let out = scheduled(
        6,
        vec![
            add(v(2), v(1), v(1)),
            mov(v(5), 1),
            ldr(v(1), v(0), 4),
            add(v(3), v(1), v(2)),
            mov(v(2), 9),
            add(v(4), v(2), v(3)),
            copy(r(0), v(4)),
            ret(),
        ],
    );
    assert!(position(&out, "add %v2, %v1, %v1") < position(&out, "ldr %v1, [%v0, #4]"));
    assert!(position(&out, "ldr %v1, [%v0, #4]") < position(&out, "add %v3, %v1, %v2"));
    assert!(position(&out, "add %v3, %v1, %v2") < position(&out, "mov %v2, #9"));
    assert!(position(&out, "mov %v2, #9") < position(&out, "add %v4, %v2, %v3"));
}

#[test]
fn flags_and_memory_keep_their_order() {
    let out = scheduled(
        8,
        vec![
            MInst::Cmp {
                cond: None,
                rn: v(1),
                src: Operand2::Imm(0),
            },
            MInst::Mov {
                cond: Some(Cond::Eq),
                rd: v(2),
                src: Operand2::Imm(1),
            },
            str_(v(2), v(0), 0),
            ldr(v(3), v(0), 8),
            ldr(v(4), v(0), 12),
            MInst::Cmp {
                cond: None,
                rn: v(3),
                src: Operand2::Imm(5),
            },
            mul(v(5), v(4), v(4)),
            str_(v(5), v(0), 4),
            MInst::BCond {
                cond: Cond::Gt,
                target: MBlockId(0),
            },
            ret(),
        ],
    );
    assert!(position(&out, "cmp %v1, #0") < position(&out, "moveq %v2, #1"));
    assert!(position(&out, "moveq %v2, #1") < position(&out, "cmp %v3, #5"));
    assert!(position(&out, "str %v2, [%v0]") < position(&out, "ldr %v3, [%v0, #8]"));
    assert!(position(&out, "str %v2, [%v0]") < position(&out, "ldr %v4, [%v0, #12]"));
    assert!(position(&out, "ldr %v3, [%v0, #8]") < position(&out, "str %v5, [%v0, #4]"));
    assert_eq!(out[8..], ["bgt bb0", "ret ; uses r0"]);
}

#[test]
fn nothing_crosses_a_call() {
    let call = MInst::Bl {
        sym: "getint".into(),
        uses: vec![],
        defs: vec![r(0)],
    };
    let out = scheduled(
        6,
        vec![
            mov(v(1), 3),
            add(v(2), v(1), v(1)),
            call,
            ldr(v(3), v(0), 0),
            add(v(4), v(3), v(3)),
            copy(r(0), v(4)),
            ret(),
        ],
    );
    assert_eq!(out[2], "bl getint ; defs r0");
    assert_eq!(out[3], "ldr %v3, [%v0]");
}

#[test]
fn a_definition_stays_after_the_reads_of_its_copy_partner() {
    // The copy heads the longest path, but the add still reads %v1: hoisting the copy
    // above it would make %v1 and %v2 interfere and cost the allocator the coalescing.
    let out = scheduled(
        9,
        vec![
            add(v(5), v(1), v(1)),
            copy(v(2), v(1)),
            ldr(v(6), v(2), 0),
            mul(v(7), v(6), v(6)),
            add(v(8), v(7), v(5)),
            copy(r(0), v(8)),
            ret(),
        ],
    );
    assert!(position(&out, "add %v5, %v1, %v1") < position(&out, "copy %v2, %v1"));
}

/// A chain summing eight loads, each added as soon as it is loaded: the order of least
/// pressure.
fn sum_of_loads() -> Vec<MInst> {
    let mut insts = vec![mov(v(1), 0)];
    for i in 0..8u32 {
        insts.push(ldr(v(10 + i), v(0), 4 * i as i32));
        let sum = if i == 0 { v(1) } else { v(19 + i) };
        insts.push(add(v(20 + i), sum, v(10 + i)));
    }
    insts
}

fn schedule_sum(live_through: &[u32]) -> Option<Vec<usize>> {
    let mf = block(40, sum_of_loads());
    let context = Context::new(&mf);
    let mut live = LiveSet::new(context.counted.len());
    let mut out: Vec<usize> = live_through
        .iter()
        .map(|&x| PHYS_NODES + x as usize)
        .collect();
    out.push(PHYS_NODES + 27);
    live.reset(&out, &context.counted);
    schedule(&mf.blocks[0].insts, &live, &context)
}

#[test]
fn loads_rise_while_registers_are_free() {
    let order = schedule_sum(&[]).expect("a new order");
    // The loads go first, up to where the pressure nears the registers available.
    let loads_first = order.iter().take_while(|&&k| k % 2 == 1 || k == 0).count();
    assert!(loads_first >= 4, "{order:?}");
}

#[test]
fn a_crowded_block_keeps_its_order() {
    // Eleven registers live across the block, with the base, the sum and a loaded value
    // the original order peaks at fourteen: every load hoisted would exceed that.
    assert_eq!(schedule_sum(&(29..40).collect::<Vec<u32>>()), None);
}
