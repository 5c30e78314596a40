//! Signed division by a constant without `sdiv` (cost 12): a multiply-high by a "magic"
//! reciprocal, shifts and a sign correction (Granlund and Montgomery, "Division by Invariant
//! Integers using Multiplication", PLDI 1994; the signed algorithm as Hacker's Delight,
//! chapter 10, gives it). This file plans the sequence; `isel` emits it, and a remainder
//! takes `x - q * d` with one `mls`.
//!
//! The results are the IR's: truncating division, wrapping `INT_MIN / -1` to `INT_MIN`.
//! Division by 0 is left to `sdiv` (which gives 0, as the IR defines).
//!
//! Needs: nothing. Preserves: the quotient of every dividend.

/// How to divide by one constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DivPlan {
    /// By 1: the dividend itself.
    Copy,
    /// By -1: `0 - x` (wrapping).
    Negate,
    /// By ±2^k (1 <= k <= 30): add `2^k - 1` to negative dividends (the sign bits shifted
    /// right logically), shift right arithmetically by `k`, negate for a negative divisor.
    Shift { k: u8, negate: bool },
    /// By `i32::MIN`: 1 for `i32::MIN`, else 0.
    IntMin,
    /// `q = mulhs(x, magic)`, plus `x` when `add` is 1 or minus `x` when -1, shifted right
    /// arithmetically by `shift`, plus its own sign bit (`q >>> 31`). For a `positive`
    /// divisor that sign is the dividend's, so the correction may instead subtract `x >> 31`,
    /// which does not wait for the multiply.
    Magic {
        magic: i32,
        add: i8,
        shift: u8,
        positive: bool,
    },
}

/// The plan for dividing by `d`, `None` for 0.
pub fn plan(d: i32) -> Option<DivPlan> {
    let magnitude = d.unsigned_abs();
    Some(match d {
        0 => return None,
        1 => DivPlan::Copy,
        -1 => DivPlan::Negate,
        i32::MIN => DivPlan::IntMin,
        _ if magnitude.is_power_of_two() => DivPlan::Shift {
            k: magnitude.trailing_zeros() as u8,
            negate: d < 0,
        },
        _ => {
            let (magic, shift) = magic(d);
            let add = match (d > 0, magic < 0) {
                (true, true) => 1,
                (false, false) => -1,
                _ => 0,
            };
            DivPlan::Magic {
                magic,
                add,
                shift,
                positive: d > 0,
            }
        }
    })
}

