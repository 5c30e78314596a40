//! `compiler`: the SysY to ARMv7 compiler driver.

use clap::Parser;
use frontend::SourceFile;
use std::process::ExitCode;

/// Compiles a SysY2022 program to 32-bit ARM assembly (GNU as syntax, armv7ve, VFPv4,
/// AAPCS hard-float) for linking with the SysY runtime library.
#[derive(Parser, Debug)]
#[command(name = "compiler", version)]
struct Cli {
    /// The SysY source file.
    input: String,

    /// Write the output here (default: the input's name with `.s`).
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
}

/// Deeply nested programs recurse deeply in the parser and checker; run them on a thread with
/// a stack large enough for any input that fits in memory.
const STACK_SIZE: usize = 1 << 30;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let worker = std::thread::Builder::new()
        .stack_size(STACK_SIZE)
        .spawn(move || run(&cli));
    match worker.map(|w| w.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("compiler: internal error: the compiler thread failed");
            ExitCode::from(2)
        }
    }
}

fn run(cli: &Cli) -> ExitCode {
    let text = match std::fs::read(&cli.input) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            eprintln!("compiler: error: cannot read '{}': {e}", cli.input);
            return ExitCode::from(1);
        }
    };
    let file = SourceFile::new(cli.input.clone(), text);
    let program = match frontend::compile(&file) {
        Ok(p) => p,
        Err(diagnostics) => {
            for d in &diagnostics {
                eprint!("{}", d.render(&file));
            }
            let n = diagnostics.len();
            eprintln!("{n} error{} generated.", if n == 1 { "" } else { "s" });
            return ExitCode::from(1);
        }
    };
    if cli.check {
        return ExitCode::SUCCESS;
    }
    drop(program);
    eprintln!("compiler: error: code generation is not available yet; use --check");
    ExitCode::from(1)
}
