//! The back end as a named list of passes, each run over every function of the module
//! before the next starts: `split-critical-edges` (on the IR), `isel` (IR to machine IR),
//! `jump-tables` and `dead-definitions`, `if-convert`, `share-constants` and `pre-schedule` (above -O0), `regalloc` (graph colouring, or spill-everything at -O0),
//! `peephole`, `tail-calls`, `zero-compares`, `load-store-multiple`, `writeback`,
//! `schedule`, `branches`, `copied-reloads` and `repeated-compares` (above -O0) and `emit` (frame layout and assembly text). Executions are numbered on from the IR passes'
//! numbers, one per pass over the whole module. With a bisection limit, optional passes
//! beyond it are skipped and each execution is listed; required passes always run. Passes
//! can be timed, their results printed, and the machine IR verified after each.

use crate::emit::Emitter;
use crate::mir::verifier::verify;
use crate::mir::MFunction;
use crate::{
    branches, dead_definitions, hoist_spills, if_convert, isel, jump_tables, load_store_multiple,
    peephole, pre_schedule, regalloc, repeated_compares, schedule, share_constants, shrink_wrap,
    tail_calls, unfold_shifts, writeback, zero_compares,
};
use middle::ir::printer::print_function;
use middle::ir::verifier::verify_function;
use middle::ir::{Function, Module};
use middle::passes::split_critical_edges;
use std::io::Write;
use std::time::Instant;

/// How a pass transforms the module's functions.
#[derive(Clone, Copy)]
enum Run {
    /// Rewrites each function's IR.
    Ir(fn(&mut Function)),
    /// Makes each function's machine IR from its IR.
    Select(fn(&Module, &Function) -> MFunction),
    /// Rewrites each function's machine IR; the argument is the optimisation level.
    Machine(fn(&mut MFunction, u8)),
    /// Writes the module's assembly from the machine IR.
    Emit(fn(&Module, &[MFunction]) -> String),
}

/// A named back-end pass.
#[derive(Clone, Copy)]
pub struct BackendPass {
    pub name: &'static str,
    pub description: &'static str,
    /// Whether the output depends on the pass running: bisection never skips such a pass.
    pub required: bool,
    run: Run,
}

fn allocate(mf: &mut MFunction, opt_level: u8) {
    if opt_level == 0 {
        regalloc::spill_everything::allocate(mf);
    } else {
        regalloc::graph(mf);
    }
}

fn emit(m: &Module, functions: &[MFunction]) -> String {
    let mut emitter = Emitter::new(functions.iter().any(MFunction::uses_vectors));
    for (index, mf) in functions.iter().enumerate() {
        emitter.function(index, mf);
    }
    emitter.data(m);
    emitter.finish()
}

