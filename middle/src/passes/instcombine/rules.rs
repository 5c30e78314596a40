//! instcombine's rule table: each rule a pattern (`ir::pattern`) and the value it equals,
//! filed by the opcode at the root of its pattern.

use super::is_equality;
use crate::ir::pattern::*;
use crate::ir::{BinaryOp, CastOp, IntPred};
use std::sync::LazyLock;

/// The rewrite rules, each a pattern and the value it equals.
pub(super) static RULES: LazyLock<RuleTable> = LazyLock::new(|| {
    RuleTable::new(vec![
        Rule::new(
            "(x+c1)+c2",
            add(add(var(X), int_const(C1)), int_const(C2)),
            add(var(X), fold(BinaryOp::Add, C1, C2)),
        ),
        Rule::new(
            "(x*c1)*c2",
            // Only when nothing else needs x*c1: each product alone may be a shifted add,
            // where the folded constant would need a multiply.
            mul(one_use(mul(var(X), int_const(C1))), int_const(C2)),
            mul(var(X), fold(BinaryOp::Mul, C1, C2)),
        ),
        Rule::new(
            "a*x+b*x",
            add(
                one_use(mul(var(A), var(X)).commute()),
                one_use(mul(var(B), var(X)).commute()),
            )
            .commute(),
            mul(add(var(A), var(B)), var(X)),
        ),
        Rule::new(
            "a*x-b*x",
            sub(
                one_use(mul(var(A), var(X)).commute()),
                one_use(mul(var(B), var(X)).commute()),
            ),
            mul(sub(var(A), var(B)), var(X)),
        ),
        Rule::new(
            "x+(0-y)",
            add(var(X), one_use(sub(int(0), var(Y)))).commute(),
            sub(var(X), var(Y)),
        ),
        Rule::new(
            "x-(0-y)",
            sub(var(X), sub(int(0), var(Y))),
            add(var(X), var(Y)),
        ),
        // Sums that cancel a term, whatever else uses their parts (the bitwise operations
        // SysY programs emulate with + and -: `a - (a + b) + b - (a + b)`).
        Rule::new(
            "x-(x+y)",
            sub(var(X), add(var(X), var(Y)).commute()),
            sub(int(0), var(Y)),
        ),
        Rule::new(
            "(x+y)-x",
            sub(add(var(X), var(Y)).commute(), var(X)),
            var(Y),
        ),
        Rule::new("x-(x-y)", sub(var(X), sub(var(X), var(Y))), var(Y)),
        Rule::new(
            "0-(x-y)",
            sub(int(0), sub(var(X), var(Y))),
            sub(var(Y), var(X)),
        ),
        Rule::new(
            "(x-y)+y",
            add(sub(var(X), var(Y)), var(Y)).commute(),
            var(X),
        ),
        Rule::new(
            "y+(0-y)",
            add(var(Y), sub(int(0), var(Y))).commute(),
            int(0),
        ),
        Rule::new(
            "(x+c1)*c2",
            mul(add(var(X), int_const(C1)), int_const(C2)),
            add(mul(var(X), var(C2)), fold(BinaryOp::Mul, C1, C2)),
        ),
        Rule::new("x*-1", mul(var(X), int(-1)), sub(int(0), var(X))),
        Rule::new("x/-1", sdiv(var(X), int(-1)), sub(int(0), var(X))),
        Rule::new(
            "(x+c1)==c2",
            icmp(PRED, one_use(add(var(X), int_const(C1))), int_const(C2)),
            icmp(PRED, var(X), fold(BinaryOp::Sub, C2, C1)),
        )
        .when(|_, b| is_equality(b.pred(PRED))),
        Rule::new(
            "(a-b)==0",
            icmp(PRED, one_use(sub(var(A), var(B))), int(0)),
            icmp(PRED, var(A), var(B)),
        )
        .when(|_, b| is_equality(b.pred(PRED))),
        Rule::new(
            "zext(b)!=0",
            icmp(IntPred::Ne, cast(CastOp::Zext, var(X)), int(0)),
            var(X),
        ),
        Rule::new(
            "zext(b)==1",
            icmp(IntPred::Eq, cast(CastOp::Zext, var(X)), int(1)),
            var(X),
        ),
        Rule::new("x*2.0", fmul(var(X), float(2.0)), fadd(var(X), var(X))),
        Rule::new("-(-x)", fneg(fneg(var(X))), var(X)),
    ])
});
