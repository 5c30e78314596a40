//! `compiler`: the SysY to ARMv7 compiler driver.

mod allocator;

use clap::Parser;
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
-g..., -f.... A failed compile removes the output file rather than leave a stale one."
)]
struct Cli {
    /// The SysY source file, or an IR file (`.ir`, as --emit-ir writes) to compile from the
    /// IR on.
    #[arg(required_unless_present = "print_pipeline")]
    input: Option<String>,

    /// Write the output here (default: the input's name with `.s`); `-` is standard output.
    #[arg(short = 'o', value_name = "OUTPUT")]
    output: Option<String>,

    /// Emit assembly. This is the only kind of output; the flag is accepted for
    /// compatibility with the judge's command line.
    #[arg(short = 'S')]
    assembly: bool,

    /// Optimisation level: -O0 (none), -O1 (cheap clean-ups), -O2 and -O3 (everything).
    #[arg(short = 'O', value_name = "LEVEL", default_value_t = 0,
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

    /// Leave these passes out of the pipeline (the level's or --passes'): IR passes, and
    /// the back end's optional ones (its schedulers `pre-schedule` and `schedule`,
    /// `peephole`, ...), to measure what a pass does.
    #[arg(long, value_name = "PASS", value_delimiter = ',')]
    disable_pass: Vec<String>,

    /// Verify the IR after lowering and after every pass.
    #[arg(long)]
    verify_each: bool,

    /// Print to stderr after each execution of the named passes what they produce: the IR,
    /// or for the back end's passes (split-critical-edges, isel, share-constants, regalloc,
    /// peephole, branches, emit) each function's IR, machine IR or the assembly.
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

    /// Run only the first N pass executions; list on stderr which ran and which did not.
    /// The back end's passes are numbered on after the IR passes; its required ones
    /// (all but peephole) always run.
    #[arg(long, value_name = "N")]
    opt_bisect_limit: Option<usize>,

    /// Find the first pass execution after which the program misbehaves: for each number N
    /// of executions tried, the assembly and IR after N executions are written to a folder
    /// (`program.s`, `program.ir`) and `sh -c 'CMD FOLDER'` runs; exit status 0 means the
    /// program behaves. Prints the culprit and the IR before and after it.
    #[arg(long, value_name = "CMD", conflicts_with_all = ["emit_ir", "check", "run", "output"])]
    bisect_oracle: Option<String>,

    /// Execute the program with the IR interpreter instead of compiling it: the runtime
    /// functions read this process's stdin and write its stdout, and the exit status is
    /// main's return value modulo 256.
    #[arg(long, conflicts_with_all = ["emit_ir", "check", "output"])]
    run: bool,

    /// With --run: stop with a run-time error after this many IR instructions.
    #[arg(long, value_name = "N", requires = "run")]
    max_steps: Option<u64>,
}

/// Deeply nested programs recurse deeply in the parser and checker; run them on a thread with
/// a stack large enough for any input that fits in memory.
const STACK_SIZE: usize = 1 << 30;

fn main() -> ExitCode {
    allocator::restart_with_tunables();
    allocator::use_one_arena();
    let cli = Cli::parse_from(std::env::args_os().filter(|a| !is_ignored_gcc_option(a)));
    let writes = !(cli.check || cli.run || cli.print_pipeline || cli.bisect_oracle.is_some());
    let stale = output_path(&cli, if cli.emit_ir { "ir" } else { "s" }).filter(|_| writes);
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

/// Where the output goes: `-o`, or next to the input with extension `ext`; `None` for
/// standard output.
fn output_path(cli: &Cli, ext: &str) -> Option<String> {
    match cli.output.as_deref() {
        Some("-") => None,
        Some(p) => Some(p.to_string()),
        None => Some(
            std::path::Path::new(cli.input.as_deref().unwrap_or("out"))
                .with_extension(ext)
                .file_name()
                .map_or_else(
                    || format!("out.{ext}"),
                    |n| n.to_string_lossy().into_owned(),
                ),
        ),
    }
}

/// Whether `arg` is a gcc option that means nothing here (see the help's closing text).
fn is_ignored_gcc_option(arg: &std::ffi::OsString) -> bool {
    let Some(a) = arg.to_str() else {
        return false;
    };
    const PREFIXES: [&str; 9] = [
        "-W",
        "-std=",
        "-march=",
        "-mcpu=",
        "-mtune=",
        "-mfpu=",
        "-mfloat-abi=",
        "-g",
        "-f",
    ];
    matches!(a, "-w" | "-marm" | "-g")
        || PREFIXES
            .iter()
            .any(|p| a.starts_with(p) && a.len() > p.len())
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
    let text = match std::fs::read(input) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => return fail(1, format!("error: cannot read '{input}': {e}")),
    };
    let source = if input.ends_with(".ir") {
        let parsed = middle::ir::parser::parse_module(&text)
            .and_then(|m| middle::ir::verifier::verify_module(&m).map(|()| m));
        match parsed {
            Ok(m) => Source::Ir(m),
            Err(e) => return fail(1, format!("error: {input}: {e}")),
        }
    } else {
        let file = SourceFile::new(input.clone(), text);
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
        return write_output(cli, "ir", &middle::ir::printer::print_module(&module));
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
    let written = write_output(cli, "s", &assembly);
    report_time(cli, "writing the output", start);
    if written == ExitCode::SUCCESS {
        // The output file is written and closed: end the process here rather than free the
        // module and the assembly piece by piece, which takes a tenth of a second or more on
        // a program of a million instructions.
        std::process::exit(0);
    }
    written
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

/// The pass pipeline the command line asks for.
fn pass_manager(cli: &Cli) -> Result<middle::pass_manager::PassManager, String> {
    use middle::pass_manager::{PassManager, PrintAfter};
    let mut pm = match &cli.passes {
        Some(spec) => PassManager::parse(spec)?,
        None => PassManager::for_level(cli.opt_level),
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
        Err(e) => {
            eprintln!("compiler: run-time error: {e}");
            ExitCode::from(134)
        }
    }
}

/// Writes the result to `-o` (standard output for `-`), or next to the input with
/// extension `ext`.
fn write_output(cli: &Cli, ext: &str, text: &str) -> ExitCode {
    let Some(path) = output_path(cli, ext) else {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        return match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(1, format!("error: cannot write to standard output: {e}")),
        };
    };
    match std::fs::write(&path, text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("compiler: error: cannot write '{path}': {e}");
            ExitCode::from(1)
        }
    }
}
