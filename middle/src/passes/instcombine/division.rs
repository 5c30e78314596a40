//! instcombine's rewrites of signed division and remainder: by a power of two without
//! `sdiv` (shifts and masks, or an exact shift where a branch decided the dividend is a
//! multiple), and a remainder from the quotient the function computes anyway.

use super::{binary_before, is_equality};
use crate::analysis::{Cfg, DomTree};
use crate::fast_hash::FastHashSet;
use crate::ir::{BinaryOp, Block, Function, Inst, InstKind, IntPred, Value};

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
pub(super) fn power_of_two_division(
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
pub(super) fn exact_division(
    f: &mut Function,
    i: Inst,
    (cfg, dom): (&Cfg, &DomTree),
) -> Option<Value> {
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
pub(super) fn remainder_from_quotient(f: &mut Function, i: Inst) -> Option<Value> {
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
pub(super) fn full_remainders(f: &Function) -> FastHashSet<u32> {
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
