//! What the passes ask of the target's costs, as a trait the back end implements
//! (`backend::ir_costs::CortexA72`, from its Cortex-A72 model): what an IR instruction costs
//! to issue, how long its result takes, how many machine instructions it becomes, which
//! operations the back end can execute under a condition, and which offsets a load or store
//! takes as its immediate. The middle end knows no machine's numbers; the driver hands the
//! back end's model to the pass manager, which gives it to every pass
//! (`FunctionContext::costs`, `ModuleAnalyses::costs`).

use crate::ir::{BinaryOp, Function, Inst, InstKind, Type, Value};

/// A target's answers to the passes' questions about costs.
pub trait CostModel {
    /// What executing an IR instruction once costs, in half cycles of issue (an `add` 1),
    /// for comparing two ways of computing the same thing.
    fn inst_cost(&self, kind: &InstKind) -> u32;

    /// Cycles from the operands of an IR instruction to its result.
    fn inst_latency(&self, kind: &InstKind) -> u32;

    /// The number of machine instructions an IR instruction becomes, for code size.
    fn inst_size(&self, kind: &InstKind) -> u32;

    /// Whether the back end selects the integer operation `op` as one instruction that can
    /// take a condition: a select that is its only user then computes it right into its own
    /// register, under its condition, for no more than the conditional move it replaces.
    fn is_predicable(&self, op: BinaryOp) -> bool;

    /// The byte offsets a load or store of a value of type `ty` takes as its immediate.
    fn offset_reach(&self, ty: Type) -> OffsetReach;

    // Derived from the answers above: a model need not define these.

    /// The size of `f` in machine instructions (`inst_size` summed), for inlining budgets.
    fn function_size(&self, f: &Function) -> u32 {
        f.all_insts().map(|i| self.inst_size(f.kind(i))).sum()
    }

    /// The immediate offsets of `inst` when its operand `index` is the address it accesses;
    /// None when it is no load or store through that operand.
    fn access_reach(&self, f: &Function, inst: Inst, index: u32) -> Option<OffsetReach> {
        let ty = match *f.kind(inst) {
            InstKind::Load { .. } => f.inst(inst).ty,
            InstKind::Store { args: [x, _] } if index == 1 => f.value_type(x),
            _ => return None,
        };
        Some(self.offset_reach(ty))
    }

    /// The immediate offsets every access through the address `v` takes (an `i32` access's
    /// when nothing uses it); None when something other than a load or store through it
    /// uses it.
    fn address_reach(&self, f: &Function, v: Value) -> Option<OffsetReach> {
        f.uses(v)
            .iter()
            .map(|u| self.access_reach(f, u.inst, u.index))
            .try_fold(self.offset_reach(Type::I32), |both, r| Some(both.and(r?)))
    }
}

/// The byte offsets an access takes as its immediate: the multiples of `step` up to `max`
/// either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffsetReach {
    pub max: i64,
    pub step: i64,
}

impl OffsetReach {
    /// Whether the access takes `bytes` as its immediate.
    pub fn takes(self, bytes: i64) -> bool {
        bytes.abs() <= self.max && bytes % self.step == 0
    }

    /// The offsets both accesses take (steps being powers of two).
    pub fn and(self, other: OffsetReach) -> OffsetReach {
        OffsetReach {
            max: self.max.min(other.max),
            step: self.step.max(other.step),
        }
    }
}

/// The model the middle end's unit tests give the pass manager: those tests run passes that
/// ask no costs, and cannot reach the back end's model (the integration tests use it).
#[cfg(test)]
pub(crate) struct Unasked;

#[cfg(test)]
impl CostModel for Unasked {
    fn inst_cost(&self, _: &InstKind) -> u32 {
        unreachable!("a unit-tested pass asked for a cost")
    }

    fn inst_latency(&self, _: &InstKind) -> u32 {
        unreachable!("a unit-tested pass asked for a latency")
    }

    fn inst_size(&self, _: &InstKind) -> u32 {
        unreachable!("a unit-tested pass asked for a size")
    }

    fn is_predicable(&self, _: BinaryOp) -> bool {
        unreachable!("a unit-tested pass asked what is predicable")
    }

    fn offset_reach(&self, _: Type) -> OffsetReach {
        unreachable!("a unit-tested pass asked for an offset reach")
    }
}
