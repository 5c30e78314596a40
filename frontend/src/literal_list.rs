//! Splitting of the text matched by the grammar's atomic `int_list` and `literal_list` rules
//! (a flat initialiser list of optionally signed numeric literals, `1, -2, 0x3, 4.5`) into its
//! elements, which the parser turns into the same nodes the general rules would have built.

use crate::ast::UnaryOp;
use crate::literal::is_float;

/// One element of a literal list; offsets are relative to the start of the list's text.
#[derive(Debug, PartialEq)]
pub struct Element<'a> {
    /// The sign in front of the literal and where it stands.
    pub sign: Option<(UnaryOp, usize)>,
    /// The literal's text, as the grammar's `int_lit` or `float_lit` token would hold it.
    pub literal: &'a str,
    pub start: usize,
    pub is_float: bool,
}

/// The elements of `text`, which the `int_list` or `literal_list` rule matched in full: each
/// between commas is whitespace, an optional sign, the literal right after it, whitespace.
pub fn elements(text: &str) -> impl Iterator<Item = Element<'_>> {
    let mut offset = 0;
    text.split(',').map(move |piece| {
        let body = piece.trim_matches(is_space);
        let mut start = offset + piece.len() - piece.trim_start_matches(is_space).len();
        offset += piece.len() + 1;
        let sign = match body.as_bytes().first() {
            Some(b'-') => Some((UnaryOp::Neg, start)),
            Some(b'+') => Some((UnaryOp::Pos, start)),
            _ => None,
        };
        let literal = if sign.is_some() {
            start += 1;
            &body[1..]
        } else {
            body
        };
        Element {
            sign,
            literal,
            start,
            is_float: is_float(literal),
        }
    })
}

/// The grammar's whitespace characters.
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n' | '\x0B' | '\x0C')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_signed_literals_with_their_offsets() {
        let got: Vec<Element> = elements("1,\t-0x1p3 ,+2.5e1\r\n, 0X1E").collect();
        assert_eq!(
            got,
            [
                Element {
                    sign: None,
                    literal: "1",
                    start: 0,
                    is_float: false
                },
                Element {
                    sign: Some((UnaryOp::Neg, 3)),
                    literal: "0x1p3",
                    start: 4,
                    is_float: true
                },
                Element {
                    sign: Some((UnaryOp::Pos, 11)),
                    literal: "2.5e1",
                    start: 12,
                    is_float: true
                },
                Element {
                    sign: None,
                    literal: "0X1E",
                    start: 21,
                    is_float: false
                },
            ]
        );
    }
}
