//! The opcode table against the IR's semantics: every algebraic property it claims holds on
//! sample operands, every one it denies has a counterexample, and const-fold's identities
//! follow it.

use backend::ir_costs::CortexA72;
use middle::ir::parser::parse_module;
use middle::ir::printer::print_module;
use middle::ir::semantics::binary;
use middle::ir::{BinaryOp, Opcode, Sides, Type, Value};
use middle::pass_manager::PassManager;

const INTS: [i32; 9] = [0, 1, -1, 2, 7, -13, 123_456_789, i32::MAX, i32::MIN];

fn floats() -> Vec<u32> {
    let mut v: Vec<u32> = [
        0.0f32,
        -0.0,
        1.0,
        -2.5,
        3.0,
        1e30,
        -1e30,
        1e-45,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ]
    .iter()
    .map(|x| x.to_bits())
    .collect();
    v.extend([0x7fc0_0000, 0xffc0_0000]);
    v
}

fn samples(op: BinaryOp) -> Vec<u32> {
    match op.ty() {
        Type::F32 => floats(),
        _ => INTS.iter().map(|&x| x as u32).collect(),
    }
}

fn bits(v: Value) -> u32 {
    match v {
        Value::Int(x) => x as u32,
        Value::Float(b) => b,
        other => panic!("not a constant: {other:?}"),
    }
}

fn pairs(op: BinaryOp) -> Vec<(u32, u32)> {
    let s = samples(op);
    s.iter()
        .flat_map(|&a| s.iter().map(move |&b| (a, b)))
        .collect()
}

#[test]
fn identities_hold_on_their_sides_only() {
    for &op in BinaryOp::ALL {
        let Some(e) = op.opcode().identity() else {
            continue;
        };
        let e = bits(e.value);
        let left_fails = samples(op).iter().any(|&x| binary(op, e, x) != x);
        for x in samples(op) {
            assert_eq!(binary(op, x, e), x, "{op:?}: x op e != x for x = {x:#x}");
        }
        match op.opcode().identity().unwrap().sides {
            Sides::Both => assert!(!left_fails, "{op:?}: e op x != x"),
            Sides::Right => assert!(left_fails, "{op:?}: the identity works on the left too"),
        }
    }
    let with_identity: Vec<BinaryOp> = BinaryOp::ALL
        .iter()
        .copied()
        .filter(|op| op.opcode().identity().is_some())
        .collect();
    use BinaryOp::*;
    assert_eq!(
        with_identity,
        [Add, Sub, Mul, SDiv, And, LShr, AShr, FAdd, FSub, FMul, FDiv]
    );
}

#[test]
fn absorbing_constants_absorb_and_float_zeros_do_not() {
    for &op in BinaryOp::ALL {
        let Some(z) = op.opcode().absorbing() else {
            continue;
        };
        assert_eq!(z.sides, Sides::Both);
        let z = bits(z.value);
        for x in samples(op) {
            assert_eq!(binary(op, x, z), z, "{op:?}");
            assert_eq!(binary(op, z, x), z, "{op:?}");
        }
    }
    assert_eq!(
        Opcode::Mul.absorbing().map(|z| z.value),
        Some(Value::Int(0))
    );
    let zero = 0f32.to_bits();
    for x in [f32::NAN, f32::INFINITY, -1.0] {
        assert_ne!(binary(BinaryOp::FMul, x.to_bits(), zero), zero);
    }
    assert_eq!(Opcode::FMul.absorbing(), None);
}

#[test]
fn commutativity_matches_the_semantics() {
    for &op in BinaryOp::ALL {
        let swaps_exactly = pairs(op)
            .into_iter()
            .all(|(a, b)| binary(op, a, b) == binary(op, b, a));
        assert_eq!(op.is_commutative(), swaps_exactly, "{op:?}");
        assert_eq!(op.is_commutative(), op.opcode().is_commutative());
    }
    // The first NaN operand wins, so float addition does not commute bit for bit.
    let (nan, neg_nan) = (0x7fc0_0000, 0xffc0_0000);
    assert_eq!(binary(BinaryOp::FAdd, nan, neg_nan), nan);
    assert_eq!(binary(BinaryOp::FAdd, neg_nan, nan), neg_nan);
}

#[test]
fn associativity_matches_the_semantics() {
    for &op in BinaryOp::ALL {
        let s = samples(op);
        let mut holds = true;
        for &a in &s {
            for &b in &s {
                for &c in &s {
                    holds &= binary(op, binary(op, a, b), c) == binary(op, a, binary(op, b, c));
                }
            }
        }
        assert_eq!(op.opcode().is_associative(), holds, "{op:?}");
    }
    let (big, one) = (1e30f32.to_bits(), 1f32.to_bits());
    let neg_big = (-1e30f32).to_bits();
    let fadd = |a, b| binary(BinaryOp::FAdd, a, b);
    assert_ne!(fadd(fadd(big, neg_big), one), fadd(big, fadd(neg_big, one)));
}

#[test]
fn idempotence_matches_the_semantics() {
    for &op in BinaryOp::ALL {
        let idempotent = samples(op).iter().all(|&x| binary(op, x, x) == x);
        assert_eq!(op.opcode().is_idempotent(), idempotent, "{op:?}");
    }
    assert!(Opcode::And.is_idempotent());
}

