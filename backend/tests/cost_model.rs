//! The cost model: the Cortex-A72's table in the bench model's terms, and the estimates for
//! IR instructions and functions it gives the middle end. (`scripts/test_tools.py` compares
//! the table with llvm-mca.)

use backend::cost_model::CostClass;
use backend::ir_costs::CortexA72;
use middle::cost_model::{CostModel, OffsetReach};
use middle::ir::parser::parse_module;
use middle::ir::{Function, Inst, Module, Value};

#[test]
fn latencies_and_issue_are_the_modelled_cortex_a72_ones() {
    let table: Vec<(u32, u32)> = CostClass::ALL
        .iter()
        .map(|c| (c.latency(), c.issue()))
        .collect();
    assert_eq!(
        table,
        [
            (1, 1),   // add
            (2, 2),   // add with a shifted register, in the multi-cycle pipe
            (3, 2),   // mul
            (12, 8),  // sdiv: the A72 guide's, not the A57 tables' 20
            (4, 2),   // ldr
            (1, 2),   // str
            (5, 1),   // vadd
            (9, 1),   // vmla
            (11, 3),  // vdiv.f32
            (17, 34), // vsqrt.f32
            (5, 1),   // vcvt
            (5, 2),   // vldr
            (1, 2),   // vstr
            (5, 2),   // vmov between a core and a VFP register
        ]
    );
}

const PROGRAM: &str = "\
func @g(%a0: i32) -> i32 {
bb0:
  ret %a0
}

func @f(%a0: i32, %a1: f32, %a2: ptr) -> i32 {
bb0:
  %0 = alloca i32 x 4
  %1 = add %a0, 1
  %2 = mul %1, %a0
  %3 = sdiv %2, %a0
  %4 = srem %3, %1
  %5 = fdiv %a1, 3.0
  %6 = fcmp olt %5, %a1
  %7 = sitofp %4
  %8 = fptosi %7
  %9 = gep %a2, %8, 4
  %10 = gep %a2, %8, 12
  %11 = gep %a2, 3, 12
  %12 = load i32 %9
  store %12, %10
  %13 = call i32 @g(%12)
  %14 = zext %6
  %15 = fneg %a1
  condbr %6, bb1, bb2
bb1:
  br bb2
bb2:
  %16 = phi i32 [%13, bb0], [0, bb1]
  ret %16
}
";

fn program() -> Module {
    parse_module(PROGRAM).unwrap()
}

/// The instructions of `f` in layout order.
fn insts(f: &Function) -> Vec<Inst> {
    f.all_insts().collect()
}

#[test]
fn instruction_costs_and_sizes() {
    let m = program();
    let f = &m.functions[1];
    let expected: [(u32, u32); 21] = [
        (0, 0),  // alloca: a frame slot
        (1, 1),  // add
        (2, 1),  // mul
        (8, 1),  // sdiv by a variable
        (10, 2), // srem by a variable: sdiv, mls
        (3, 1),  // fdiv
        (3, 2),  // fcmp: vcmp, vmrs
        (3, 2),  // sitofp: vmov, vcvt
        (3, 2),  // fptosi: vcvt, vmov
        (2, 1),  // gep, stride 4: add with a shift
        (4, 3),  // gep, stride 12: mov, mul, add
        (1, 1),  // gep, constant index: add
        (2, 1),  // load
        (2, 1),  // store
        (11, 2), // call with one argument: bl, push, pop and a move
        (1, 1),  // zext
        (1, 1),  // fneg
        (1, 1),  // condbr
        (1, 1),  // br
        (0, 0),  // phi
        (1, 1),  // ret
    ];
    let all = insts(f);
    assert_eq!(all.len(), expected.len());
    for (&i, &(cost, size)) in all.iter().zip(&expected) {
        let kind = f.kind(i);
        assert_eq!(
            (CortexA72.inst_cost(kind), CortexA72.inst_size(kind)),
            (cost, size),
            "{kind:?}"
        );
    }
}

#[test]
fn division_by_a_constant_costs_a_multiply_and_four_simple_instructions() {
    let m = parse_module(
        "func @f(%a0: i32) -> i32 {
bb0:
  %0 = sdiv %a0, 7
  %1 = srem %0, 5
  %2 = sdiv %1, 0
  ret %2
}
",
    )
    .unwrap();
    let f = &m.functions[0];
    let costs: Vec<(u32, u32)> = insts(f)
        .iter()
        .map(|&i| {
            (
                CortexA72.inst_cost(f.kind(i)),
                CortexA72.inst_size(f.kind(i)),
            )
        })
        .collect();
    assert_eq!(costs, [(6, 5), (8, 6), (8, 1), (1, 1)]);
}

#[test]
fn function_size_adds_up_its_instructions() {
    let m = program();
    let f = &m.functions[1];
    assert_eq!(
        CortexA72.function_size(f),
        1 + 1 + 1 + 2 + 1 + 2 + 2 + 2 + 1 + 3 + 1 + 1 + 1 + 2 + 1 + 1 + 1 + 1 + 1
    );
    assert_eq!(CortexA72.function_size(&m.functions[0]), 1);
}

#[test]
fn accesses_reach_the_offsets_their_immediates_take() {
    let m = parse_module(
        "func @f(%a0: ptr, %a1: f32) -> i32 {
bb0:
  %0 = gep %a0, 2, 4
  %1 = load i32 %0
  store %a1, %0
  %2 = gep %a0, 3, 4
  %3 = load i32 %2
  %4 = gep %a0, 4, 4
  %5 = gep %4, 1, 4
  ret %3
}
",
    )
    .unwrap();
    let f = &m.functions[0];
    let all = insts(f);
    let core = OffsetReach { max: 4095, step: 1 };
    let float = OffsetReach { max: 1020, step: 4 };
    assert_eq!(CortexA72.access_reach(f, all[1], 0), Some(core));
    assert_eq!(CortexA72.access_reach(f, all[2], 1), Some(float));
    assert_eq!(
        CortexA72.access_reach(f, all[2], 0),
        None,
        "the stored value"
    );
    // An address both an `ldr` and a `vstr` use reaches what both take.
    let both = CortexA72.address_reach(f, Value::Inst(all[0])).unwrap();
    assert_eq!(both, float);
    assert!(both.takes(-1020) && !both.takes(1022) && !both.takes(1024));
    let word = CortexA72.address_reach(f, Value::Inst(all[3])).unwrap();
    assert!(word.takes(-4095) && word.takes(7) && !word.takes(4096));
    assert_eq!(CortexA72.address_reach(f, Value::Inst(all[5])), None);
}
