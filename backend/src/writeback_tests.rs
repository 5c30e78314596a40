//! Pointer bumps folded into indexed loads and stores on hand-built blocks: after and
//! before the access, with an unrolled body's other offsets moved, for `vldr`/`vstr` as
//! one-register `vldm`/`vstm`, and into load/store multiples; and the cases that must stay
//! (the pointer used between, loaded into itself, offsets out of range, flags, another
//! block, a call between).

use super::run;
use crate::mir::test_build::{blocks_after, func, ldr, mov, r, ret, s, str_, vldr, vstr};
use crate::mir::verifier::verify;
use crate::mir::*;

fn bump(op: AluOp, p: Reg, imm: u32) -> MInst {
    MInst::Alu {
        cond: None,
        op,
        rd: p,
        rn: p,
        src: Operand2::Imm(imm),
    }
}

fn ldmia(base: Reg, regs: Vec<Reg>) -> MInst {
    MInst::Ldm {
        mode: BlockMode::Ia,
        base,
        writeback: false,
        regs,
    }
}

fn folded_blocks(blocks: Vec<Vec<MInst>>) -> Vec<Vec<String>> {
    blocks_after(run, blocks)
}

fn folded(insts: Vec<MInst>) -> Vec<String> {
    folded_blocks(vec![insts]).remove(0)
}

fn unchanged(insts: Vec<MInst>) {
    let text: Vec<String> = insts.iter().map(|i| i.to_string()).collect();
    assert_eq!(folded(insts), text);
}

#[test]
fn a_load_before_the_bump_post_indexes() {
    assert_eq!(
        folded(vec![
            ldr(r(1), r(0), 0),
            mov(r(2), 7),
            bump(AluOp::Add, r(0), 4)
        ]),
        ["ldr r1, [r0], #4", "mov r2, #7"]
    );
}

#[test]
fn an_unrolled_body_keeps_its_other_offsets_from_the_new_pointer() {
    assert_eq!(
        folded(vec![
            ldr(r(1), r(0), 0),
            ldr(r(2), r(0), 4),
            str_(r(3), r(0), 8),
            bump(AluOp::Add, r(0), 12),
        ]),
        [
            "ldr r1, [r0], #12",
            "ldr r2, [r0, #-8]",
            "str r3, [r0, #-4]"
        ]
    );
}

#[test]
fn a_store_after_a_decrement_pre_indexes() {
    assert_eq!(
        folded(vec![
            bump(AluOp::Sub, r(4), 4),
            ldr(r(1), r(4), 8),
            str_(r(2), r(4), 0),
        ]),
        ["ldr r1, [r4, #4]", "str r2, [r4, #-4]!"]
    );
    assert_eq!(
        folded(vec![bump(AluOp::Add, r(4), 16), ldr(r(1), r(4), 0)]),
        ["ldr r1, [r4, #16]!"]
    );
}

#[test]
fn the_pointer_read_or_written_between_keeps_the_bump() {
    unchanged(vec![
        ldr(r(1), r(0), 0),
        MInst::Copy {
            dst: r(2),
            src: r(0),
        },
        bump(AluOp::Add, r(0), 4),
    ]);
    // A store of the pointer itself at [p, #4] reads it as a value.
    unchanged(vec![
        ldr(r(1), r(0), 0),
        str_(r(0), r(0), 4),
        bump(AluOp::Add, r(0), 4),
    ]);
    unchanged(vec![
        bump(AluOp::Add, r(0), 4),
        MInst::Ldr {
            cond: None,
            rd: r(2),
            addr: Addr::Index(r(3), r(0), 2),
        },
        ldr(r(1), r(0), 0),
    ]);
}

#[test]
fn a_load_into_the_pointer_itself_keeps_the_bump() {
    unchanged(vec![ldr(r(0), r(0), 0), bump(AluOp::Add, r(0), 4)]);
    unchanged(vec![bump(AluOp::Add, r(0), 4), str_(r(0), r(0), 0)]);
}

#[test]
fn offsets_that_do_not_encode_keep_the_bump() {
    // 4096 encodes as an operand2 but not as a load's offset.
    unchanged(vec![ldr(r(1), r(0), 0), bump(AluOp::Add, r(0), 4096)]);
    // The other access would need -4000 - 200.
    unchanged(vec![
        ldr(r(1), r(0), 0),
        ldr(r(2), r(0), -4000),
        bump(AluOp::Add, r(0), 200),
    ]);
    // vldr offsets are multiples of 4 up to 1020.
    unchanged(vec![
        ldr(r(1), r(0), 0),
        vldr(s(2), r(0), 1000),
        bump(AluOp::Sub, r(0), 40),
    ]);
}

#[test]
fn a_flag_setting_or_predicated_bump_stays() {
    unchanged(vec![
        ldr(r(1), r(0), 0),
        MInst::AluS {
            op: AluOp::Add,
            rd: r(0),
            rn: r(0),
            src: Operand2::Imm(4),
        },
    ]);
    unchanged(vec![
        ldr(r(1), r(0), 0),
        MInst::Alu {
            cond: Some(Cond::Ne),
            op: AluOp::Add,
            rd: r(0),
            rn: r(0),
            src: Operand2::Imm(4),
        },
    ]);
    // Not a bump of the base: a different destination.
    unchanged(vec![
        ldr(r(1), r(0), 0),
        MInst::Alu {
            cond: None,
            op: AluOp::Add,
            rd: r(2),
            rn: r(0),
            src: Operand2::Imm(4),
        },
    ]);
}

