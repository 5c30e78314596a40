//! power-of-two-divisors: quotients and remainders by a power of two known only at run time
//! (a counter doubled or halved every round), for a dividend that is never negative: bit
//! operations in place of `sdiv`.
//!
//! A value is *one-bit* when at most one of its bits can be set (0, `2^k`, and `i32::MIN`),
//! a *signed power* when it is 0 or `±2^k`. Constants are classified by their bits; a
//! product of one-bit values is one-bit and of signed powers a signed power (wrapping only
//! moves the bit out, leaving 0); `x / 2^c` (or the shifts `instcombine` makes of it) and
//! `x >> c` of a signed power are signed powers, a logical shift of a one-bit value and an
//! `and` with one are one-bit, as are `zext`s; a phi or select is what all its values are.
//! The classes are found optimistically, so a counter doubled round a loop stays one-bit.
//!
//! A divisor `d` qualifies when it is one-bit, or a signed power that is never negative: by
//! its value range (`analysis::ranges`), or a phi whose values are, or are tested positive
//! by the branches that decide its edges (a halving counter `while (j > 0)`). For a dividend `x` whose range is non-negative:
//! - `x % d` is `x & (d - 1)`;
//! - `(x / d) & 1` and `(x / d) % 2` (also as `instcombine` writes it for a dividend of
//!   unknown sign) are `(x & d) != 0`, a bit test;
//! - `(x / d) * d` is `x & -d`;
//! - any other use of `x / d` takes `x >>> ctz(d)`, a logical shift by the number of
//!   trailing zeros of `d` (the IR's shifts by a value count its low byte, and 32 or more
//!   shift every bit out).
//!
//! Each holds for `d = 0` (the IR's `x / 0` is 0 and `x % 0` is `x`; `ctz(0)` is 32) and for
//! `d = i32::MIN` (`x / d` is 0 and `x % d` is `x` for `x >= 0`) as well as for `d = 2^k`.
//!
//! A dividend of either sign needs a divisor from 1 to `2^30`: one whose range says so, a
//! phi whose values are positive by their ranges or by the branches deciding their edges, or
//! a counter doubled and tested below `2^30` on its way round from values up to `2^29`
//! (`while (i < 1 << 30) ... i = i * 2`). Then `t = x + ((x >> 31) & (d - 1))` adds `d - 1`
//! to a negative `x`, so that `t >> ctz(d)` rounds the quotient toward zero, and the
//! remainder is `x - (t & -d)`: checked for every `k` up to 30 against truncating division,
//! `i32::MIN` included.
//!
//! Needs: the CFG. Preserves: behaviour and the CFG.

use crate::analysis::entry_order::branch_into;
use crate::analysis::ranges::Ranges;
use crate::analysis::{Cfg, Preserved};
use crate::ir::{BinaryOp, Block, CastOp, Function, Inst, InstKind, IntPred, Type, Value};
use crate::passes::FunctionContext;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let cfg = cx.analyses.cfg(f);
    let insts: Vec<Inst> = cfg.rpo().iter().flat_map(|&b| f.block_insts(b)).collect();
    if !insts.iter().any(|&i| is_division_by_variable(f, i)) {
        return Preserved::All;
    }
    let powers = Powers::new(f, &insts);
    let ranges = Ranges::new(f, &cfg);
    let facts = Facts {
        powers: &powers,
        ranges: &ranges,
        cfg: &cfg,
    };
    let mut changed = false;
    for &i in &insts {
        if let Some(v) = facts.rewrite(f, i) {
            f.replace_all_uses(Value::Inst(i), v);
            f.remove_inst(i);
            changed = true;
        }
    }
    // The quotients still used after the rewrites above, which took theirs first (a bit
    // test is cheaper than a shift and a mask).
    for i in insts {
        if f.inst_block(i).is_none() || f.uses(Value::Inst(i)).is_empty() {
            continue;
        }
        let v = if let Some((x, d)) = facts.quotient(f, Value::Inst(i)) {
            let k = f.insert_inst_before(i, InstKind::Ctz { args: [d] }, Type::I32);
            let kind = InstKind::binary(BinaryOp::LShr, x, Value::Inst(k));
            Value::Inst(f.insert_inst_before(i, kind, Type::I32))
        } else if let Some(v) = facts.signed_division(f, i) {
            v
        } else {
            continue;
        };
        f.replace_all_uses(Value::Inst(i), v);
        f.remove_inst(i);
        changed = true;
    }
    Preserved::cfg_if(changed)
}

