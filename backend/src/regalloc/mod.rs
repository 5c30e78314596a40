//! Register allocation: replaces every virtual register by a physical one, adding spill
//! code and stack slots as needed.

pub mod spill_everything;
