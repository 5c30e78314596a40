//! If-conversion on hand-built branches: triangles and diamonds whose arms store, move and
//! copy under the condition, temporaries computed unconditionally, joins moved into the
//! branching block, and the arms that stay branches.

use super::run;
use crate::mir::test_build::{add, b, bcond, block_texts, func, ldr, mov, r, str_, v};
use crate::mir::verifier::verify;
use crate::mir::*;

const INT: RegClass = RegClass::Int;

/// The blocks' instructions after the pass, which the verifier accepts, the blocks inside a
/// loop.
fn after(classes: &[RegClass], blocks: Vec<Vec<MInst>>) -> Vec<Vec<String>> {
    let mut mf = func(classes, blocks);
    for block in &mut mf.blocks {
        block.loop_depth = 1;
    }
    run(&mut mf);
    assert_eq!(verify(&mf), Ok(()));
    block_texts(&mf)
}

fn cmp(rn: Reg, imm: u32) -> MInst {
    MInst::Cmp {
        cond: None,
        rn,
        src: Operand2::Imm(imm),
    }
}

fn ret_of(x: Reg) -> Vec<MInst> {
    vec![
        MInst::Copy { dst: r(0), src: x },
        MInst::Ret { uses: vec![r(0)] },
    ]
}

fn texts(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|l| l.to_string()).collect()
}

/// `if (x != 0) p[1] = 1;`: the temporary is built unconditionally, the store runs under
/// `ne`, and the block jumps to the join; the arm is left jumping there too.
#[test]
fn a_store_under_the_branch_condition() {
    let blocks = vec![
        vec![ldr(v(0), v(1), 0), cmp(v(0), 0), bcond(Cond::Eq, 2), b(1)],
        vec![mov(v(2), 1), str_(v(2), v(1), 4), b(2)],
        vec![add(v(3), v(0), v(0)), b(3)],
        ret_of(v(3)),
    ];
    let got = after(&[INT; 4], blocks);
    assert_eq!(
        got[0],
        texts(&[
            "ldr %v0, [%v1]",
            "cmp %v0, #0",
            "mov %v2, #1",
            "strne %v2, [%v1, #4]",
            "b bb2",
        ])
    );
    assert_eq!(got[1], texts(&["b bb2"]));
}

/// `if (x < 5) a[0] = y; else a[1] = z;` then the join's value: the copies of the join's
/// phi, one per arm, become a first copy run unconditionally and one under `ge`, as a
/// select; the stores run under their arm's condition.
#[test]
fn a_diamond_of_stores_and_phi_copies() {
    let blocks = vec![
        vec![cmp(v(0), 5), bcond(Cond::Lt, 1), b(2)],
        vec![
            str_(v(1), v(4), 0),
            MInst::Copy {
                dst: v(3),
                src: v(1),
            },
            b(3),
        ],
        vec![
            str_(v(2), v(4), 4),
            MInst::Copy {
                dst: v(3),
                src: v(2),
            },
            b(3),
        ],
        vec![add(v(5), v(3), v(3)), b(4)],
        ret_of(v(5)),
    ];
    let got = after(&[INT; 6], blocks);
    assert_eq!(
        got[0],
        texts(&[
            "cmp %v0, #5",
            "strlt %v1, [%v4]",
            "copy %v3, %v1",
            "strge %v2, [%v4, #4]",
            "movge %v3, %v2",
            "b bb3",
        ])
    );
}

/// `if (x == 0) { y = 7; p[0] = y; }` on a false edge: the arm is the branch's
/// fall-through, so it runs under the inverse condition; `y` is live at the branch, so its
/// move is conditional too.
#[test]
fn an_arm_on_the_false_edge_runs_under_the_inverse() {
    let blocks = vec![
        vec![cmp(v(0), 0), bcond(Cond::Ne, 2), b(1)],
        vec![mov(v(1), 7), str_(v(1), v(3), 0), b(2)],
        vec![add(v(2), v(1), v(1)), b(3)],
        ret_of(v(2)),
    ];
    let got = after(&[INT; 4], blocks);
    assert_eq!(
        got[0],
        texts(&["cmp %v0, #0", "moveq %v1, #7", "streq %v1, [%v3]", "b bb2"])
    );
}

/// A float copy for the join runs as `vmov<c>.f32`.
#[test]
fn a_float_copy_runs_as_a_conditional_float_move() {
    let blocks = vec![
        vec![cmp(v(0), 0), bcond(Cond::Gt, 1), b(2)],
        vec![
            str_(v(0), v(3), 0),
            MInst::Copy {
                dst: v(1),
                src: v(2),
            },
            b(2),
        ],
        vec![
            MInst::VStr {
                ss: v(1),
                addr: Addr::Imm(v(3), 4),
            },
            b(3),
        ],
        ret_of(v(0)),
    ];
    let classes = [INT, RegClass::Float, RegClass::Float, INT];
    let got = after(&classes, blocks);
    assert_eq!(
        got[0],
        texts(&[
            "cmp %v0, #0",
            "strgt %v0, [%v3]",
            "vmovgt.f32 %v1, %v2",
            "b bb2",
        ])
    );
}

