//! The command line: flags, exit codes, diagnostics on stderr, and inputs that stress the
//! parser's and checker's recursion.

use std::path::PathBuf;
use std::process::{Command, Output};

fn compiler() -> Command {
    Command::new(env!("CARGO_BIN_EXE_compiler"))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sysy-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn check_source(name: &str, text: &str) -> Output {
    let path = temp_dir(name).join("input.sy");
    std::fs::write(&path, text).unwrap();
    compiler().arg("--check").arg(&path).output().unwrap()
}

#[test]
fn help_explains_every_flag() {
    let out = compiler().arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "-S",
        "-o <OUTPUT>",
        "-O <LEVEL>",
        "--check",
        "--print-pipeline",
        "[INPUT]",
    ] {
        assert!(help.contains(flag), "--help lacks {flag}:\n{help}");
    }
}

#[test]
fn an_invalid_program_exits_1_with_a_located_diagnostic_and_writes_nothing() {
    let dir = temp_dir("invalid");
    let input = dir.join("bad.sy");
    let output = dir.join("bad.s");
    std::fs::write(&input, "int main() {\n  return x;\n}\n").unwrap();
    let out = compiler()
        .args(["-S", "-O2", "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr.lines().next().unwrap_or("");
    assert!(
        first.ends_with("bad.sy:2:10: error: use of undeclared identifier 'x'"),
        "{stderr}"
    );
    assert!(stderr.contains("  return x;\n         ^\n"), "{stderr}");
    assert!(!output.exists());
}

#[test]
fn a_missing_input_file_is_reported() {
    let out = compiler()
        .args(["--check", "/nonexistent/none.sy"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read '/nonexistent/none.sy'"));
}

#[test]
fn ten_thousand_nested_parentheses() {
    let n = 10_000;
    let text = format!(
        "int main() {{ return {}1{}; }}\n",
        "(".repeat(n),
        ")".repeat(n)
    );
    let out = check_source("parens", &text);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn ten_thousand_nested_blocks() {
    let n = 10_000;
    let text = format!(
        "int main() {{ int a = 0; {} a = 1; {} return a; }}\n",
        "{".repeat(n),
        "}".repeat(n)
    );
    let out = check_source("blocks", &text);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn deeper_nesting_than_the_parser_handles_is_a_diagnostic_not_a_crash() {
    let n = 2_000_000;
    let text = format!(
        "int main() {{ return {}1{}; }}\n",
        "(".repeat(n),
        ")".repeat(n)
    );
    let out = check_source("very-deep", &text);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{:?}", out.status);
}

#[test]
fn a_one_megabyte_program() {
    let mut text = String::from("int g[100];\n");
    let mut i = 0;
    while text.len() < 1 << 20 {
        text.push_str(&format!(
            "int f{i}(int a, int b[]) {{\n  int x = a * {i} + b[{}];\n  \
             while (x > 100) {{ x = x / 2; if (x % 3 == 0) break; }}\n  return x;\n}}\n",
            i % 100
        ));
        i += 1;
    }
    text.push_str("int main() { return f0(1, g); }\n");
    let out = check_source("big", &text);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const SAMPLE: &str =
    "int main() {\n  int i = 0, s = 0;\n  while (i < 10) { s = s + i; i = i + 1; }\n  putint(s);\n  return 0;\n}\n";

fn sample_program() -> PathBuf {
    let path = temp_dir("passes").join("p.sy");
    std::fs::write(&path, SAMPLE).unwrap();
    path
}

#[test]
fn passes_can_be_chosen_verified_and_printed() {
    let out = compiler()
        .args([
            "--emit-ir",
            "-o",
            "/dev/null",
            "--passes=mem2reg,dce",
            "--verify-each",
        ])
        .args(["--print-after=mem2reg"])
        .arg(sample_program())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("; IR after mem2reg (execution 1)"),
        "{stderr}"
    );
    assert!(stderr.contains("phi i32"), "{stderr}");
    assert!(!stderr.contains("; IR after dce"), "{stderr}");
}

#[test]
fn time_passes_reports_every_stage_in_order() {
    let out = compiler()
        .args(["-S", "-O2", "--time-passes", "-o", "/dev/null"])
        .arg(sample_program())
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stages: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("time: "))
        .filter_map(|l| l.rsplit_once(": ").map(|(stage, _)| stage))
        .collect();
    let position = |part: &str| {
        stages
            .iter()
            .position(|s| s.contains(part))
            .unwrap_or_else(|| panic!("no '{part}' line in:\n{stderr}"))
    };
    let order = [
        position("front end"),
        position("lowering"),
        position(") mem2reg"),
        position(") isel"),
        position("writing the output"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{stderr}");
}

#[test]
fn an_unknown_pass_is_reported_with_the_known_ones() {
    let out = compiler()
        .args([
            "--emit-ir",
            "-o",
            "/dev/null",
            "--passes=mem2reg,frobnicate",
        ])
        .arg(sample_program())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error: unknown pass 'frobnicate' (known: mem2reg,"),
        "{stderr}"
    );
}

#[test]
fn bisect_limit_lists_which_passes_ran() {
    let out = compiler()
        .args([
            "--emit-ir",
            "-o",
            "/dev/null",
            "-O1",
            "--opt-bisect-limit=1",
        ])
        .arg(sample_program())
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(
            "BISECT: running pass (1) mem2reg\nBISECT: NOT running pass (2) const-fold\n"
        ),
        "{stderr}"
    );
}

#[test]
fn run_executes_the_optimised_program() {
    let out = compiler()
        .args(["--run", "-O2"])
        .arg(sample_program())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"45");
}

/// Compiles the sample program at -O1 with only `mem2reg` and `dce` as IR passes (so that
/// the back end's pass executions are numbered 3 to 7), plus `flags`; returns stderr.
fn compile_sample_with(name: &str, flags: &[&str]) -> String {
    let dir = temp_dir(name);
    let (input, output) = (dir.join("p.sy"), dir.join("p.s"));
    std::fs::write(&input, SAMPLE).unwrap();
    let out = compiler()
        .args(["-S", "-O1", "--passes=mem2reg,dce", "-o"])
        .arg(&output)
        .args(flags)
        .arg(&input)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let assembly = std::fs::read_to_string(&output).unwrap();
    assert!(assembly.contains("main:"), "{assembly}");
    stderr
}

#[test]
fn print_after_regalloc_shows_the_allocated_machine_ir() {
    let stderr = compile_sample_with("print-regalloc", &["--print-after=regalloc"]);
    assert!(
        stderr.starts_with("; machine IR after regalloc (execution 11)\nfunction main (global)\n"),
        "{stderr}"
    );
    assert!(stderr.contains("\tbl putint ; uses r0\n"), "{stderr}");
    assert!(
        !stderr.contains("%v"),
        "virtual registers remain:\n{stderr}"
    );
    let selected = compile_sample_with("print-isel", &["--print-after=isel"]);
    assert!(selected.contains("; machine IR after isel (execution 4)\n"));
    assert!(selected.contains("%v"), "{selected}");
}

#[test]
fn time_passes_lists_the_back_end_passes_numbered_after_the_ir_passes() {
    let stderr = compile_sample_with("time", &["--time-passes"]);
    let names: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("time: pass ("))
        .map(|rest| rest.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(
        names,
        [
            "1) mem2reg",
            "2) dce",
            "3) split-critical-edges",
            "4) isel",
            "5) jump-tables",
            "6) dead-definitions",
            "7) if-convert",
            "8) share-constants",
            "9) unfold-shifts",
            "10) pre-schedule",
            "11) regalloc",
            "12) hoist-spills",
            "13) peephole",
            "14) tail-calls",
            "15) zero-compares",
            "16) load-store-multiple",
            "17) writeback",
            "18) schedule",
            "19) branches",
            "20) copied-reloads",
            "21) repeated-compares",
            "22) shrink-wrap",
            "23) emit"
        ],
        "{stderr}"
    );
    assert!(stderr.lines().all(|l| l.ends_with(" ms")), "{stderr}");
}

#[test]
fn bisect_limit_skips_the_optional_back_end_passes_but_runs_required_ones() {
    let stderr = compile_sample_with("bisect-backend", &["--opt-bisect-limit=3"]);
    assert_eq!(
        stderr,
        "BISECT: running pass (1) mem2reg\n\
         BISECT: running pass (2) dce\n\
         BISECT: running pass (3) split-critical-edges\n\
         BISECT: running pass (4) isel\n\
         BISECT: NOT running pass (5) jump-tables\n\
         BISECT: NOT running pass (6) dead-definitions\n\
         BISECT: NOT running pass (7) if-convert\n\
         BISECT: NOT running pass (8) share-constants\n\
         BISECT: NOT running pass (9) unfold-shifts\n\
         BISECT: NOT running pass (10) pre-schedule\n\
         BISECT: running pass (11) regalloc\n\
         BISECT: NOT running pass (12) hoist-spills\n\
         BISECT: NOT running pass (13) peephole\n\
         BISECT: NOT running pass (14) tail-calls\n\
         BISECT: NOT running pass (15) zero-compares\n\
         BISECT: NOT running pass (16) load-store-multiple\n\
         BISECT: NOT running pass (17) writeback\n\
         BISECT: NOT running pass (18) schedule\n\
         BISECT: NOT running pass (19) branches\n\
         BISECT: NOT running pass (20) copied-reloads\n\
         BISECT: NOT running pass (21) repeated-compares\n\
         BISECT: NOT running pass (22) shrink-wrap\n\
         BISECT: running pass (23) emit\n"
    );
    let all = compile_sample_with("bisect-backend-all", &["--opt-bisect-limit=13"]);
    assert!(
        all.contains("BISECT: running pass (8) share-constants\n"),
        "{all}"
    );
    assert!(
        all.contains("BISECT: running pass (13) peephole\n"),
        "{all}"
    );
}

#[test]
fn a_failed_compile_removes_an_earlier_output_file() {
    let dir = temp_dir("stale");
    let input = dir.join("prog.sy");
    let output = dir.join("prog.s");
    let compile = |source: &str| {
        std::fs::write(&input, source).unwrap();
        let out = compiler()
            .arg("-S")
            .arg("-o")
            .arg(&output)
            .arg(&input)
            .output();
        out.unwrap().status.code()
    };
    assert_eq!(compile("int main() { return 0; }\n"), Some(0));
    assert!(output.exists());
    assert_eq!(compile("int main() { return y; }\n"), Some(1));
    assert!(!output.exists(), "a stale prog.s is left");
}

#[test]
fn dash_o_dash_writes_the_assembly_to_standard_output() {
    let out = compiler()
        .args(["-S", "-O2", "-o", "-"])
        .arg(sample_program())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("\t.arch armv7ve\n"), "{text}");
    assert!(text.contains("main:"), "{text}");
    assert!(!std::path::Path::new("-").exists());
}

#[test]
fn options_in_any_order_and_gcc_options_that_mean_nothing_here() {
    let dir = temp_dir("gcc-options");
    let output = dir.join("out.s");
    let out = compiler()
        .arg("-o")
        .arg(&output)
        .args([
            "-Wall",
            "-Wno-unused",
            "-w",
            "-std=c99",
            "-march=armv7-a",
            "-mfpu=vfpv4",
        ])
        .args([
            "-mfloat-abi=hard",
            "-marm",
            "-g",
            "-g3",
            "-fno-inline",
            "-S",
        ])
        .arg(sample_program())
        .arg("-O2")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read_to_string(&output).unwrap().contains("main:"));
    let help = compiler().arg("--help").output().unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("-mfloat-abi=..."));
    // Anything else is still an error.
    let unknown = compiler()
        .args(["--frobnicate", "-S"])
        .arg(sample_program())
        .output()
        .unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("--frobnicate"));
}

#[test]
fn a_failed_compile_leaves_an_output_that_is_no_regular_file_alone() {
    // As `-o /dev/null` is: a named pipe stands for it here.
    let dir = temp_dir("fifo");
    let input = dir.join("bad.sy");
    let pipe = dir.join("out.pipe");
    std::fs::write(&input, "int main() { return y; }\n").unwrap();
    let _ = std::fs::remove_file(&pipe);
    let made = Command::new("mkfifo").arg(&pipe).status().unwrap();
    assert!(made.success());
    let out = compiler()
        .arg("-S")
        .arg("-o")
        .arg(&pipe)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(pipe.exists(), "the pipe was removed");
}

#[test]
fn print_pipeline_lists_the_level_phase_by_phase_with_what_each_is_for() {
    let out = compiler()
        .args(["--print-pipeline", "-O2"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let back_end = lines
        .iter()
        .position(|l| *l == "# back-end passes")
        .unwrap();
    let ir = &lines[1..back_end];
    // Each phase: a `# name: why` line, then its passes.
    assert_eq!(ir.len() % 2, 0, "{text}");
    for pair in ir.chunks(2) {
        assert!(
            pair[0].starts_with("# ") && pair[0].contains(": "),
            "{text}"
        );
        assert!(!pair[1].starts_with('#'), "{text}");
    }
    let passes: Vec<&str> = ir.iter().skip(1).step_by(2).copied().collect();
    assert_eq!(passes.join(","), middle::pass_manager::pipeline(2));
    assert!(
        lines[back_end + 1].starts_with("split-critical-edges,isel,"),
        "{text}"
    );
}

#[test]
fn an_output_file_that_is_the_input_is_refused_and_the_source_kept() {
    let dir = temp_dir("output-is-input");
    let input = dir.join("p.sy");
    std::fs::write(&input, SAMPLE).unwrap();
    // By the same name, by another path to it, and as the default output of --emit-ir.
    let other_path = dir.join("..").join(dir.file_name().unwrap()).join("p.sy");
    for output in [&input, &other_path] {
        let out = compiler()
            .args(["-S", "-O2", "-o"])
            .arg(output)
            .arg(&input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with("compiler: error: the output file '")
                && stderr.contains("p.sy' is the input file; not writing over it"),
            "{stderr}"
        );
        assert_eq!(std::fs::read_to_string(&input).unwrap(), SAMPLE);
    }
    let ir = dir.join("p.ir");
    let out = compiler()
        .args(["--emit-ir", "-o"])
        .arg(&ir)
        .arg(&input)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = std::fs::read_to_string(&ir).unwrap();
    let out = compiler()
        .arg("--emit-ir")
        .arg("p.ir")
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&ir).unwrap(), text);
}

/// The line of `--help` for `flag`.
fn help_line(flag: &str) -> String {
    let out = compiler().arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = help
        .lines()
        .find(|l| l.trim_start().starts_with(flag))
        .unwrap_or_else(|| panic!("no {flag} in:\n{help}"));
    line.to_string()
}

/// The comma-separated list in `text` between `before` and the next `)`.
fn list_after<'a>(text: &'a str, before: &str) -> Vec<&'a str> {
    let start = text
        .find(before)
        .unwrap_or_else(|| panic!("no '{before}' in {text}"))
        + before.len();
    let end = start + text[start..].find(')').unwrap();
    text[start..end].split(", ").collect()
}

