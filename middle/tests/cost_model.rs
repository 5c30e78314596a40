//! The cost model: its class weights against the bench plugin's table, and its estimates for
//! IR instructions, blocks and functions.

use middle::cost_model::{
    block_cost, function_size, inst_cost, inst_latency, inst_size, CostClass, CALL_OVERHEAD,
    SPILL_COST, SPILL_RELOAD_COST, SPILL_STORE_COST,
};
use middle::ir::parser::parse_module;
use middle::ir::{Function, Inst, Module};

fn plugin_source() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scripts/qemu-plugin/insn_cost.c"
    );
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The `W_NAME = weight,` lines of the plugin's `enum weight`.
fn plugin_weights(source: &str) -> Vec<(String, u32)> {
    let start = source
        .find("enum weight {")
        .expect("the plugin has no `enum weight {`");
    let body = &source[start..];
    let body = &body[body.find('{').unwrap() + 1..body.find("};").unwrap()];
    body.lines()
        .map(|line| line.split("/*").next().unwrap().trim())
        .filter(|line| !line.is_empty())
        .map(|line| {
            let (name, weight) = line
                .trim_end_matches(',')
                .split_once('=')
                .unwrap_or_else(|| panic!("unexpected line in enum weight: {line}"));
            (name.trim().to_string(), weight.trim().parse().unwrap())
        })
        .collect()
}

/// The plugin's name of each class.
const PLUGIN_NAMES: [(&str, CostClass); 13] = [
    ("W_ALU", CostClass::Alu),
    ("W_MULTIPLY", CostClass::Multiply),
    ("W_DIVIDE", CostClass::Divide),
    ("W_LOAD", CostClass::Load),
    ("W_STORE", CostClass::Store),
    ("W_VFP_ARITH", CostClass::VfpArith),
    ("W_VFP_MUL_ACC", CostClass::VfpMulAcc),
    ("W_VFP_DIVIDE", CostClass::VfpDivide),
    ("W_VFP_SQRT", CostClass::VfpSqrt),
    ("W_VFP_CONVERT", CostClass::VfpConvert),
    ("W_VFP_LOAD", CostClass::VfpLoad),
    ("W_VFP_STORE", CostClass::VfpStore),
    ("W_TRANSFER", CostClass::Transfer),
];

#[test]
fn weights_equal_the_plugin_table() {
    let weights = plugin_weights(&plugin_source());
    let plugin: Vec<&str> = weights.iter().map(|(n, _)| n.as_str()).collect();
    let ours: Vec<&str> = PLUGIN_NAMES.iter().map(|(n, _)| *n).collect();
    assert_eq!(plugin, ours, "the plugin's classes changed");
    let classes: Vec<CostClass> = PLUGIN_NAMES.iter().map(|(_, c)| *c).collect();
    assert_eq!(classes, CostClass::ALL, "every class has one plugin name");
    for ((name, weight), (_, class)) in weights.iter().zip(PLUGIN_NAMES) {
        assert_eq!(
            class.weight(),
            *weight,
            "{name}: plugin {weight}, cost model {}",
            class.weight()
        );
    }
}

#[test]
fn the_plugin_weighs_only_through_its_table() {
    let source = plugin_source();
    let start = source.find("static uint64_t weight(").unwrap();
    let body = &source[start..];
    let body = &body[..body.find("\n}\n").unwrap()];
    let mut returns = 0;
    for statement in body.split("return ").skip(1) {
        let expr = &statement[..statement.find(';').unwrap()];
        returns += 1;
        // A number may only be a register count inside parentheses, never a weight.
        let bytes = expr.as_bytes();
        for (i, c) in bytes.iter().enumerate() {
            let starts_number = c.is_ascii_digit()
                && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'));
            if starts_number {
                let rest = expr[i..].trim_start_matches(|c: char| c.is_ascii_digit());
                assert!(
                    rest.trim_start().starts_with(')'),
                    "a literal weight in the plugin's weight(): return {expr}"
                );
            }
        }
    }
    assert!(
        returns >= 12,
        "weight() not found whole ({returns} returns)"
    );
}

#[test]
fn spill_and_call_costs_come_from_the_weights() {
    assert_eq!(SPILL_STORE_COST, 2);
    assert_eq!(SPILL_RELOAD_COST, 3);
    assert_eq!(SPILL_COST, 5);
    // bl, push {r4, lr}, pop {r4, pc}
    assert_eq!(CALL_OVERHEAD, 1 + 2 * 2 + 2 * 3);
}

#[test]
fn latencies_are_the_cortex_a72_ones() {
    assert_eq!(CostClass::Load.latency(), 4);
    assert_eq!(CostClass::Multiply.latency(), 3);
    assert_eq!(CostClass::VfpArith.latency(), 4);
    assert_eq!(CostClass::Alu.latency(), 1);
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
fn instruction_costs_sizes_and_latencies() {
    let m = program();
    let f = &m.functions[1];
    let expected: [(u32, u32, u32); 21] = [
        (0, 0, 0),                  // alloca: a frame slot
        (1, 1, 1),                  // add
        (3, 1, 3),                  // mul
        (12, 1, 12),                // sdiv by a variable
        (15, 2, 15),                // srem by a variable: sdiv, mls
        (10, 1, 11),                // fdiv
        (3, 2, 6),                  // fcmp: vcmp, vmrs
        (5, 2, 8),                  // sitofp: vmov, vcvt
        (5, 2, 8),                  // fptosi: vcvt, vmov
        (1, 1, 1),                  // gep, stride 4: add with a shift
        (5, 3, 5),                  // gep, stride 12: mov, mul, add
        (1, 1, 1),                  // gep, constant index: add
        (3, 1, 4),                  // load
        (2, 1, 1),                  // store
        (CALL_OVERHEAD + 1, 2, 12), // call with one argument
        (1, 1, 1),                  // zext
        (1, 1, 1),                  // fneg
        (1, 1, 1),                  // condbr
        (1, 1, 1),                  // br
        (0, 0, 0),                  // phi
        (1, 1, 1),                  // ret
    ];
    let all = insts(f);
    assert_eq!(all.len(), expected.len());
    for (&i, &(cost, size, latency)) in all.iter().zip(&expected) {
        let kind = f.kind(i);
        assert_eq!(
            (inst_cost(kind), inst_size(kind), inst_latency(kind)),
            (cost, size, latency),
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
        .map(|&i| (inst_cost(f.kind(i)), inst_size(f.kind(i))))
        .collect();
    assert_eq!(costs, [(7, 5), (10, 6), (12, 1), (1, 1)]);
}

#[test]
fn block_cost_and_function_size_add_up_their_instructions() {
    let m = program();
    let f = &m.functions[1];
    let blocks: Vec<_> = f.blocks().collect();
    let entry: u32 = f.block_insts(blocks[0]).map(|i| inst_cost(f.kind(i))).sum();
    assert_eq!(block_cost(f, blocks[0]), entry);
    assert_eq!(
        entry,
        1 + 3 + 12 + 15 + 10 + 3 + 5 + 5 + 1 + 5 + 1 + 3 + 2 + 12 + 1 + 1 + 1
    );
    assert_eq!(block_cost(f, blocks[1]), 1);
    assert_eq!(block_cost(f, blocks[2]), 1);
    assert_eq!(
        function_size(f),
        1 + 1 + 1 + 2 + 1 + 2 + 2 + 2 + 1 + 3 + 1 + 1 + 1 + 2 + 1 + 1 + 1 + 1 + 1
    );
    assert_eq!(function_size(&m.functions[0]), 1);
}
