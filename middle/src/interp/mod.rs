//! An interpreter of the IR: the oracle every pass is checked against. The module is first
//! decoded into flat register code (`decode`), then executed (`exec`) with the runtime
//! library reading the given input and writing the given output.

mod decode;
mod exec;
mod io;
pub mod printf;

use std::io::Write;

/// Runs `main` of a module, executing at most `max_steps` IR instructions. Returns main's
/// return value, or a description of a run-time error (invalid memory access, stack
/// overflow, the step limit). Output is flushed and timers reported either way.
pub fn run(
    m: &crate::ir::Module,
    input: &[u8],
    out: &mut dyn Write,
    err: &mut dyn Write,
    max_steps: u64,
) -> Result<i32, String> {
    let decoded = decode::decode(m);
    let main = decoded.main.ok_or("the module has no main function")?;
    let mut machine = exec::Machine::new(&decoded, io::Io::new(input, out, err), max_steps);
    let result = machine.run(main);
    machine.io.finish();
    result.map(|v| v as i32)
}
