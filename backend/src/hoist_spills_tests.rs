//! Reloads of a spilled value in a loop that only reads it move before the loop, on
//! hand-built functions: into a register the loop leaves free and the frame saves anyway,
//! never when the loop stores the slot, when the slot's address is taken, when a way into
//! the loop leads elsewhere too, or when no register is free.

use super::run;
use crate::mir::test_build::{add, b, bcond, block_texts, func, mov, r, ret};
use crate::mir::verifier::verify;
use crate::mir::*;

fn reload(rd: Reg, slot: u32) -> MInst {
    MInst::Ldr {
        cond: None,
        rd,
        addr: Addr::Slot(Slot::Local(slot), 0),
    }
}

fn spill(rs: Reg, slot: u32) -> MInst {
    MInst::Str {
        cond: None,
        rs,
        addr: Addr::Slot(Slot::Local(slot), 0),
    }
}

fn cmp(rn: Reg, rm: Reg) -> MInst {
    MInst::Cmp {
        cond: None,
        rn,
        src: Operand2::Reg(rm),
    }
}

fn call() -> MInst {
    MInst::Bl {
        sym: "f".into(),
        uses: vec![],
        defs: vec![],
    }
}

/// A fill loop (block 2) that reloads its bound from slot 0 every round (followed by the
/// copy to itself that allocation leaves where it coalesced), entered from block 1, after `before` in block 0 (which spills the bound); block 3 returns. `body` goes
/// before the loop's test.
fn fill_loop(before: Vec<MInst>, body: Vec<MInst>) -> Vec<Vec<MInst>> {
    let mut entry = vec![mov(r(2), 7), spill(r(2), 0)];
    entry.extend(before);
    entry.push(b(1));
    let mut round = body;
    round.extend([
        add(r(1), r(1), r(0)),
        reload(r(2), 0),
        MInst::Copy {
            dst: r(2),
            src: r(2),
        },
        cmp(r(1), r(2)),
        bcond(Cond::Ne, 2),
        b(3),
    ]);
    vec![entry, vec![mov(r(1), 0), b(2)], round, vec![ret()]]
}

/// Each block's instructions, as text, after the pass ran on a function of these blocks
/// with one 4-byte stack slot, each block `(b, f)` of `frequencies` run `f` times per call.
fn after_run(blocks: Vec<Vec<MInst>>, frequencies: &[(u32, f64)]) -> Vec<Vec<String>> {
    let mut mf = func(&[], blocks);
    mf.objects.push(StackObject { size: 4 });
    for &(b, f) in frequencies {
        mf.block_mut(MBlockId(b)).frequency = f;
    }
    run(&mut mf);
    assert_eq!(verify(&mf), Ok(()));
    block_texts(&mf)
}

/// `after_run` for a fill loop, its block 2 run ten times per entry, with the slot's
/// address taken at the start when `address_taken`.
fn after(mut blocks: Vec<Vec<MInst>>, address_taken: bool) -> Vec<Vec<String>> {
    if address_taken {
        let take = MInst::SlotAddr {
            rd: r(3),
            slot: Slot::Local(0),
            offset: 0,
        };
        blocks[0].insert(0, take);
    }
    after_run(blocks, &[(2, 10.0)])
}

#[test]
fn a_bound_the_loop_only_reads_is_loaded_once_before_it() {
    let out = after(fill_loop(vec![], vec![]), false);
    let hoisted = "ldr r3, [local0]";
    assert_eq!(out[1], ["mov r1, #0", hoisted, "b bb2"], "{out:?}");
    assert_eq!(out[2][1], "cmp r1, r3", "{out:?}");
    assert!(
        out[2]
            .iter()
            .all(|i| !i.starts_with("ldr") && !i.starts_with("copy")),
        "{out:?}"
    );
}

#[test]
fn a_slot_stored_in_the_loop_or_whose_address_is_taken_keeps_its_reloads() {
    let out = after(fill_loop(vec![], vec![spill(r(1), 0)]), false);
    assert!(out[2].iter().any(|i| i.starts_with("ldr r2")), "{out:?}");
    let out = after(fill_loop(vec![], vec![]), true);
    assert!(out[2].iter().any(|i| i.starts_with("ldr r2")), "{out:?}");
}

#[test]
fn a_loop_with_a_call_takes_only_a_register_the_frame_saves_already() {
    // With a call in the loop, r3 and the other caller-saved registers are clobbered, and no
    // callee-saved register is written: the reload stays.
    let out = after(fill_loop(vec![], vec![call()]), false);
    assert!(out[2].iter().any(|i| i.starts_with("ldr r2")), "{out:?}");
    // r4 is written after the loop, so the frame saves it anyway.
    let mut blocks = fill_loop(vec![], vec![call()]);
    blocks[3].insert(0, mov(r(4), 1));
    let out = after(blocks, false);
    assert_eq!(out[1][1], "ldr r4, [local0]", "{out:?}");
    assert!(out[2].iter().all(|i| !i.starts_with("ldr")), "{out:?}");
}

