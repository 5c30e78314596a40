//! divisibility-tests: `x % c == 0` (and `!= 0`) for an odd constant `|c| >= 3` as a
//! multiplication and an unsigned comparison, in place of the remainder's multiply-high,
//! shifts, sign correction and multiply-subtract (Granlund and Montgomery, PLDI 1994,
//! section 9; Hacker's Delight, section 10-17).
//!
//! Let `q` be the inverse of `d = |c|` modulo 2^32 (it exists: `d` is odd). Multiplying by
//! `q` permutes the 32-bit words, and maps `d * m` to `m`; so `x * q` (wrapping) lies in
//! `-a..=a` exactly when `x` is `d * m` for some `m` in that interval, and with
//! `a = (2^31 - 1) / d` those are all the multiples of `d` that an `i32` holds (`2^31` is
//! not a multiple of an odd `d > 1`, so the most negative is `-a * d`). That is:
//!
//! ```text
//!   x % c == 0   <=>   x * q + a  <=u  2a
//! ```
//!
//! A dividend whose value range is never negative needs no offset: it is a multiple of `d`
//! exactly when `x * q <=u (2^32 - 1) / d`. `x % c != 0` is the inverse comparison. A
//! remainder used for anything else is left alone (it is computed anyway), as are even
//! divisors (the test needs a rotation the IR does not have) and powers of two (`instcombine`
//! tests their low bits).
//!
//! It runs late, after the last `instcombine`, which would see only a multiplication and an
//! offset and not the remainder the programmer wrote.
//!
//! Needs: the CFG. Preserves: behaviour and the CFG.

use crate::analysis::ranges::Ranges;
use crate::analysis::scev::odd_inverse;
use crate::analysis::Preserved;
use crate::ir::{BinaryOp, Function, Inst, InstKind, IntPred, Type, Value};
use crate::passes::FunctionContext;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let cfg = cx.analyses.cfg(f);
    let tests: Vec<(Inst, Test)> = cfg
        .rpo()
        .iter()
        .flat_map(|&b| f.block_insts(b))
        .filter_map(|i| divisibility_test(f, i).map(|t| (i, t)))
        .collect();
    if tests.is_empty() {
        return Preserved::All;
    }
    let ranges = Ranges::new(f, &cfg);
    for (test, Test { rem, x, d, equal }) in tests {
        let q = odd_inverse(d as i32);
        let product = f.insert_inst_before(
            test,
            InstKind::binary(BinaryOp::Mul, x, Value::Int(q)),
            Type::I32,
        );
        let (word, bound) = if ranges.of(x).lo >= 0 {
            (Value::Inst(product), u32::MAX / d)
        } else {
            let a = i32::MAX as u32 / d;
            let kind = InstKind::binary(BinaryOp::Add, Value::Inst(product), Value::Int(a as i32));
            (
                Value::Inst(f.insert_inst_before(test, kind, Type::I32)),
                2 * a,
            )
        };
        let pred = if equal { IntPred::Ule } else { IntPred::Ugt };
        f.replace_kind(
            test,
            InstKind::icmp(pred, word, Value::Int(bound as i32)),
            Type::I1,
        );
        // The test was the remainder's only use.
        f.remove_inst(rem);
    }
    Preserved::Cfg
}

/// A test of `x % c` against 0: the remainder, its dividend, `|c|`, and whether the test
/// is for equality.
struct Test {
    rem: Inst,
    x: Value,
    d: u32,
    equal: bool,
}

/// When `i` compares `x % c` for equality with 0, `c` an odd constant other than ±1, and
/// the remainder has no other use: the test.
fn divisibility_test(f: &Function, i: Inst) -> Option<Test> {
    let InstKind::Icmp {
        pred: pred @ (IntPred::Eq | IntPred::Ne),
        args,
    } = *f.kind(i)
    else {
        return None;
    };
    let rem = match args {
        [r, Value::Int(0)] | [Value::Int(0), r] => r.as_inst()?,
        _ => return None,
    };
    let InstKind::Binary {
        op: BinaryOp::SRem,
        args: [x, Value::Int(c)],
    } = *f.kind(rem)
    else {
        return None;
    };
    let odd = c % 2 != 0 && c.unsigned_abs() >= 3;
    (odd && !x.is_constant() && f.uses(Value::Inst(rem)).len() == 1).then_some(Test {
        rem,
        x,
        d: c.unsigned_abs(),
        equal: pred == IntPred::Eq,
    })
}