/// Every back-end pass, in pipeline order.
pub const BACKEND_PASSES: &[BackendPass] = &[
    BackendPass {
        name: "split-critical-edges",
        description: "give every critical edge a block, a place for its phi copies",
        required: true,
        run: Run::Ir(|f| {
            split_critical_edges::split(f);
        }),
    },
    BackendPass {
        name: "isel",
        description: "select machine instructions over virtual registers",
        required: true,
        run: Run::Select(isel::select),
    },
    BackendPass {
        name: "jump-tables",
        description: "turn a chain of compares of one register with constants into a jump table",
        required: false,
        run: Run::Machine(|mf, _| jump_tables::run(mf)),
    },
    BackendPass {
        name: "dead-definitions",
        description: "drop computations of virtual registers that nothing reads",
        required: false,
        run: Run::Machine(|mf, _| dead_definitions::run(mf)),
    },
    BackendPass {
        name: "if-convert",
        description: "run the small arms of a branch under its condition, in the block that branches",
        required: false,
        run: Run::Machine(|mf, _| if_convert::run(mf)),
    },
    BackendPass {
        name: "share-constants",
        description:
            "build a constant built in several blocks outside loops once, where it dominates them",
        required: false,
        run: Run::Machine(|mf, _| share_constants::run(mf)),
    },
    BackendPass {
        name: "unfold-shifts",
        description: "give shifted operands shifts of their own in blocks that the multi-cycle pipeline limits",
        required: false,
        run: Run::Machine(|mf, _| unfold_shifts::run(mf)),
    },
    BackendPass {
        name: "pre-schedule",
        description:
            "order each block's instructions by their latencies within the registers available",
        required: false,
        run: Run::Machine(pre_schedule::run),
    },
    BackendPass {
        name: "regalloc",
        description: "assign physical registers (graph colouring; spill everything at -O0)",
        required: true,
        run: Run::Machine(allocate),
    },
    BackendPass {
        name: "hoist-spills",
        description: "move spill code a loop repeats before it: stores of what the slot holds, reloads of what it only reads",
        required: false,
        run: Run::Machine(|mf, _| hoist_spills::run(mf)),
    },
    BackendPass {
        name: "peephole",
        description: "turn reloads of values still in registers into copies, drop self-copies",
        required: false,
        run: Run::Machine(|mf, _| peephole::run(mf)),
    },
    BackendPass {
        name: "tail-calls",
        description: "end a function in a jump to the function whose result it returns",
        required: false,
        run: Run::Machine(|mf, _| tail_calls::run(mf)),
    },
    BackendPass {
        name: "zero-compares",
        description:
            "let the instruction computing a register set the flags its compare with 0 set",
        required: false,
        run: Run::Machine(|mf, _| zero_compares::run(mf)),
    },
    BackendPass {
        name: "load-store-multiple",
        description: "merge loads or stores of consecutive words at one base into ldm/stm",
        required: false,
        run: Run::Machine(|mf, _| load_store_multiple::run(mf)),
    },
    BackendPass {
        name: "writeback",
        description: "fold a pointer bump into a load or store at the pointer (indexed forms)",
        required: false,
        run: Run::Machine(|mf, _| writeback::run(mf)),
    },
    BackendPass {
        name: "schedule",
        description: "order each block's instructions by their latencies (list scheduling)",
        required: false,
        run: Run::Machine(|mf, _| schedule::run(mf)),
    },
    BackendPass {
        name: "branches",
        description: "jump past blocks that only jump, fall through to the next block",
        required: false,
        run: Run::Machine(|mf, _| branches::run(mf)),
    },
    BackendPass {
        name: "copied-reloads",
        description: "turn reloads in blocks that branches copied into copies, as peephole does",
        required: false,
        run: Run::Machine(|mf, _| peephole::run(mf)),
    },
    BackendPass {
        name: "repeated-compares",
        description: "drop a compare that the only block leading in made last, flags unchanged",
        required: false,
        run: Run::Machine(|mf, _| repeated_compares::run(mf)),
    },
    BackendPass {
        name: "shrink-wrap",
        description: "set the frame up only on the paths that need it, after early returns",
        required: false,
        run: Run::Machine(|mf, _| shrink_wrap::run(mf)),
    },
    BackendPass {
        name: "emit",
        description: "lay out frames and write the assembly text",
        required: true,
        run: Run::Emit(emit),
    },
];

/// The back-end passes of an optimisation level: all of them, but the optional ones (not
/// `required`) only above -O0, which stays the unoptimised baseline.
pub fn pipeline(opt_level: u8) -> Vec<&'static BackendPass> {
    BACKEND_PASSES
        .iter()
        .filter(|p| opt_level > 0 || p.required)
        .collect()
}

/// Runs the back-end pass called `name` on one function of machine IR as at `opt_level`:
/// an error if no pass has that name or the pass does not rewrite machine IR.
pub fn run_machine_pass(name: &str, mf: &mut MFunction, opt_level: u8) -> Result<(), String> {
    match named(name)?.run {
        Run::Machine(run) => {
            run(mf, opt_level);
            Ok(())
        }
        _ => Err(format!("'{name}' is not a pass over machine IR")),
    }
}

