//! loop-unroll for a counted loop whose body branches (a test that skips a relaxation):
//! `k` copies of its blocks run per test of the counter, as the bodies of a loop of one
//! block do (the module above).
//!
//! ```text
//!   P: ...; br H                P:   lim; condbr init < lim, PU, PH
//!   H .. L: the body            PU:  br H0
//!   L: i' = i + s               H0 .. L0: copy 0 of the body; L0: br H1
//!      condbr i' < n, H, E      ...
//!                               Hk .. Lk: the last copy; condbr i + ks < lim, H0, C
//!                               C:   condbr i + ks < n, PH, E
//!                               PH:  phis of H's phis, from P and from C; br H
//!                               H .. L: unchanged, the remainder
//! ```
//!
//! Each copy's header takes the values the copy before it takes back to its header (copy
//! 0: the first values, or the last copy's); the latch tests that `i < lim` decides are
//! gone. The loop's values are used after it by the phis of E, or, when E is entered from
//! the latch alone, through new phis there.
//!
//! A loop that rotation left with its test at the top (`while (i < n)` with a `break`
//! inside) is counted by its header instead: the same `lim` makes the tests of all `k`
//! copies hold, so each copy's header only jumps into its body, and C goes on to PH, whose
//! H makes the loop's test.
//!
//! Other ways out (a `break`) are taken from each copy as from the loop: the exits' phis
//! take each copy's values, and a value used after such an exit (that only the loop
//! enters) is read through a new phi there. Only a way out that depends on no value read
//! in the round qualifies (`leaves_on_own_count`: more mismatches than a limit): a search
//! that breaks out on the data (at the first mismatch of a naive match) often leaves
//! within a few rounds, which would pay the limit and the extra tests for nothing.

use super::bounds::bound_changes;
use super::copies::{blocks_size, copy_round, latch_values};
use super::exit_values::{extend_exit_phis, read_through_exit_phis, reads_after_exits};
use super::latch_counted::{latch_counted, LatchCounted};
use super::{MAX_FACTOR_CHANGING_BOUND, MAX_UNROLLED};
use crate::analysis::{Cfg, DomTree, LoopInfo, ModuleFacts};
use crate::cost_model::CostModel;
use crate::ir::{BinaryOp, Block, Function, Inst, InstKind, Type, Value};
use crate::transform::counter_test::{constant_trip_count, CounterTest};
use crate::transform::loop_frame::{uses_after, Frame};
use crate::transform::unroll_limit::MAX_FULL_TRIPS;
use crate::transform::value_map::{copied_block, mapped, ValueMap};

/// The most machine instructions one copy of the blocks may take: a larger body that
/// branches keeps more values live across its blocks, and its copies run out of
/// registers (Life's neighbour sums spilled).
const MAX_BODY: u32 = 32;
/// The most values the loop may keep in registers throughout: its header's phis and the
/// values from outside it (not constants) that it uses. Beyond that, the copies' own
/// values spill.
const MAX_LIVE_THROUGH: usize = 16;
/// The fewest machine instructions per block of the body, in halves (2.5): a body that is
/// mostly tests and branches (a scan for the best of several keys) keeps every branch in
/// each copy, and saves only the counter's step and test.
const MIN_HALF_SIZE_PER_BLOCK: u32 = 5;
/// The most instructions looked at to tell what an early way out of the loop depends on.
const MAX_COUNT_SEARCH: usize = 16;
/// How many rounds of the unrolled loop an array the counter indexes must hold at least:
/// a counter that indexes an array of 12 elements runs about 12 rounds at most, which a
/// loop unrolled by 8 mostly spends in its remainder.
const MIN_ROUNDS_IN_EXTENT: u32 = 4;

