//! The operands of machine instructions besides plain registers: the flexible second
//! operand and its shifts, stack slots, memory addresses, and the addressing modes of
//! load and store multiples.

use super::Reg;

/// The flexible second operand of data-processing instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand2 {
    /// An immediate that `imm::is_operand2` accepts.
    Imm(u32),
    Reg(Reg),
    /// A register shifted by a constant in 0..=31.
    Shifted(Reg, Shift, u8),
    /// A register shifted by the low byte of another (32 or more shifts every bit out).
    ShiftedBy(Reg, Shift, Reg),
}

/// The shifts of a shifted-register operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shift {
    Lsl,
    /// Logical shift right (zeros in).
    Lsr,
    /// Arithmetic shift right (copies of the sign bit in).
    Asr,
}

impl Shift {
    pub fn name(self) -> &'static str {
        match self {
            Shift::Lsl => "lsl",
            Shift::Lsr => "lsr",
            Shift::Asr => "asr",
        }
    }
}

/// A stack location whose offset from sp is known only after frame layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// A local object (an `alloca` or a spill slot), by index.
    Local(u32),
    /// The caller's stack argument at this byte offset.
    Incoming(u32),
    /// Our stack argument to a callee at this byte offset.
    Outgoing(u32),
}

/// A memory operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Addr {
    /// `[base, #offset]` (any offset; out-of-range ones are handled when emitting).
    Imm(Reg, i32),
    /// `[base, index, lsl #shift]` (core loads and stores only).
    Index(Reg, Reg, u8),
    /// `[base, -index, lsl #shift]` (core loads and stores only).
    IndexDown(Reg, Reg, u8),
    /// A stack slot plus a byte offset.
    Slot(Slot, i32),
    /// `[base], #offset`: the access is at `base`, then `base += offset` (core loads and
    /// stores only, offset within `imm::fits_ldr_offset`; made after allocation).
    PostIndex(Reg, i32),
    /// `[base, #offset]!`: `base += offset`, then the access is at the new `base` (core
    /// loads and stores only, offset within `imm::fits_ldr_offset`; made after allocation).
    PreIndex(Reg, i32),
}

impl Addr {
    /// Whether the address writes its base register back.
    pub fn writes_back(self) -> bool {
        matches!(self, Addr::PostIndex(..) | Addr::PreIndex(..))
    }
}

/// The addressing mode of a load or store multiple: `n` registers at consecutive words,
/// the lowest register at the lowest address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockMode {
    /// Increment after: the words at `base`, `base + 4`, ...
    Ia,
    /// Increment before: the words at `base + 4`, `base + 8`, ...
    Ib,
    /// Decrement after: the words up to `base`.
    Da,
    /// Decrement before: the words up to `base - 4`.
    Db,
}

impl BlockMode {
    pub const ALL: [BlockMode; 4] = [BlockMode::Ia, BlockMode::Ib, BlockMode::Da, BlockMode::Db];

    pub fn name(self) -> &'static str {
        match self {
            BlockMode::Ia => "ia",
            BlockMode::Ib => "ib",
            BlockMode::Da => "da",
            BlockMode::Db => "db",
        }
    }

    /// The offset from the base of the lowest of `n` words.
    pub fn lowest_offset(self, n: usize) -> i32 {
        let n = n as i32;
        match self {
            BlockMode::Ia => 0,
            BlockMode::Ib => 4,
            BlockMode::Da => 4 - 4 * n,
            BlockMode::Db => -4 * n,
        }
    }

    /// What writeback (`base!`) adds to the base after moving `n` words.
    pub fn writeback_delta(self, n: usize) -> i32 {
        let n = n as i32;
        match self {
            BlockMode::Ia | BlockMode::Ib => 4 * n,
            BlockMode::Da | BlockMode::Db => -4 * n,
        }
    }

    /// Whether the VFP's `vldm`/`vstm` have the mode: increment after, and decrement
    /// before with writeback only.
    pub fn exists_for_vfp(self, writeback: bool) -> bool {
        match self {
            BlockMode::Ia => true,
            BlockMode::Db => writeback,
            BlockMode::Ib | BlockMode::Da => false,
        }
    }
}
