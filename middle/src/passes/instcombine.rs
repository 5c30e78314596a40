//! Instruction combining: local rewrites of an instruction and the few instructions feeding
//! it, to a fixpoint over a worklist.
//!
//! Each instruction is first folded or simplified (`transform::simplify`: constants,
//! `x + 0`, `x * 1`, `x - x`, ...), then put in canonical form in place (constants to the
//! right of commutative operations and comparisons, `x - c` as `x + (-c)`, `x <= c` as
//! `x < c + 1` where that does not wrap), then tried against the rule table `RULES`, filed by
//! the opcode at the root of each pattern. When an instruction changes, its users and the
//! instructions it created go back on the worklist; instructions left unused go.
//!
//! Integer rules are exact in wrapping 32-bit arithmetic. Float rules are exact in IEEE
//! single precision, NaN payloads included: `x * 2.0` is `x + x`, a division by a power of
//! two whose reciprocal is a normal float is the multiplication by that reciprocal, and
//! `-(-x)` is `x`. A select of `-1` or `1` against `0` on the sign of a value is a shift of
//! its sign bit (`x < 0 ? -1 : 0` is `x >> 31`). Signed division and remainder by a power
//! of two become shifts and masks (`power_of_two_division`). Constant offsets of addresses
//! move outward (`constant_offsets_outward`), and constant terms out of sums of variables
//! (`constant_term_outward`). Sums of many terms (`x + 1 + 1 + ...`, `a*c + b*c + ...`) are
//! `reassociate`'s.
//!
//! Needs: nothing. Preserves: behaviour and the CFG.

use crate::analysis::{Cfg, DomTree, Preserved};
use crate::fast_hash::FastHashSet;
use crate::ir::pattern::*;
use crate::ir::{
    BinaryOp, Block, CastOp, FloatPred, Function, Inst, InstKind, IntPred, Type, Value,
};
use crate::passes::FunctionContext;
use crate::transform::simplify::simplify;
use std::sync::LazyLock;