/// A loop of several blocks to unroll by `factor`: its preheader, header, latch and the
/// latch's exit, its blocks, the counter's stepped value and first value, its exit test,
/// and the size of one copy.
pub(super) struct BranchingShape {
    p: Block,
    h: Block,
    l: Block,
    /// The block that tests the counter: `l`, or `h` (see `LatchCounted`).
    tested: Block,
    e: Block,
    blocks: Vec<Block>,
    /// Every block that the loop leaves to (E and those of its early ways out).
    exits: Vec<Block>,
    next: Inst,
    init: Value,
    test: CounterTest,
    /// The trip count, when it is a known constant (then at least the factor).
    trips: Option<u32>,
    /// The uses of its values after it other than by E's phis (`uses_after`), when the
    /// latch is its only way out.
    after: Vec<(Inst, Inst, usize)>,
    /// Those uses with the exit that takes a phi for each, when it has other ways out
    /// (`reads_after_exits`).
    read_after: Vec<(Inst, Inst, usize, Block)>,
    pub(super) factor: u32,
    pub(super) size: u32,
}

pub(super) fn branching_shape(
    f: &Function,
    facts: &ModuleFacts,
    costs: &dyn CostModel,
    cfg: &Cfg,
    dom: &DomTree,
    loops: &LoopInfo,
    k: usize,
) -> Option<BranchingShape> {
    let LatchCounted {
        p,
        h,
        l,
        tested,
        e,
        early,
        counter: ctr,
        bound,
        inclusive,
    } = latch_counted(f, loops, k)?;
    let lp = &loops.loops[k];
    if !early
        .iter()
        .all(|&x| leaves_on_own_count(f, h, &lp.blocks, x))
    {
        return None;
    }
    let changing_bound = bound_changes(f, loops, k, bound, ctr.start)?;
    let size = blocks_size(f, costs, &lp.blocks, false)?;
    // A few rounds known at compile time are written out in a row instead.
    let trips = constant_trip_count(ctr.start, bound, ctr.step, inclusive);
    if trips.is_some_and(|t| t <= MAX_FULL_TRIPS) {
        return None;
    }
    // A header that tests the counter is only a jump in the copies.
    let branching_blocks = lp.blocks.len() - usize::from(tested == h);
    if size > MAX_BODY
        || 2 * size < MIN_HALF_SIZE_PER_BLOCK * branching_blocks as u32
        || live_through(f, h, &lp.blocks) > MAX_LIVE_THROUGH
        || branches_on_invariant(f, &lp.blocks)
    {
        return None;
    }
    // The loop's values are used after it by the exits' phis; any other use needs an exit
    // that only the loop enters, to take a phi of its own (E's, entered from the latch
    // alone, takes it from the latch and C; a header's test stays the only way to its E).
    let (after, read_after) = if early.is_empty() && tested == l {
        let after = uses_after(f, &lp.blocks);
        if cfg.preds(e) != [l] && !after.is_empty() {
            return None;
        }
        (after, Vec::new())
    } else {
        (Vec::new(), reads_after_exits(f, cfg, dom, loops, k)?)
    };
    let extent = counter_extent(f, facts, &lp.blocks, ctr.phi);
    let factor = [8, 4, 2]
        .into_iter()
        .filter(|&n| !changing_bound || n <= MAX_FACTOR_CHANGING_BOUND)
        .filter(|&n| trips.is_none_or(|t| n <= t))
        .filter(|&n| extent.is_none_or(|x| n * MIN_ROUNDS_IN_EXTENT <= x))
        .find(|&n| size.max(1) * n <= MAX_UNROLLED)?;
    Some(BranchingShape {
        p,
        h,
        l,
        tested,
        e,
        blocks: lp.blocks.clone(),
        exits: lp.exits.clone(),
        next: ctr.next,
        init: ctr.start,
        test: CounterTest {
            step: ctr.step,
            bound,
            inclusive,
            offset: 0,
        },
        trips,
        after,
        read_after,
        factor,
        size,
    })
}

