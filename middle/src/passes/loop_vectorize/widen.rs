//! The vector loop of a plan, in loop-unroll's frame (the module above draws it): PV's
//! splats and steps, V's lanes, C's reductions and last lanes.

use super::dependences::Access;
use super::plan::{Plan, Role};
use super::LANES;
use crate::fast_hash::FastHashMap;
use crate::ir::{BinaryOp, Block, Function, Inst, InstKind, IntPred, Type, Value, VectorOp};
use crate::transform::arith_writer::ArithWriter;
use crate::transform::loop_frame::{uses_after, Frame};
use crate::transform::value_map::{mapped, mapped_kind, ValueMap};

pub(super) fn vectorize(f: &mut Function, plan: Plan) {
    let s = &plan.shape;
    let (p, h) = (s.p, s.h);
    let phis: Vec<Inst> = f.phis(h).collect();
    let after = uses_after(f, &[h]);
    let always = s.trips.is_some() && plan.checks.is_empty();
    let (frame, v) = Frame::around_one_block(f, [p, h, s.e], s.test, LANES, always);
    let (pv, c, lim) = (frame.pu, frame.c, frame.lim);
    let term_p = f.terminator(p).expect("a preheader ends in br");
    frame.enter(f, s.init);
    if !plan.checks.is_empty() {
        check_distances(f, term_p, &plan.checks);
    }

    let mut w = Widener {
        f,
        pv,
        v,
        counter: plan.counter,
        init: s.init,
        scalar: ValueMap::default(),
        first: ValueMap::default(),
        vector: FastHashMap::default(),
        steps: FastHashMap::default(),
        splats: FastHashMap::default(),
        step_vectors: FastHashMap::default(),
    };
    let counter = w.f.append_inst(v, InstKind::empty_phi(), Type::I32);
    w.scalar.insert(plan.counter, Value::Inst(counter));
    w.steps.insert(plan.counter, 1);
    for r in &plan.reductions {
        let phi = w.f.append_inst(v, InstKind::empty_phi(), Type::V4I32);
        w.vector.insert(r.phi, Value::Inst(phi));
    }
    for &(i, role) in &plan.body {
        match role {
            Role::Reduction(op) => {
                let r = plan
                    .reductions
                    .iter()
                    .find(|r| r.next == i)
                    .expect("a reduction");
                let args = [w.vector[&r.phi], w.lanes(r.x)];
                let lanes = w.append(InstKind::VBinary { op, args }, op.ty());
                w.vector.insert(i, lanes);
            }
            _ => w.widen(i, role),
        }
    }
    let stepped = w.append(
        InstKind::binary(
            BinaryOp::Add,
            Value::Inst(counter),
            Value::Int(LANES as i32),
        ),
        Type::I32,
    );
    let again = w.append(InstKind::icmp(IntPred::Slt, stepped, lim), Type::I1);
    w.append(
        InstKind::CondBr {
            args: [again],
            targets: [v, c],
        },
        Type::Void,
    );
    w.f.add_phi_incoming(counter, s.init, pv);
    w.f.add_phi_incoming(counter, stepped, v);
    for r in &plan.reductions {
        let first = w.f.phi_incoming(r.phi, p).expect("from the preheader");
        let start = if r.starts_in_every_lane() {
            w.splat(first)
        } else {
            let zeros = w.splat(Value::Int(0));
            let start = InstKind::InsertLane {
                lane: 0,
                args: [zeros, first],
            };
            Value::Inst(w.f.append_inst(pv, start, Type::V4I32))
        };
        let phi = w.vector[&r.phi].as_inst().expect("a vector phi");
        let last = w.vector[&r.next];
        w.f.add_phi_incoming(phi, start, pv);
        w.f.add_phi_incoming(phi, last, v);
    }
    w.f.append_inst(pv, InstKind::Br { targets: [v] }, Type::Void);

    // C: what each value the loop hands on is after the vector loop.
    let mut at = ValueMap::default();
    at.insert(s.next, stepped);
    for r in &plan.reductions {
        let reduce = InstKind::Reduce {
            op: r.combine,
            args: [w.vector[&r.next]],
        };
        at.insert(r.next, Value::Inst(w.f.append_inst(c, reduce, Type::I32)));
    }
    for &x in &plan.last_lanes {
        let ty = w.f.inst(x).ty;
        let lane = InstKind::ExtractLane {
            lane: LANES as u8 - 1,
            args: [w.vector[&x]],
        };
        at.insert(x, Value::Inst(w.f.append_inst(c, lane, ty)));
    }
    let last: Vec<Value> = phis
        .iter()
        .map(|&phi| mapped(w.f.phi_incoming(phi, h).expect("from the latch"), &at))
        .collect();
    frame.leave(w.f, stepped, &phis, &last, after, &at);
}