#[test]
fn effects_memory_and_motion() {
    let with = |p: fn(Opcode) -> bool| -> Vec<Opcode> {
        Opcode::ALL.iter().copied().filter(|&o| p(o)).collect()
    };
    use Opcode::*;
    assert_eq!(
        with(Opcode::has_side_effects),
        [Store, VStore, Call, Br, CondBr, Ret]
    );
    assert_eq!(with(Opcode::is_terminator), [Br, CondBr, Ret]);
    assert_eq!(with(Opcode::reads_memory), [Load, VLoad, Call]);
    assert_eq!(with(Opcode::writes_memory), [Store, VStore, Call]);
    assert_eq!(with(Opcode::may_fault), [Load, Store, VLoad, VStore, Call]);
    assert_eq!(
        with(Opcode::is_pinned),
        [Load, Store, VLoad, VStore, Alloca, Call, Phi, Br, CondBr, Ret]
    );
    for op in Opcode::ALL {
        assert_eq!(op.info().opcode, op);
        if op.has_side_effects() || op.reads_memory() {
            assert!(op.is_pinned(), "{op:?} has effects but may move");
        }
    }
}

/// Every instruction of the IR once; each line's mnemonic is its opcode's name.
const EVERY_INSTRUCTION: &str = "\
func @main(%a0: i32, %a1: f32) -> i32 {
bb0:
  %0 = alloca i32 x 2
  %1 = add %a0, 1
  %2 = sub %1, 2
  %3 = mul %2, 3
  %4 = sdiv %3, 4
  %5 = srem %4, 5
  %6 = and %5, 6
  %7 = lshr %6, 1
  %8 = ashr %7, 2
  %9 = fadd %a1, 1.0
  %10 = fsub %9, 2.0
  %11 = fmul %10, 3.0
  %12 = fdiv %11, 4.0
  %13 = fneg %12
  %24 = ctz %8
  %14 = icmp slt %8, 0
  %15 = fcmp olt %13, 0.0
  %16 = zext %14
  %17 = sitofp %16
  %18 = fptosi %17
  %25 = floatbits %13
  %19 = select i32 %14, %18, %25
  %20 = gep %0, %19, 4
  store %18, %20
  %21 = load i32 %20
  %26 = vload v4i32 %0
  %27 = vadd %26, %26
  %28 = vsub %27, %26
  %29 = vmul %28, %26
  %30 = vsmin %29, %26
  %31 = vsmax %30, %26
  %32 = splat v4f32 %a1
  %33 = vfadd %32, %32
  %34 = vfsub %33, %32
  %35 = vfmul %34, %32
  %36 = extractlane f32 %35, 3
  %37 = insertlane v4i32 %31, %21, 0
  %38 = reduce add %37
  vstore %37, %0
  %22 = call i32 @getint()
  condbr %15, bb1, bb2
bb1:
  br bb2
bb2:
  %23 = phi i32 [%21, bb0], [%22, bb1]
  ret %23
}
";

#[test]
fn every_instruction_has_the_opcode_of_its_mnemonic() {
    let m = parse_module(EVERY_INSTRUCTION).unwrap();
    let f = &m.functions[0];
    let opcodes: Vec<Opcode> = f.all_insts().map(|i| f.kind(i).opcode()).collect();
    let mnemonics: Vec<String> = print_module(&m)
        .lines()
        .filter(|l| l.starts_with("  "))
        .map(|l| {
            let l = l.split_once(" = ").map_or(l, |(_, r)| r);
            l.split_whitespace().next().unwrap().to_string()
        })
        .collect();
    let names: Vec<String> = opcodes
        .iter()
        .map(|o| format!("{o:?}").to_lowercase())
        .collect();
    assert_eq!(names, mnemonics);
    let mut sorted = opcodes.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, Opcode::ALL, "the IR above misses an opcode");
}

/// The body of `@f` after const-fold and dce, one trimmed line per instruction.
fn const_fold(body: &str) -> Vec<String> {
    let text = format!("func @f(%a0: i32, %a1: f32) -> i32 {{\nbb0:\n{body}}}\n");
    let mut m = parse_module(&text).unwrap();
    let pm = PassManager::parse("const-fold,dce", &CortexA72).unwrap();
    pm.run(&mut m, &mut std::io::sink()).unwrap();
    let out = print_module(&m);
    trimmed(&out[out.find("bb0:").unwrap() + 4..])
}

fn trimmed(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty() && l != "}")
        .collect()
}

#[test]
fn const_fold_uses_identities_on_their_sides_only() {
    let kept = "\
  %0 = sub 0, %a0
  %1 = sdiv 1, %0
  %2 = fsub 0.0, %a1
  %3 = fdiv 1.0, %2
  %4 = fadd %3, 0.0
  %5 = fmul %4, 0.0
  %6 = fptosi %5
  %7 = add %6, %1
  ret %7
";
    assert_eq!(const_fold(kept), trimmed(kept));
    let folded = "\
  %0 = add 0, %a0
  %1 = sub %0, 0
  %2 = mul 1, %1
  %3 = sdiv %2, 1
  %4 = fadd -0.0, %a1
  %5 = fsub %4, 0.0
  %6 = fmul 1.0, %5
  %7 = fdiv %6, 1.0
  %8 = fptosi %7
  %9 = mul %8, 0
  %10 = add %3, %9
  ret %10
";
    assert_eq!(const_fold(folded), ["ret %a0"]);
}