#[test]
fn help_names_every_registered_pass_where_it_lists_passes() {
    use backend::passes::BACKEND_PASSES;
    let names = |required: bool| -> Vec<&str> {
        BACKEND_PASSES
            .iter()
            .filter(|p| p.required == required)
            .map(|p| p.name)
            .collect()
    };
    let print_after = help_line("--print-after <PASS>");
    let ir: Vec<&str> = middle::pass_manager::REGISTRY
        .iter()
        .map(|p| p.name)
        .collect();
    assert!(
        print_after.contains(&format!("IR passes: {}. ", ir.join(", "))),
        "{print_after}"
    );
    let back_end: Vec<&str> = BACKEND_PASSES.iter().map(|p| p.name).collect();
    assert!(
        print_after.ends_with(&format!(
            "Back-end passes, in their order: {}",
            back_end.join(", ")
        )),
        "{print_after}"
    );
    let bisect = help_line("--opt-bisect-limit <N>");
    assert_eq!(list_after(&bisect, "required ones ("), names(true));
    assert_eq!(list_after(&bisect, "the others ("), names(false));
    let disable = help_line("--disable-pass <PASS>");
    assert_eq!(list_after(&disable, "optional ones ("), names(false));
}

#[test]
fn print_after_an_unknown_pass_is_rejected_with_the_known_ones() {
    let out = compiler()
        .args(["-S", "-o", "/dev/null", "--print-after=isel,frobnicate"])
        .arg(sample_program())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(
            "compiler: error: --print-after: unknown pass 'frobnicate' (IR passes: mem2reg, "
        ),
        "{stderr}"
    );
    let passes = middle::pass_manager::REGISTRY.iter().map(|p| p.name);
    for name in passes.chain(backend::passes::BACKEND_PASSES.iter().map(|p| p.name)) {
        assert!(stderr.contains(&format!(" {name},")) || stderr.contains(&format!(" {name};")));
    }
    assert!(out.stdout.is_empty());
}

