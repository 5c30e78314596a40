//! if-to-select: a small diamond or triangle whose join only picks values becomes straight
//! code with `select`s, which the back end emits as `mov` and `mov<cond>`, with no branch.
//!
//! ```text
//!   H: condbr %c, T, F                 H: (T's and F's instructions)
//!   T: ...; br J                          %s = select %c, %t, %f
//!   F: ...; br J              =>          br J
//!   J: %p = phi [%t, T], [%f, F], ...  J: %p = phi [%s, H], ...
//! ```
//!
//! A triangle, `condbr %c, T, J` with `T: ...; br J` (or the mirror image), is the same with
//! the value J's phis take straight from H in place of F's. The side blocks must have H as
//! their only predecessor, no phis, and instructions that may run whichever way the condition
//! goes: no memory access, call or other effect (division is defined for every input in this
//! IR, so it cannot trap). An operation whose only user is one of J's phis, and which the
//! back end can predicate (`CostModel::is_predicable`), costs nothing extra: the select
//! computes it under its condition in place of a conditional move (`cmp` and `subeq` for
//! `if (c == 93) n = n - 1;`, where the branch took `cmp`, `bne` and `sub`). The others run
//! on both paths where the branch ran one side, so their weighted cost together is at most
//! `MAX_SPECULATED` (less where they compare or select), except the inner select of a clamp to `0..=2^k - 1` and its comparison
//! (`ir::clamp`: the two selects become one `usat`); and at most `MAX_SELECTS` of J's phis
//! may differ between the two edges.
//! A triangle's side block may also store, to an address H loads from or stores to with
//! nothing after that in H that may write there, in an object that is not read-only (module
//! facts):
//! `if (t[i] < x) t[i] = x;`, or the swap of `a[j]` and `a[j + 1]`. Each such store runs
//! on both paths and stores `select %c, new, old`, where `old` is what H left there (its
//! load, or the value it stored): on the path that
//! skipped the side block it writes back what the location holds, and, every earlier store
//! of the side block having done the same, memory is left as it was. The back end stores
//! under the condition where it can prove the location still holds `old`; at most
//! `MAX_STORES` of them.
//! A float phi becomes a select too (`vmov<cond>.f32`: `if (t < 0.0) t = -t;` is `vneg`, a
//! compare and a conditional move), except one that a loop carries round to itself (a
//! float maximum: each round's compare would wait for the last). A branch on a constant is
//! left to simplify-cfg. The candidates are found on the CFG as the pass starts; no block
//! is part of two of them, as a side block ends in `br` and H in `condbr`. The selects can
//! make the branch around them a candidate once simplify-cfg has merged J into H: -O2 runs
//! the two passes twice.
//! J is left with one predecessor fewer; simplify-cfg merges it into H when that was its
//! last other one.
//!
//! Needs: the CFG. Preserves: behaviour (the CFG changes).

use crate::analysis::alias::{locate, value_held};
use crate::analysis::{Cfg, Preserved};
use crate::cost_model::CostModel;
use crate::ir::clamp::unsigned_clamp;
use crate::ir::{Block, Function, Inst, InstKind, Type, Value};
use crate::passes::FunctionContext;
use crate::transform::remove_blocks::remove_blocks;

/// The most weighted cost the instructions moved out of the side blocks, predicated ones
/// aside, may have together: arithmetic only (`3 * n + 1` beside `n / 2`, a shifted add
/// and a predicated add), or else `MAX_SPECULATED_CHOICE` when a comparison or select is
/// among them (a select of selects, a comparison clobbering the flags between them).
const MAX_SPECULATED: u32 = 2;

/// `MAX_SPECULATED` for side blocks that compare or select.
const MAX_SPECULATED_CHOICE: u32 = 1;

/// The most selects that may replace one branch for its join's phis.
const MAX_SELECTS: usize = 2;

/// The most stores a side block may have (each then stores a select, which the back end
/// mostly turns into a store under the condition).
const MAX_STORES: usize = 2;

