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
    let result = machine.run(main, &[]);
    machine.io.finish();
    result.map(|v| v as i32)
}

/// Evaluates calls at compile time: `calls` holds, for each, a function of `m` and its
/// arguments (bit patterns). A function runs without input and with its output dropped,
/// for at most `steps_per_call` IR instructions and at most `total_steps` over all calls.
/// The result of each call, or `None` where it failed or ran out of steps.
pub fn evaluate_calls(
    m: &crate::ir::Module,
    calls: &[(crate::ir::FuncId, Vec<u32>)],
    steps_per_call: u64,
    total_steps: u64,
) -> Vec<Option<u32>> {
    let decoded = decode::decode(m);
    let (mut out, mut err) = (std::io::sink(), std::io::sink());
    let mut machine = exec::Machine::new(&decoded, io::Io::new(&[], &mut out, &mut err), 0);
    let mut left = total_steps;
    calls
        .iter()
        .map(|(f, args)| {
            let budget = steps_per_call.min(left);
            machine.refuel(budget);
            let result = machine.run(f.0, args).ok();
            left -= budget - machine.fuel();
            result
        })
        .collect()
}
