//! Diagnostics: an error message anchored at a span, rendered as
//! `path:line:col: error: message`, the source line, and a caret under the column. What
//! they print holds no raw control characters: a message quoting a stray byte (NUL, DEL)
//! shows it escaped, as the excerpt does.

use crate::source::{SourceFile, Span};
use std::fmt::Write;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub span: Span,
    pub message: String,
    /// Secondary locations, such as a previous definition.
    pub notes: Vec<(Span, String)>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            span,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    pub fn with_note(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.notes.push((span, message.into()));
        self
    }

    /// The first line of the rendered diagnostic, e.g. `t.sy:3:5: error: expected ';'`.
    pub fn headline(&self, file: &SourceFile) -> String {
        let pos = file.line_col(self.span.start);
        format!(
            "{}:{}:{}: error: {}",
            file.path,
            pos.line,
            pos.col,
            escaped(&self.message)
        )
    }

    /// The full rendering: headline, source line, caret, then each note the same way.
    pub fn render(&self, file: &SourceFile) -> String {
        let mut out = self.headline(file);
        out.push('\n');
        excerpt(&mut out, file, self.span);
        for (span, note) in &self.notes {
            let pos = file.line_col(span.start);
            let _ = writeln!(
                out,
                "{}:{}:{}: note: {}",
                file.path,
                pos.line,
                pos.col,
                escaped(note)
            );
            excerpt(&mut out, file, *span);
        }
        out
    }
}

/// Appends the source line holding `span.start` and a caret line (`^~~~`) under the span.
/// Characters that do not print (control characters other than tab) show escaped, `\x01`,
/// and the caret line makes room for them.
fn excerpt(out: &mut String, file: &SourceFile, span: Span) {
    let line = file.line_text(span.start);
    let col = file.line_col(span.start).col as usize - 1;
    let shown: Vec<String> = line.chars().map(shown_char).collect();
    for s in &shown {
        out.push_str(s);
    }
    out.push('\n');
    for s in shown.iter().take(col) {
        if s == "\t" {
            out.push('\t');
        } else {
            out.extend(std::iter::repeat_n(' ', s.chars().count()));
        }
    }
    out.push('^');
    let span_chars = file
        .text
        .get(span.start as usize..span.end as usize)
        .map_or(0, |s| s.chars().count());
    let under: usize = shown
        .iter()
        .skip(col)
        .take(span_chars.max(1))
        .map(|s| s.chars().count())
        .sum();
    out.extend(std::iter::repeat_n('~', under.saturating_sub(1)));
    out.push('\n');
}

/// `text` with each character shown as in an excerpt.
fn escaped(text: &str) -> String {
    text.chars().map(shown_char).collect()
}

/// How a source character is shown in an excerpt.
fn shown_char(c: char) -> String {
    match c {
        '\t' => "\t".to_string(),
        c if c.is_control() && (c as u32) < 0x100 => format!("\\x{:02x}", c as u32),
        c if c.is_control() => format!("\\u{{{:04x}}}", c as u32),
        c => c.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_headline_source_and_caret() {
        let f = SourceFile::new("a.sy", "int main() {\n\treturn x;\n}\n");
        let d = Diagnostic::error(Span::new(21, 22), "use of undeclared identifier 'x'");
        assert_eq!(
            d.render(&f),
            "a.sy:2:9: error: use of undeclared identifier 'x'\n\treturn x;\n\t       ^\n"
        );
    }

    #[test]
    fn shows_characters_that_do_not_print_escaped() {
        let f = SourceFile::new("a.sy", "int\x01 a = \x7f;");
        let d = Diagnostic::error(Span::new(9, 10), "m");
        assert!(
            d.render(&f)
                .ends_with("int\\x01 a = \\x7f;\n            ^~~~\n"),
            "{}",
            d.render(&f)
        );
    }

    #[test]
    fn a_message_quoting_a_character_that_does_not_print_shows_it_escaped() {
        let f = SourceFile::new("a.sy", "int a = \x7f;\0");
        let d = Diagnostic::error(Span::new(8, 9), "unexpected character '\x7f'")
            .with_note(Span::new(10, 11), "then '\0'");
        assert_eq!(
            d.render(&f),
            "a.sy:1:9: error: unexpected character '\\x7f'\nint a = \\x7f;\\x00\n        ^~~~\n\
             a.sy:1:11: note: then '\\x00'\nint a = \\x7f;\\x00\n             ^~~~\n"
        );
    }

    #[test]
    fn underlines_the_span_with_tildes() {
        let f = SourceFile::new("a.sy", "int abc;");
        let d = Diagnostic::error(Span::new(4, 7), "m");
        assert!(d.render(&f).ends_with("int abc;\n    ^~~\n"));
    }
}
