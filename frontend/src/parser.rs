//! The pest parser, and the parse of a whole program into the AST.
//!
//! A program is parsed one piece at a time: at the top level a declaration or the head of
//! a function, inside a function's body one declaration or statement (`top_item` and
//! `body_item` in the grammar). pest then keeps the tokens of one piece at a time, where a
//! parse of the whole program keeps all of them until the tree is built (170 MB for a 3 MB
//! function, most of the front end's time). The pieces try what `program` tries, in its
//! order, and PEG repetition never backtracks into an item it has matched, so a program that
//! parses in pieces parses as a whole into the same tree. When a piece fails, or nests too
//! deeply to be judged alone, the whole program is parsed again as one, which finds the
//! error and describes it.

use crate::ast::*;
use crate::ast_builder::{BodyPiece, Builder, TopPiece};
use crate::diagnostic::Diagnostic;
use crate::nesting;
use crate::syntax_error;
use pest::iterators::Pairs;
use pest::Parser;

#[derive(pest_derive::Parser)]
#[grammar = "grammar.pest"]
pub struct SysYParser;

/// Parses a whole program. A syntax error yields one diagnostic; malformed literals yield
/// one diagnostic each.
pub fn parse(text: &str) -> Result<CompUnit, Vec<Diagnostic>> {
    let mut builder = Builder::default();
    let unit = match in_pieces(text, &mut builder) {
        Some(unit) => unit,
        None => {
            builder = Builder::default();
            as_a_whole(text, &mut builder)?
        }
    };
    if builder.errors.is_empty() {
        Ok(unit)
    } else {
        Err(builder.errors)
    }
}

/// The program parsed as one, with pest's error for a syntax error.
fn as_a_whole(text: &str, builder: &mut Builder) -> Result<CompUnit, Vec<Diagnostic>> {
    let pairs = match SysYParser::parse(Rule::program, text) {
        Ok(pairs) => pairs,
        Err(err) => return Err(vec![syntax_error::describe(text, err)]),
    };
    if let Some(too_deep) = nesting::too_deep(&pairs) {
        return Err(vec![too_deep]);
    }
    Ok(builder.program(pairs))
}

/// The program parsed in pieces; `None` if a piece does not parse or nests so deeply that
/// the whole program may be too deep.
fn in_pieces(text: &str, builder: &mut Builder) -> Option<CompUnit> {
    let mut items = Vec::new();
    let mut at = skip_blanks(text, 0);
    while at < text.len() {
        let (pair_end, piece) = parse_piece(text, at, Rule::top_item, builder)?;
        at = pair_end;
        match builder.top_item(piece) {
            TopPiece::Decl(decl) => items.push(Item::Decl(decl)),
            TopPiece::FuncHead(ret, name, params) => {
                let mut body = Vec::new();
                let close = loop {
                    let (pair_end, piece) = parse_piece(text, at, Rule::body_item, builder)?;
                    at = pair_end;
                    match builder.body_item(piece) {
                        BodyPiece::Item(item) => body.push(item),
                        BodyPiece::Close(close) => break close,
                    }
                };
                let body = Block { items: body, close };
                items.push(Item::Func(FuncDef {
                    ret,
                    name,
                    params,
                    body,
                }));
            }
        }
    }
    Some(CompUnit { items })
}

/// How many levels a piece may nest below its own top so that the whole program surely
/// stays within `nesting::MAX_DEPTH`: a piece lies at most this deep in the whole tree.
const PIECE_DEPTH: u32 = 8;

/// The piece `rule` at the next token from `at`, and where the text after it starts; the
/// builder's offset is then the piece's. `None` if it does not parse or nests too deeply.
fn parse_piece<'i>(
    text: &'i str,
    at: usize,
    rule: Rule,
    builder: &mut Builder,
) -> Option<(usize, pest::iterators::Pair<'i, Rule>)> {
    let start = skip_blanks(text, at);
    let mut pairs: Pairs<Rule> = SysYParser::parse(rule, &text[start..]).ok()?;
    if nesting::height(&pairs) + PIECE_DEPTH > nesting::MAX_DEPTH {
        return None;
    }
    let pair = pairs.next()?;
    let end = start + pair.as_span().end();
    builder.offset = start;
    Some((skip_blanks(text, end), pair))
}

/// The first position from `at` that is not whitespace or inside a comment, as the grammar's
/// `WHITESPACE` skips them. An unterminated block comment is not skipped: the grammar fails
/// at its start.
fn skip_blanks(text: &str, mut at: usize) -> usize {
    let bytes = text.as_bytes();
    loop {
        match bytes.get(at) {
            Some(b' ' | b'\t'..=b'\r') => at += 1,
            Some(b'/') => match bytes.get(at + 1) {
                Some(b'/') => match text[at + 2..].find('\n') {
                    Some(newline) => at += 2 + newline,
                    None => return text.len(),
                },
                Some(b'*') => match text[at + 2..].find("*/") {
                    Some(close) => at += 2 + close + 2,
                    None => return at,
                },
                _ => return at,
            },
            _ => return at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(text: &str) -> Result<CompUnit, Vec<Diagnostic>> {
        as_a_whole(text, &mut Builder::default())
    }

    fn pieces(text: &str) -> Option<CompUnit> {
        in_pieces(text, &mut Builder::default())
    }

    /// Every program of the repository's own tests that parses as a whole parses in pieces
    /// into the same tree, spans included; every one that does not fails in pieces too.
    #[test]
    fn pieces_build_the_tree_the_whole_program_builds() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../testcases");
        let mut checked = 0;
        for group in std::fs::read_dir(root).expect("testcases folder") {
            for file in std::fs::read_dir(group.expect("entry").path()).expect("group") {
                let path = file.expect("entry").path();
                if path.extension().is_none_or(|e| e != "sy") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("readable test");
                let whole = whole(&text).ok().map(|unit| format!("{unit:?}"));
                let pieces = pieces(&text).map(|unit| format!("{unit:?}"));
                assert_eq!(pieces, whole, "{}", path.display());
                checked += 1;
            }
        }
        assert!(checked > 100, "only {checked} programs found");
    }

    #[test]
    fn blanks_are_skipped_as_the_grammar_skips_them() {
        let text = " \t\n// line\n/* block */ x/* open";
        assert_eq!(skip_blanks(text, 0), text.find('x').unwrap());
        assert_eq!(
            skip_blanks(text, text.find("/* open").unwrap()),
            text.len() - 7
        );
        assert_eq!(skip_blanks("a // to the end", 1), 15);
    }

    /// A program broken in its second function is parsed again as a whole, so its error is
    /// the one a whole parse reports.
    #[test]
    fn a_failing_piece_reports_the_whole_parse_error() {
        let text = "int f() { return 1; }\nint main() { return f() }\n";
        assert!(pieces(text).is_none());
        let err = parse(text).expect_err("a syntax error");
        assert_eq!(err.len(), 1);
        assert_eq!(
            format!("{:?}", whole(text).err()),
            format!("{:?}", Some(err))
        );
    }
}