/// Makes P's way into the vector loop also test, for each pair of accesses, that the first
/// one's address in round 0 is not less than 16 bytes below the second one's: `p1 >= p2`
/// or `p1 <= p2 - 16`, as addresses (unsigned).
fn check_distances(f: &mut Function, term_p: Inst, checks: &[(Access, Access)]) {
    let mut all: Option<Value> = None;
    for (first, second) in checks {
        let mut w = ArithWriter::new(f, term_p);
        let o1 = w.invariant(&first.start);
        let o2 = w.invariant(&second.start);
        let mut before =
            |kind: InstKind, ty: Type| Value::Inst(f.insert_inst_before(term_p, kind, ty));
        let p1 = before(gep_bytes(first.root, o1), Type::Ptr);
        let p2 = before(gep_bytes(second.root, o2), Type::Ptr);
        let low = before(gep_bytes(p2, Value::Int(-16)), Type::Ptr);
        let ahead = before(InstKind::icmp(IntPred::Uge, p1, p2), Type::I1);
        let behind = before(InstKind::icmp(IntPred::Ule, p1, low), Type::I1);
        let apart = before(select(ahead, Value::Bool(true), behind), Type::I1);
        all = Some(match all {
            Some(all) => before(select(all, apart, Value::Bool(false)), Type::I1),
            None => apart,
        });
    }
    let all = all.expect("at least one check");
    let enter = f.kind(term_p).operands()[0];
    let both = f.insert_inst_before(term_p, select(enter, all, Value::Bool(false)), Type::I1);
    f.set_operand(term_p, 0, Value::Inst(both));
}

fn gep_bytes(base: Value, bytes: Value) -> InstKind {
    InstKind::Gep {
        args: [base, bytes],
        stride: 1,
    }
}

fn select(c: Value, a: Value, b: Value) -> InstKind {
    InstKind::Select { args: [c, a, b] }
}

/// The state of writing one vector loop.
struct Widener<'f> {
    f: &'f mut Function,
    pv: Block,
    v: Block,
    /// The original loop's counter, and where the vector loop's starts.
    counter: Inst,
    init: Value,
    /// Lane 0's value of each value that steps by a constant each round, in V.
    scalar: ValueMap,
    /// The value in the vector loop's first round of each value that steps by a constant
    /// each round, built in PV where a lane-wise operation reads it.
    first: ValueMap,
    /// How much each of those steps per round.
    steps: FastHashMap<Inst, i32>,
    /// The vector of each lane-wise value (and the reductions' phis), in V.
    vector: FastHashMap<Inst, Value>,
    /// The splat of each value fixed for the loop, in PV.
    splats: FastHashMap<Value, Value>,
    /// `0, s, 2s, 3s` for each step `s`, in PV.
    step_vectors: FastHashMap<i32, Value>,
}

