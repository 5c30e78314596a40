//! Rewrite rules and value-numbering keys on handwritten IR.

use backend::ir_costs::CortexA72;
use middle::ir::parser::parse_module;
use middle::ir::pattern::*;
use middle::ir::printer::print_module;
use middle::ir::verifier::verify_module;
use middle::ir::{
    load_key, value_key, BinaryOp, CastOp, Function, Inst, IntPred, Module, Opcode, Type, Value,
};
use middle::pass_manager::PassManager;

/// A rule table as instruction combining will write it.
fn rules() -> Vec<Rule> {
    vec![
        Rule::new("x+0", add(var(X), int(0)).commute(), var(X)),
        Rule::new("x-x", sub(var(X), var(X)), int(0)),
        Rule::new(
            "(x-y)+y",
            add(sub(var(X), var(Y)), var(Y)).commute(),
            var(X),
        ),
        Rule::new(
            "(x op c1) op c2",
            binary(
                OP,
                one_use(binary(OP, var(X), int_const(C1))),
                int_const(C2),
            ),
            binary(OP, var(X), fold(OP, C1, C2)),
        )
        .when(|_, b| b.op(OP).opcode().is_associative()),
        Rule::new("x*-1", mul(var(X), int(-1)).commute(), sub(int(0), var(X))),
        Rule::new("--x", fneg(fneg(var(X))), var(X)),
        Rule::new(
            "x-y ==/!= 0",
            icmp(PRED, sub(var(X), var(Y)), int(0)),
            icmp(PRED, var(X), var(Y)),
        )
        .when(|_, b| matches!(b.pred(PRED), IntPred::Eq | IntPred::Ne)),
        Rule::new("x/1", sdiv(var(X), int_const(C1)), var(X)).when(|_, b| b.int(C1) == 1),
        Rule::new("x*2.0", fmul(var(X), float(2.0)), fadd(var(X), var(X))),
        Rule::new(
            "fptosi(sitofp(zext b))",
            cast(
                CastOp::FpToSi,
                cast(CastOp::SiToFp, bind(X, cast(CastOp::Zext, any()))),
            ),
            var(X),
        ),
        Rule::new(
            "a*c-b*c",
            sub(
                one_use(mul(var(A), var(C)).commute()),
                one_use(mul(var(B), var(C)).commute()),
            ),
            mul(sub(var(A), var(B)), var(C)),
        ),
        Rule::new(
            "(0-x)+y",
            add(one_use(sub(int(0), var(X))), var(Y)).commute(),
            sub(var(Y), var(X)),
        ),
        Rule::new("x op identity", binary(OP, var(X), bind(C1, any())), var(X)).when(|_, b| {
            let identity = b.op(OP).opcode().identity();
            identity.is_some_and(|e| e.value == b.value(C1))
        }),
    ]
}

const INPUT: &str = "\
func @f(%a0: i32, %a1: i32, %a2: f32, %a3: i32) -> i32 {
bb0:
  %0 = add 0, %a0
  %1 = sub %a1, %a1
  %2 = sub %a0, %a1
  %3 = add %a1, %2
  %4 = add %a0, 3
  %5 = add %4, 4
  %6 = mul %a1, 5
  %7 = mul %6, 6
  %8 = add %6, %7
  %9 = mul -1, %a3
  %10 = fneg %a2
  %11 = fneg %10
  %12 = sub %a0, %a3
  %13 = icmp ne %12, 0
  %14 = icmp slt %12, 0
  %15 = sdiv %a3, 1
  %16 = sdiv %a3, 2
  %17 = fmul %a2, 2.0
  %18 = fmul 2.0, %a2
  %19 = zext %13
  %20 = sitofp %19
  %21 = fptosi %20
  %22 = mul %a0, %a3
  %23 = mul %a3, %a1
  %24 = sub %22, %23
  %25 = sub 0, %a1
  %26 = add %a3, %25
  %27 = fdiv %11, 1.0
  %28 = fadd %17, %18
  %29 = fadd %28, %27
  %30 = fptosi %29
  %31 = zext %14
  %32 = add %0, %1
  %33 = add %32, %3
  %34 = add %33, %5
  %35 = add %34, %8
  %36 = add %35, %9
  %37 = add %36, %15
  %38 = add %37, %16
  %39 = add %38, %21
  %40 = add %39, %24
  %41 = add %40, %26
  %42 = add %41, %30
  %43 = add %42, %31
  ret %43
}
";