pub fn run(f: &mut Function, cx: &mut FunctionContext) -> Preserved {
    let cfg = cx.analyses.cfg(f);
    let candidates: Vec<Candidate> = f
        .blocks()
        .filter_map(|h| candidate(f, cx, &cfg, h))
        .collect();
    for c in &candidates {
        convert(f, c);
    }
    Preserved::nothing_if(!candidates.is_empty())
}

/// A branch to turn into selects: H's `condbr` on `cond`, its side blocks (one for a
/// triangle), and the join J. `on_true` and `on_false` are the blocks J's phis take their
/// values from on each way (H itself on a triangle's direct edge). `stores` are the side
/// block's stores, each with H's load of its address.
struct Candidate {
    h: Block,
    cond: Value,
    sides: Vec<Block>,
    join: Block,
    on_true: Block,
    on_false: Block,
    stores: Vec<(Inst, Value)>,
}

fn candidate(f: &Function, cx: &FunctionContext, cfg: &Cfg, h: Block) -> Option<Candidate> {
    let (id, facts, costs) = (cx.id, cx.facts(), cx.costs);
    let term = f.terminator(h)?;
    let &InstKind::CondBr {
        args: [cond],
        targets: [yes, no],
    } = f.kind(term)
    else {
        return None;
    };
    // A constant condition is simplify-cfg's: it removes the side never taken.
    if cond.is_constant() {
        return None;
    }
    // The block after a side block, when it is one: its only predecessor is H, it has no
    // phis and it ends in `br`.
    let side_exit = |s: Block| -> Option<Block> {
        if s == h || cfg.preds(s) != [h] || f.phis(s).next().is_some() {
            return None;
        }
        match *f.kind(f.terminator(s)?) {
            InstKind::Br { targets: [j] } if j != s && j != h => Some(j),
            _ => None,
        }
    };
    let (sides, join, on_true, on_false) = match (side_exit(yes), side_exit(no)) {
        (Some(j), Some(k)) if j == k && yes != no => (vec![yes, no], j, yes, no),
        (Some(j), _) if j == no => (vec![yes], j, yes, h),
        (_, Some(k)) if k == yes => (vec![no], k, h, no),
        _ => return None,
    };
    let mut speculated = 0;
    let mut chooses = false;
    let mut stores = Vec::new();
    for &s in &sides {
        for i in f.block_insts(s) {
            let kind = f.kind(i);
            if kind.is_terminator() {
                continue;
            }
            if let &InstKind::Store { args: [new, addr] } = kind {
                if sides.len() > 1 || f.value_type(new) != Type::I32 {
                    return None;
                }
                if !facts.is_writable(id, locate(f, addr).object) {
                    return None;
                }
                stores.push((i, value_held(f, h, addr, None)?));
                continue;
            }
            let opcode = kind.opcode();
            if opcode.has_side_effects() || opcode.may_fault() || opcode.is_pinned() {
                return None;
            }
            if !is_predicated(f, costs, i, join) {
                speculated += costs.inst_cost(kind);
                chooses |= !matches!(kind, InstKind::Binary { .. });
            }
        }
    }
    let mut selects = 0;
    for phi in f.phis(join) {
        let (t, e) = (
            f.phi_incoming(phi, on_true)?,
            f.phi_incoming(phi, on_false)?,
        );
        if t != e {
            if !matches!(f.inst(phi).ty, Type::I1 | Type::I32 | Type::Ptr | Type::F32) {
                return None;
            }
            if f.inst(phi).ty == Type::F32 && (comes_back(f, t, phi) || comes_back(f, e, phi)) {
                return None;
            }
            selects += 1;
            speculated = speculated.saturating_sub(clamp_saving(f, costs, cond, t, e, &sides));
        }
    }
    let budget = if chooses {
        MAX_SPECULATED_CHOICE
    } else {
        MAX_SPECULATED
    };
    let fits = speculated <= budget && selects <= MAX_SELECTS;
    (fits && stores.len() <= MAX_STORES).then_some(Candidate {
        h,
        cond,
        sides,
        join,
        on_true,
        on_false,
        stores,
    })
}