#[test]
fn an_access_in_another_block_stays() {
    assert_eq!(
        folded_blocks(vec![
            vec![ldr(r(1), r(0), 0)],
            vec![bump(AluOp::Add, r(0), 4)]
        ]),
        [vec!["ldr r1, [r0]"], vec!["add r0, r0, #4"]]
    );
}

#[test]
fn a_call_between_keeps_the_bump() {
    unchanged(vec![
        ldr(r(1), r(4), 0),
        MInst::Bl {
            sym: "f".to_string(),
            uses: vec![],
            defs: vec![],
        },
        bump(AluOp::Add, r(4), 4),
    ]);
}

#[test]
fn vfp_accesses_step_by_one_word_as_vldm_and_vstm() {
    assert_eq!(
        folded(vec![vldr(s(3), r(0), 0), bump(AluOp::Add, r(0), 4)]),
        ["vldmia r0!, {s3}"]
    );
    assert_eq!(
        folded(vec![bump(AluOp::Sub, r(0), 4), vstr(s(1), r(0), 0)]),
        ["vstmdb r0!, {s1}"]
    );
    // No VFP form steps by 8, or by 4 before the access.
    unchanged(vec![vldr(s(3), r(0), 0), bump(AluOp::Add, r(0), 8)]);
    unchanged(vec![bump(AluOp::Add, r(0), 4), vldr(s(3), r(0), 0)]);
}

#[test]
fn a_load_multiple_takes_the_bump_of_its_writeback() {
    assert_eq!(
        folded(vec![
            ldmia(r(0), vec![r(1), r(2)]),
            bump(AluOp::Add, r(0), 8)
        ]),
        ["ldmia r0!, {r1, r2}"]
    );
    assert_eq!(
        folded(vec![
            bump(AluOp::Sub, r(0), 8),
            ldmia(r(0), vec![r(1), r(2)])
        ]),
        ["ldmdb r0!, {r1, r2}"]
    );
    unchanged(vec![
        ldmia(r(0), vec![r(1), r(2)]),
        bump(AluOp::Add, r(0), 4),
    ]);
}

#[test]
fn an_indexed_access_reads_and_writes_its_base() {
    let post = MInst::Ldr {
        cond: None,
        rd: r(1),
        addr: Addr::PostIndex(r(0), 4),
    };
    assert_eq!(post.regs(), [(r(0), Role::UseDef), (r(1), Role::Def)]);
    let pre = MInst::Str {
        cond: None,
        rs: r(1),
        addr: Addr::PreIndex(r(0), -4),
    };
    assert_eq!(pre.regs(), [(r(1), Role::Use), (r(0), Role::UseDef)]);
}

#[test]
fn the_verifier_rejects_indexed_forms_the_hardware_lacks() {
    let check = |inst: MInst| verify(&func(&[], vec![vec![inst, ret()]]));
    assert!(check(MInst::Ldr {
        cond: None,
        rd: r(0),
        addr: Addr::PostIndex(r(0), 4)
    })
    .is_err());
    assert!(check(MInst::Ldr {
        cond: None,
        rd: r(1),
        addr: Addr::PreIndex(r(0), 4096)
    })
    .is_err());
    assert!(check(MInst::VLdr {
        sd: s(0),
        addr: Addr::PostIndex(r(0), 4)
    })
    .is_err());
    assert!(check(MInst::VLdm {
        mode: BlockMode::Db,
        base: r(0),
        writeback: false,
        regs: vec![s(0)]
    })
    .is_err());
    assert!(check(ldmia(r(0), vec![r(2), r(1)])).is_err());
    assert!(check(ldmia(r(0), vec![r(0), r(1)])).is_err());
    assert!(check(ldmia(r(0), vec![r(1), r(2)])).is_ok());
}

#[test]
fn a_store_of_a_value_its_block_computes_leaves_the_bump_alone() {
    // `c[i] = c[i] + k`: writing the pointer back with the store would make the next
    // round's load wait for this round's add; the load takes the bump instead.
    assert_eq!(
        folded(vec![
            ldr(r(1), r(0), 0),
            crate::mir::test_build::add(r(1), r(1), r(5)),
            str_(r(1), r(0), 0),
            bump(AluOp::Add, r(0), 4),
        ]),
        ["ldr r1, [r0], #4", "add r1, r1, r5", "str r1, [r0, #-4]"]
    );
    // Stored alone, the computed value leaves the add in place.
    unchanged(vec![
        crate::mir::test_build::add(r(1), r(2), r(5)),
        str_(r(1), r(0), 0),
        bump(AluOp::Add, r(0), 4),
    ]);
    // A value from before the block is no wait: the store takes the bump.
    assert_eq!(
        folded(vec![str_(r(1), r(0), 0), bump(AluOp::Add, r(0), 4)]),
        ["str r1, [r0], #4"]
    );
}
