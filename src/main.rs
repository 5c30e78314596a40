//! `compiler`: the SysY to ARMv7 compiler driver.

mod allocator;
mod gcc_options;
mod output;
mod pass_help;

use clap::{CommandFactory, FromArgMatches, Parser};
use frontend::SourceFile;
use std::process::ExitCode;
use std::time::Instant;

/// Compiles a SysY2022 program to 32-bit ARM assembly (GNU as syntax, armv7ve, VFPv4,
/// AAPCS hard-float) for linking with the SysY runtime library.
#[derive(Parser, Debug)]
#[command(
    name = "compiler",
    version,
    after_help = "Options may come in any order (`compiler -o out.s -S in.sy -O2`). gcc options \
that a judge or a Makefile may pass and that mean nothing here are accepted and ignored: \
-W..., -w, -std=..., -march=..., -mcpu=..., -mtune=..., -mfpu=..., -mfloat-abi=..., -marm, \
-g..., -f.... A failed compile removes the output file rather than leave a stale one, and \
an output file that is the input is refused."
)]
struct Cli {
    /// The SysY source file (`-` for standard input), or an IR file (`.ir`, as --emit-ir
    /// writes) to compile from the IR on.
    #[arg(required_unless_present = "print_pipeline")]
    input: Option<String>,

    /// Write the output here (default: the input's name with `.s`); `-` is standard output.
    #[arg(short = 'o', value_name = "OUTPUT")]
    output: Option<String>,

    /// Emit assembly. This is the only kind of output; the flag is accepted for
    /// compatibility with the judge's command line.
    #[arg(short = 'S')]
    assembly: bool,

    #[arg(short = 'O', value_name = "LEVEL", default_value_t = 0, help = gcc_options::LEVELS_HELP,
          value_parser = clap::value_parser!(u8).range(0..=3))]
    opt_level: u8,

    /// Only parse and check the program; write nothing.
    #[arg(long)]
    check: bool,

    /// Write the IR (text form) instead of assembly.
    #[arg(long)]
    emit_ir: bool,

    /// Run this IR pipeline instead of the -O level's: pass names separated by commas, with
    /// groups `fixpoint(a,b,...)` (repeat until nothing changes, at most 8 rounds) and
    /// `repeat(N,a,b,...)`, e.g. --passes='mem2reg,fixpoint(const-fold,dce,simplify-cfg)'.
    #[arg(long, value_name = "PIPELINE")]
    passes: Option<String>,

    // Its help, pass_help::disable_pass, lists the passes.
    #[arg(long, value_name = "PASS", value_delimiter = ',')]
    disable_pass: Vec<String>,

    /// Verify the IR after lowering and after every pass.
    #[arg(long)]
    verify_each: bool,

    // Its help, pass_help::print_after, lists the passes.
    #[arg(long, value_name = "PASS", value_delimiter = ',')]
    print_after: Vec<String>,

    /// Print to stderr after every pass (IR and back end) what it produces.
    #[arg(long)]
    print_after_all: bool,

    /// Print the -O level's passes and exit: the IR pipeline phase by phase, each with what
    /// it is for, then the back end's passes. Needs no input.
    #[arg(long)]
    print_pipeline: bool,

    /// Report on stderr how long the front end, lowering, each pass (the back end's summed
    /// over functions) and writing the output take.
    #[arg(long)]
    time_passes: bool,

    // Its help, pass_help::opt_bisect_limit, lists the passes.
    #[arg(long, value_name = "N")]
    opt_bisect_limit: Option<usize>,

    /// Find the first pass execution after which the program misbehaves: for each number N
    /// of executions tried, the assembly and IR after N executions are written to a folder
    /// (`program.s`, `program.ir`) and `sh -c 'CMD FOLDER'` runs; exit status 0 means the
    /// program behaves. Prints the culprit and the IR before and after it. `-o` and `-S` are
    /// accepted, so that a judge's command line can be pasted, and nothing is written there.
    #[arg(long, value_name = "CMD", conflicts_with_all = ["emit_ir", "check", "run"])]
    bisect_oracle: Option<String>,

    /// Execute the program with the IR interpreter instead of compiling it: the runtime
    /// functions read this process's stdin and write its stdout, and the exit status is
    /// main's return value modulo 256, or 134 after a run-time error (an invalid memory
    /// access, a stack overflow), as for an abort.
    #[arg(long, conflicts_with_all = ["emit_ir", "check", "output"])]
    run: bool,

    /// With --run: stop after this many IR instructions, with exit status 124 (as
    /// `timeout` reports a timeout).
    #[arg(long, value_name = "N", requires = "run")]
    max_steps: Option<u64>,
}