fn is_division_by_variable(f: &Function, i: Inst) -> bool {
    matches!(
        *f.kind(i),
        InstKind::Binary {
            op: BinaryOp::SDiv | BinaryOp::SRem,
            args: [_, d],
        } if !d.is_constant()
    )
}

/// How much is known of a value's bits, from most to least.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Power {
    OneBit,
    Signed,
    Unknown,
}

fn class_of_constant(c: i32) -> Power {
    if (c as u32).count_ones() <= 1 {
        Power::OneBit
    } else if c.unsigned_abs().is_power_of_two() {
        Power::Signed
    } else {
        Power::Unknown
    }
}

/// The class of every `i32` instruction of a function.
struct Powers {
    of: Vec<Power>,
}

impl Powers {
    /// Starts every instruction at the best class and lowers each to what its operands
    /// give until nothing changes (each can drop twice).
    fn new(f: &Function, insts: &[Inst]) -> Powers {
        let mut powers = Powers {
            of: vec![Power::OneBit; f.inst_capacity()],
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &i in insts {
                let class = if f.inst(i).ty == Type::I32 {
                    powers.evaluate(f, i)
                } else {
                    Power::Unknown
                };
                if class > powers.of[i.index()] {
                    powers.of[i.index()] = class;
                    changed = true;
                }
            }
        }
        powers
    }

    fn get(&self, v: Value) -> Power {
        match v {
            Value::Int(c) => class_of_constant(c),
            Value::Inst(i) => self.of[i.index()],
            _ => Power::Unknown,
        }
    }

    fn evaluate(&self, f: &Function, i: Inst) -> Power {
        use BinaryOp::*;
        if let Some(x) = halved(f, Value::Inst(i)) {
            return self.get(x).max(Power::Signed);
        }
        match *f.kind(i) {
            InstKind::Binary {
                op: Mul,
                args: [a, b],
            } => self.get(a).max(self.get(b)),
            InstKind::Binary {
                op: Add,
                args: [a, b],
            } if a == b => self.get(a),
            InstKind::Binary {
                op: Sub,
                args: [Value::Int(0), a],
            } => self.get(a).max(Power::Signed),
            InstKind::Binary {
                op: SDiv,
                args: [a, Value::Int(c)],
            } if c.unsigned_abs().is_power_of_two() => self.get(a).max(Power::Signed),
            InstKind::Binary {
                op: AShr,
                args: [a, Value::Int(_)],
            } => self.get(a).max(Power::Signed),
            InstKind::Binary {
                op: LShr,
                args: [a, Value::Int(_)],
            } if self.get(a) == Power::OneBit => Power::OneBit,
            InstKind::Binary {
                op: And,
                args: [a, b],
            } => self.get(a).min(self.get(b)),
            InstKind::Cast {
                op: CastOp::Zext, ..
            } => Power::OneBit,
            InstKind::Select { args: [_, a, b] } => self.get(a).max(self.get(b)),
            InstKind::Phi { ref args, .. } => args
                .iter()
                .map(|&a| self.get(a))
                .max()
                .unwrap_or(Power::OneBit),
            _ => Power::Unknown,
        }
    }
}

/// `x` when `v` is `x / 2^c` as `instcombine` writes it: `(x + (x >>> 31)) >> 1`, or
/// `(x + ((x >> 31) >>> (32 - c))) >> c`.
fn halved(f: &Function, v: Value) -> Option<Value> {
    let InstKind::Binary {
        op: BinaryOp::AShr,
        args: [sum, Value::Int(c)],
    } = *f.kind(v.as_inst()?)
    else {
        return None;
    };
    rounded_dividend(f, sum, c)
}