#[test]
fn bisect_oracle_takes_the_judges_command_line_and_writes_no_output() {
    let dir = temp_dir("bisect-judge");
    let (input, output) = (dir.join("p.sy"), dir.join("p.s"));
    std::fs::write(&input, SAMPLE).unwrap();
    let out = compiler()
        .args(["-S", "-O2"])
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .args(["--bisect-oracle", "sh -c 'test -s \"$1/program.s\"' oracle"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains(" pass executions: good\n"), "{stderr}");
    assert!(!stderr.contains(": bad\n"), "{stderr}");
    assert!(!output.exists());
}

/// The assembly of the sample program with `flags`.
fn sample_assembly(flags: &[&str]) -> String {
    let out = compiler()
        .args(["-S", "-o", "-"])
        .args(flags)
        .arg(sample_program())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{flags:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn gccs_optimisation_options_map_to_our_levels() {
    let (o0, o1, o2) = (
        sample_assembly(&["-O0"]),
        sample_assembly(&["-O1"]),
        sample_assembly(&["-O2"]),
    );
    assert_ne!(o0, o1);
    assert_ne!(o1, o2);
    assert_eq!(sample_assembly(&[]), o0);
    for (flag, level) in [("-Og", &o1), ("-Os", &o2), ("-Oz", &o2)] {
        assert_eq!(&sample_assembly(&[flag]), level, "{flag}");
    }
    let o3 = sample_assembly(&["-O3"]);
    assert_eq!(sample_assembly(&["-Ofast"]), o3);
    assert_eq!(sample_assembly(&["-O7"]), o3);
    // A bare -O is -O1 and takes no value: the program after it stays the input.
    let out = compiler()
        .args(["-S", "-o", "-", "-O"])
        .arg(sample_program())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), o1);
    let bad = compiler()
        .args(["-S", "-o", "-", "-Ox"])
        .arg(sample_program())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("invalid value 'x'"));
}

