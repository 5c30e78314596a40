//! Hand-built machine IR for the back end's tests: functions from lists of blocks, and the
//! registers and instructions the tests use most, and a pass's result as text.

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

/// `op rd, rn, #imm`.
pub fn alu(op: AluOp, rd: Reg, rn: Reg, imm: u32) -> MInst {
    MInst::Alu {
        cond: None,
        op,
        rd,
        rn,
        src: Operand2::Imm(imm),
    }
}

pub fn s(n: u8) -> Reg {
    Reg::Phys(PReg::s(n))
}

pub fn ldr(rd: Reg, base: Reg, off: i32) -> MInst {
    MInst::Ldr {
        cond: None,
        rd,
        addr: Addr::Imm(base, off),
    }
}

pub fn str_(rs: Reg, base: Reg, off: i32) -> MInst {
    MInst::Str {
        cond: None,
        rs,
        addr: Addr::Imm(base, off),
    }
}

pub fn vldr(sd: Reg, base: Reg, off: i32) -> MInst {
    MInst::VLdr {
        sd,
        addr: Addr::Imm(base, off),
    }
}

pub fn vstr(ss: Reg, base: Reg, off: i32) -> MInst {
    MInst::VStr {
        ss,
        addr: Addr::Imm(base, off),
    }
}

/// A jump to block `target`.
pub fn b(target: u32) -> MInst {
    MInst::B {
        target: MBlockId(target),
    }
}

/// A branch to block `target` under `cond`.
pub fn bcond(cond: Cond, target: u32) -> MInst {
    MInst::BCond {
        cond,
        target: MBlockId(target),
    }
}

pub fn ret() -> MInst {
    MInst::Ret { uses: vec![r(0)] }
}

/// Each block's instructions, as text.
pub fn block_texts(mf: &MFunction) -> Vec<Vec<String>> {
    mf.blocks
        .iter()
        .map(|b| b.insts.iter().map(|i| i.to_string()).collect())
        .collect()
}

/// Each block's instructions, as text, after `pass` ran on a function of these blocks
/// (each given a `ret`, not shown) and the machine verifier accepted the result.
pub fn blocks_after(pass: fn(&mut MFunction), blocks: Vec<Vec<MInst>>) -> Vec<Vec<String>> {
    let blocks = blocks
        .into_iter()
        .map(|mut b| {
            b.push(ret());
            b
        })
        .collect();
    let mut mf = func(&[], blocks);
    pass(&mut mf);
    assert_eq!(super::verifier::verify(&mf), Ok(()));
    mf.blocks
        .iter()
        .map(|b| {
            let n = b.insts.len() - 1;
            b.insts[..n].iter().map(|i| i.to_string()).collect()
        })
        .collect()
}

/// The assembly of `mf` (emitted as function 0, named `t`) after `pass` ran and the machine
/// verifier accepted the result: its labels and instructions, one trimmed line each.
pub fn emitted_after(pass: fn(&mut MFunction), mut mf: MFunction) -> Vec<String> {
    pass(&mut mf);
    assert_eq!(super::verifier::verify(&mf), Ok(()));
    let mut emitter = crate::emit::Emitter::new(mf.uses_vectors());
    emitter.function(0, &mf);
    emitter
        .finish()
        .lines()
        .skip_while(|l| *l != "t:")
        .skip(1)
        .filter(|l| !l.starts_with("\t."))
        .map(|l| l.trim().to_string())
        .collect()
}
