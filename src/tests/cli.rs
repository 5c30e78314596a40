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
    for flag in ["-S", "-o <OUTPUT>", "-O <LEVEL>", "--check", "<INPUT>"] {
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

fn sample_program() -> PathBuf {
    let path = temp_dir("passes").join("p.sy");
    std::fs::write(
        &path,
        "int main() {\n  int i = 0, s = 0;\n  while (i < 10) { s = s + i; i = i + 1; }\n  putint(s);\n  return 0;\n}\n",
    )
    .unwrap();
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
