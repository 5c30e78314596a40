//! dead-definitions: instructions that only compute virtual registers nothing reads go, and
//! again until none is left (each removal may leave the values it read unread). Selection
//! leaves such instructions when it folds every use of a value into other instructions: an
//! unrolled loop's `k + 4` whose only user, an address, became a load's offset.
//!
//! Only unconditional register computations go: nothing that touches memory, the flags or
//! control, and no conditional move (it reads the register it writes).
//!
//! Needs: virtual registers (before allocation). Preserves: behaviour.

use crate::mir::*;

pub fn run(mf: &mut MFunction) {
    loop {
        let mut read = vec![false; mf.vreg_classes.len()];
        for inst in mf.blocks.iter().flat_map(|b| &b.insts) {
            for (r, role) in inst.regs() {
                if let (Reg::Virt(v), Role::Use | Role::UseDef) = (r, role) {
                    read[v.0 as usize] = true;
                }
            }
        }
        let unread = |inst: &MInst| {
            inst.is_pure()
                && inst.regs().iter().all(|&(r, role)| {
                    role != Role::Def || matches!(r, Reg::Virt(v) if !read[v.0 as usize])
                })
        };
        let mut removed = false;
        for block in &mut mf.blocks {
            let before = block.insts.len();
            block.insts.retain(|inst| !unread(inst));
            removed |= block.insts.len() != before;
        }
        if !removed {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::test_build::{add, func, mov, r, v};

    #[test]
    fn unread_computations_go_and_what_they_alone_read_with_them() {
        let mut mf = func(
            &[RegClass::Int; 4],
            vec![vec![
                mov(v(0), 4),
                add(v(1), v(0), v(0)),
                add(v(2), v(1), v(1)),
                mov(v(3), 9),
                add(r(0), v(3), v(3)),
                MInst::Ret { uses: vec![r(0)] },
            ]],
        );
        run(&mut mf);
        let text = mf.to_string();
        assert!(!text.contains("%v0") && !text.contains("%v1"), "{text}");
        assert!(!text.contains("%v2"), "{text}");
        assert!(text.contains("mov %v3, #9"), "{text}");
        assert!(text.contains("add r0, %v3, %v3"), "{text}");
    }
}