/// The fewest elements among the arrays these blocks index by the counter `phi` (plus a
/// constant): the counter stays within them, so the loop runs at most about that many
/// rounds. An array is a global (its size) or a row of a larger one (`gep b, r, row`, `r`
/// not a constant, `row` wider than an element: the row's bytes), looked for through
/// offsets within it (`gep b, d, 4` for `s[i + d]`); other bases say nothing.
fn counter_extent(f: &Function, facts: &ModuleFacts, blocks: &[Block], phi: Inst) -> Option<u32> {
    let counted = |v: Value| {
        v == Value::Inst(phi) || v.as_inst().is_some_and(|i| {
            matches!(*f.kind(i), InstKind::Binary { op: BinaryOp::Add, args: [x, Value::Int(_)] }
                    if x == Value::Inst(phi))
        })
    };
    let extent = |mut base: Value, element: u32| loop {
        match base {
            Value::Global(g) => return Some(facts.global_bytes[g.index()]),
            Value::Inst(i) => match *f.kind(i) {
                InstKind::Gep {
                    args: [_, row],
                    stride,
                } if stride > element && !row.is_constant() => return Some(stride),
                InstKind::Gep {
                    args: [inner, _],
                    stride,
                } if stride <= element => base = inner,
                _ => return None,
            },
            _ => return None,
        }
    };
    blocks
        .iter()
        .flat_map(|&b| f.block_insts(b))
        .filter_map(|i| match *f.kind(i) {
            InstKind::Gep {
                args: [base, index],
                stride,
            } if stride > 0 && counted(index) => Some(extent(base, stride)? / stride),
            _ => None,
        })
        .min()
}

/// Whether the early way out of block `x` depends on no value read from memory in the
/// round: a count the loop keeps (`if (miss > limit) break;` after `miss = miss + 1`)
/// passes its bound late, while a test of the data (the first mismatch of a naive match)
/// is often decided within a few rounds, which would pay the limit and the extra tests
/// for nothing. The condition's operands are followed within the round, to the header's
/// phis (the values from the round before).
fn leaves_on_own_count(f: &Function, h: Block, blocks: &[Block], x: Block) -> bool {
    let Some(InstKind::CondBr { args: [cond], .. }) = f.terminator(x).map(|t| f.kind(t)) else {
        return false;
    };
    let mut seen: Vec<Inst> = Vec::new();
    let mut work = vec![*cond];
    while let Some(v) = work.pop() {
        let Some(i) = v.as_inst().filter(|_| !fixed_for(f, blocks, v)) else {
            continue;
        };
        if seen.contains(&i) || f.inst_block(i) == Some(h) && f.kind(i).is_phi() {
            continue;
        }
        if seen.len() == MAX_COUNT_SEARCH {
            return false;
        }
        seen.push(i);
        match f.kind(i) {
            InstKind::Load { .. } | InstKind::Call { .. } => return false,
            kind => work.extend(kind.operands().iter().copied()),
        }
    }
    true
}

/// Whether `v` is fixed for the loop of these blocks: not an instruction inside it.
fn fixed_for(f: &Function, blocks: &[Block], v: Value) -> bool {
    v.as_inst()
        .is_none_or(|d| f.inst_block(d).is_some_and(|db| !blocks.contains(&db)))
}

/// Whether a block of the loop branches on a condition computed outside it (`if (flag &&
/// ...)` that unswitching left): each copy would test it again, for nothing.
fn branches_on_invariant(f: &Function, blocks: &[Block]) -> bool {
    blocks.iter().any(|&b| {
        f.terminator(b).is_some_and(|t| match *f.kind(t) {
            InstKind::CondBr { args: [c], .. } => fixed_for(f, blocks, c),
            _ => false,
        })
    })
}

/// The values a loop with header `h` and these blocks keeps in registers throughout: the
/// header's phis, and the values from outside it (not constants) that it uses.
fn live_through(f: &Function, h: Block, blocks: &[Block]) -> usize {
    let mut outside: Vec<Value> = Vec::new();
    for &b in blocks {
        for i in f.block_insts(b) {
            for &v in f.kind(i).operands() {
                let in_a_register = !v.is_constant() && !matches!(v, Value::Undef(_));
                if in_a_register && fixed_for(f, blocks, v) && !outside.contains(&v) {
                    outside.push(v);
                }
            }
        }
    }
    f.phis(h).count() + outside.len()
}