/// Runs the compiler with `args` and `stdin` as its standard input.
fn with_stdin(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = compiler()
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn a_dash_for_the_input_reads_the_program_from_standard_input() {
    let out = with_stdin(&["-S", "-O2", "-o", "-", "-"], SAMPLE);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        sample_assembly(&["-O2"])
    );
    let bad = with_stdin(&["--check", "-"], "int main() {\n  return x;\n}\n");
    assert_eq!(bad.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(
        stderr.starts_with("<stdin>:2:10: error: use of undeclared identifier 'x'"),
        "{stderr}"
    );
    // --run keeps standard input for the program's own input.
    let run = with_stdin(&["--run", "-"], SAMPLE);
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr)
        .contains("--run keeps standard input for the program: give it as a file"));
}

#[test]
fn run_ends_with_124_when_max_steps_runs_out_and_134_on_a_run_time_error() {
    let dir = temp_dir("run-status");
    let run = |name: &str, text: &str, flags: &[&str]| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        compiler()
            .arg("--run")
            .args(flags)
            .arg(&path)
            .output()
            .unwrap()
    };
    let forever = run(
        "loop.sy",
        "int main() { while (1) {} return 0; }\n",
        &["--max-steps", "1000"],
    );
    assert_eq!(forever.status.code(), Some(124));
    let stderr = String::from_utf8_lossy(&forever.stderr);
    assert!(
        stderr.ends_with("compiler: run-time error: --max-steps: 1000 IR instructions executed\n"),
        "{stderr}"
    );
    let fault = run(
        "fault.sy",
        "int a[1];\nint main() { int i = -100000000; return a[i]; }\n",
        &["--max-steps", "1000"],
    );
    assert_eq!(fault.status.code(), Some(134));
    let stderr = String::from_utf8_lossy(&fault.stderr);
    assert!(
        stderr.contains("\ncompiler: run-time error: load from invalid address"),
        "{stderr}"
    );
}

/// The assembly of `text` at `level`, written to standard output.
fn assembly_of(name: &str, text: &str, level: &str) -> String {
    let path = temp_dir(name).join("input.sy");
    std::fs::write(&path, text).unwrap();
    let out = compiler()
        .args(["-S", level, "-o", "-"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_fpu_directive_names_neon_exactly_where_the_code_uses_it() {
    let summing = "int a[100];\nint main() {\n    int n = getarray(a);\n    int s = 0;\n    \
                   int i = 0;\n    while (i < n) {\n        s = s + a[i];\n        i = i + 1;\n    \
                   }\n    return s;\n}\n";
    let vectorised = assembly_of("neon", summing, "-O2");
    assert!(vectorised.contains("\t.fpu neon-vfpv4\n"), "{vectorised}");
    assert!(vectorised.contains("vld1.32"), "{vectorised}");
    let scalar = assembly_of("vfp", summing, "-O0");
    assert!(scalar.contains("\t.fpu vfpv4\n"), "{scalar}");
    assert!(
        !scalar.contains("vld1.32") && !scalar.contains("neon"),
        "{scalar}"
    );
}
