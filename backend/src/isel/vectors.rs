//! Vectors: the rules of the IR's vector instructions, each one NEON instruction over q
//! registers (a reduction a short sequence, `VecReduce`). Float lanes move through core
//! registers: a `v4f32` lane and an `s` register share no register file path of one step.

use super::matcher::{Match, Rule};
use super::Selector;
use crate::mir::*;
use middle::ir::pattern::*;
use middle::ir::{InstKind, Opcode, ReduceOp, Type, Value, VectorOp};

/// The rules of vector instructions: their operands in registers, nothing folded; a rule
/// per lane-wise operation, named as the IR names it.
pub(super) fn rules() -> Vec<Rule> {
    let lane_wise = VectorOp::ALL
        .iter()
        .map(|&op| Rule::new(op.name(), opcode(op.opcode())).emits(|s, m| s.vector_op(m)));
    [
        Rule::new("vld1", opcode(Opcode::VLoad)).emits(|s, m| s.vector_load(m)),
        Rule::new("vst1", opcode(Opcode::VStore)).emits(|s, m| s.vector_store(m)),
        Rule::new("vdup", opcode(Opcode::Splat)).emits(|s, m| s.splat(m)),
        Rule::new("get-lane", opcode(Opcode::ExtractLane)).emits(|s, m| s.extract_lane(m)),
        Rule::new("set-lane", opcode(Opcode::InsertLane)).emits(|s, m| s.insert_lane(m)),
        Rule::new("reduce", opcode(Opcode::Reduce)).emits(|s, m| s.reduce(m)),
    ]
    .into_iter()
    .chain(lane_wise)
    .collect()
}

/// The NEON instruction of a lane-wise operation.
fn neon_op(op: VectorOp) -> VecOp {
    match op {
        VectorOp::Add => VecOp::Add,
        VectorOp::Sub => VecOp::Sub,
        VectorOp::Mul => VecOp::Mul,
        VectorOp::SMin => VecOp::SMin,
        VectorOp::SMax => VecOp::SMax,
        VectorOp::FAdd => VecOp::FAdd,
        VectorOp::FSub => VecOp::FSub,
        VectorOp::FMul => VecOp::FMul,
    }
}

impl Selector<'_> {
    /// The operands of the root instruction.
    fn root_args(&self, m: &Match) -> Vec<Value> {
        self.f.kind(m.root).operands().to_vec()
    }

    fn vector_load(&mut self, m: &Match) {
        let base = self.reg(self.root_args(m)[0]);
        self.emit(MInst::VecLoad {
            qd: m.dst(),
            addr: Addr::Imm(base, 0),
        });
    }

    fn vector_store(&mut self, m: &Match) {
        let args = self.root_args(m);
        let qs = self.reg(args[0]);
        let base = self.reg(args[1]);
        self.emit(MInst::VecStore {
            qs,
            addr: Addr::Imm(base, 0),
        });
    }

    fn vector_op(&mut self, m: &Match) {
        let InstKind::VBinary { op, args: [a, b] } = *self.f.kind(m.root) else {
            unreachable!("the rule's root is a vector operation")
        };
        let op = neon_op(op);
        let (qn, qm) = (self.reg(a), self.reg(b));
        self.emit(MInst::VecBin {
            op,
            qd: m.dst(),
            qn,
            qm,
        });
    }

    /// A core register holding scalar `v`: a float's bits moved out of its `s` register.
    fn core_bits(&mut self, v: Value) -> Reg {
        let r = self.reg(v);
        if self.f.value_type(v) != Type::F32 {
            return r;
        }
        let bits = self.new_vreg(RegClass::Int);
        self.emit(MInst::VMovToCore { rd: bits, sn: r });
        bits
    }

    fn splat(&mut self, m: &Match) {
        let rn = self.core_bits(self.root_args(m)[0]);
        self.emit(MInst::VecDup { qd: m.dst(), rn });
    }

    fn extract_lane(&mut self, m: &Match) {
        let InstKind::ExtractLane { lane, args: [v] } = *self.f.kind(m.root) else {
            unreachable!("the rule's root is a lane extraction")
        };
        let qn = self.reg(v);
        let rd = m.dst();
        if self.f.inst(m.root).ty == Type::F32 {
            let bits = self.new_vreg(RegClass::Int);
            self.emit(MInst::VecGetLane { rd: bits, qn, lane });
            self.emit(MInst::VMovFromCore { sd: rd, rn: bits });
        } else {
            self.emit(MInst::VecGetLane { rd, qn, lane });
        }
    }

    fn insert_lane(&mut self, m: &Match) {
        let InstKind::InsertLane { lane, args: [v, x] } = *self.f.kind(m.root) else {
            unreachable!("the rule's root is a lane insertion")
        };
        let src = self.reg(v);
        let rn = self.core_bits(x);
        let qd = m.dst();
        self.emit(MInst::Copy { dst: qd, src });
        self.emit(MInst::VecSetLane { qd, rn, lane });
    }

    fn reduce(&mut self, m: &Match) {
        let InstKind::Reduce { op, args: [v] } = *self.f.kind(m.root) else {
            unreachable!("the rule's root is a reduction")
        };
        let op = match op {
            ReduceOp::Add => PairOp::Add,
            ReduceOp::SMin => PairOp::SMin,
            ReduceOp::SMax => PairOp::SMax,
        };
        let qn = self.reg(v);
        let qt = self.new_vreg(RegClass::Vector);
        self.emit(MInst::VecReduce {
            op,
            rd: m.dst(),
            qn,
            qt,
        });
    }
}