/// What the side blocks' instructions cost that a clamp leaves unused: when the select
/// `cond ? t : e` is a clamp (`ir::clamp`) whose inner select and its comparison stand in a
/// side block for it alone, the back end computes the clamp in one `usat` instead.
fn clamp_saving(
    f: &Function,
    costs: &dyn CostModel,
    cond: Value,
    t: Value,
    e: Value,
    sides: &[Block],
) -> u32 {
    if unsigned_clamp(f, cond, t, e).is_none() {
        return 0;
    }
    let only_for_clamp = |v: Value| {
        v.as_inst().filter(|&i| {
            f.uses(v).len() == 1 && f.inst_block(i).is_some_and(|b| sides.contains(&b))
        })
    };
    let Some(inner) = only_for_clamp(if t.is_constant() { e } else { t }) else {
        return 0;
    };
    let InstKind::Select { args: [c2, ..] } = *f.kind(inner) else {
        return 0;
    };
    let compare = only_for_clamp(c2).map_or(0, |c| costs.inst_cost(f.kind(c)));
    costs.inst_cost(f.kind(inner)) + compare
}

/// Whether the select that replaces a phi of `join` will compute `i` under its condition:
/// `i` is a predicable operation whose only user is that phi.
fn is_predicated(f: &Function, costs: &dyn CostModel, i: Inst, join: Block) -> bool {
    let &InstKind::Binary { op, .. } = f.kind(i) else {
        return false;
    };
    match f.uses(Value::Inst(i)) {
        [u] => {
            costs.is_predicable(op) && f.kind(u.inst).is_phi() && f.inst_block(u.inst) == Some(join)
        }
        _ => false,
    }
}

fn convert(f: &mut Function, c: &Candidate) {
    let term = f.terminator(c.h).expect("a candidate ends in condbr");
    for &s in &c.sides {
        let moved: Vec<Inst> = f
            .block_insts(s)
            .filter(|&i| !f.kind(i).is_terminator())
            .collect();
        for i in moved {
            f.move_inst_before(i, term);
        }
    }
    for &(store, old) in &c.stores {
        let &InstKind::Store { args: [new, addr] } = f.kind(store) else {
            unreachable!("a candidate's stores are stores");
        };
        let (t, e) = if c.on_true == c.h {
            (old, new)
        } else {
            (new, old)
        };
        let ty = f.value_type(new);
        let select = InstKind::Select {
            args: [c.cond, t, e],
        };
        let picked = Value::Inst(f.insert_inst_before(store, select, ty));
        f.replace_kind(
            store,
            InstKind::Store {
                args: [picked, addr],
            },
            Type::Void,
        );
    }
    let phis: Vec<Inst> = f.phis(c.join).collect();
    for phi in phis {
        let ty = f.inst(phi).ty;
        let t = f.phi_incoming(phi, c.on_true).expect("checked");
        let e = f.phi_incoming(phi, c.on_false).expect("checked");
        let picked = if t == e {
            t
        } else {
            let select = InstKind::Select {
                args: [c.cond, t, e],
            };
            Value::Inst(f.insert_inst_before(term, select, ty))
        };
        let InstKind::Phi { args, blocks } = f.kind(phi) else {
            unreachable!("phis come first");
        };
        let mut pairs: Vec<(Value, Block)> = args
            .iter()
            .zip(blocks)
            .filter(|&(_, &b)| b != c.on_true && b != c.on_false)
            .map(|(&v, &b)| (v, b))
            .collect();
        pairs.push((picked, c.h));
        let (args, blocks) = pairs.into_iter().unzip();
        f.replace_kind(phi, InstKind::Phi { args, blocks }, ty);
    }
    f.replace_kind(term, InstKind::Br { targets: [c.join] }, Type::Void);
    remove_blocks(f, &c.sides);
}

/// Whether `v` is a phi that takes `phi` (a float maximum `m = x > m ? x : m` round a
/// loop): as a select, each round's compare and conditional move would wait for the last
/// (`vcmp`, `vmrs` and `vmov<cond>`, some 8 cycles), where a predicted branch lets the
/// rounds overlap.
fn comes_back(f: &Function, v: Value, phi: Inst) -> bool {
    v.as_inst().is_some_and(
        |p| matches!(f.kind(p), InstKind::Phi { args, .. } if args.contains(&Value::Inst(phi))),
    )
}