/// The rewrite rules, each a pattern and the value it equals.
static RULES: LazyLock<RuleTable> = LazyLock::new(|| {
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

fn is_equality(p: IntPred) -> bool {
    matches!(p, IntPred::Eq | IntPred::Ne)
}

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let full_remainders = full_remainders(f);
    // No rule changes the CFG: the tree stays right for the whole run.
    let cfg = cx.analyses.cfg(f);
    let dom = cx.analyses.dom(f);
    let mut work = Worklist::new(f);
    let mut changed = false;
    while let Some(i) = work.pop() {
        if f.inst_block(i).is_none() {
            continue;
        }
        if f.uses(Value::Inst(i)).is_empty() && !f.kind(i).has_side_effects() {
            work.push_operands(f, i);
            f.remove_inst(i);
            changed = true;
            continue;
        }
        let before = f.prev_inst(i);
        let replacement = simplify(f, i)
            .or_else(|| negation(f, i))
            .or_else(|| exact_division(f, i, (&cfg, &dom)))
            .or_else(|| power_of_two_division(f, i, &full_remainders))
            .or_else(|| remainder_from_quotient(f, i))
            .or_else(|| sign_bit_select(f, i))
            .or_else(|| mirrored_difference(f, i, &dom))
            .or_else(|| constant_offsets_outward(f, i))
            .or_else(|| constant_term_outward(f, i))
            .or_else(|| RULES.apply(f, i));
        if let Some(v) = replacement {
            work.push_created(f, i, before);
            work.push_users(f, i);
            f.replace_all_uses(Value::Inst(i), v);
            work.push_operands(f, i);
            f.remove_inst(i);
            changed = true;
        } else if canonicalize(f, i) {
            work.push_users(f, i);
            work.push(i);
            changed = true;
        }
    }
    Preserved::cfg_if(changed)
}

/// The instructions still to visit, each at most once at a time.
struct Worklist {
    stack: Vec<Inst>,
    queued: Vec<bool>,
}

impl Worklist {
    fn new(f: &Function) -> Worklist {
        let mut stack: Vec<Inst> = f.all_insts().collect();
        stack.reverse();
        let mut queued = vec![false; f.inst_capacity()];
        for &i in &stack {
            queued[i.index()] = true;
        }
        Worklist { stack, queued }
    }

    fn pop(&mut self) -> Option<Inst> {
        let i = self.stack.pop()?;
        self.queued[i.index()] = false;
        Some(i)
    }

    fn push(&mut self, i: Inst) {
        if self.queued.len() <= i.index() {
            self.queued.resize(i.index() + 1, false);
        }
        if !std::mem::replace(&mut self.queued[i.index()], true) {
            self.stack.push(i);
        }
    }

    fn push_users(&mut self, f: &Function, i: Inst) {
        for k in 0..f.uses(Value::Inst(i)).len() {
            self.push(f.uses(Value::Inst(i))[k].inst);
        }
    }

    fn push_operands(&mut self, f: &Function, i: Inst) {
        for k in 0..f.kind(i).operands().len() {
            if let Value::Inst(d) = f.kind(i).operands()[k] {
                self.push(d);
            }
        }
    }

    /// Pushes the instructions a rule inserted right before `i`, down to `before`.
    fn push_created(&mut self, f: &Function, i: Inst, before: Option<Inst>) {
        let mut at = f.prev_inst(i);
        while at != before {
            let Some(n) = at else { break };
            self.push(n);
            at = f.prev_inst(n);
        }
    }
}

/// `icmp eq (zext b), 0` and `icmp ne (zext b), 1` are `!b`: the inverse comparison when `b`
/// is a comparison used only here.
fn negation(f: &mut Function, i: Inst) -> Option<Value> {
    let InstKind::Icmp {
        pred,
        args: [Value::Inst(z), Value::Int(c)],
    } = *f.kind(i)
    else {
        return None;
    };
    let InstKind::Cast {
        op: CastOp::Zext,
        args: [Value::Inst(b)],
    } = *f.kind(z)
    else {
        return None;
    };
    if !matches!((pred, c), (IntPred::Eq, 0) | (IntPred::Ne, 1))
        || f.uses(Value::Inst(b)).len() != 1
    {
        return None;
    }
    let kind = match *f.kind(b) {
        InstKind::Icmp { pred, args } => InstKind::Icmp {
            pred: pred.inverse(),
            args,
        },
        InstKind::Fcmp { pred, args } => InstKind::Fcmp {
            pred: float_inverse(pred),
            args,
        },
        _ => return None,
    };
    Some(Value::Inst(f.insert_inst_before(i, kind, Type::I1)))
}

/// Signed division and remainder by `d = ±2^k` without `sdiv`.
///
/// A remainder whose every user compares it with zero only needs the low bits:
/// `x % d == 0` exactly when `x & (|d| - 1) == 0` (also for `d = INT_MIN`). One compared
/// only with other possible remainders `c` (`0 < |c| < |d|`) needs the sign bit too: such
/// a remainder has the sign of `c`, and the low bits determine it, so `x % d == c` exactly
/// when `x & m == c & m` for `m = INT_MIN | (|d| - 1)` (`x % 2 == 1` is
/// `x & 0x80000001 == 1`, a test without the division's sign fix-up), unless the function
/// computes a remainder by `±|d|` in full anyway (`full_remainders`): before value
/// numbering, that may be the same remainder of the same dividend, which it would then
/// share. Otherwise, for
/// `1 <= k <= 30`: shifting right rounds toward minus infinity and division toward zero, so a
/// negative dividend first gets `2^k - 1` added, the low `k` bits of its sign mask:
/// `bias = lshr (ashr x, 31), 32 - k` (for `k = 1` simply `lshr x, 31`), `t = x + bias`,
/// `x / 2^k = ashr t, k` and `x % 2^k = x - (t & -2^k)`; `x / -2^k` is `0 - x / 2^k`, and
/// `x % -2^k` is `x % 2^k` (the remainder takes the dividend's sign).
fn power_of_two_division(
    f: &mut Function,
    i: Inst,
    full_remainders: &FastHashSet<u32>,
) -> Option<Value> {
    let InstKind::Binary {
        op: op @ (BinaryOp::SDiv | BinaryOp::SRem),
        args: [x, Value::Int(d)],
    } = *f.kind(i)
    else {
        return None;
    };
    let magnitude = d.unsigned_abs();
    if !magnitude.is_power_of_two() || magnitude == 1 {
        return None;
    }
    let low_bits = Value::Int((magnitude - 1) as i32);
    if op == BinaryOp::SRem && only_compared_with_zero(f, i) {
        return Some(binary_before(f, i, BinaryOp::And, x, low_bits));
    }
    if op == BinaryOp::SRem
        && only_compared_with_residues(f, i, magnitude)
        && !full_remainders.contains(&magnitude)
    {
        let mask = i32::MIN | (magnitude - 1) as i32;
        for u in f.uses(Value::Inst(i)).to_vec() {
            let side = 1 - u.index as usize;
            let Value::Int(c) = f.kind(u.inst).operands()[side] else {
                unreachable!("compared with a constant");
            };
            f.set_operand(u.inst, side, Value::Int(c & mask));
        }
        return Some(binary_before(f, i, BinaryOp::And, x, Value::Int(mask)));
    }
    let k = magnitude.trailing_zeros() as i32;
    if k > 30 {
        return None;
    }
    let bias = if k == 1 {
        binary_before(f, i, BinaryOp::LShr, x, Value::Int(31))
    } else {
        let sign = binary_before(f, i, BinaryOp::AShr, x, Value::Int(31));
        binary_before(f, i, BinaryOp::LShr, sign, Value::Int(32 - k))
    };
    let t = binary_before(f, i, BinaryOp::Add, x, bias);
    Some(match op {
        BinaryOp::SDiv => {
            let q = binary_before(f, i, BinaryOp::AShr, t, Value::Int(k));
            if d < 0 {
                binary_before(f, i, BinaryOp::Sub, Value::Int(0), q)
            } else {
                q
            }
        }
        _ => {
            let multiple = binary_before(f, i, BinaryOp::And, t, Value::Int(-(1 << k)));
            binary_before(f, i, BinaryOp::Sub, x, multiple)
        }
    })
}

/// Constant parts of an address move outward (those a load or store can take as its
/// immediate offset), where the access takes them and value numbering shares the variable part between neighbouring
/// accesses (`a[i-1]`, `a[i]`, `a[i+1]`): `gep b, x + c, s` is `gep (gep b, x, s), c, s`,
/// `gep (gep b, c, s1), x, s2` is `gep (gep b, x, s2), c, s1`, and two constant steps make
/// one of stride 1 (`gep (gep b, c1, s1), c2, s2` is `gep b, c1*s1 + c2*s2, 1`). A
/// constant step alone counts in bytes too (`gep b, c, s` is `gep b, c*s, 1`), so equal
/// offsets look equal to value numbering; a step of 0 is no step. Addresses wrap like the integers, so each form
/// is the same address.
fn constant_offsets_outward(f: &mut Function, i: Inst) -> Option<Value> {
    let InstKind::Gep {
        args: [base, index],
        stride,
    } = *f.kind(i)
    else {
        return None;
    };
    if index == Value::Int(0) {
        return Some(base);
    }
    let gep = |f: &mut Function, b: Value, x: Value, s: u32| {
        let kind = InstKind::Gep {
            args: [b, x],
            stride: s,
        };
        Value::Inst(f.insert_inst_before(i, kind, Type::Ptr))
    };
    if let Some(sum) = index.as_inst() {
        if let InstKind::Binary {
            op: BinaryOp::Add,
            args: [x, Value::Int(c)],
        } = *f.kind(sum)
        {
            if !x.is_constant()
                && is_small_offset(i64::from(c) * i64::from(stride))
                && has_neighbour(f, base, x, stride, sum)
            {
                let variable = gep(f, base, x, stride);
                return Some(gep(f, variable, Value::Int(c), stride));
            }
        }
    }
    let Some(InstKind::Gep {
        args: [b, Value::Int(c1)],
        stride: s1,
    }) = base.as_inst().map(|g| f.kind(g).clone())
    else {
        return match index {
            Value::Int(c) if stride != 1 => {
                Some(gep(f, base, Value::Int(c.wrapping_mul(stride as i32)), 1))
            }
            _ => None,
        };
    };
    let inner_bytes = i64::from(c1) * i64::from(s1);
    match index {
        Value::Int(c2) => {
            let bytes = c1
                .wrapping_mul(s1 as i32)
                .wrapping_add(c2.wrapping_mul(stride as i32));
            Some(gep(f, b, Value::Int(bytes), 1))
        }
        x if is_small_offset(inner_bytes) => {
            let variable = gep(f, b, x, stride);
            Some(gep(f, variable, Value::Int(c1), s1))
        }
        _ => None,
    }
}

/// A constant term moves out of a sum of variables: `(x + c) + y` is `(x + y) + c` when
/// `x + c` has no other use, so that `x + y` is the same value wherever it appears (the
/// copies of an unrolled loop's body index `(i + 1) * n + j` as `(i * n + j) + n`) and the
/// constant can become an address's immediate offset.
fn constant_term_outward(f: &mut Function, i: Inst) -> Option<Value> {
    let InstKind::Binary {
        op: BinaryOp::Add,
        args: [a, b],
    } = *f.kind(i)
    else {
        return None;
    };
    if a.is_constant() || b.is_constant() {
        return None;
    }
    let split = |v: Value| match v.as_inst().map(|x| f.kind(x)) {
        Some(&InstKind::Binary {
            op: BinaryOp::Add,
            args: [x, Value::Int(c)],
        }) if f.uses(v).len() == 1 => Some((x, c)),
        _ => None,
    };
    let (x, c, y) = match (split(a), split(b)) {
        (Some((x, c)), _) => (x, c, b),
        (None, Some((x, c))) => (x, c, a),
        (None, None) => return None,
    };
    let sum = binary_before(f, i, BinaryOp::Add, x, y);
    Some(binary_before(f, i, BinaryOp::Add, sum, Value::Int(c)))
}

/// Whether a load or store takes a byte offset as its immediate (`ldr` reaches 4095 bytes
/// either way). A larger constant step stays inside the address, where it is computed
/// with the part of the address that does not change in the inner loop (`x[i-1][j][k]`
/// keeps its plane `x[i-1]`).
fn is_small_offset(bytes: i64) -> bool {
    bytes.abs() <= 4095
}

/// Whether another address `gep base, x, stride` or `gep base, x + c', stride` (with
/// `c'` other than `sum`'s `c`: a copy of the same sum on another side of a branch shares
/// nothing) exists: only then does splitting `gep base, x + c, stride` share its variable
/// part. Alone, it would add an instruction where `x + c` is needed
/// anyway (a loop counter's next value), since `[base, index, lsl #k]` addressing is free.
fn has_neighbour(f: &Function, base: Value, x: Value, stride: u32, sum: Inst) -> bool {
    let own = match *f.kind(sum) {
        InstKind::Binary { args: [_, c], .. } => c,
        _ => Value::Int(0),
    };
    let is_address = |v: Value| {
        f.uses(v).iter().any(|u| {
            u.index == 1
                && matches!(*f.kind(u.inst), InstKind::Gep { args: [b, _], stride: s } if b == base && s == stride)
        })
    };
    is_address(x)
        || f.uses(x).iter().any(|u| {
            u.inst != sum
                && matches!(
                    *f.kind(u.inst),
                    InstKind::Binary {
                        op: BinaryOp::Add,
                        args: [_, Value::Int(d)],
                    } if Value::Int(d) != own
                )
                && is_address(Value::Inst(u.inst))
        })
}

/// Whether every user of `i` is an equality comparison of it with zero.
fn only_compared_with_zero(f: &Function, i: Inst) -> bool {
    f.uses(Value::Inst(i))
        .iter()
        .all(|u| match *f.kind(u.inst) {
            InstKind::Icmp { pred, args: [a, b] } => {
                is_equality(pred) && (a == Value::Int(0) || b == Value::Int(0))
            }
            _ => false,
        })
}

/// `x / 2^k` as `ashr x, k` where a branch above decided that `x` is a multiple of `2^k`
/// (`if (n % 2 == 0) n = n / 2;`): the division is exact, and needs none of the rounding
/// fix-up for negative dividends; `x / -2^k` negates that.
fn exact_division(f: &mut Function, i: Inst, (cfg, dom): (&Cfg, &DomTree)) -> Option<Value> {
    let InstKind::Binary {
        op: BinaryOp::SDiv,
        args: [x, Value::Int(d)],
    } = *f.kind(i)
    else {
        return None;
    };
    let magnitude = d.unsigned_abs();
    if !magnitude.is_power_of_two() || magnitude == 1 || x.is_constant() {
        return None;
    }
    let at = f.inst_block(i)?;
    let k = magnitude.trailing_zeros();
    if k > 30 || !known_multiple(f, (cfg, dom), x, at, k) {
        return None;
    }
    let q = binary_before(f, i, BinaryOp::AShr, x, Value::Int(k as i32));
    Some(if d < 0 {
        binary_before(f, i, BinaryOp::Sub, Value::Int(0), q)
    } else {
        q
    })
}

/// Whether entering block `at` means that `x` is a multiple of `2^k`: a branch into a block
/// that dominates `at` (and has that branch's block as its only predecessor) tested
/// `x & m == 0` or `x % 2^j == 0`, `m` covering the low `k` bits, `j >= k`.
fn known_multiple(f: &Function, (cfg, dom): (&Cfg, &DomTree), x: Value, at: Block, k: u32) -> bool {
    let low = (1u32 << k) - 1;
    let tests_low_bits = |v: Inst| match *f.kind(v) {
        InstKind::Binary {
            op: BinaryOp::And,
            args: [a, Value::Int(m)],
        } => a == x && (m as u32) & low == low,
        InstKind::Binary {
            op: BinaryOp::SRem,
            args: [a, Value::Int(e)],
        } => a == x && e.unsigned_abs().is_power_of_two() && e.unsigned_abs() > low,
        _ => false,
    };
    f.uses(x).iter().any(|u| {
        tests_low_bits(u.inst)
            && f.uses(Value::Inst(u.inst)).iter().any(|c| {
                let zero_when = match *f.kind(c.inst) {
                    InstKind::Icmp {
                        pred: IntPred::Eq,
                        args,
                    } if args[1 - c.index as usize] == Value::Int(0) => true,
                    InstKind::Icmp {
                        pred: IntPred::Ne,
                        args,
                    } if args[1 - c.index as usize] == Value::Int(0) => false,
                    _ => return false,
                };
                f.uses(Value::Inst(c.inst)).iter().any(|b| {
                    let InstKind::CondBr {
                        targets: [t, e], ..
                    } = *f.kind(b.inst)
                    else {
                        return false;
                    };
                    let into = if zero_when { t } else { e };
                    let from = f.inst_block(b.inst);
                    t != e
                        && from.is_some_and(|p| cfg.preds(into) == [p])
                        && dom.dominates(into, at)
                })
            })
    })
}

/// `x % d` when the function also divides `x` by `d`: `x - (x / d) * d`, whose quotient
/// value numbering then shares with that division. For a constant `d` one multiply-high
/// sequence then serves both and the remainder is one `mls` (a carry loop's `v % 10000` and
/// `v / 10000`); for a variable one, one `sdiv` instead of two (`work[i] = cur / b; rem =
/// cur % b;`). The identity holds for every input of this IR's division (`x / 0` is 0 and
/// `x % 0` is `x`). Powers of two are `power_of_two_division`'s.
fn remainder_from_quotient(f: &mut Function, i: Inst) -> Option<Value> {
    let InstKind::Binary {
        op: BinaryOp::SRem,
        args: [x, d],
    } = *f.kind(i)
    else {
        return None;
    };
    if x.is_constant()
        || d.as_int()
            .is_some_and(|d| d.unsigned_abs().is_power_of_two() || d == 0)
    {
        return None;
    }
    let divided = f.uses(x).iter().any(|u| {
        u.index == 0
            && matches!(
                *f.kind(u.inst),
                InstKind::Binary { op: BinaryOp::SDiv, args: [_, e] } if e == d
            )
    });
    if !divided {
        return None;
    }
    let q = binary_before(f, i, BinaryOp::SDiv, x, d);
    let p = binary_before(f, i, BinaryOp::Mul, q, d);
    Some(binary_before(f, i, BinaryOp::Sub, x, p))
}

/// The magnitudes `|d|` of the remainders by a constant `d` that some use needs in full (not
/// only compared with zero or other remainders).
fn full_remainders(f: &Function) -> FastHashSet<u32> {
    f.all_insts()
        .filter_map(|i| match *f.kind(i) {
            InstKind::Binary {
                op: BinaryOp::SRem,
                args: [_, Value::Int(d)],
            } => {
                let m = d.unsigned_abs();
                let partial = only_compared_with_zero(f, i) || only_compared_with_residues(f, i, m);
                (!partial).then_some(m)
            }
            _ => None,
        })
        .collect()
}

/// Whether every user of `i` compares it for equality with a constant `c`,
/// `0 < |c| < magnitude`.
fn only_compared_with_residues(f: &Function, i: Inst, magnitude: u32) -> bool {
    f.uses(Value::Inst(i))
        .iter()
        .all(|u| match *f.kind(u.inst) {
            InstKind::Icmp { pred, args } => {
                let other = args[1 - u.index as usize];
                is_equality(pred)
                    && matches!(other, Value::Int(c) if c != 0 && c.unsigned_abs() < magnitude)
            }
            _ => false,
        })
}

/// `select (x < 0), -1, 0` as `ashr x, 31`, and `select (x < 0), 1, 0` as `lshr x, 31`
/// (either way round, and the test written `x <= -1`, `x >= 0` or `x > -1`).
fn sign_bit_select(f: &mut Function, i: Inst) -> Option<Value> {
    let InstKind::Select {
        args: [Value::Inst(c), Value::Int(t), Value::Int(e)],
    } = *f.kind(i)
    else {
        return None;
    };
    let InstKind::Icmp {
        pred,
        args: [x, Value::Int(k)],
    } = *f.kind(c)
    else {
        return None;
    };
    let negative = match (pred, k) {
        (IntPred::Slt, 0) | (IntPred::Sle, -1) => true,
        (IntPred::Sge, 0) | (IntPred::Sgt, -1) => false,
        _ => return None,
    };
    let (when_negative, otherwise) = if negative { (t, e) } else { (e, t) };
    let op = match (when_negative, otherwise) {
        (-1, 0) => BinaryOp::AShr,
        (1, 0) => BinaryOp::LShr,
        _ => return None,
    };
    Some(binary_before(f, i, op, x, Value::Int(31)))
}

/// `b - a == c` as `a - b == -c` (or `!=`) where `a - b` is computed anyway, before `b - a`:
/// `s - t == 1 || t - s == 1` then tests one difference (`cmp d, #1; cmnne d, #1`), and
/// `t - s` goes.
fn mirrored_difference(f: &mut Function, i: Inst, dom: &DomTree) -> Option<Value> {
    let InstKind::Icmp {
        pred,
        args: [Value::Inst(d), Value::Int(c)],
    } = *f.kind(i)
    else {
        return None;
    };
    let InstKind::Binary {
        op: BinaryOp::Sub,
        args: [b, a],
    } = *f.kind(d)
    else {
        return None;
    };
    if !is_equality(pred) {
        return None;
    }
    // Only towards a difference made before `b - a`, which then also comes before the
    // comparison: two differences that each came first would trade places for ever.
    let at = f.inst_block(d)?;
    let before_d = |t: Inst| match f.inst_block(t) {
        Some(tb) if tb == at => {
            std::iter::successors(f.prev_inst(d), |&p| f.prev_inst(p)).any(|p| p == t)
        }
        Some(tb) => dom.dominates(tb, at),
        None => false,
    };
    let twin = f.uses(a).iter().map(|u| u.inst).find(|&t| {
        matches!(*f.kind(t), InstKind::Binary { op: BinaryOp::Sub, args: [x, y] } if x == a && y == b)
            && before_d(t)
    })?;
    let kind = InstKind::Icmp {
        pred,
        args: [Value::Inst(twin), Value::Int(c.wrapping_neg())],
    };
    Some(Value::Inst(f.insert_inst_before(i, kind, Type::I1)))
}

fn binary_before(f: &mut Function, i: Inst, op: BinaryOp, a: Value, b: Value) -> Value {
    Value::Inst(f.insert_inst_before(i, InstKind::Binary { op, args: [a, b] }, Type::I32))
}

/// The float predicate that holds exactly when `p` does not, NaN operands included.
fn float_inverse(p: FloatPred) -> FloatPred {
    use FloatPred::*;
    match p {
        Oeq => Une,
        Une => Oeq,
        One => Ueq,
        Ueq => One,
        Olt => Uge,
        Uge => Olt,
        Ole => Ugt,
        Ugt => Ole,
        Ogt => Ule,
        Ule => Ogt,
        Oge => Ult,
        Ult => Oge,
        Ord => Uno,
        Uno => Ord,
    }
}

/// Rewrites `i` in place into canonical form; returns whether it changed.
fn canonicalize(f: &mut Function, i: Inst) -> bool {
    let ty = f.inst(i).ty;
    let kind = match *f.kind(i) {
        InstKind::Binary { op, args: [a, b] }
            if a.is_constant() && !b.is_constant() && swappable(op, a) =>
        {
            InstKind::Binary { op, args: [b, a] }
        }
        InstKind::Binary {
            op: BinaryOp::Sub,
            args: [a, Value::Int(c)],
        } => InstKind::Binary {
            op: BinaryOp::Add,
            args: [a, Value::Int(c.wrapping_neg())],
        },
        InstKind::Binary {
            op: BinaryOp::FDiv,
            args: [a, Value::Float(bits)],
        } => match exact_reciprocal(f32::from_bits(bits)) {
            Some(r) => InstKind::Binary {
                op: BinaryOp::FMul,
                args: [a, Value::float(r)],
            },
            None => return false,
        },
        InstKind::Icmp { pred, args: [a, b] } if a.is_constant() && !b.is_constant() => {
            InstKind::Icmp {
                pred: pred.swapped(),
                args: [b, a],
            }
        }
        InstKind::Icmp {
            pred,
            args: [a, Value::Int(c)],
        } => match (pred, c) {
            (IntPred::Sle, c) if c != i32::MAX => InstKind::Icmp {
                pred: IntPred::Slt,
                args: [a, Value::Int(c + 1)],
            },
            (IntPred::Sge, c) if c != i32::MIN => InstKind::Icmp {
                pred: IntPred::Sgt,
                args: [a, Value::Int(c - 1)],
            },
            _ => return false,
        },
        _ => return false,
    };
    f.replace_kind(i, kind, ty);
    true
}

/// Whether `c op x == x op c` for every `x`: integer operations the opcode table calls
/// commutative, and float addition and multiplication by a constant that is not NaN (with
/// one NaN operand the result is that NaN, whichever side it is on).
fn swappable(op: BinaryOp, c: Value) -> bool {
    match op {
        BinaryOp::FAdd | BinaryOp::FMul => c.as_float().is_some_and(|x| !x.is_nan()),
        _ => op.is_commutative(),
    }
}

/// `1 / x` when `x` is a power of two (positive or negative) whose reciprocal is a normal
/// float: dividing by `x` and multiplying by that reciprocal then round the same exact
/// quotient, so they agree for every dividend.
fn exact_reciprocal(x: f32) -> Option<f32> {
    let bits = x.to_bits();
    let mantissa = bits & 0x007f_ffff;
    let exponent = (bits >> 23) & 0xff;
    // A normal power of two with exponent e (biased 1..=254) has reciprocal 2^-(e-127),
    // normal when its biased exponent 254 - e is in 1..=254.
    if mantissa != 0 || !(1..=253).contains(&exponent) {
        return None;
    }
    Some(1.0 / x)
}
