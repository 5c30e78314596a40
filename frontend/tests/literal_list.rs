//! The fast paths for initialiser lists of plain numeric literals (the grammar's `int_list`
//! and `literal_list`) must build exactly what the general initialiser rules build: the same AST with the same
//! spans, the same literal errors and the same diagnostics from checking. Each case is written
//! with a four-space gap after a comma in each list; putting a `/**/` comment in those gaps
//! keeps every offset but sends the lists down the general path.

use frontend::parser::{parse, Rule, SysYParser};
use frontend::{compile, SourceFile};
use pest::Parser;

fn general_form(fast: &str) -> String {
    assert!(
        fast.contains(",    "),
        "case needs a four-space gap after a comma"
    );
    fast.replace(",    ", ",/**/")
}

/// Which fast-path rule, if any, matched a list in `text`.
fn fast_rule(text: &str) -> Option<Rule> {
    SysYParser::parse(Rule::program, text)
        .expect("the case parses")
        .flatten()
        .map(|p| p.as_rule())
        .find(|r| matches!(r, Rule::int_list | Rule::literal_list))
}

fn assert_same_ast(fast: &str, rule: Rule) {
    let general = general_form(fast);
    assert_eq!(fast_rule(fast), Some(rule), "{fast}");
    assert_eq!(fast_rule(&general), None, "{general}");
    assert_eq!(
        format!("{:?}", parse(fast)),
        format!("{:?}", parse(&general)),
        "{fast}"
    );
}

fn headlines(text: &str) -> Vec<String> {
    let file = SourceFile::new("t.sy", text);
    match compile(&file) {
        Ok(_) => Vec::new(),
        Err(ds) => ds.iter().map(|d| d.headline(&file)).collect(),
    }
}

#[test]
fn integer_lists_build_the_same_tree() {
    assert_same_ast(
        "int a[9] = {1,    -2, 017, +3,\n -4,\r\n5 , \t-2147483648,\x0b6\x0c,7};",
        Rule::int_list,
    );
    assert_same_ast("int a[2][2] = {{1,    2}, {3,    4}};", Rule::int_list);
    assert_same_ast("int a[3] = {1,    0x1F, 0X7fffFFFF};", Rule::literal_list);
}

#[test]
fn float_lists_build_the_same_tree() {
    assert_same_ast(
        "float f[9] = {1.5,    -0x1.8p1, .5, 1., 1e3, 2E-2, 0x1P-3, -3.25e+2, 0xA};",
        Rule::literal_list,
    );
    assert_same_ast("float f[3] = {1,    2, 3.5};", Rule::literal_list);
}

#[test]
fn literal_errors_are_reported_alike() {
    let fast = "int a[3] = {1,    4294967296, 09};";
    assert_same_ast(fast, Rule::int_list);
    let errors = parse(fast).expect_err("two malformed literals");
    assert_eq!(errors.len(), 2);
    assert_eq!(headlines(fast), headlines(&general_form(fast)));
}

#[test]
fn checking_diagnoses_both_forms_alike() {
    let fast = "int a[2] = {1,    2, 3};\nint main() { return 0; }";
    let got = headlines(fast);
    assert_eq!(
        got,
        ["t.sy:1:22: error: excess elements in array initializer"]
    );
    assert_eq!(got, headlines(&general_form(fast)));
}

#[test]
fn syntax_errors_inside_literal_lists_keep_their_messages() {
    for (body, expected) in [
        ("1, 2 3", "t.sy:1:18: error: expected ',' or '}'"),
        ("1, , 2", "t.sy:1:16: error: expected expression"),
        ("1, 2,", "t.sy:1:18: error: expected expression"),
        ("1, 2x", "t.sy:1:16: error: invalid numeric literal '2x'"),
        ("1, -", "t.sy:1:17: error: expected expression"),
        ("1, 2;", "t.sy:1:17: error: expected ',' or '}'"),
        ("1, 0x, 3", "t.sy:1:16: error: invalid numeric literal '0x'"),
        (
            "1, 2.5.5",
            "t.sy:1:16: error: invalid numeric literal '2.5.5'",
        ),
        ("1, - 2 3", "t.sy:1:20: error: expected ',' or '}'"),
    ] {
        let text = format!("int a[3] = {{{body}}};\nint main(){{return 0;}}\n");
        assert_eq!(headlines(&text).first().map(String::as_str), Some(expected));
    }
}
