//! Loads and stores of consecutive words merged into load/store multiples on hand-built
//! blocks: each mode, loads moving up past unrelated work, stores down, VFP lists; and
//! the groups that must stay apart (registers out of order, the base in the list, a
//! conflicting instruction between, stack slots, another block, a single word).

use super::run;
use crate::mir::test_build::{add, blocks_after, ldr, mov, r, s, str_, vldr, vstr};
use crate::mir::*;

fn merged_blocks(blocks: Vec<Vec<MInst>>) -> Vec<Vec<String>> {
    blocks_after(run, blocks)
}

fn merged(insts: Vec<MInst>) -> Vec<String> {
    merged_blocks(vec![insts]).remove(0)
}

fn unchanged(insts: Vec<MInst>) {
    let text: Vec<String> = insts.iter().map(|i| i.to_string()).collect();
    assert_eq!(merged(insts), text);
}

#[test]
fn consecutive_words_into_ascending_registers_load_as_one() {
    assert_eq!(
        merged(vec![
            ldr(r(1), r(0), 0),
            ldr(r(2), r(0), 4),
            ldr(r(5), r(0), 8)
        ]),
        ["ldmia r0, {r1, r2, r5}"]
    );
}

#[test]
fn each_mode_starts_where_its_lowest_word_is() {
    let pair = |off| vec![ldr(r(1), r(0), off), ldr(r(2), r(0), off + 4)];
    assert_eq!(merged(pair(4)), ["ldmib r0, {r1, r2}"]);
    assert_eq!(merged(pair(-4)), ["ldmda r0, {r1, r2}"]);
    assert_eq!(merged(pair(-8)), ["ldmdb r0, {r1, r2}"]);
    // No mode reaches words from 8 on.
    unchanged(pair(8));
}

#[test]
fn a_load_rises_past_work_that_leaves_its_register_and_the_base_alone() {
    assert_eq!(
        merged(vec![
            ldr(r(1), r(0), 0),
            add(r(3), r(1), r(1)),
            mov(r(4), 5),
            ldr(r(2), r(0), 4),
            add(r(0), r(2), r(3)),
        ]),
        [
            "ldmia r0, {r1, r2}",
            "add r3, r1, r1",
            "mov r4, #5",
            "add r0, r2, r3"
        ]
    );
}

#[test]
fn a_store_sinks_past_work_that_leaves_its_register_and_the_base_alone() {
    assert_eq!(
        merged(vec![
            str_(r(1), r(0), 0),
            add(r(2), r(1), r(1)),
            str_(r(2), r(0), 4),
        ]),
        ["add r2, r1, r1", "stmia r0, {r1, r2}"]
    );
}

#[test]
fn registers_out_of_order_or_repeated_stay_apart() {
    unchanged(vec![ldr(r(2), r(0), 0), ldr(r(1), r(0), 4)]);
    unchanged(vec![str_(r(2), r(0), 0), str_(r(2), r(0), 4)]);
}

#[test]
fn the_base_in_the_list_stays_apart() {
    unchanged(vec![ldr(r(1), r(3), 0), ldr(r(3), r(3), 4)]);
    unchanged(vec![str_(r(1), r(3), 0), str_(r(3), r(3), 4)]);
}

#[test]
fn a_conflicting_instruction_between_keeps_the_accesses_apart() {
    // The later load's register is read between.
    unchanged(vec![
        ldr(r(1), r(0), 0),
        add(r(3), r(2), r(2)),
        ldr(r(2), r(0), 4),
    ]);
    // The base changes between.
    unchanged(vec![ldr(r(1), r(0), 0), mov(r(0), 64), ldr(r(2), r(0), 4)]);
    // A store between may write what the later load reads.
    unchanged(vec![
        ldr(r(1), r(0), 0),
        str_(r(7), r(6), 0),
        ldr(r(2), r(0), 4),
    ]);
    // A load between may read what the earlier store writes.
    unchanged(vec![
        str_(r(1), r(0), 0),
        ldr(r(7), r(6), 0),
        str_(r(2), r(0), 4),
    ]);
    // The earlier store's register changes between.
    unchanged(vec![str_(r(1), r(0), 0), mov(r(1), 3), str_(r(2), r(0), 4)]);
    unchanged(vec![
        ldr(r(1), r(0), 0),
        MInst::Bl {
            sym: "f".to_string(),
            uses: vec![],
            defs: vec![],
        },
        ldr(r(2), r(0), 4),
    ]);
}

#[test]
fn stack_slots_another_block_and_single_words_stay() {
    unchanged(vec![
        MInst::Ldr {
            cond: None,
            rd: r(1),
            addr: Addr::Slot(Slot::Local(0), 0),
        },
        MInst::Ldr {
            cond: None,
            rd: r(2),
            addr: Addr::Slot(Slot::Local(0), 4),
        },
    ]);
    assert_eq!(
        merged_blocks(vec![vec![ldr(r(1), r(0), 0)], vec![ldr(r(2), r(0), 4)]]),
        [vec!["ldr r1, [r0]"], vec!["ldr r2, [r0, #4]"]]
    );
    unchanged(vec![ldr(r(1), r(0), 0), ldr(r(2), r(0), 8)]);
}

#[test]
fn vfp_registers_in_sequence_load_and_store_as_one() {
    assert_eq!(
        merged(vec![
            vldr(s(4), r(0), 0),
            vldr(s(5), r(0), 4),
            vldr(s(6), r(0), 8)
        ]),
        ["vldmia r0, {s4, s5, s6}"]
    );
    assert_eq!(
        merged(vec![vstr(s(2), r(1), 0), vstr(s(3), r(1), 4)]),
        ["vstmia r1, {s2, s3}"]
    );
    // A gap in the registers, or words from 4 on (the VFP has no `ib`).
    unchanged(vec![vldr(s(4), r(0), 0), vldr(s(6), r(0), 4)]);
    unchanged(vec![vldr(s(4), r(0), 4), vldr(s(5), r(0), 8)]);
}

#[test]
fn the_longest_start_with_a_mode_merges() {
    // From -8: two words are `db`, three `da`, four none; three merge, the fourth stays.
    assert_eq!(
        merged(vec![
            ldr(r(1), r(0), -8),
            ldr(r(2), r(0), -4),
            ldr(r(3), r(0), 0),
            ldr(r(4), r(0), 4),
        ]),
        ["ldmda r0, {r1, r2, r3}", "ldr r4, [r0, #4]"]
    );
}
