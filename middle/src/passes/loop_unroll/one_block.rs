//! loop-unroll for a counted loop of one block (the module above describes both ways):
//! which loops qualify and by what factor (`shape`), the block of copies with its limit,
//! test and remainder (`unroll`), and all of a small known count of rounds in a row
//! (`unroll_fully`).

use super::bounds::bound_changes;
use super::copies::latch_values;
use super::{MAX_FACTOR_CHANGING_BOUND, MAX_FULLY_UNROLLED, MAX_UNROLLED};
use crate::analysis::{Cfg, LoopInfo};
use crate::cost_model::CostModel;
use crate::ir::{Block, Function, Inst, InstKind, Type, Value};
use crate::transform::counter_test::CounterTest;
use crate::transform::loop_frame::{uses_after, Frame};
use crate::transform::one_block_loop::{one_block_loop, OneBlockLoop};
use crate::transform::phi_edits::incoming_index;
use crate::transform::unroll_limit::MAX_FULL_TRIPS;
use crate::transform::value_map::{mapped, mapped_kind, ValueMap};

/// A loop to unroll: preheader, the loop's one block, its exit; the counter phi and its
/// step (negative when it counts down); the bound and whether the test is `<=` (`>=`); the
/// counter's first value; the factor and the body's size.
pub(super) struct Shape {
    p: Block,
    h: Block,
    e: Block,
    next: Inst,
    test: CounterTest,
    init: Value,
    pub(super) factor: u32,
    pub(super) body_size: u32,
    /// The trip count, when it is a known constant (then at least the factor).
    trips: Option<u32>,
    /// The factor is the trip count, a constant: the loop goes, its bodies in a row.
    pub(super) full: bool,
}

pub(super) fn shape(
    f: &Function,
    costs: &dyn CostModel,
    cfg: &Cfg,
    loops: &LoopInfo,
    k: usize,
) -> Option<Shape> {
    let OneBlockLoop {
        p,
        h,
        e,
        next,
        test,
        init,
        trips,
    } = one_block_loop(f, cfg, loops, k)?;
    let changing_bound = bound_changes(f, loops, k, test.bound, init)?;
    let mut body_size = 0;
    for i in f.block_insts(h) {
        let kind = f.kind(i);
        if matches!(kind, InstKind::Call { .. } | InstKind::Alloca { .. }) {
            return None;
        }
        if !kind.is_phi() && !kind.is_terminator() {
            body_size += costs.inst_size(kind);
        }
    }
    let full =
        trips.is_some_and(|t| t <= MAX_FULL_TRIPS && body_size.max(1) * t <= MAX_FULLY_UNROLLED);
    let mut factor = [8, 4, 2]
        .into_iter()
        .filter(|&k| !changing_bound || k <= MAX_FACTOR_CHANGING_BOUND)
        .find(|&k| body_size.max(1) * k <= MAX_UNROLLED)?;
    match trips {
        Some(t) if full => factor = t,
        Some(t) => {
            while factor > t {
                factor /= 2;
            }
        }
        None => {}
    }
    (factor >= 2).then_some(Shape {
        p,
        h,
        e,
        next,
        test,
        init,
        factor,
        body_size,
        trips,
        full,
    })
}

/// The phis and the body of a loop of one block `h`, and the uses of its values after it
/// other than by E's phis from H.
#[allow(clippy::type_complexity)]
fn loop_values(f: &Function, h: Block) -> (Vec<Inst>, Vec<Inst>, Vec<(Inst, Inst, usize)>) {
    let phis: Vec<Inst> = f.phis(h).collect();
    let body: Vec<Inst> = f
        .block_insts(h)
        .filter(|&i| !f.kind(i).is_phi() && !f.kind(i).is_terminator())
        .collect();
    (phis, body, uses_after(f, &[h]))
}

/// Copies `body` to the end of `to` once per round, each round's phis the previous round's
/// latch values (the first round's: `at` as given); `at` ends describing the last round.
fn copy_rounds(
    f: &mut Function,
    h: Block,
    phis: &[Inst],
    body: &[Inst],
    rounds: u32,
    to: Block,
    at: &mut ValueMap,
) {
    for round in 0..rounds {
        if round > 0 {
            let latch = latch_values(f, phis, h, at);
            for (&phi, v) in phis.iter().zip(latch) {
                at.insert(phi, v);
            }
        }
        for &i in body {
            let kind = mapped_kind(f, i, at);
            let ty = f.inst(i).ty;
            at.insert(i, Value::Inst(f.append_inst(to, kind, ty)));
        }
    }
}

/// Full unrolling: P jumps to one block F holding every round, which jumps to E; the loop
/// goes, and its values after it are the last round's.
pub(super) fn unroll_fully(f: &mut Function, s: &Shape) {
    let (p, h, e) = (s.p, s.h, s.e);
    let (phis, body, after) = loop_values(f, h);
    let fb = f.create_block();
    f.insert_block_after(fb, p);
    let mut at = ValueMap::default();
    for &phi in &phis {
        at.insert(phi, f.phi_incoming(phi, p).expect("from the preheader"));
    }
    copy_rounds(f, h, &phis, &body, s.factor, fb, &mut at);
    f.append_inst(fb, InstKind::Br { targets: [e] }, Type::Void);
    let term_p = f.terminator(p).expect("a preheader ends in br");
    f.replace_kind(term_p, InstKind::Br { targets: [fb] }, Type::Void);
    for phi in f.phis(e).collect::<Vec<_>>() {
        let index = incoming_index(f, phi, h);
        let x = f.kind(phi).operands()[index];
        f.set_operand(phi, index, mapped(x, &at));
        f.kind_mut_targets(phi)[index] = fb;
    }
    for (v, user, index) in after {
        f.set_operand(user, index, mapped(Value::Inst(v), &at));
    }
    f.remove_block(h);
}

pub(super) fn unroll(f: &mut Function, s: &Shape) {
    let (p, h, e) = (s.p, s.h, s.e);
    let (phis, body, after) = loop_values(f, h);

    let (frame, u) = Frame::around_one_block(f, [p, h, e], s.test, s.factor, s.trips.is_some());
    let (pu, c, lim) = (frame.pu, frame.c, frame.lim);
    frame.enter(f, s.init);
    let before = s.test.before();
    f.append_inst(pu, InstKind::Br { targets: [u] }, Type::Void);

    // U: the bodies one after another, each copy's phis the previous copy's latch values.
    let mut at = ValueMap::default();
    let mut u_phis = Vec::with_capacity(phis.len());
    for &phi in &phis {
        let ty = f.inst(phi).ty;
        let copy = f.append_inst(u, InstKind::empty_phi(), ty);
        at.insert(phi, Value::Inst(copy));
        u_phis.push(copy);
    }
    copy_rounds(f, h, &phis, &body, s.factor, u, &mut at);
    let last = latch_values(f, &phis, h, &at);
    for ((&phi, &copy), &v) in phis.iter().zip(&u_phis).zip(&last) {
        let first = f.phi_incoming(phi, p).expect("from the preheader");
        f.add_phi_incoming(copy, first, pu);
        f.add_phi_incoming(copy, v, u);
    }
    let counter = at[&s.next];
    let again = f.append_inst(u, InstKind::icmp(before, counter, lim), Type::I1);
    let branch = InstKind::CondBr {
        args: [Value::Inst(again)],
        targets: [u, c],
    };
    f.append_inst(u, branch, Type::Void);

    frame.leave(f, counter, &phis, &last, after, &at);
}
