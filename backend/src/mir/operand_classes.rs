//! The register class each register operand of an instruction must have: the VFP's
//! operands (`s` registers) are float, NEON's (`q` registers) vector, addresses and
//! everything else core, a copy's two registers alike. Calls, returns and tail calls name
//! physical core and VFP registers for the convention and are not checked.

use super::{MFunction, MInst, Reg, RegClass};

/// The first register operand of `inst` whose class is not the one its place takes, with
/// the class it should have; a virtual register beyond the function's count counts as
/// misplaced in either class.
pub fn misclassed(mf: &MFunction, inst: &MInst) -> Option<(Reg, RegClass)> {
    let class = |r: Reg| match r {
        Reg::Phys(p) => Some(p.class()),
        Reg::Virt(v) => mf.vreg_classes.get(v.0 as usize).copied(),
    };
    if let MInst::Copy { dst, src } = *inst {
        let want = class(dst)?;
        return (class(src) != Some(want)).then_some((src, want));
    }
    if matches!(
        inst,
        MInst::Bl { .. } | MInst::Ret { .. } | MInst::TailCall { .. }
    ) {
        return None;
    }
    let floats = float_operands(inst);
    let vectors = vector_operands(inst);
    let mut wrong = None;
    inst.for_each_reg(|r, _| {
        let want = if vectors.contains(&r) {
            RegClass::Vector
        } else if floats.contains(&r) {
            RegClass::Float
        } else {
            RegClass::Int
        };
        if wrong.is_none() && class(r) != Some(want) {
            wrong = Some((r, want));
        }
    });
    wrong
}

/// The operands of `inst` that are VFP registers.
fn float_operands(inst: &MInst) -> Vec<Reg> {
    match inst {
        MInst::VBin { sd, sn, sm, .. } | MInst::VMla { sd, sn, sm } => vec![*sd, *sn, *sm],
        MInst::VNeg { sd, sm }
        | MInst::VMovIf { sd, sm, .. }
        | MInst::VCvtToFloat { sd, sm }
        | MInst::VCvtToInt { sd, sm }
        | MInst::VCmp { sn: sd, sm } => vec![*sd, *sm],
        MInst::VMovImm { sd, .. }
        | MInst::VMovFromCore { sd, .. }
        | MInst::VMovToCore { sn: sd, .. }
        | MInst::VCmpZero { sn: sd }
        | MInst::VLdr { sd, .. }
        | MInst::VStr { ss: sd, .. }
        | MInst::VToDoubleCore { sm: sd, .. } => vec![*sd],
        MInst::VLdm { regs, .. } | MInst::VStm { regs, .. } => regs.clone(),
        _ => Vec::new(),
    }
}

/// The operands of `inst` that are NEON registers.
fn vector_operands(inst: &MInst) -> Vec<Reg> {
    match *inst {
        MInst::VecBin { qd, qn, qm, .. } => vec![qd, qn, qm],
        MInst::VecReduce { qn, qt, .. } => vec![qn, qt],
        MInst::VecLoad { qd: q, .. }
        | MInst::VecStore { qs: q, .. }
        | MInst::VecDup { qd: q, .. }
        | MInst::VecGetLane { qn: q, .. }
        | MInst::VecSetLane { qd: q, .. } => vec![q],
        _ => Vec::new(),
    }
}