/// The exit status of `--run` after a run-time error.
const RUN_TIME_ERROR: u8 = 134;
/// The exit status of `--run` when `--max-steps` runs out.
const OUT_OF_STEPS: u8 = 124;

/// The command line's definition, with the help of the options that name passes made
/// from the pass registries.
fn command() -> clap::Command {
    Cli::command()
        .mut_arg("disable_pass", |a| a.help(pass_help::disable_pass()))
        .mut_arg("print_after", |a| a.help(pass_help::print_after()))
        .mut_arg("opt_bisect_limit", |a| {
            a.help(pass_help::opt_bisect_limit())
        })
}

/// Deeply nested programs recurse deeply in the parser and checker; run them on a thread with
/// a stack large enough for any input that fits in memory.
const STACK_SIZE: usize = 1 << 30;

fn main() -> ExitCode {
    allocator::restart_with_tunables();
    allocator::use_one_arena();
    let matches = command().get_matches_from(gcc_options::normalise(std::env::args_os()));
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let writes = !(cli.check || cli.run || cli.print_pipeline || cli.bisect_oracle.is_some());
    let stale = output_path(&cli).filter(|_| writes);
    if let (Some(output), Some(input)) = (&stale, &cli.input) {
        if output::is_input(output, input) {
            return fail(
                1,
                format!("error: the output file '{output}' is the input file; not writing over it"),
            );
        }
    }
    let worker = std::thread::Builder::new()
        .stack_size(STACK_SIZE)
        .spawn(move || run(&cli));
    let code = match worker.map(|w| w.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("compiler: internal error: the compiler thread failed");
            ExitCode::from(2)
        }
    };
    // After a failure, an output file from an earlier run must not look like this one's;
    // only a regular file goes (never `-o /dev/null`).
    let regular = |p: &String| std::fs::metadata(p).is_ok_and(|m| m.is_file());
    if let Some(path) = stale.filter(|p| code != ExitCode::SUCCESS && regular(p)) {
        let _ = std::fs::remove_file(path);
    }
    code
}

/// Where the output goes (`None` for standard output).
fn output_path(cli: &Cli) -> Option<String> {
    let ext = if cli.emit_ir { "ir" } else { "s" };
    output::path(cli.output.as_deref(), cli.input.as_deref(), ext)
}

/// Prints the passes of `opt_level`: the IR phases, each as a `#` line saying what it is for
/// and a line of its passes, then the back end's passes.
fn print_pipeline(opt_level: u8) {
    println!("# IR passes at -O{opt_level}");
    for phase in middle::pass_manager::phases(opt_level) {
        println!("# {}: {}", phase.name, phase.why);
        println!("{}", phase.passes);
    }
    println!("# back-end passes");
    let passes: Vec<&str> = backend::passes::pipeline(opt_level)
        .iter()
        .map(|p| p.name)
        .collect();
    println!("{}", passes.join(","));
}

/// Reports an error and gives the exit status for it.
fn fail(code: u8, message: impl std::fmt::Display) -> ExitCode {
    eprintln!("compiler: {message}");
    ExitCode::from(code)
}

/// Where modules come from: a checked SysY program, lowered afresh for every request, or an
/// IR file.
enum Source {
    Program(frontend::hir::Program),
    Ir(middle::ir::Module),
}

impl Source {
    fn module(&self) -> middle::ir::Module {
        match self {
            Source::Program(p) => middle::lower::lower_program(p),
            Source::Ir(m) => m.clone(),
        }
    }
}

