//! Immediate encodings of A32 and VFP.

/// Whether `v` fits an operand2 immediate: an 8-bit value rotated right by an even amount.
pub fn is_operand2(v: u32) -> bool {
    (0..16).any(|r| v.rotate_left(2 * r) <= 0xff)
}

/// Whether a load/store of a core register can use this offset directly.
pub fn fits_ldr_offset(off: i32) -> bool {
    (-4095..=4095).contains(&off)
}

/// Whether `vldr`/`vstr` can use this offset directly (a multiple of 4 up to 1020).
fn fits_vldr_offset(off: i32) -> bool {
    (-1020..=1020).contains(&off) && off % 4 == 0
}

/// Whether a load or store can use this offset directly: `vldr`/`vstr` when `float`, else
/// `ldr`/`str`.
pub fn fits_offset(off: i32, float: bool) -> bool {
    if float {
        fits_vldr_offset(off)
    } else {
        fits_ldr_offset(off)
    }
}

/// Whether the float with these bits is a VFPv3 `vmov.f32` immediate: `±n/16 * 2^e` for
/// `n` in 16..=31 and `e` in -3..=4 (an 8-bit sign, 3-bit exponent, 4-bit fraction). Its
/// single-precision pattern has the 19 low fraction bits clear and the exponent's top bits
/// `10000` or `01111` (ARM ARM, VFPExpandImm).
pub fn vfp_immediate(bits: u32) -> bool {
    let top = (bits >> 25) & 0x3f;
    bits & 0x7_ffff == 0 && (top == 0b10_0000 || top == 0b01_1111)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operand2_immediates() {
        for v in [
            0,
            1,
            255,
            256,
            0xff00,
            0x3fc,
            0xff00_0000,
            0xf000_000f,
            0x104,
        ] {
            assert!(is_operand2(v), "{v:#x}");
        }
        for v in [257, 0x1fe0_0000 + 1, 0xffff, 0x102, 0x1234_5678, u32::MAX] {
            assert!(!is_operand2(v), "{v:#x}");
        }
    }

    #[test]
    fn vfp_immediates() {
        for x in [
            1.0f32, 2.0, 0.5, -3.0, 0.125, 31.0, 1.9375, -0.1328125, 4.0, 10.0,
        ] {
            assert!(vfp_immediate(x.to_bits()), "{x}");
        }
        for x in [
            0.0f32,
            -0.0,
            0.1,
            32.0,
            0.0625,
            1.96875,
            100.0,
            f32::INFINITY,
            f32::NAN,
        ] {
            assert!(!vfp_immediate(x.to_bits()), "{x}");
        }
    }

    #[test]
    fn load_store_offsets() {
        assert!(fits_ldr_offset(4095) && fits_ldr_offset(-4095) && !fits_ldr_offset(4096));
        assert!(fits_vldr_offset(1020) && !fits_vldr_offset(1024) && !fits_vldr_offset(6));
    }
}