#[test]
fn a_reload_read_past_its_block_or_by_a_call_stays() {
    let mut blocks = fill_loop(vec![], vec![]);
    blocks[3].insert(0, add(r(0), r(2), r(2)));
    let out = after(blocks, false);
    assert!(out[2].iter().any(|i| i.starts_with("ldr r2")), "{out:?}");
    assert_eq!(out[1], ["mov r1, #0", "b bb2"], "{out:?}");
    // The call reads its argument in r2 (written here as a use of the call).
    let mut blocks = fill_loop(vec![mov(r(4), 1)], vec![]);
    blocks[2].insert(
        2,
        MInst::Bl {
            sym: "f".into(),
            uses: vec![r(2)],
            defs: vec![],
        },
    );
    let out = after(blocks, false);
    assert!(out[2].iter().any(|i| i.starts_with("ldr r2")), "{out:?}");
}

#[test]
fn a_way_in_that_also_leads_elsewhere_keeps_the_reloads() {
    let mut blocks = fill_loop(vec![], vec![]);
    blocks[1] = vec![mov(r(1), 0), cmp(r(1), r(0)), bcond(Cond::Eq, 3), b(2)];
    let out = after(blocks, false);
    assert!(out[2].iter().any(|i| i.starts_with("ldr r2")), "{out:?}");
}

#[test]
fn a_loop_without_a_free_register_keeps_the_reloads() {
    // Every allocatable register but ip is mentioned in the loop or live through it.
    let body: Vec<MInst> = [3u8, 14, 4, 5, 6, 7, 8, 9, 10, 11]
        .into_iter()
        .map(|n| add(r(n), r(n), r(0)))
        .collect();
    let out = after(fill_loop(vec![], body), false);
    assert!(out[2].iter().any(|i| i.starts_with("ldr r2")), "{out:?}");
}

/// A loop (blocks 1 to 4, entered from block 0) that stores the base in r4 to slot 0
/// (block 2) on the way into an inner loop (block 3) that clobbers r4, and reloads it after
/// (block 4), the way allocation splits an outer level's values around an inner one.
/// `between` goes in the outer loop's header (block 1).
fn split_around(between: Vec<MInst>) -> Vec<Vec<MInst>> {
    let mut header = between;
    header.extend([add(r(5), r(5), r(4)), b(2)]);
    vec![
        vec![mov(r(4), 64), mov(r(5), 0), b(1)],
        header,
        vec![spill(r(4), 0), b(3)],
        vec![
            mov(r(4), 3),
            add(r(5), r(5), r(4)),
            cmp(r(5), r(4)),
            bcond(Cond::Ne, 3),
            b(4),
        ],
        vec![reload(r(4), 0), cmp(r(5), r(4)), bcond(Cond::Ne, 1), b(5)],
        vec![ret()],
    ]
}

/// `after_run` for a split around an inner loop: the outer loop's blocks run ten times per
/// entry and the inner one's a hundred.
fn after_split(blocks: Vec<Vec<MInst>>) -> Vec<Vec<String>> {
    after_run(blocks, &[(1, 10.0), (2, 10.0), (3, 100.0), (4, 10.0)])
}

#[test]
fn a_store_of_what_the_slot_holds_since_the_last_round_goes_before_the_loop() {
    let out = after_split(split_around(vec![]));
    assert_eq!(
        out[0],
        ["mov r4, #64", "mov r5, #0", "str r4, [local0]", "b bb1"],
        "{out:?}"
    );
    assert_eq!(out[2], ["b bb3"], "{out:?}");
}

#[test]
fn a_store_of_a_value_changed_in_the_round_stays() {
    let out = after_split(split_around(vec![add(r(4), r(4), r(5))]));
    assert_eq!(out[2], ["str r4, [local0]", "b bb3"], "{out:?}");
    assert_eq!(out[0], ["mov r4, #64", "mov r5, #0", "b bb1"], "{out:?}");
}

#[test]
fn a_store_whose_slot_is_read_before_it_or_whose_register_a_call_clobbers_stays() {
    // The header reads the slot's value from before the loop in the first round.
    let out = after_split(split_around(vec![reload(r(6), 0), add(r(5), r(5), r(6))]));
    assert_eq!(out[2], ["str r4, [local0]", "b bb3"], "{out:?}");
    // The base is in r2, which the call in the header clobbers.
    let mut blocks = split_around(vec![call()]);
    blocks[0][0] = mov(r(2), 64);
    blocks[2][0] = spill(r(2), 0);
    blocks[4][0] = reload(r(2), 0);
    let out = after_split(blocks);
    assert_eq!(out[2], ["str r2, [local0]", "b bb3"], "{out:?}");
}

#[test]
fn a_store_that_leads_into_no_inner_loop_stays() {
    // Block 3 runs once per round: the store may sit on an arm that few rounds take.
    let mut blocks = split_around(vec![]);
    blocks[3][3] = bcond(Cond::Ne, 4);
    let out = after_split(blocks);
    assert_eq!(out[2], ["str r4, [local0]", "b bb3"], "{out:?}");
    assert_eq!(out[0], ["mov r4, #64", "mov r5, #0", "b bb1"], "{out:?}");
}