fn run(cli: &Cli) -> ExitCode {
    let start = Instant::now();
    let input = match (&cli.input, cli.print_pipeline) {
        (Some(input), false) => input,
        _ => {
            print_pipeline(cli.opt_level);
            return ExitCode::SUCCESS;
        }
    };
    let text = match read_input(cli, input) {
        Ok(text) => text,
        Err(e) => return fail(1, format!("error: {e}")),
    };
    let source = if input.ends_with(".ir") {
        let parsed = middle::ir::parser::parse_module(&text)
            .and_then(|m| middle::ir::verifier::verify_module(&m).map(|()| m));
        match parsed {
            Ok(m) => Source::Ir(m),
            Err(e) => return fail(1, format!("error: {input}: {e}")),
        }
    } else {
        let name = if input == "-" { "<stdin>" } else { input };
        let file = SourceFile::new(name, text);
        match frontend::compile(&file) {
            Ok(p) => Source::Program(p),
            Err(diagnostics) => {
                for d in &diagnostics {
                    eprint!("{}", d.render(&file));
                }
                let n = diagnostics.len();
                eprintln!("{n} error{} generated.", if n == 1 { "" } else { "s" });
                return ExitCode::from(1);
            }
        }
    };
    report_time(cli, "front end (read, parse, check)", start);
    if cli.check {
        return ExitCode::SUCCESS;
    }
    let pm = match pass_manager(cli) {
        Ok(pm) => pm,
        Err(e) => return fail(1, format!("error: {e}")),
    };
    if let Some(oracle) = &cli.bisect_oracle {
        return bisect(cli, &source, &pm, oracle);
    }
    let start = Instant::now();
    let mut module = source.module();
    drop(source);
    report_time(cli, "lowering", start);
    let ir_executions = match optimise(cli, &pm, &mut module) {
        Ok(n) => n,
        Err(e) => return fail(2, format!("internal error: {e}")),
    };
    if cli.emit_ir {
        let text = middle::ir::printer::print_module(&module);
        return output::write(output_path(cli).as_deref(), &text);
    }
    if cli.run {
        return interpret(&module, cli.max_steps.unwrap_or(u64::MAX));
    }
    let options = backend_options(cli, ir_executions);
    let assembly = match backend::compile_with(module, &options, &mut std::io::stderr()) {
        Ok((assembly, _)) => assembly,
        Err(e) => return fail(2, format!("internal error: {e}")),
    };
    let start = Instant::now();
    let written = output::write(output_path(cli).as_deref(), &assembly);
    report_time(cli, "writing the output", start);
    if written == ExitCode::SUCCESS {
        // The output file is written and closed: end the process here rather than free the
        // module and the assembly piece by piece, which takes a tenth of a second or more on
        // a program of a million instructions.
        std::process::exit(0);
    }
    written
}