/// The back-end pass called `name`; an error if there is none.
fn named(name: &str) -> Result<&'static BackendPass, String> {
    BACKEND_PASSES
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| format!("unknown back-end pass '{name}'"))
}

/// Runs the back-end passes called `names`, in that order, on every function of a verified
/// module as at `opt_level`, verifying what each produced, and gives the machine IR: first
/// passes over the IR, then the one that selects machine IR, then passes over machine IR.
/// An error if a name is unknown, out of that order or `emit`, if nothing selects, or if
/// verification fails. For file tests, which name the passes they run.
pub fn run_named_passes(
    m: Module,
    names: &[String],
    opt_level: u8,
) -> Result<Vec<MFunction>, String> {
    let mut work = Work {
        module: m,
        machine: Vec::new(),
        assembly: String::new(),
    };
    let mut selected = false;
    for name in names {
        let pass = named(name)?;
        match (pass.run, selected) {
            (Run::Ir(_) | Run::Select(_), false) | (Run::Machine(_), true) => {}
            (Run::Ir(_) | Run::Select(_), true) => {
                return Err(format!("'{name}' runs on the IR, before selection"))
            }
            (Run::Machine(_), false) => {
                return Err(format!("'{name}' runs on machine IR: select it first"))
            }
            (Run::Emit(_), _) => return Err(format!("'{name}' writes assembly")),
        }
        work.run(pass.run, opt_level);
        work.verify(pass.run)
            .map_err(|e| format!("invalid after '{name}':\n{e}"))?;
        selected |= matches!(pass.run, Run::Select(_));
    }
    if !selected {
        return Err("no pass selects machine IR".to_string());
    }
    Ok(work.machine)
}

/// Allocates `mf` and runs the passes of `opt_level`'s pipeline that follow allocation and
/// change instructions, up to `schedule` (which only reorders them): the code by whose cost
/// `pre-schedule` judges an order.
pub(crate) fn allocate_and_clean_up(mf: &mut MFunction, opt_level: u8) {
    let after = pipeline(opt_level)
        .into_iter()
        .skip_while(|p| p.name != "regalloc")
        .take_while(|p| p.name != "schedule");
    for pass in after {
        if let Run::Machine(run) = pass.run {
            run(mf, opt_level);
        }
    }
}

/// What the driver asks of the back end.
#[derive(Clone, Debug)]
pub struct BackendOptions {
    pub opt_level: u8,
    /// Print each function after these passes (by name; `all` for every pass).
    pub print_after: Vec<String>,
    /// Report each pass's time, summed over the functions.
    pub time_passes: bool,
    /// Verify the functions after every pass (the machine IR is verified in debug builds
    /// anyway).
    pub verify_each: bool,
    /// How many more pass executions may run, if bisecting (what the IR passes left).
    pub bisect_limit: Option<usize>,
    /// Optional passes left out of the pipeline, by name.
    pub disabled: Vec<String>,
    /// The number of the first back-end pass execution (one after the IR passes' last).
    pub first_execution_number: usize,
}

impl BackendOptions {
    /// Options for an optimisation level, with nothing printed, timed or bisected.
    pub fn new(opt_level: u8) -> BackendOptions {
        BackendOptions {
            opt_level,
            print_after: Vec::new(),
            time_passes: false,
            verify_each: false,
            bisect_limit: None,
            disabled: Vec::new(),
            first_execution_number: 1,
        }
    }

    fn prints_after(&self, pass: &str) -> bool {
        self.print_after.iter().any(|n| n == pass || n == "all")
    }
}

/// One back-end pass execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendExecution {
    pub number: usize,
    pub name: &'static str,
    pub ran: bool,
}

/// The module's functions as they go through the passes.
struct Work {
    module: Module,
    machine: Vec<MFunction>,
    assembly: String,
}

