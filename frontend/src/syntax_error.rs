//! Turns a pest parse failure into a diagnostic that names what was expected in words
//! (`expected ';'`), never in grammar-rule names; a '}' missing at the end of the file gets a
//! note at the '{' it should close.

use crate::diagnostic::Diagnostic;
use crate::parser::{Rule, SysYParser};
use crate::source::Span;
use pest::error::{Error, ErrorVariant, InputLocation};
use pest::Parser;

pub fn describe(text: &str, err: Error<Rule>) -> Diagnostic {
    let pos = match err.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    let at = |p: usize| Span::new(p, p + 1);
    let rest = &text[pos.min(text.len())..];

    if let Some(lexical) = lexical_error(rest) {
        let len = lexical.1.max(1);
        return Diagnostic::error(Span::new(pos, pos + len), lexical.0);
    }
    // No rule is ever tried inside a negative lookahead outside an atomic rule, so there are
    // never negative attempts to report.
    let positives = match err.variant {
        ErrorVariant::ParsingError { positives, .. } => positives,
        ErrorVariant::CustomError { .. } => {
            return Diagnostic::error(at(pos), "program is nested too deeply to parse");
        }
    };

    let mut expected: Vec<&'static str> = Vec::new();
    for rule in positives {
        if let Some(word) = expected_word(rule) {
            if !expected.contains(&word) {
                expected.push(word);
            }
        }
    }
    // When a closing token fits, it is what the programmer most likely forgot; continuing
    // the expression with an operator is always possible and not worth listing.
    // A missing ';' is far more common than a missing ',' in a declaration list.
    if expected.contains(&"';'") {
        expected.retain(|w| *w == "';'");
    } else if expected.iter().any(|w| CLOSERS.contains(w)) {
        expected.retain(|w| CLOSERS.contains(w) || *w == "','");
    }
    if expected.len() > 1 {
        expected.retain(|w| *w != "end of file");
    }
    // An expression may start with '(' or a name: "expected expression" says it all.
    if expected.contains(&"expression") {
        expected.retain(|w| *w != "'('" && *w != "identifier");
    }
    expected.sort_by_key(|w| {
        PRIORITY
            .iter()
            .position(|p| p == w)
            .unwrap_or(PRIORITY.len())
    });

    let found = found_token(rest);
    let message = if found == "'else'" {
        "'else' without a matching 'if'".to_string()
    } else if expected.is_empty() {
        format!("unexpected {found}")
    } else {
        let mut m = format!("expected {}", join_words(&expected));
        if expected.contains(&"identifier") && is_keyword(rest) {
            m.push_str(&format!(", found keyword {found}"));
        }
        m
    };
    // A forgotten ';', ')', ']' or ',' is best shown right after what it should follow; a
    // missing '}' where the parser noticed it.
    let ends_construct = !expected.is_empty()
        && expected
            .iter()
            .all(|w| ["';'", "')'", "']'", "','"].contains(w));
    let anchor = if ends_construct {
        after_previous_token(text, pos)
    } else {
        pos
    };
    let diagnostic = Diagnostic::error(at(anchor), message);
    // At the end of the file, a missing '}' is best found from the '{' it should close.
    match unclosed_brace(&text[..pos.min(text.len())]) {
        Some(open) if rest.trim().is_empty() && expected.contains(&"'}'") => {
            diagnostic.with_note(at(open), "to match this '{'")
        }
        _ => diagnostic,
    }
}

/// Where the innermost '{' of `text` that no '}' closes stands, outside comments and
/// strings.
fn unclosed_brace(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut open = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |n| i + 2 + n + 2);
                continue;
            }
            b'"' => {
                i = text[i + 1..].find('"').map_or(bytes.len(), |n| i + 1 + n);
            }
            b'{' => open.push(i),
            b'}' => {
                open.pop();
            }
            _ => {}
        }
        i += 1;
    }
    open.pop()
}

const CLOSERS: [&str; 4] = ["';'", "')'", "']'", "'}'"];

/// The order in which expected items are listed.
const PRIORITY: [&str; 20] = [
    "';'",
    "','",
    "')'",
    "']'",
    "'}'",
    "'='",
    "'('",
    "'['",
    "'{'",
    "identifier",
    "expression",
    "statement",
    "declaration",
    "function definition",
    "declaration or function definition",
    "type name",
    "parameter",
    "'else'",
    "operator",
    "end of file",
];