/// The magic number and shift of a divisor `d` with `2 <= |d| < 2^31`, not a power of two.
fn magic(d: i32) -> (i32, u8) {
    const TWO31: u32 = 1 << 31;
    let ad = d.unsigned_abs();
    let t = TWO31 + ((d as u32) >> 31);
    // The largest value of |x| below 2^31 (or at it, for negative d) with x mod |d| = |d|-1.
    let anc = t - 1 - t % ad;
    let mut p = 31u32;
    let (mut q1, mut r1) = (TWO31 / anc, TWO31 % anc);
    let (mut q2, mut r2) = (TWO31 / ad, TWO31 % ad);
    loop {
        p += 1;
        q1 = q1.wrapping_mul(2);
        r1 = r1.wrapping_mul(2);
        if r1 >= anc {
            q1 = q1.wrapping_add(1);
            r1 = r1.wrapping_sub(anc);
        }
        q2 = q2.wrapping_mul(2);
        r2 = r2.wrapping_mul(2);
        if r2 >= ad {
            q2 = q2.wrapping_add(1);
            r2 = r2.wrapping_sub(ad);
        }
        let delta = ad - r2;
        if !(q1 < delta || (q1 == delta && r1 == 0)) {
            break;
        }
    }
    let m = q2.wrapping_add(1) as i32;
    (if d < 0 { m.wrapping_neg() } else { m }, (p - 32) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the planned sequence computes, the way the machine does it, with the sign
    /// correction read from the dividend where the plan allows it if `dividend_sign`: the
    /// reference the tests hold the plans to.
    fn evaluate(p: DivPlan, x: i32, dividend_sign: bool) -> i32 {
        match p {
            DivPlan::Copy => x,
            DivPlan::Negate => x.wrapping_neg(),
            DivPlan::IntMin => i32::from(x == i32::MIN),
            DivPlan::Shift { k, negate } => {
                let bias = ((x >> 31) as u32 >> (32 - u32::from(k))) as i32;
                let q = x.wrapping_add(bias) >> k;
                if negate {
                    q.wrapping_neg()
                } else {
                    q
                }
            }
            DivPlan::Magic {
                magic,
                add,
                shift,
                positive,
            } => {
                let mut q = ((i64::from(x) * i64::from(magic)) >> 32) as i32;
                match add {
                    1 => q = q.wrapping_add(x),
                    -1 => q = q.wrapping_sub(x),
                    _ => {}
                }
                q >>= shift;
                if positive && dividend_sign {
                    q.wrapping_sub(x >> 31)
                } else {
                    q.wrapping_add((q as u32 >> 31) as i32)
                }
            }
        }
    }

    fn dividends() -> Vec<i32> {
        let mut xs = vec![0, 1, -1, 2, -2, 3, -3, 7, -7, 100, -100, 12345, -12345];
        xs.extend([
            i32::MAX,
            i32::MAX - 1,
            i32::MIN,
            i32::MIN + 1,
            1 << 30,
            -(1 << 30),
        ]);
        let mut state = 0x2545_f491_u32;
        for _ in 0..2000 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            xs.push(state as i32);
            xs.push((state >> (state % 31)) as i32);
        }
        xs
    }

    fn check(d: i32, xs: &[i32]) {
        let p = plan(d).expect("a non-zero divisor has a plan");
        for &x in xs {
            for dividend_sign in [false, true] {
                assert_eq!(
                    evaluate(p, x, dividend_sign),
                    x.wrapping_div(d),
                    "{x} / {d} by {p:?}, sign of the dividend: {dividend_sign}"
                );
            }
        }
    }

    #[test]
    fn every_plan_divides_like_the_ir() {
        let xs = dividends();
        let mut ds: Vec<i32> = (-300..=300).filter(|&d| d != 0).collect();
        ds.extend([
            1_500_000_001,
            134_209_537,
            536_854_529,
            60,
            1 << 30,
            -(1 << 30),
        ]);
        ds.extend([
            i32::MAX,
            i32::MIN,
            i32::MIN + 1,
            641,
            -641,
            6700417,
            1_000_000_007,
        ]);
        let mut state = 0x9e37_79b9_u32;
        for _ in 0..300 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            ds.push((state >> (state % 29)) as i32);
        }
        for d in ds.into_iter().filter(|&d| d != 0) {
            check(d, &xs);
        }
    }

    #[test]
    fn plans_of_special_divisors() {
        assert_eq!(plan(0), None);
        assert_eq!(plan(1), Some(DivPlan::Copy));
        assert_eq!(plan(-1), Some(DivPlan::Negate));
        assert_eq!(plan(i32::MIN), Some(DivPlan::IntMin));
        assert_eq!(
            plan(8),
            Some(DivPlan::Shift {
                k: 3,
                negate: false
            })
        );
        assert_eq!(plan(-8), Some(DivPlan::Shift { k: 3, negate: true }));
        // Hacker's Delight, table 10-1.
        assert_eq!(
            plan(7),
            Some(DivPlan::Magic {
                magic: 0x9249_2493_u32 as i32,
                add: 1,
                shift: 2,
                positive: true
            })
        );
        assert_eq!(
            plan(3),
            Some(DivPlan::Magic {
                magic: 0x5555_5556,
                add: 0,
                shift: 0,
                positive: true
            })
        );
        assert_eq!(
            plan(-5),
            Some(DivPlan::Magic {
                magic: 0x9999_9999_u32 as i32,
                add: 0,
                shift: 1,
                positive: false
            })
        );
    }
}