/// Arms that stay branches: a load into a register another block reads (where the arm
/// would not run, a conditional load leaves nothing in it), more than `MAX_ARM_INSTS`
/// instructions, an arm another block also enters, a physical register, and a compare
/// of the arm's own followed by a store that does not read it.
#[test]
fn arms_that_stay_branches() {
    let arms = [
        vec![ldr(v(0), v(2), 0), str_(v(0), v(2), 4)],
        (0..5).map(|k| str_(v(0), v(2), 4 * k)).collect(),
        vec![mov(r(0), 1), str_(r(0), v(2), 0)],
        vec![cmp(v(2), 1), str_(v(0), v(2), 0)],
    ];
    for arm in arms {
        let mut body = arm;
        body.push(b(2));
        let blocks = vec![
            vec![cmp(v(0), 0), bcond(Cond::Eq, 1), b(2)],
            body,
            ret_of(v(0)),
        ];
        let before = block_texts(&func(&[INT; 3], blocks.clone()));
        assert_eq!(after(&[INT; 3], blocks), before);
    }
    // Block 3 also jumps into the arm.
    let blocks = vec![
        vec![cmp(v(0), 0), bcond(Cond::Eq, 1), b(3)],
        vec![str_(v(0), v(2), 0), b(2)],
        ret_of(v(0)),
        vec![cmp(v(0), 1), bcond(Cond::Eq, 1), b(2)],
    ];
    let before = block_texts(&func(&[INT; 3], blocks.clone()));
    assert_eq!(after(&[INT; 3], blocks), before);
}

/// Two branches in a row each convert, and each block goes on by jumping to its join.
#[test]
fn branches_in_a_row_each_convert() {
    let blocks = vec![
        vec![cmp(v(0), 0), bcond(Cond::Eq, 2), b(1)],
        vec![str_(v(0), v(1), 0), b(2)],
        vec![cmp(v(0), 3), bcond(Cond::Eq, 4), b(3)],
        vec![str_(v(0), v(1), 4), b(4)],
        ret_of(v(0)),
    ];
    let got = after(&[INT; 2], blocks);
    assert_eq!(got[0], texts(&["cmp %v0, #0", "strne %v0, [%v1]", "b bb2"]));
    assert_eq!(
        got[2],
        texts(&["cmp %v0, #3", "strne %v0, [%v1, #4]", "b bb4"])
    );
}

/// A relaxation stays a branch: `if (nd < dist[v]) { dist[v] = nd; pred[v] = u; }`
/// stores where the tested old value was loaded. So does a first visit, `if (t[x] < 0) t[x]
/// = d;`. An exchange, which also stores the old value, converts.
#[test]
fn relaxations_and_first_visits_stay_and_exchanges_convert() {
    let first_visit = vec![
        vec![ldr(v(1), v(2), 8), cmp(v(1), 0), bcond(Cond::Ge, 2), b(1)],
        vec![str_(v(0), v(2), 8), b(2)],
        ret_of(v(0)),
    ];
    let before = block_texts(&func(&[INT; 3], first_visit.clone()));
    assert_eq!(after(&[INT; 3], first_visit), before);
    let relax = vec![
        vec![
            ldr(v(1), v(2), 8),
            MInst::Cmp {
                cond: None,
                rn: v(0),
                src: Operand2::Reg(v(1)),
            },
            bcond(Cond::Ge, 2),
            b(1),
        ],
        vec![str_(v(0), v(2), 8), str_(v(3), v(4), 8), b(2)],
        ret_of(v(0)),
    ];
    let before = block_texts(&func(&[INT; 5], relax.clone()));
    assert_eq!(after(&[INT; 5], relax), before);
    let exchange = vec![
        vec![
            ldr(v(0), v(2), 0),
            ldr(v(1), v(3), 0),
            MInst::Cmp {
                cond: None,
                rn: v(0),
                src: Operand2::Reg(v(1)),
            },
            bcond(Cond::Le, 2),
            b(1),
        ],
        vec![str_(v(1), v(2), 0), str_(v(0), v(3), 0), b(2)],
        ret_of(v(0)),
    ];
    let got = after(&[INT; 4], exchange);
    assert_eq!(
        got[0],
        texts(&[
            "ldr %v0, [%v2]",
            "ldr %v1, [%v3]",
            "cmp %v0, %v1",
            "strgt %v1, [%v2]",
            "strgt %v0, [%v3]",
            "b bb2",
        ])
    );
}

/// Outside loops a branch stays: only the rounds of a loop repay running an arm always.
#[test]
fn blocks_outside_loops_stay() {
    let blocks = vec![
        vec![cmp(v(0), 0), bcond(Cond::Eq, 2), b(1)],
        vec![str_(v(0), v(1), 0), b(2)],
        ret_of(v(0)),
    ];
    let mut mf = func(&[INT; 2], blocks);
    let before = block_texts(&mf);
    run(&mut mf);
    assert_eq!(block_texts(&mf), before);
}

/// `Cond::implies`, which decides whether an arm's own test may run under the branch's
/// condition: a condition implies itself and looser ones, never its inverse or a stricter
/// one.
#[test]
fn conditions_imply_looser_ones() {
    use Cond::*;
    let all = [Eq, Ne, Hs, Lo, Mi, Pl, Vs, Vc, Hi, Ls, Ge, Lt, Gt, Le];
    for c in all {
        assert!(c.implies(c), "{c:?}");
        assert!(!c.implies(c.invert()), "{c:?}");
    }
    for (strict, loose) in [(Gt, Ge), (Gt, Ne), (Lt, Le), (Eq, Le), (Hi, Hs)] {
        assert!(strict.implies(loose), "{strict:?} implies {loose:?}");
        assert!(
            !loose.implies(strict),
            "{loose:?} does not imply {strict:?}"
        );
    }
    assert!(Hi.implies(Ne) && Eq.implies(Ls));
    // Over every flags value, not only those a compare leaves: Z with N != V passes eq
    // and lt, and fails ge and ne.
    assert!(!Eq.implies(Ge) && !Lt.implies(Ne) && !Le.implies(Ne) && !Ge.implies(Hs));
}