/// The program's text, from the input file or, for `-`, standard input (which `--run`
/// keeps for the program's own input).
fn read_input(cli: &Cli, input: &str) -> Result<String, String> {
    let bytes = if input == "-" {
        if cli.run {
            return Err("--run keeps standard input for the program: give it as a file".into());
        }
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        bytes
    } else {
        std::fs::read(input).map_err(|e| format!("cannot read '{input}': {e}"))?
    };
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// With --time-passes, reports on stderr how long `stage` took since `start`, in the form
/// the passes and the back end use.
fn report_time(cli: &Cli, stage: &str, start: Instant) {
    if cli.time_passes {
        eprintln!(
            "time: {stage}: {:.3} ms",
            start.elapsed().as_secs_f64() * 1e3
        );
    }
}

/// The pass pipeline the command line asks for, its passes asking the back end's model of
/// the Cortex-A72 what instructions cost.
fn pass_manager(cli: &Cli) -> Result<middle::pass_manager::PassManager, String> {
    use backend::ir_costs::CortexA72;
    use middle::pass_manager::{PassManager, PrintAfter};
    let mut pm = match &cli.passes {
        Some(spec) => PassManager::parse(spec, &CortexA72)?,
        None => PassManager::for_level(cli.opt_level, &CortexA72),
    };
    for name in &cli.disable_pass {
        if middle::pass_manager::find(name).is_some() {
            pm.disable(name);
            continue;
        }
        match backend::passes::BACKEND_PASSES
            .iter()
            .find(|p| p.name == name)
        {
            Some(p) if p.required => {
                return Err(format!(
                    "--disable-pass: the back end cannot do without '{name}'"
                ))
            }
            Some(_) => {}
            None => return Err(format!("--disable-pass: no pass is called '{name}'")),
        }
    }
    pm.verify_each = cli.verify_each;
    pm.bisect_limit = cli.opt_bisect_limit;
    pm.time_passes = cli.time_passes;
    pass_help::check_print_after(&cli.print_after)?;
    pm.print_after = if cli.print_after_all {
        PrintAfter::All
    } else if !cli.print_after.is_empty() {
        PrintAfter::Named(cli.print_after.clone())
    } else {
        PrintAfter::Nothing
    };
    Ok(pm)
}

/// Verifies the starting module if asked, then runs the passes; returns how many pass
/// executions there were.
fn optimise(
    cli: &Cli,
    pm: &middle::pass_manager::PassManager,
    module: &mut middle::ir::Module,
) -> Result<usize, String> {
    if cli.verify_each {
        middle::ir::verifier::verify_module(module)
            .map_err(|e| format!("IR invalid before the passes:\n{e}"))?;
    }
    pm.run(module, &mut std::io::stderr()).map(|e| e.len())
}

/// The back end's share of the command line: its pass executions are numbered on after
/// the `ir_executions` IR pass executions, and bisect within what those left of the limit.
fn backend_options(cli: &Cli, ir_executions: usize) -> backend::BackendOptions {
    let mut print_after = cli.print_after.clone();
    if cli.print_after_all {
        print_after.push("all".to_string());
    }
    backend::BackendOptions {
        opt_level: cli.opt_level,
        print_after,
        time_passes: cli.time_passes,
        verify_each: cli.verify_each,
        bisect_limit: cli
            .opt_bisect_limit
            .map(|limit| limit.saturating_sub(ir_executions)),
        disabled: cli.disable_pass.clone(),
        first_execution_number: ir_executions + 1,
    }
}

/// The bisect mode: see `Cli::bisect_oracle`.
fn bisect(
    cli: &Cli,
    source: &Source,
    pm: &middle::pass_manager::PassManager,
    oracle: &str,
) -> ExitCode {
    use middle::pass_manager::bisect;
    let dir = std::env::temp_dir().join(format!("sysy-bisect-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return fail(1, format!("error: cannot create '{}': {e}", dir.display()));
    }
    let executions = match pm.run(&mut source.module(), &mut std::io::sink()) {
        Ok(executions) => executions,
        Err(e) => return fail(2, format!("internal error: {e}")),
    };
    // The module after the first n pass executions.
    let after = |n: usize| {
        let mut m = source.module();
        let _ = pm.run_first(n, &mut m);
        m
    };
    let is_good = |n: usize| {
        let m = after(n);
        let Ok(assembly) = backend::compile(&m, cli.opt_level) else {
            return false;
        };
        let written = std::fs::write(dir.join("program.s"), assembly).and_then(|()| {
            std::fs::write(
                dir.join("program.ir"),
                middle::ir::printer::print_module(&m),
            )
        });
        if written.is_err() {
            return false;
        }
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{oracle} {}", dir.display()))
            .status();
        let good = status.is_ok_and(|s| s.success());
        eprintln!(
            "bisect: {n} pass executions: {}",
            if good { "good" } else { "bad" }
        );
        good
    };
    let outcome = bisect::bisect(executions.len(), is_good);
    print!("{}", bisect::report(outcome, &executions, after));
    let _ = std::fs::remove_dir_all(&dir);
    ExitCode::SUCCESS
}

/// Runs the module in the interpreter with this process's stdin and stdout.
fn interpret(module: &middle::ir::Module, max_steps: u64) -> ExitCode {
    use middle::interp::RunError;
    let mut input = Vec::new();
    if let Err(e) = std::io::Read::read_to_end(&mut std::io::stdin(), &mut input) {
        eprintln!("compiler: error: cannot read stdin: {e}");
        return ExitCode::from(1);
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut err = std::io::stderr();
    match middle::interp::run(module, &input, &mut out, &mut err, max_steps) {
        Ok(code) => ExitCode::from(code as u8),
        Err(RunError::OutOfSteps) => fail(
            OUT_OF_STEPS,
            format!("run-time error: --max-steps: {max_steps} IR instructions executed"),
        ),
        Err(e @ RunError::Fault(_)) => fail(RUN_TIME_ERROR, format!("run-time error: {e}")),
    }
}