/// `q` when `v` is `q % 2` as `instcombine` writes it: `q - ((q + (q >>> 31)) & -2)`.
fn remainder_by_two(f: &Function, v: Value) -> Option<Value> {
    let InstKind::Binary {
        op: BinaryOp::Sub,
        args: [q, rounded],
    } = *f.kind(v.as_inst()?)
    else {
        return None;
    };
    let InstKind::Binary {
        op: BinaryOp::And,
        args: [sum, Value::Int(-2)],
    } = *f.kind(rounded.as_inst()?)
    else {
        return None;
    };
    (rounded_dividend(f, sum, 1) == Some(q)).then_some(q)
}

/// `x` when `sum` is `x` plus the bias that rounds its division by `2^c` toward zero
/// (`is_rounding_bias`), either way round.
fn rounded_dividend(f: &Function, sum: Value, c: i32) -> Option<Value> {
    let InstKind::Binary {
        op: BinaryOp::Add,
        args: [a, b],
    } = *f.kind(sum.as_inst()?)
    else {
        return None;
    };
    [(a, b), (b, a)]
        .into_iter()
        .find(|&(x, bias)| is_rounding_bias(f, bias, x, c))
        .map(|(x, _)| x)
}

/// Whether `bias` is `2^c - 1` for negative `x` and 0 otherwise.
fn is_rounding_bias(f: &Function, bias: Value, x: Value, c: i32) -> bool {
    let lshr = |v: Value| match v.as_inst().map(|i| f.kind(i)) {
        Some(&InstKind::Binary {
            op: BinaryOp::LShr,
            args: [y, Value::Int(s)],
        }) => Some((y, s)),
        _ => None,
    };
    let Some((y, s)) = lshr(bias) else {
        return false;
    };
    if c == 1 && y == x && s == 31 {
        return true;
    }
    s == 32 - c
        && matches!(
            y.as_inst().map(|i| f.kind(i)),
            Some(&InstKind::Binary {
                op: BinaryOp::AShr,
                args: [z, Value::Int(31)],
            }) if z == x
        )
}

/// For a phi `d` in a block, each value it takes with the block it comes from, and the
/// phi's block.
fn phi_edges(f: &Function, d: Value) -> Option<(Vec<(Value, Block)>, Block)> {
    let i = d.as_inst()?;
    let InstKind::Phi { args, blocks } = f.kind(i) else {
        return None;
    };
    let edges = args.iter().copied().zip(blocks.iter().copied()).collect();
    Some((edges, f.inst_block(i)?))
}

/// Whether `v` is `d` doubled: `d * 2` or `d + d`.
fn is_doubled(f: &Function, v: Value, d: Value) -> bool {
    match v.as_inst().map(|i| f.kind(i)) {
        Some(&InstKind::Binary {
            op: BinaryOp::Mul,
            args: [a, Value::Int(2)],
        }) => a == d,
        Some(&InstKind::Binary {
            op: BinaryOp::Add,
            args: [a, b],
        }) => a == d && b == d,
        _ => false,
    }
}

struct Facts<'a> {
    powers: &'a Powers,
    ranges: &'a Ranges,
    cfg: &'a Cfg,
}

/// How many blocks that only jump on (a loop's preheader) may stand between a phi and the
/// branch that tests a value it takes.
const MAX_JUMPS: usize = 4;

