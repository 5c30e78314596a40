//! The matcher: which rule selects each instruction, what the rules fold, and the tables'
//! own consistency.

use super::{Match, RULES};
use crate::isel::with_selector;
use middle::ir::parser::parse_module;
use middle::ir::{Type, Value};

/// For each instruction with a result of the first function of `ir`, in layout order: the
/// rule that selects it and whether it is folded into its users.
fn rules_of(ir: &str) -> Vec<(&'static str, bool)> {
    let m = parse_module(ir).expect("the test IR parses");
    let f = &m.functions[0];
    with_selector(&m, f, |mut s| {
        s.prepare();
        f.all_insts()
            .filter(|&i| f.inst(i).ty != Type::Void)
            .map(|i| {
                let rule = s.matched(i).map_or("", |m: Match| m.rule.name);
                (rule, s.folded[i.index()])
            })
            .collect()
    })
}

#[test]
fn the_tables_name_each_rule_once_and_every_rule_emits() {
    assert!(RULES.rules.len() > 10);
    assert!(RULES.rules.iter().all(|r| r.emit.is_some()));
}

#[test]
fn a_rule_folding_an_operand_is_the_only_one_its_user_takes() {
    let rules = rules_of(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = lshr %a0, 3
  %1 = sub %0, %a1
  %2 = mul %a0, %a1
  %3 = add %1, %2
  %4 = lshr %a1, 2
  %5 = add %4, %4
  ret %5
}
",
    );
    assert_eq!(
        rules,
        [
            // Folded into %1, selected by its own rule all the same.
            ("lsr", true),
            ("rsb-shifted", false),
            ("mul", true),
            ("mla", false),
            // Used twice by one addition: no shift folds.
            ("lsr", false),
            ("add", false),
        ]
    );
}

#[test]
fn a_predicated_operation_reads_its_operands_as_the_select_gives_them() {
    let m = parse_module(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = add %a0, %a1
  ret %0
}
",
    )
    .expect("the test IR parses");
    let f = &m.functions[0];
    with_selector(&m, f, |mut s| {
        s.prepare();
        let add = f.all_insts().next().expect("an addition");
        let rd = s.new_vreg(crate::mir::RegClass::Int);
        let read = |v: Value| {
            if v == Value::Param(0) {
                Value::Int(7)
            } else {
                v
            }
        };
        let m = s.matched(add).expect("a rule").computed_into(rd, read);
        assert_eq!(m.dst(), rd);
        assert_eq!(
            [
                m.value(middle::ir::pattern::A),
                m.value(middle::ir::pattern::B)
            ],
            [Value::Int(7), Value::Param(1)]
        );
    });
}

#[test]
fn a_select_folds_what_it_computes_under_its_condition_and_a_clamp_its_inner_select() {
    let rules = rules_of(
        "func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = icmp sgt %a0, 255
  %1 = icmp slt %a0, 0
  %2 = select i32 %1, 0, %a0
  %3 = select i32 %0, 255, %2
  %4 = sub %a1, 1
  %5 = icmp eq %a1, 93
  %6 = select i32 %5, %4, %a1
  %7 = add %3, %6
  ret %7
}
",
    );
    assert_eq!(
        rules[2..5],
        [("select", true), ("usat-else", false), ("sub", true)]
    );
    assert_eq!(rules[6], ("select", false));
}

#[test]
fn a_branch_folds_its_comparison_a_comparison_its_mask_and_accesses_their_addresses() {
    let rules = rules_of(
        "func @f(%a0: ptr, %a1: i32) -> i32 {
bb0:
  %0 = and %a1, 8
  %1 = icmp ne %0, 0
  %2 = gep %a0, %a1, 4
  %3 = load i32 %2
  %4 = sub 0, %a1
  %5 = gep %a0, %4, 4
  %6 = load i32 %5
  %7 = gep %a0, %a1, 8
  %8 = load i32 %7
  %9 = add %3, %6
  %10 = add %9, %8
  condbr %1, bb1, bb2
bb1:
  ret %10
bb2:
  ret %7
}
",
    );
    assert_eq!(rules[..2], [("and", true), ("tst", true)]);
    assert_eq!(rules[2..4], [("gep", true), ("ldr", false)]);
    // The negation is folded into the address, which the load folds in turn.
    assert_eq!(
        rules[4..7],
        [("sub", true), ("sub-index", true), ("ldr", false)]
    );
    // Returned as well as loaded from: computed.
    assert_eq!(rules[7..9], [("gep", false), ("ldr", false)]);
}
