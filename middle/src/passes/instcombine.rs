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

mod canonical;
mod comparisons;
mod constants_outward;
mod division;
mod rules;
mod worklist;

use crate::analysis::Preserved;
use crate::ir::{BinaryOp, Function, Inst, InstKind, IntPred, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::simplify::simplify;
use canonical::canonicalize;
use comparisons::{mirrored_difference, negation, sign_bit_select};
use constants_outward::{constant_offsets_outward, constant_term_outward};
use division::{exact_division, full_remainders, power_of_two_division, remainder_from_quotient};
use rules::RULES;
use worklist::Worklist;

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

fn binary_before(f: &mut Function, i: Inst, op: BinaryOp, a: Value, b: Value) -> Value {
    Value::Inst(f.insert_inst_before(i, InstKind::Binary { op, args: [a, b] }, Type::I32))
}
