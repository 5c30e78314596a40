//! Every invalid program in `testcases/errors/` must produce exactly the first diagnostic line
//! stored beside it in a `.err` file.

use frontend::{compile, SourceFile};
use std::path::PathBuf;

fn errors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testcases/errors")
}

fn diagnostics(name: &str, text: &str) -> Vec<String> {
    let file = SourceFile::new(name, text);
    match compile(&file) {
        Ok(_) => Vec::new(),
        Err(ds) => ds.iter().map(|d| d.headline(&file)).collect(),
    }
}

#[test]
fn each_invalid_program_gives_its_expected_first_diagnostic() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(errors_dir())
        .expect("testcases/errors exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "sy"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 40, "only {} error cases", cases.len());
    let mut failures = Vec::new();
    for path in &cases {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let expected = std::fs::read_to_string(path.with_extension("err"))
            .unwrap_or_else(|_| panic!("{name} has no .err file"));
        let got = diagnostics(&name, &text);
        if got.first().map(String::as_str) != Some(expected.trim_end()) {
            failures.push(format!(
                "{name}\n  expected: {}\n  got:      {}",
                expected.trim_end(),
                got.first().map_or("(no error)", String::as_str)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn independent_semantic_errors_are_all_reported() {
    let text = std::fs::read_to_string(errors_dir().join("multiple_errors.sy")).unwrap();
    let got = diagnostics("m.sy", &text);
    assert_eq!(
        got,
        [
            "m.sy:2:11: error: use of undeclared identifier 'b'",
            "m.sy:3:11: error: use of undeclared identifier 'd'",
            "m.sy:4:3: error: 'break' statement not in loop",
            "m.sy:5:10: error: use of undeclared identifier 'e'",
        ]
    );
}

#[test]
fn a_rejected_declaration_still_declares_its_name() {
    // Its uses add no "use of undeclared identifier" (nor any other) error.
    let text = std::fs::read_to_string(errors_dir().join("const_division_by_zero.sy")).unwrap();
    assert_eq!(
        diagnostics("c.sy", &format!("{text}int f() {{ return c * 2 + c; }}\n")),
        ["c.sy:1:15: error: division by zero in constant expression"]
    );
    let text = "const int a[2] = {1 / 0, 1};\nint g = 2 % 0;\nint b[-1];\n\
                int main() { g = a[1] + b[0][0]; b = 1; return g + f(a); }\n\
                int f(int x[]) { return x[0]; }\n";
    assert_eq!(
        diagnostics("d.sy", text),
        [
            "d.sy:1:19: error: division by zero in constant expression",
            "d.sy:2:9: error: division by zero in constant expression",
            "d.sy:3:7: error: array size must be positive, but is -1",
            "d.sy:4:52: error: call to undeclared function 'f'",
        ]
    );
}

#[test]
fn a_byte_order_mark_starts_a_valid_program() {
    let text = "\u{feff}int main() { return 0; }\n";
    assert_eq!(diagnostics("bom.sy", text), Vec::<String>::new());
    // Anywhere else it is a stray character.
    let got = diagnostics("bom.sy", "int main() { \u{feff}return 0; }\n");
    assert_eq!(got, ["bom.sy:1:14: error: unexpected character '\u{feff}'"]);
}

#[test]
fn stray_nul_and_del_bytes_are_quoted_escaped() {
    for (byte, shown) in [('\0', "\\x00"), ('\x7f', "\\x7f")] {
        let text = format!("int main() {{ int a = {byte}; return 0; }}\n");
        assert_eq!(
            diagnostics("b.sy", &text),
            [format!("b.sy:1:22: error: unexpected character '{shown}'")]
        );
    }
}

#[test]
fn at_most_twenty_errors_are_reported() {
    let body: String = (0..30).map(|i| format!("  x{i} = 1;\n")).collect();
    let text = format!("int main() {{\n{body}  return 0;\n}}\n");
    let got = diagnostics("many.sy", &text);
    assert_eq!(got.len(), 20);
    assert_eq!(
        got[19],
        "many.sy:21:3: error: use of undeclared identifier 'x19'"
    );
}

#[test]
fn a_syntax_error_stops_at_the_first() {
    let got = diagnostics("s.sy", "int main() {\n  int a = ;\n  int b = ;\n}\n");
    assert_eq!(got, ["s.sy:2:11: error: expected expression"]);
}

#[test]
fn a_missing_closing_brace_at_the_end_points_at_the_unclosed_one() {
    let text = "int main() {\n  /* { */\n  if (1) {\n    putf(\"{\");\n  }\n  return 0;\n";
    let file = SourceFile::new("m.sy", text);
    let Err(ds) = compile(&file) else {
        panic!("accepted");
    };
    let shown = ds[0].render(&file);
    assert!(
        shown.starts_with("m.sy:7:1: error: expected '}'"),
        "{shown}"
    );
    assert!(
        shown.contains("m.sy:1:12: note: to match this '{'\nint main() {\n           ^\n"),
        "{shown}"
    );
}

#[test]
fn valid_programs_pass() {
    let text = "const int N = 3;\nint a[N][2] = {1, 2, {3}, 4};\n\
                float f(float x[], int n) { return x[n - 1] * 2; }\n\
                int main() { float v[2] = {1.5, 2}; putf(\"%d %f\\n\", a[1][0], f(v, 2));\n\
                starttime(); stoptime(); return a[2][1] + N; }\n";
    assert_eq!(diagnostics("ok.sy", text), Vec::<String>::new());
}