/// The instructions with results, in layout order: `defs(f)[n]` is `%n` in the text.
fn defs(f: &Function) -> Vec<Inst> {
    f.all_insts()
        .filter(|&i| f.inst(i).ty != Type::Void)
        .collect()
}

fn input() -> Module {
    let m = parse_module(INPUT).unwrap();
    verify_module(&m).unwrap();
    m
}

/// The first rule matching each value, by its number in the text.
fn first_matches(f: &Function, rules: &[Rule]) -> Vec<(usize, &'static str)> {
    defs(f)
        .into_iter()
        .enumerate()
        .filter_map(|(n, i)| {
            let rule = rules.iter().find(|r| r.match_inst(f, i).is_some())?;
            Some((n, rule.name))
        })
        .collect()
}

#[test]
fn each_rule_matches_where_it_should() {
    let m = input();
    assert_eq!(
        first_matches(&m.functions[0], &rules()),
        [
            (0, "x+0"),
            (1, "x-x"),
            (3, "(x-y)+y"),
            (5, "(x op c1) op c2"),
            (9, "x*-1"),
            (11, "--x"),
            (13, "x-y ==/!= 0"),
            (15, "x/1"),
            (17, "x*2.0"),
            (21, "fptosi(sitofp(zext b))"),
            (24, "a*c-b*c"),
            (26, "(0-x)+y"),
            (27, "x op identity"),
        ]
    );
}

/// Applies the first matching rule to every instruction once, in layout order, then
/// removes what became dead.
fn combine(m: &mut Module, rules: &[Rule]) {
    let f = &mut m.functions[0];
    for i in f.all_insts().collect::<Vec<_>>() {
        if let Some(v) = rules.iter().find_map(|r| r.apply(f, i)) {
            f.replace_all_uses(Value::Inst(i), v);
            f.remove_inst(i);
        }
    }
    PassManager::parse("dce", &CortexA72)
        .unwrap()
        .run(m, &mut std::io::sink())
        .unwrap();
    verify_module(m).unwrap_or_else(|e| panic!("{e}\n{}", print_module(m)));
}

/// Each instruction is rewritten once, seeing the rewrites of earlier ones: `%4 + 4`
/// reassociates, `-1 * %a3` becomes `0 - %a3`, which `(0-x)+y` folds into `%35 - %a3`,
/// which with `%15 = %a3 / 1` cancels in `(x-y)+y`.
#[test]
fn applying_the_rules_builds_their_results() {
    let mut m = input();
    combine(&mut m, &rules());
    assert_eq!(
        print_module(&m),
        "\
func @f(%a0: i32, %a1: i32, %a2: f32, %a3: i32) -> i32 {
bb0:
  %0 = add %a0, 7
  %1 = mul %a1, 5
  %2 = mul %1, 6
  %3 = add %1, %2
  %4 = sub %a0, %a3
  %5 = icmp ne %a0, %a3
  %6 = icmp slt %4, 0
  %7 = sdiv %a3, 2
  %8 = fadd %a2, %a2
  %9 = fmul 2.0, %a2
  %10 = zext %5
  %11 = sub %a0, %a1
  %12 = mul %11, %a3
  %13 = sub %a3, %a1
  %14 = fadd %8, %9
  %15 = fadd %14, %a2
  %16 = fptosi %15
  %17 = zext %6
  %18 = add %a0, %a0
  %19 = add %18, %0
  %20 = add %19, %3
  %21 = add %20, %7
  %22 = add %21, %10
  %23 = add %22, %12
  %24 = add %23, %13
  %25 = add %24, %16
  %26 = add %25, %17
  ret %26
}
"
    );
}

fn value(f: &Function, n: usize) -> Value {
    Value::Inst(defs(f)[n])
}

#[test]
fn commuted_operands_match_only_when_asked_and_allowed() {
    let m = input();
    let f = &m.functions[0];
    let plus_zero = add(var(X), int(0));
    assert!(matches(f, value(f, 0), &plus_zero).is_none());
    let b = matches(f, value(f, 0), &plus_zero.commute()).unwrap();
    assert_eq!(b.value(X), Value::Param(0));
    // fmul does not commute bit for bit (NaN operands), so `fmul 2.0, x` stays unmatched.
    let twice = fmul(var(X), float(2.0)).commute();
    assert_eq!(
        matches(f, value(f, 17), &twice).map(|b| b.value(X)),
        Some(Value::Param(2))
    );
    assert!(matches(f, value(f, 18), &twice).is_none());
}

