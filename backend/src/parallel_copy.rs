//! Sequentialising a parallel copy: every destination takes the old value of its source, as
//! if all copies happened at once. Copies whose destination no other copy still reads go
//! first; what remains forms cycles, each broken by saving one destination in a temporary.

use crate::mir::Reg;

/// Orders the copies `(dst, src)` (destinations distinct) into a sequence with the same
/// effect, asking `temp` for a scratch register of the right class when a cycle needs one.
pub fn sequentialize(copies: &[(Reg, Reg)], mut temp: impl FnMut(Reg) -> Reg) -> Vec<(Reg, Reg)> {
    let mut pending: Vec<(Reg, Reg)> = copies.iter().copied().filter(|(d, s)| d != s).collect();
    let mut out = Vec::with_capacity(pending.len() + 1);
    while !pending.is_empty() {
        let free = pending
            .iter()
            .position(|&(d, _)| !pending.iter().any(|&(_, s)| s == d));
        match free {
            Some(k) => out.push(pending.remove(k)),
            None => {
                // Every destination is still a source: save one and read the saved copy.
                let d = pending[0].0;
                let t = temp(d);
                out.push((t, d));
                for (_, s) in pending.iter_mut() {
                    if *s == d {
                        *s = t;
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::VReg;
    use std::collections::HashMap;

    fn v(n: u32) -> Reg {
        Reg::Virt(VReg(n))
    }

    /// Runs the copies on concrete values and returns the final register contents.
    fn simulate(seq: &[(Reg, Reg)], init: &HashMap<Reg, i32>) -> HashMap<Reg, i32> {
        let mut regs = init.clone();
        for &(d, s) in seq {
            let x = regs.get(&s).copied().unwrap_or(-1);
            regs.insert(d, x);
        }
        regs
    }

    fn check(copies: &[(Reg, Reg)]) -> usize {
        let mut next = 100;
        let seq = sequentialize(copies, |_| {
            next += 1;
            v(next)
        });
        let init: HashMap<Reg, i32> = (0..20).map(|n| (v(n), n as i32 * 10)).collect();
        let after = simulate(&seq, &init);
        for &(d, s) in copies {
            assert_eq!(after[&d], init[&s], "{copies:?} sequenced as {seq:?}");
        }
        seq.len()
    }

    #[test]
    fn independent_and_chained_copies_need_no_temporary() {
        assert_eq!(check(&[(v(1), v(2)), (v(3), v(4))]), 2);
        // 3 <- 2 must happen before 2 <- 1.
        assert_eq!(check(&[(v(2), v(1)), (v(3), v(2))]), 2);
        assert_eq!(check(&[(v(1), v(1))]), 0);
        // One source to two destinations.
        assert_eq!(check(&[(v(2), v(1)), (v(3), v(1)), (v(1), v(4))]), 3);
    }

    #[test]
    fn swaps_and_cycles_use_one_temporary_each() {
        assert_eq!(check(&[(v(1), v(2)), (v(2), v(1))]), 3);
        assert_eq!(check(&[(v(1), v(2)), (v(2), v(3)), (v(3), v(1))]), 4);
        // Two disjoint cycles and a tail hanging off one of them.
        assert_eq!(
            check(&[
                (v(1), v(2)),
                (v(2), v(1)),
                (v(5), v(6)),
                (v(6), v(5)),
                (v(7), v(1))
            ]),
            7
        );
    }
}
