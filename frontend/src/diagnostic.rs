//! Diagnostics: an error message anchored at a span, rendered as
//! `path:line:col: error: message`, the source line, and a caret under the column.

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
            file.path, pos.line, pos.col, self.message
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
                file.path, pos.line, pos.col, note
            );
            excerpt(&mut out, file, *span);
        }
        out
    }
}

/// Appends the source line holding `span.start` and a caret line (`^~~~`) under the span.
fn excerpt(out: &mut String, file: &SourceFile, span: Span) {
    let line = file.line_text(span.start);
    let col = file.line_col(span.start).col as usize - 1;
    out.push_str(line);
    out.push('\n');
    for c in line.chars().take(col) {
        out.push(if c == '\t' { '\t' } else { ' ' });
    }
    out.push('^');
    let rest_of_line = line.chars().count().saturating_sub(col + 1);
    let span_chars = file
        .text
        .get(span.start as usize..span.end as usize)
        .map_or(0, |s| s.chars().count());
    let tildes = span_chars.saturating_sub(1).min(rest_of_line);
    out.extend(std::iter::repeat_n('~', tildes));
    out.push('\n');
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
    fn underlines_the_span_with_tildes() {
        let f = SourceFile::new("a.sy", "int abc;");
        let d = Diagnostic::error(Span::new(4, 7), "m");
        assert!(d.render(&f).ends_with("int abc;\n    ^~~\n"));
    }
}