#[test]
fn commuted_matching_backtracks_across_operands() {
    let m = parse_module(
        "\
func @f(%a0: i32, %a1: i32, %a2: i32) -> i32 {
bb0:
  %0 = mul %a0, %a2
  %1 = mul %a2, %a1
  %2 = sub %0, %1
  ret %2
}
",
    )
    .unwrap();
    let f = &m.functions[0];
    // The first mul binds A = %a0 and C = %a2 only in its written order, the second one
    // then needs its swapped order; and the other way round for a pattern naming C first.
    let factor = sub(mul(var(A), var(C)).commute(), mul(var(B), var(C)).commute());
    let b = matches(f, value(f, 2), &factor).unwrap();
    assert_eq!(
        [b.value(A), b.value(B), b.value(C)],
        [Value::Param(0), Value::Param(1), Value::Param(2)]
    );
    let factor_left = sub(mul(var(C), var(A)).commute(), mul(var(C), var(B)).commute());
    let b = matches(f, value(f, 2), &factor_left).unwrap();
    assert_eq!(
        [b.value(A), b.value(B), b.value(C)],
        [Value::Param(0), Value::Param(1), Value::Param(2)]
    );
    let written_only = sub(mul(var(C), var(A)), mul(var(B), var(C)));
    assert!(matches(f, value(f, 2), &written_only).is_none());
}

#[test]
fn a_match_refused_in_its_written_order_is_tried_commuted() {
    let m = parse_module(
        "\
func @f(%a0: i32, %a1: i32) -> i32 {
bb0:
  %0 = lshr %a0, 40
  %1 = lshr %a1, 3
  %2 = add %1, %0
  ret %2
}
",
    )
    .unwrap();
    let f = &m.functions[0];
    // Both operands are shifts by a constant; only one by less than 32 is taken, and it
    // is the left one, which the written order binds to X.
    let shifted = add(var(A), binary(OP, var(X), int_const(C1))).commute();
    let by_less_than_32 = |b: &Bindings| (0..32).contains(&b.int(C1));
    let written = matches(f, value(f, 2), &shifted).unwrap();
    assert_eq!(written.int(C1), 40);
    let taken = matches_if(f, value(f, 2), &shifted, &by_less_than_32).unwrap();
    assert_eq!((taken.value(X), taken.int(C1)), (Value::Param(1), 3));
    assert_eq!(taken.value(A), value(f, 0));
    assert!(matches_if(f, value(f, 0), &shifted, &|_| false).is_none());
}

#[test]
fn operand_variables_and_rebinding() {
    let m = input();
    let f = &m.functions[0];
    let p = add(one_use(bind(Y, add(var(X), int_const(C1)))), int_const(C2));
    assert_eq!(p.operand_vars(), vec![Y, C2]);
    assert_eq!(fneg(var(X)).operand_vars(), vec![X]);
    assert_eq!(add(any(), var(B)).operand_vars(), vec![B]);
    let mut b = matches(f, value(f, 5), &p).unwrap();
    assert_eq!(b.value(Y), value(f, 4));
    b.rebind(Y, Value::Param(1));
    assert_eq!((b.value(Y), b.value(X)), (Value::Param(1), Value::Param(0)));
    // A user's own variable numbers start after the named ones.
    let own = Var::new(10);
    let b = matches(f, value(f, 5), &bind(own, any())).unwrap();
    assert_eq!(b.value(own), value(f, 5));
}

#[test]
fn other_instructions_match_by_opcode_and_operands() {
    let m = parse_module(
        "\
func @f(%a0: ptr, %a1: i32) -> i32 {
bb0:
  %0 = gep %a0, %a1, 4
  %1 = load i32 %0
  %2 = icmp slt %1, 0
  %3 = select i32 %2, 0, %1
  store %3, %0
  ret %3
}
",
    )
    .unwrap();
    let f = &m.functions[0];
    let insts: Vec<Inst> = f.all_insts().collect();
    let loaded = load(bind(B, gep(var(A), any())));
    let b = matches(f, Value::Inst(insts[1]), &loaded).unwrap();
    assert_eq!((b.value(A), b.value(B)), (Value::Param(0), value(f, 0)));
    let clamp = select(var(C), int(0), bind(X, opcode(Opcode::Load)));
    let b = matches(f, value(f, 3), &clamp).unwrap();
    assert_eq!((b.value(C), b.value(X)), (value(f, 2), value(f, 1)));
    assert_eq!(clamp.root_opcode(), Some(Opcode::Select));
    assert_eq!(clamp.operand_vars(), vec![C, X]);
    // Operands in order, as many as the pattern names.
    assert!(matches(f, value(f, 3), &select(var(C), var(A), int(0))).is_none());
    assert!(matches(f, Value::Inst(insts[4]), &store(var(X), var(A))).is_some());
    assert!(matches(f, Value::Inst(insts[4]), &inst(Opcode::Store, vec![var(X)])).is_none());
    assert!(matches(f, Value::Inst(insts[5]), &opcode(Opcode::Ret)).is_some());
}