impl Facts<'_> {
    fn is_non_negative(&self, v: Value) -> bool {
        self.ranges.of(v).lo >= 0
    }

    /// Whether `d` is a power of two, 0 or `i32::MIN`.
    fn is_divisor(&self, f: &Function, d: Value) -> bool {
        match self.powers.get(d) {
            Power::OneBit => true,
            Power::Signed => self.is_non_negative(d) || self.is_positive_phi(f, d),
            Power::Unknown => false,
        }
    }

    /// Whether `d` is a phi each of whose values is non-negative or tested positive (or
    /// non-negative) by the branch that decides its edge: a halving counter `j` of a loop
    /// `while (j > 0)`, rotated so that its guard and its latch test `j > 0` on the values
    /// it enters with and steps to.
    fn is_positive_phi(&self, f: &Function, d: Value) -> bool {
        let Some((edges, to)) = phi_edges(f, d) else {
            return false;
        };
        edges
            .iter()
            .all(|&(v, from)| self.is_non_negative(v) || self.tested_non_negative(f, v, from, to))
    }

    /// Whether the branch that decides the edge `from -> to` lets it through only for a
    /// non-negative `v` (`v > c` with `c >= -1`, `v >= c` or `v == c` with `c >= 0`).
    fn tested_non_negative(&self, f: &Function, v: Value, from: Block, to: Block) -> bool {
        self.tested(f, v, from, to, |pred, c| match pred {
            IntPred::Sgt => c >= -1,
            IntPred::Sge | IntPred::Eq => c >= 0,
            _ => false,
        })
    }

    /// Whether the branch that decides the edge `from -> to` (looking back through blocks
    /// that only jump on) lets it through only when `v` compares with a constant `c` as
    /// `holds(pred, c)` accepts, the comparison written `v pred c`.
    fn tested(
        &self,
        f: &Function,
        v: Value,
        mut from: Block,
        mut to: Block,
        holds: impl Fn(IntPred, i32) -> bool,
    ) -> bool {
        for _ in 0..=MAX_JUMPS {
            if let Some((cond, taken)) = branch_into(f, from, to) {
                let Some(&InstKind::Icmp { pred, args: [a, b] }) =
                    cond.as_inst().map(|c| f.kind(c))
                else {
                    return false;
                };
                let pred = if taken { pred } else { pred.inverse() };
                return match (a, b) {
                    (a, Value::Int(c)) if a == v => holds(pred, c),
                    (Value::Int(c), b) if b == v => holds(pred.swapped(), c),
                    _ => false,
                };
            }
            let jumps = f
                .terminator(from)
                .is_some_and(|t| matches!(f.kind(t), InstKind::Br { .. }));
            match self.cfg.preds(from) {
                [p] if jumps => (from, to) = (*p, from),
                _ => return false,
            }
        }
        false
    }

    /// `(x, d)` when `q` is `x / d` for a non-negative `x` and a divisor `d`.
    fn quotient(&self, f: &Function, q: Value) -> Option<(Value, Value)> {
        match *f.kind(q.as_inst()?) {
            InstKind::Binary {
                op: BinaryOp::SDiv,
                args: [x, d],
            } if !d.is_constant() && self.is_non_negative(x) && self.is_divisor(f, d) => {
                Some((x, d))
            }
            _ => None,
        }
    }

    /// Whether `d` is a power of two from 1 to `2^30`: a divisor known positive by its range,
    /// or a phi each of whose values is (`is_positive_counter`).
    fn is_positive_divisor(&self, f: &Function, d: Value) -> bool {
        self.powers.get(d) != Power::Unknown
            && (self.ranges.of(d).lo >= 1 || self.is_positive_counter(f, d))
    }

    /// Whether `d` is a phi each of whose values is positive by its range, tested positive
    /// by the branch that decides its edge (a halving counter of a loop `while (j > 0)`), or
    /// the phi doubled and tested below `2^30` there (a doubling counter of a loop
    /// `while (i < 1 << 30)`). With a doubled value, the others must lie in `1..=2^29`:
    /// then the counter stays a power of two up to `2^29`, whose double does not wrap.
    fn is_positive_counter(&self, f: &Function, d: Value) -> bool {
        let Some((edges, to)) = phi_edges(f, d) else {
            return false;
        };
        let doubled = |v: Value, from: Block| {
            is_doubled(f, v, d)
                && self.tested(f, v, from, to, |pred, c| match pred {
                    IntPred::Slt => (1..=1 << 30).contains(&c),
                    IntPred::Sle => (0..1 << 30).contains(&c),
                    _ => false,
                })
        };
        let positive = |v: Value, from: Block| {
            self.ranges.of(v).lo >= 1
                || self.tested(f, v, from, to, |pred, c| match pred {
                    IntPred::Sgt => c >= 0,
                    IntPred::Sge | IntPred::Eq => c >= 1,
                    _ => false,
                })
        };
        if edges.iter().any(|&(v, from)| doubled(v, from)) {
            edges.iter().all(|&(v, from)| {
                let range = self.ranges.of(v);
                doubled(v, from) || range.lo >= 1 && range.hi <= 1 << 29
            })
        } else {
            edges.iter().all(|&(v, from)| positive(v, from))
        }
    }

    /// For `i`, `x / d` or `x % d` of a dividend of any sign and a divisor `2^k` from 1 to
    /// `2^30` (`is_positive_divisor`), the value that replaces it, built in front of it:
    /// `t = x + ((x >> 31) & (d - 1))` rounds toward zero, `t >> k` is the quotient and
    /// `x - (t & -d)` the remainder.
    fn signed_division(&self, f: &mut Function, i: Inst) -> Option<Value> {
        use BinaryOp::*;
        let InstKind::Binary {
            op: op @ (SDiv | SRem),
            args: [x, d],
        } = *f.kind(i)
        else {
            return None;
        };
        if d.is_constant() || !self.is_positive_divisor(f, d) {
            return None;
        }
        let mut insert = |kind| Value::Inst(f.insert_inst_before(i, kind, Type::I32));
        let sign = insert(InstKind::binary(AShr, x, Value::Int(31)));
        let mask = insert(InstKind::binary(Add, d, Value::Int(-1)));
        let bias = insert(InstKind::binary(And, sign, mask));
        let t = insert(InstKind::binary(Add, x, bias));
        Some(if op == SDiv {
            let k = insert(InstKind::Ctz { args: [d] });
            insert(InstKind::binary(AShr, t, k))
        } else {
            let minus = insert(InstKind::binary(Sub, Value::Int(0), d));
            let rounded = insert(InstKind::binary(And, t, minus));
            insert(InstKind::binary(Sub, x, rounded))
        })
    }

    /// The value that replaces `i`, built in front of it.
    fn rewrite(&self, f: &mut Function, i: Inst) -> Option<Value> {
        use BinaryOp::*;
        let InstKind::Binary { op, args: [a, b] } = *f.kind(i) else {
            return None;
        };
        let insert = |f: &mut Function, kind, ty| Value::Inst(f.insert_inst_before(i, kind, ty));
        let halving_remainder = remainder_by_two(f, Value::Inst(i));
        match (op, b) {
            (And, Value::Int(1)) | (SRem, Value::Int(2)) | (Sub, _) => {
                let q = if op == Sub { halving_remainder? } else { a };
                let (x, d) = self.quotient(f, q)?;
                let bit = insert(f, InstKind::binary(And, x, d), Type::I32);
                let set = insert(f, InstKind::icmp(IntPred::Ne, bit, Value::Int(0)), Type::I1);
                let kind = InstKind::Cast {
                    op: CastOp::Zext,
                    args: [set],
                };
                Some(insert(f, kind, Type::I32))
            }
            (Mul, _) => {
                let (q, d) = [(a, b), (b, a)]
                    .into_iter()
                    .find(|&(q, d)| self.quotient(f, q).is_some_and(|(_, e)| e == d))?;
                let (x, _) = self.quotient(f, q)?;
                let minus = insert(f, InstKind::binary(Sub, Value::Int(0), d), Type::I32);
                Some(insert(f, InstKind::binary(And, x, minus), Type::I32))
            }
            (SRem, d) if !d.is_constant() && self.is_non_negative(a) && self.is_divisor(f, d) => {
                let mask = insert(f, InstKind::binary(Sub, d, Value::Int(1)), Type::I32);
                Some(insert(f, InstKind::binary(And, a, mask), Type::I32))
            }
            _ => None,
        }
    }
}