fn expected_word(rule: Rule) -> Option<&'static str> {
    Some(match rule {
        Rule::semi => "';'",
        Rule::comma => "','",
        Rule::assign => "'='",
        Rule::lparen => "'('",
        Rule::rparen => "')'",
        Rule::lbracket | Rule::dims | Rule::param_dims => "'['",
        Rule::rbracket => "']'",
        Rule::lbrace | Rule::block | Rule::init_list => "'{'",
        Rule::rbrace => "'}'",
        Rule::ident => "identifier",
        Rule::expr
        | Rule::paren
        | Rule::lval_or_call
        | Rule::number
        | Rule::lval
        | Rule::init_val
        | Rule::args
        | Rule::string
        | Rule::op_pos
        | Rule::op_neg
        | Rule::op_not => "expression",
        Rule::stmt
        | Rule::assign_stmt
        | Rule::if_stmt
        | Rule::while_stmt
        | Rule::break_stmt
        | Rule::continue_stmt
        | Rule::return_stmt
        | Rule::expr_stmt => "statement",
        Rule::decl | Rule::var_def | Rule::kw_const => "declaration",
        Rule::func_def => "function definition",
        Rule::program => "declaration or function definition",
        Rule::btype | Rule::kw_int | Rule::kw_float => "type name",
        Rule::func_type | Rule::kw_void => "function definition",
        Rule::param | Rule::params => "parameter",
        Rule::kw_else => "'else'",
        Rule::binop => "operator",
        Rule::EOI => "end of file",
        _ => return None,
    })
}

fn join_words(words: &[&str]) -> String {
    match words {
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
        [] => String::new(),
    }
}

/// Errors that are about a malformed token rather than a misplaced one: the message and
/// the token's length.
fn lexical_error(rest: &str) -> Option<(String, usize)> {
    let first = rest.chars().next()?;
    if rest.starts_with("/*") && !rest.contains("*/") {
        return Some(("unterminated /* comment".into(), 2));
    }
    if first == '"' {
        let line = rest.lines().next().unwrap_or(rest);
        let closed = line[1..]
            .replace("\\\\", "")
            .replace("\\\"", "")
            .contains('"');
        if !closed {
            return Some(("missing terminating '\"' character".into(), 1));
        }
    }
    let starts_number = first.is_ascii_digit()
        || (first == '.' && rest[1..].starts_with(|c: char| c.is_ascii_digit()));
    if starts_number {
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(rest.len());
        let token = &rest[..len];
        let valid = SysYParser::parse(Rule::number, token)
            .is_ok_and(|pairs| pairs.as_str().len() == token.len());
        if !valid {
            return Some((format!("invalid numeric literal '{token}'"), len));
        }
    }
    let allowed =
        first.is_ascii_alphanumeric() || "_+-*/%!<>=&|()[]{};,.\" \t\r\n\x0b\x0c".contains(first);
    if !allowed {
        return Some((format!("unexpected character '{first}'"), first.len_utf8()));
    }
    None
}

/// Whether `rest` starts with a keyword: a word that starts as an identifier does, yet is not
/// one.
fn is_keyword(rest: &str) -> bool {
    rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && SysYParser::parse(Rule::ident, rest).is_err()
}

/// Words for the token at the start of `rest`, e.g. `'int'` or `end of file`.
fn found_token(rest: &str) -> String {
    let Some(first) = rest.chars().next() else {
        return "end of file".into();
    };
    let len = if first.is_ascii_alphanumeric() || first == '_' {
        rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len())
    } else {
        first.len_utf8()
    };
    format!("'{}'", &rest[..len])
}

/// The offset just after the last token before `pos` (skipping whitespace and comments), when
/// that token ends on an earlier line; otherwise `pos`. A missing `;` is best shown right after
/// the statement it ends, not at the start of the next line.
fn after_previous_token(text: &str, pos: usize) -> usize {
    let bytes = text.as_bytes();
    let mut last_end = 0;
    let mut i = 0;
    while i < pos.min(bytes.len()) {
        if bytes[i..].starts_with(b"//") {
            i += text[i..].find('\n').unwrap_or(text.len() - i);
        } else if bytes[i..].starts_with(b"/*") {
            i += text[i + 2..].find("*/").map_or(text.len() - i, |e| e + 4);
        } else if bytes[i].is_ascii_whitespace() {
            i += 1;
        } else {
            i += 1;
            last_end = i;
        }
    }
    if text[last_end..pos.min(text.len())].contains('\n') {
        last_end
    } else {
        pos
    }
}