#[test]
fn one_use_fails_on_shared_values() {
    let m = input();
    let f = &m.functions[0];
    let reassociate = add(one_use(add(var(X), int_const(C1))), int_const(C2));
    let b = matches(f, value(f, 5), &reassociate).unwrap();
    assert_eq!((b.value(X), b.int(C1), b.int(C2)), (Value::Param(0), 3, 4));
    // %6 = mul %a1, 5 feeds both %7 and %8.
    let rule = &rules()[3];
    assert!(rule.match_inst(f, defs(f)[7]).is_none());
    let without_one_use = binary(OP, binary(OP, var(X), int_const(C1)), int_const(C2));
    let b = matches(f, value(f, 7), &without_one_use).unwrap();
    assert_eq!((b.op(OP), b.int(C1), b.int(C2)), (BinaryOp::Mul, 5, 6));
}

#[test]
fn rules_can_be_filed_by_their_root_opcode() {
    let roots: Vec<Option<Opcode>> = rules().iter().map(|r| r.pattern.root_opcode()).collect();
    use Opcode::*;
    assert_eq!(
        roots,
        [
            Some(Add),
            Some(Sub),
            Some(Add),
            None,
            Some(Mul),
            Some(FNeg),
            Some(Icmp),
            Some(SDiv),
            Some(FMul),
            Some(FpToSi),
            Some(Sub),
            Some(Add),
            None,
        ]
    );
    assert_eq!(one_use(bind(X, fneg(any()))).root_opcode(), Some(FNeg));
    assert_eq!(var(X).root_opcode(), None);
}

#[test]
fn repeated_variables_need_the_same_value() {
    let m = input();
    let f = &m.functions[0];
    let same = sub(var(X), var(X));
    assert!(matches(f, value(f, 1), &same).is_some());
    assert!(matches(f, value(f, 2), &same).is_none());
    assert!(matches(f, Value::Param(0), &same).is_none());
    assert!(matches(f, Value::Int(3), &int_const(C1)).is_some());
    assert!(matches(f, Value::Int(3), &float_const(C1)).is_none());
    let b = matches(f, Value::float(2.5), &float_const(C1)).unwrap();
    assert_eq!(b.float(C1), 2.5);
    assert_eq!(b.get(C2), None);
}

#[test]
fn guards_and_predicates() {
    let m = input();
    let f = &m.functions[0];
    let by_one = &rules()[7];
    assert!(by_one.match_inst(f, defs(f)[15]).is_some());
    assert!(by_one.match_inst(f, defs(f)[16]).is_none());
    let compare = &rules()[6];
    let b = compare.match_inst(f, defs(f)[13]).unwrap();
    assert_eq!(b.pred(PRED), IntPred::Ne);
    assert!(compare.match_inst(f, defs(f)[14]).is_none());
    assert!(matches(f, value(f, 14), &icmp(IntPred::Slt, any(), int(0))).is_some());
}

#[test]
fn folded_results_follow_the_semantics() {
    let mut m = parse_module(
        "\
func @f(%a0: i32, %a1: f32) -> f32 {
bb0:
  %0 = mul %a0, 65536
  %1 = mul %0, 65536
  %2 = fmul %a1, 1e30
  %3 = fmul %2, 1e10
  %4 = sitofp %1
  %5 = fadd %3, %4
  ret %5
}
",
    )
    .unwrap();
    let result = || binary(OP, var(X), fold(OP, C1, C2));
    let ints = Rule::new(
        "ints",
        binary(
            OP,
            one_use(binary(OP, var(X), int_const(C1))),
            int_const(C2),
        ),
        result(),
    );
    let floats = Rule::new(
        "floats",
        binary(
            OP,
            one_use(binary(OP, var(X), float_const(C1))),
            float_const(C2),
        ),
        result(),
    );
    let f = &mut m.functions[0];
    let [i, x] = [defs(f)[1], defs(f)[3]];
    let product = ints.apply(f, i).unwrap();
    assert_eq!(
        f.kind(product.as_inst().unwrap()).operands()[1],
        Value::Int(0)
    );
    let product = floats.apply(f, x).unwrap();
    assert_eq!(
        f.kind(product.as_inst().unwrap()).operands()[1],
        Value::float(f32::INFINITY)
    );
}