impl Work {
    fn run(&mut self, run: Run, opt_level: u8) {
        match run {
            Run::Ir(f) => self.module.functions.iter_mut().for_each(f),
            Run::Select(select) => {
                // A function's IR is not needed once it is selected; dropping its body then
                // keeps the IR and the machine code of one large function from being held at
                // once (a 100,000-statement function peaks 110 MB lower).
                let m = &mut self.module;
                self.machine = (0..m.functions.len())
                    .map(|i| {
                        let mf = select(m, &m.functions[i]);
                        let f = &m.functions[i];
                        m.functions[i] = Function::new(f.name.clone(), f.params.clone(), f.ret);
                        mf
                    })
                    .collect();
            }
            Run::Machine(f) => self.machine.iter_mut().for_each(|mf| f(mf, opt_level)),
            Run::Emit(emit) => self.assembly = emit(&self.module, &self.machine),
        }
    }

    /// Checks what `run` produced.
    fn verify(&self, run: Run) -> Result<(), String> {
        match run {
            Run::Ir(_) => {
                for f in &self.module.functions {
                    if let Some(e) = verify_function(&self.module, f).first() {
                        return Err(e.clone());
                    }
                }
                Ok(())
            }
            Run::Select(_) | Run::Machine(_) => self.machine.iter().try_for_each(verify),
            Run::Emit(_) => Ok(()),
        }
    }

    /// The text form of what `run` produced.
    fn dump(&self, run: Run, log: &mut dyn Write) {
        match run {
            Run::Ir(_) => {
                for f in &self.module.functions {
                    let _ = write!(log, "{}", print_function(&self.module, f));
                }
            }
            Run::Select(_) | Run::Machine(_) => {
                for mf in &self.machine {
                    let _ = write!(log, "{mf}");
                }
            }
            Run::Emit(_) => {
                let _ = write!(log, "{}", self.assembly);
            }
        }
    }
}

/// Compiles a verified module to assembly text through the back-end pipeline of
/// `opts.opt_level`, logging to `log` what the options ask for. Fails if verification
/// after a pass fails. The module is consumed: the IR passes (splitting critical edges)
/// change its functions in place, and selection drops each function's body.
pub fn compile_with(
    m: Module,
    opts: &BackendOptions,
    log: &mut dyn Write,
) -> Result<(String, Vec<BackendExecution>), String> {
    let passes: Vec<_> = pipeline(opts.opt_level)
        .into_iter()
        .filter(|p| p.required || !opts.disabled.iter().any(|d| d == p.name))
        .collect();
    let mut work = Work {
        module: m,
        machine: Vec::new(),
        assembly: String::new(),
    };
    let mut executions = Vec::with_capacity(passes.len());
    for (k, pass) in passes.into_iter().enumerate() {
        let number = opts.first_execution_number + k;
        let ran = pass.required || opts.bisect_limit.is_none_or(|limit| k < limit);
        if opts.bisect_limit.is_some() {
            let verb = if ran { "running" } else { "NOT running" };
            let _ = writeln!(log, "BISECT: {verb} pass ({number}) {}", pass.name);
        }
        executions.push(BackendExecution {
            number,
            name: pass.name,
            ran,
        });
        if !ran {
            continue;
        }
        let start = Instant::now();
        work.run(pass.run, opts.opt_level);
        if opts.time_passes {
            let ms = start.elapsed().as_secs_f64() * 1e3;
            let _ = writeln!(log, "time: pass ({number}) {}: {ms:.3} ms", pass.name);
        }
        let debug_check = cfg!(debug_assertions) && !matches!(pass.run, Run::Ir(_));
        if opts.verify_each || debug_check {
            work.verify(pass.run)
                .map_err(|e| format!("invalid after back-end pass '{}':\n{e}", pass.name))?;
        }
        if opts.prints_after(pass.name) {
            let what = match pass.run {
                Run::Ir(_) => "IR",
                Run::Select(_) | Run::Machine(_) => "machine IR",
                Run::Emit(_) => "assembly",
            };
            let _ = writeln!(log, "; {what} after {} (execution {number})", pass.name);
            work.dump(pass.run, log);
        }
    }
    Ok((work.assembly, executions))
}
