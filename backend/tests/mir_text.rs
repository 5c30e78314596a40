//! The text form of machine IR on real programs: every program of `testcases/` and of the
//! shared contest suites (`../shared/sysy-tests/*/` beside the repository, when there) is
//! compiled at -O2 with the machine IR printed after every pass (`--print-after=all`). Each
//! dump parses back, verified, and prints identically; and each machine pass, run on the
//! functions parsed from the dump before it, prints exactly its own dump: the text keeps
//! everything the passes read.

use backend::ir_costs::CortexA72;
use backend::mir::parser::parse_functions;
use backend::mir::verifier::verify;
use backend::mir::MFunction;
use backend::passes::run_machine_pass;
use backend::BackendOptions;
use frontend::SourceFile;
use middle::pass_manager::PassManager;
use std::path::{Path, PathBuf};

const OPT_LEVEL: u8 = 2;

/// Every `.sy` file under `dir`, but those meant not to compile (a `.err` file beside them).
fn programs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for path in entries.flatten().map(|e| e.path()) {
        if path.is_dir() {
            programs(&path, out);
        } else if path.extension().is_some_and(|x| x == "sy")
            && !path.with_extension("err").exists()
        {
            out.push(path);
        }
    }
}

/// The shared suites beside the repository, or else the main checkout's (from a worktree
/// elsewhere); none when neither is there.
fn shared_root() -> Option<PathBuf> {
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/sysy-tests");
    [beside, PathBuf::from("/work/shared/sysy-tests")]
        .into_iter()
        .find(|p| p.is_dir())
}

/// The machine IR of every function after one pass, as printed.
struct Dump {
    pass: String,
    text: String,
}

/// The dumps of the machine passes when compiling `path`, in pipeline order.
fn machine_dumps(path: &Path) -> Result<Vec<Dump>, String> {
    let source = std::fs::read(path).map_err(|e| e.to_string())?;
    let file = SourceFile::new(
        path.display().to_string(),
        String::from_utf8_lossy(&source).into_owned(),
    );
    let program = frontend::compile(&file).map_err(|ds| {
        ds.first()
            .map_or("does not compile".to_string(), |d| d.render(&file))
    })?;
    let mut m = middle::lower::lower_program(&program);
    PassManager::for_level(OPT_LEVEL, &CortexA72).run(&mut m, &mut std::io::sink())?;
    let mut options = BackendOptions::new(OPT_LEVEL);
    options.print_after = vec!["all".to_string()];
    options.verify_each = true;
    let mut log = Vec::new();
    backend::compile_with(m, &options, &mut log)?;
    let mut dumps: Vec<Dump> = Vec::new();
    // Whether the lines read belong to a machine IR dump (not the IR or the assembly).
    let mut machine = false;
    for line in String::from_utf8_lossy(&log).lines() {
        if let Some(what) = line
            .strip_prefix("; ")
            .filter(|l| l.contains(" (execution "))
        {
            let pass = what.strip_prefix("machine IR after ");
            machine = pass.is_some();
            if let Some(pass) = pass.and_then(|p| p.split(" (execution ").next()) {
                dumps.push(Dump {
                    pass: pass.to_string(),
                    text: String::new(),
                });
            }
        } else if let Some(dump) = dumps.last_mut().filter(|_| machine) {
            dump.text.push_str(line);
            dump.text.push('\n');
        }
    }
    Ok(dumps)
}

fn print(functions: &[MFunction]) -> String {
    functions.iter().map(|mf| mf.to_string()).collect()
}

/// Where two texts first differ, by line.
fn first_difference(expected: &str, actual: &str) -> String {
    let mut lines = expected.lines().zip(actual.lines());
    match (1..).zip(&mut lines).find(|(_, (e, a))| e != a) {
        Some((n, (e, a))) => format!("line {n}: expected `{e}`, got `{a}`"),
        None => format!(
            "{} lines expected, {} printed",
            expected.lines().count(),
            actual.lines().count()
        ),
    }
}

/// How many function dumps went through the text.
#[derive(Default)]
struct Counts {
    programs: usize,
    after_isel: usize,
    after_regalloc: usize,
    dumps: usize,
}

/// Checks the dumps of one program, counting them; the problems found.
fn check(path: &Path, counts: &mut Counts) -> Vec<String> {
    let dumps = match machine_dumps(path) {
        Ok(dumps) => dumps,
        Err(e) => return vec![format!("does not compile: {e}")],
    };
    counts.programs += 1;
    let mut problems = Vec::new();
    let mut before: Option<Vec<MFunction>> = None;
    for dump in &dumps {
        let pass = &dump.pass;
        if let Some(mut functions) = before.take() {
            let rerun = functions.iter_mut().try_for_each(|mf| {
                run_machine_pass(pass, mf, OPT_LEVEL)?;
                verify(mf)
            });
            match rerun {
                Ok(()) if print(&functions) == dump.text => {}
                Ok(()) => problems.push(format!(
                    "{pass} on the parsed functions before it prints other text: {}",
                    first_difference(&dump.text, &print(&functions))
                )),
                Err(e) => problems.push(format!("{pass} on the parsed functions: {e}")),
            }
        }
        let parsed = match parse_functions(&dump.text) {
            Ok(parsed) => parsed,
            Err(e) => {
                problems.push(format!("the dump after {pass} does not parse: {e}"));
                continue;
            }
        };
        let printed = print(&parsed);
        if printed != dump.text {
            problems.push(format!(
                "the dump after {pass} prints back otherwise: {}",
                first_difference(&dump.text, &printed)
            ));
        }
        counts.dumps += parsed.len();
        match pass.as_str() {
            "isel" => counts.after_isel += parsed.len(),
            "regalloc" => counts.after_regalloc += parsed.len(),
            _ => {}
        }
        before = Some(parsed);
    }
    for wanted in ["isel", "regalloc"] {
        if !dumps.iter().any(|d| d.pass == wanted) {
            problems.push(format!("no dump after {wanted}"));
        }
    }
    problems
}

#[test]
fn machine_ir_prints_parses_and_prints_identically_and_passes_read_nothing_else() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut paths = Vec::new();
    programs(&root.join("testcases"), &mut paths);
    assert!(!paths.is_empty(), "no programs under testcases/");
    if let Some(shared) = shared_root() {
        programs(&shared, &mut paths);
    }
    paths.sort();
    let (failures, counts) = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let mut counts = Counts::default();
            let mut failures = Vec::new();
            for path in &paths {
                for problem in check(path, &mut counts) {
                    failures.push(format!("{}: {problem}", path.display()));
                }
            }
            (failures, counts)
        })
        .expect("a thread starts")
        .join()
        .expect("the check does not panic");
    eprintln!(
        "{} programs: {} functions after isel and {} after regalloc round-trip; {} function dumps in all",
        counts.programs, counts.after_isel, counts.after_regalloc, counts.dumps
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
