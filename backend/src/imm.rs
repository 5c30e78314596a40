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
pub fn fits_vldr_offset(off: i32) -> bool {
    (-1020..=1020).contains(&off) && off % 4 == 0
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
    fn load_store_offsets() {
        assert!(fits_ldr_offset(4095) && fits_ldr_offset(-4095) && !fits_ldr_offset(4096));
        assert!(fits_vldr_offset(1020) && !fits_vldr_offset(1024) && !fits_vldr_offset(6));
    }
}
