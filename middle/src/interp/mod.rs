//! An interpreter of the IR: the oracle every pass is checked against. The module is first
//! decoded into flat register code (`decode`), then executed (`exec`) with the runtime
//! library reading the given input and writing the given output.

mod decode;
mod exec;
mod io;
pub mod printf;

use std::io::Write;

/// Why a run ended before `main` returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// The run executed as many IR instructions as it was allowed.
    OutOfSteps,
    /// An invalid memory access, a stack overflow and the like.
    Fault(String),
}

impl From<String> for RunError {
    fn from(message: String) -> RunError {
        RunError::Fault(message)
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            RunError::OutOfSteps => f.write_str("instruction limit reached"),
            RunError::Fault(message) => f.write_str(message),
        }
    }
}

/// Runs `main` of a module, executing at most `max_steps` IR instructions. Returns main's
/// return value, or why the run ended early. Output is flushed and timers reported either
/// way.
pub fn run(
    m: &crate::ir::Module,
    input: &[u8],
    out: &mut dyn Write,
    err: &mut dyn Write,
    max_steps: u64,
) -> Result<i32, RunError> {
    let decoded = decode::decode(m);
    let main = decoded
        .main
        .ok_or_else(|| RunError::Fault("the module has no main function".into()))?;
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
