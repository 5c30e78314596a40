//! How many rounds of a loop `loop-unroll` writes out in full, which `loop-unswitch` also
//! asks: a loop that few rounds unrolling removes is left to it rather than copied.

/// The most rounds of a loop with a constant trip count that full unrolling writes out.
pub const MAX_FULL_TRIPS: u32 = 32;