pub(super) fn unroll_branching(f: &mut Function, s: BranchingShape) {
    let (p, h, l, e) = (s.p, s.h, s.l, s.e);
    let phis: Vec<Inst> = f.phis(h).collect();

    let term_p = f.terminator(p).expect("a preheader ends in br");
    let lim = s.test.limit(f, s.factor, term_p);
    let before = s.test.before();
    let [pu, c, ph] = [(); 3].map(|_| f.create_block());
    f.insert_block_after(pu, p);

    // The copies, each header's phis (but the first's) replaced by what the copy before
    // takes back.
    let mut copies: Vec<Vec<(Block, Block)>> = Vec::new();
    let mut maps: Vec<ValueMap> = Vec::new();
    let mut last_block = pu;
    for j in 0..s.factor as usize {
        let carried = (j > 0).then(|| latch_values(f, &phis, l, &maps[j - 1]));
        let (copy_of, map) = copy_round(f, &s.blocks, last_block, &phis, carried.as_deref());
        last_block = copy_of.last().map_or(last_block, |&(_, b)| b);
        copies.push(copy_of);
        maps.push(map);
    }
    f.insert_block_after(c, last_block);
    f.insert_block_after(ph, c);
    let last = s.factor as usize - 1;
    let headers: Vec<Block> = copies.iter().map(|c| copied_block(c, h)).collect();
    let taken_back = latch_values(f, &phis, l, &maps[last]);
    for (&phi, &back) in phis.iter().zip(&taken_back) {
        let copy = maps[0][&phi].as_inst().expect("a copied phi");
        let first = f.phi_incoming(phi, p).expect("from the preheader");
        let kind = InstKind::Phi {
            args: vec![first, back],
            blocks: vec![pu, copied_block(&copies[last], l)],
        };
        let ty = f.inst(phi).ty;
        f.replace_kind(copy, kind, ty);
    }
    for j in 0..last {
        let latch = f
            .terminator(copied_block(&copies[j], l))
            .expect("a latch ends in a branch");
        let jump = InstKind::Br {
            targets: [headers[j + 1]],
        };
        f.replace_kind(latch, jump, Type::Void);
    }
    // A header's test holds in every copy: each copy's header jumps into its body.
    if s.tested == h {
        for &header in &headers {
            let test = f.terminator(header).expect("a header ends in a branch");
            let inside = f
                .kind(test)
                .targets()
                .iter()
                .copied()
                .find(|&t| t != e)
                .expect("a test that stays in the loop");
            f.replace_kind(test, InstKind::Br { targets: [inside] }, Type::Void);
        }
    }
    let counter = mapped(Value::Inst(s.next), &maps[last]);
    let latch = f
        .terminator(copied_block(&copies[last], l))
        .expect("a latch ends in a branch");
    let again = f.insert_inst_before(latch, InstKind::icmp(before, counter, lim), Type::I1);
    let branch = InstKind::CondBr {
        args: [Value::Inst(again)],
        targets: [headers[0], c],
    };
    f.replace_kind(latch, branch, Type::Void);

    // The exits' phis take from each copy of a block that leaves early what they take
    // from the block; the copies of the block that tests the counter leave nowhere (the
    // latch's way out is C's, below).
    let in_copies = |b: Block, v: Value| -> Vec<(Value, Block)> {
        if b == s.tested {
            return Vec::new();
        }
        copies
            .iter()
            .zip(&maps)
            .map(|(copy_of, map)| (mapped(v, map), copied_block(copy_of, b)))
            .collect()
    };
    extend_exit_phis(f, &s.exits, &s.blocks, in_copies);

    // P enters the copies when the first block's skipped tests hold.
    let frame = Frame {
        p,
        h,
        exiting: s.tested,
        e,
        pu,
        c,
        ph,
        lim,
        test: s.test,
        always: s.trips.is_some() && s.tested == l,
    };
    frame.enter(f, s.init);
    f.append_inst(
        pu,
        InstKind::Br {
            targets: [headers[0]],
        },
        Type::Void,
    );

    if s.tested == l {
        frame.leave(f, counter, &phis, &taken_back, s.after, &maps[last]);
    } else {
        // The header makes the loop's test: C goes on to it.
        f.append_inst(c, InstKind::Br { targets: [ph] }, Type::Void);
        frame.enter_remainder(f, &phis, &taken_back);
    }

    // A value used after an early way out: a phi in the exit of what each block leaving
    // to it has, the loop's own blocks the value, their copies the copy's; the latch's way
    // out is C's too (the last copy's value), the header's is its alone.
    read_through_exit_phis(f, &s.blocks, &s.read_after, |b, v| {
        if b == l && s.tested == l {
            vec![(mapped(v, &maps[last]), c)]
        } else {
            in_copies(b, v)
        }
    });
}
