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

/// Compiles a verified module to assembly text. At `-O0` every value lives in memory;
/// above, registers are allocated by graph colouring.
pub fn compile(m: &Module, opt_level: u8) -> String {
    let mut emitter = emit::Emitter::new();
    for (index, f) in m.functions.iter().enumerate() {
        let mut f = f.clone();
        split_critical_edges::run(&mut f);
        let mut mf = isel::select(m, &f);
        if opt_level == 0 {
            regalloc::spill_everything::allocate(&mut mf);
        } else {
            regalloc::graph(&mut mf);
        }
        emitter.function(index, &mf);
    }
    emitter.data(m);
    emitter.finish()
}
