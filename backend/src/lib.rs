//! The ARM back end: instruction selection to machine IR, register allocation, frame layout
//! and GNU assembler text for armv7ve with VFPv4, AAPCS hard-float.

pub mod abi;
mod emit;
mod frame;
pub mod imm;
pub mod isel;
pub mod mir;
pub mod parallel_copy;
mod peephole;
pub mod regalloc;
pub mod symbols;

use middle::ir::Module;
use middle::passes::split_critical_edges;
use std::time::{Duration, Instant};

/// Time spent in each stage of the back end.
#[derive(Clone, Debug, Default)]
pub struct Timings {
    pub selection: Duration,
    pub allocation: Duration,
    pub emission: Duration,
}

/// Compiles a verified module to assembly text. At `-O0` every value lives in a stack slot
/// (`regalloc::spill_everything`); above, registers are allocated by graph colouring.
pub fn compile(m: &Module, opt_level: u8) -> (String, Timings) {
    let mut timings = Timings::default();
    let mut emitter = emit::Emitter::new();
    for (index, f) in m.functions.iter().enumerate() {
        let start = Instant::now();
        let mut f = f.clone();
        split_critical_edges::split(&mut f);
        let mut mf = isel::select(m, &f);
        let selected = Instant::now();
        if opt_level == 0 {
            regalloc::spill_everything::allocate(&mut mf);
        } else {
            regalloc::graph(&mut mf);
        }
        let allocated = Instant::now();
        emitter.function(index, &mf);
        timings.selection += selected - start;
        timings.allocation += allocated - selected;
        timings.emission += allocated.elapsed();
    }
    emitter.data(m);
    (emitter.finish(), timings)
}