impl Widener<'_> {
    fn append(&mut self, kind: InstKind, ty: Type) -> Value {
        Value::Inst(self.f.append_inst(self.v, kind, ty))
    }

    fn widen(&mut self, i: Inst, role: Role) {
        let ty = self.f.inst(i).ty;
        match role {
            Role::Control | Role::Replaced => {}
            Role::Uniform { step } => {
                let kind = mapped_kind(self.f, i, &self.scalar);
                let copy = self.append(kind, ty);
                self.scalar.insert(i, copy);
                self.steps.insert(i, step);
            }
            Role::Load => {
                let InstKind::Load { args: [addr] } = *self.f.kind(i) else {
                    unreachable!("a load");
                };
                let addr = mapped(addr, &self.scalar);
                let vty = ty.vector().expect("a load of i32 or f32");
                let load = self.append(InstKind::VLoad { args: [addr] }, vty);
                self.vector.insert(i, load);
            }
            Role::Store => {
                let InstKind::Store { args: [x, addr] } = *self.f.kind(i) else {
                    unreachable!("a store");
                };
                let x = self.lanes(x);
                let addr = mapped(addr, &self.scalar);
                self.append(InstKind::VStore { args: [x, addr] }, Type::Void);
            }
            Role::Reduction(_) => unreachable!("reductions are widened with their phis"),
            Role::Lanes(op) => {
                let (a, b) = match *self.f.kind(i) {
                    InstKind::Binary { args: [a, b], .. } => (a, b),
                    InstKind::Select { args: [_, t, e] } => (t, e),
                    _ => unreachable!("a binary operation or a minimum or maximum"),
                };
                let args = [self.lanes(a), self.lanes(b)];
                let lanes = self.append(InstKind::VBinary { op, args }, op.ty());
                self.vector.insert(i, lanes);
            }
        }
    }

    /// The vector of `x`'s values in the block's four rounds.
    fn lanes(&mut self, x: Value) -> Value {
        if let Some(i) = x.as_inst() {
            if let Some(&vector) = self.vector.get(&i) {
                return vector;
            }
            if let Some(&step) = self.steps.get(&i) {
                let lanes = self.stepped_lanes(i, step);
                self.vector.insert(i, lanes);
                return lanes;
            }
        }
        self.splat(x)
    }

    /// The lanes of `i`, a value that steps by `step` each round: for a value fixed for the
    /// loop, its splat in PV; else a vector of its own carried round to round, from its
    /// first round's value plus `0, s, 2s, 3s` in PV, stepped by `4s` in V.
    fn stepped_lanes(&mut self, i: Inst, step: i32) -> Value {
        let first = self.first_round(Value::Inst(i));
        let splat = self.splat(first);
        if step == 0 {
            return splat;
        }
        let ty = self.f.inst(i).ty.vector().expect("an i32 value");
        let offsets = self.step_vector(step);
        let start = InstKind::VBinary {
            op: VectorOp::Add,
            args: [splat, offsets],
        };
        let start = Value::Inst(self.f.append_inst(self.pv, start, ty));
        let by = self.splat(Value::Int(step.wrapping_mul(LANES as i32)));
        let body = self
            .f
            .block_insts(self.v)
            .find(|&x| !self.f.kind(x).is_phi());
        let phi = match body {
            Some(at) => self.f.insert_inst_before(at, InstKind::empty_phi(), ty),
            None => self.f.append_inst(self.v, InstKind::empty_phi(), ty),
        };
        let stepped = InstKind::VBinary {
            op: VectorOp::Add,
            args: [Value::Inst(phi), by],
        };
        let next = self.append(stepped, ty);
        self.f.add_phi_incoming(phi, start, self.pv);
        self.f.add_phi_incoming(phi, next, self.v);
        Value::Inst(phi)
    }

    /// The value of `x` in the vector loop's first round, in PV: the counter's start, or
    /// a value that steps each round computed again from the first values of its operands
    /// (arithmetic and addresses, which cannot fault); `x` itself when it is fixed for the
    /// loop.
    fn first_round(&mut self, x: Value) -> Value {
        let Some(i) = x.as_inst() else {
            return x;
        };
        if i == self.counter {
            return self.init;
        }
        if !self.steps.contains_key(&i) {
            return x;
        }
        if let Some(&known) = self.first.get(&i) {
            return known;
        }
        let mut kind = self.f.kind(i).clone();
        for k in 0..kind.operands().len() {
            let operand = kind.operands()[k];
            kind.operands_mut()[k] = self.first_round(operand);
        }
        let ty = self.f.inst(i).ty;
        let copy = Value::Inst(self.f.append_inst(self.pv, kind, ty));
        self.first.insert(i, copy);
        copy
    }

    /// The splat of `x`, fixed for the loop, built in PV.
    fn splat(&mut self, x: Value) -> Value {
        if let Some(&splat) = self.splats.get(&x) {
            return splat;
        }
        let ty = self.f.value_type(x).vector().expect("an i32 or f32 value");
        let splat = Value::Inst(
            self.f
                .append_inst(self.pv, InstKind::Splat { args: [x] }, ty),
        );
        self.splats.insert(x, splat);
        splat
    }

    /// `0, s, 2s, 3s`, built in PV.
    fn step_vector(&mut self, s: i32) -> Value {
        if let Some(&steps) = self.step_vectors.get(&s) {
            return steps;
        }
        let mut steps = self.splat(Value::Int(0));
        for lane in 1..LANES {
            let kind = InstKind::InsertLane {
                lane: lane as u8,
                args: [steps, Value::Int(s.wrapping_mul(lane as i32))],
            };
            steps = Value::Inst(self.f.append_inst(self.pv, kind, Type::V4I32));
        }
        self.step_vectors.insert(s, steps);
        steps
    }
}