/// Numbers for value keys: parameters by index, instructions by their entity, constants by
/// their bits above both.
fn number(v: Value) -> u32 {
    match v {
        Value::Param(p) => p,
        Value::Inst(i) => 100 + i.0,
        Value::Int(c) => 1_000_000 + c as u32,
        Value::Float(bits) => bits,
        other => panic!("{other:?}"),
    }
}

#[test]
fn value_keys_sort_commutative_operands_and_order_comparisons() {
    let m = parse_module(
        "\
func @f(%a0: i32, %a1: i32, %a2: ptr, %a3: f32) -> i32 {
bb0:
  %0 = add %a0, %a1
  %1 = add %a1, %a0
  %2 = sub %a0, %a1
  %3 = sub %a1, %a0
  %4 = mul %a1, %a0
  %5 = icmp slt %a0, %a1
  %6 = icmp sgt %a0, %a1
  %7 = icmp slt %a0, %a1
  %8 = gep %a2, %a0, 4
  %9 = gep %a2, %a0, 8
  %10 = load i32 %8
  %11 = fadd %a3, 1.0
  %12 = fadd 1.0, %a3
  %13 = call i32 @getint()
  %14 = icmp sgt %a1, %a0
  %15 = fcmp olt %a3, 1.0
  %16 = fcmp ogt 1.0, %a3
  %17 = fcmp ult 1.0, %a3
  %18 = load i32 %8
  %19 = load f32 %8
  ret %13
}
",
    )
    .unwrap();
    let f = &m.functions[0];
    let keys: Vec<_> = defs(f)
        .into_iter()
        .map(|i| value_key(f, i, number))
        .collect();
    assert!(keys[0].is_some());
    assert_eq!(keys[0], keys[1], "add a, b and add b, a");
    assert_ne!(keys[2], keys[3], "sub a, b and sub b, a");
    assert_ne!(keys[0], keys[2], "add and sub");
    assert_ne!(keys[0], keys[4], "add and mul");
    assert_ne!(keys[5], keys[6], "predicates");
    assert_eq!(keys[5], keys[7]);
    assert_ne!(keys[8], keys[9], "strides");
    assert_eq!(keys[10], None, "a load depends on memory");
    assert_ne!(keys[11], keys[12], "fadd keeps its operand order");
    assert_eq!(keys[13], None, "a call");
    assert_eq!(keys[5], keys[14], "b > a is a < b");
    assert_eq!(keys[15], keys[16], "x olt 1.0 is 1.0 ogt x");
    assert_ne!(keys[15], keys[17], "ordered and unordered");
    let loads: Vec<_> = defs(f)
        .into_iter()
        .map(|i| load_key(f, i, number))
        .collect();
    assert_eq!(loads[0], None, "only loads have load keys");
    assert!(loads[10].is_some());
    assert_eq!(loads[10], loads[18], "loads of one address and type");
    assert_ne!(loads[10], loads[19], "types");
    let renumbered = value_key(f, defs(f)[1], |v| match v {
        Value::Param(1) => 0,
        other => number(other),
    });
    assert_eq!(
        renumbered.unwrap().operands,
        [0, 0, 0],
        "numbers from the pass"
    );
}

#[test]
fn results_build_new_instructions_before_the_matched_one() {
    let mut m = parse_module(
        "\
func @f(%a0: i32, %a1: f32) -> f32 {
bb0:
  %0 = fadd %a1, 1.0
  ret %0
}
",
    )
    .unwrap();
    let f = &mut m.functions[0];
    let i = defs(f)[0];
    let b = matches(f, Value::Inst(i), &fadd(var(X), float_const(C1))).unwrap();
    let negated = build(f, i, &fneg(var(X)), &b);
    let in_range = icmp(IntPred::Sle, cast(CastOp::FpToSi, var(X)), int(2));
    let compared = build(f, i, &in_range, &b);
    assert_eq!(
        [negated, compared].map(|v| f.value_type(v)),
        [Type::F32, Type::I1]
    );
    verify_module(&m).unwrap();
    assert_eq!(
        print_module(&m),
        "\
func @f(%a0: i32, %a1: f32) -> f32 {
bb0:
  %0 = fneg %a1
  %1 = fptosi %a1
  %2 = icmp sle %1, 2
  %3 = fadd %a1, 1.0
  ret %3
}
"
    );
}
