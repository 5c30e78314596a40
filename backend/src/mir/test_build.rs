//! Hand-built machine IR for the back end's tests: functions from lists of blocks, and the
//! registers and instructions the tests use most.

use super::*;

/// A function of the given blocks, in layout order, with successors computed and the
/// virtual registers' classes.
pub fn func(classes: &[RegClass], blocks: Vec<Vec<MInst>>) -> MFunction {
    let mut mf = MFunction::new("t", false);
    for insts in blocks {
        let b = mf.add_block(0);
        mf.block_mut(b).insts = insts;
    }
    mf.recompute_succs();
    mf.vreg_classes = classes.to_vec();
    mf
}

pub fn v(n: u32) -> Reg {
    Reg::Virt(VReg(n))
}

pub fn r(n: u8) -> Reg {
    Reg::Phys(PReg(n))
}

pub fn mov(rd: Reg, imm: u32) -> MInst {
    MInst::Mov {
        cond: None,
        rd,
        src: Operand2::Imm(imm),
    }
}

pub fn add(rd: Reg, rn: Reg, rm: Reg) -> MInst {
    MInst::Alu {
        cond: None,
        op: AluOp::Add,
        rd,
        rn,
        src: Operand2::Reg(rm),
    }
}
