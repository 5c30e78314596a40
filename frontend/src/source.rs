//! Source files, byte spans and their mapping to lines and columns.

/// A half-open byte range `[start, end)` in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// One source file: its display path, its text and where each line starts. A UTF-8
/// byte-order mark at the start is not part of the text, as in gcc and clang.
pub struct SourceFile {
    pub path: String,
    pub text: String,
    line_starts: Vec<u32>,
}

/// A 1-based line and column (the column counts characters, not bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

impl SourceFile {
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let mut text = text.into();
        if text.starts_with('\u{feff}') {
            text.drain(..'\u{feff}'.len_utf8());
        }
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i as u32 + 1))
            .collect();
        SourceFile {
            path: path.into(),
            text,
            line_starts,
        }
    }

    fn line_index(&self, offset: u32) -> usize {
        self.line_starts.partition_point(|&s| s <= offset) - 1
    }

    pub fn line_col(&self, offset: u32) -> LineCol {
        let offset = offset.min(self.text.len() as u32);
        let line = self.line_index(offset);
        let start = self.line_starts[line] as usize;
        let col = self.text[start..offset as usize].chars().count() as u32 + 1;
        LineCol {
            line: line as u32 + 1,
            col,
        }
    }

    /// The text of the line holding `offset`, without its line terminator.
    pub fn line_text(&self, offset: u32) -> &str {
        let offset = offset.min(self.text.len() as u32);
        let line = self.line_index(offset);
        let start = self.line_starts[line] as usize;
        let end = self
            .line_starts
            .get(line + 1)
            .map_or(self.text.len(), |&e| e as usize - 1);
        self.text[start..end].trim_end_matches('\r')
    }

    /// The source text a span covers.
    pub fn slice(&self, span: Span) -> &str {
        &self.text[span.start as usize..span.end as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_offsets_to_lines_and_columns() {
        let f = SourceFile::new("t.sy", "ab\r\ncd\n\nx");
        assert_eq!(f.line_col(0), LineCol { line: 1, col: 1 });
        assert_eq!(f.line_col(1), LineCol { line: 1, col: 2 });
        assert_eq!(f.line_col(4), LineCol { line: 2, col: 1 });
        assert_eq!(f.line_col(8), LineCol { line: 4, col: 1 });
        assert_eq!(f.line_text(0), "ab");
        assert_eq!(f.line_text(5), "cd");
        assert_eq!(f.line_text(7), "");
        assert_eq!(f.line_text(8), "x");
    }

    #[test]
    fn a_byte_order_mark_at_the_start_is_not_part_of_the_text() {
        let f = SourceFile::new("t.sy", "\u{feff}int x;\n\u{feff}");
        assert_eq!(f.text, "int x;\n\u{feff}");
        assert_eq!(f.line_col(4), LineCol { line: 1, col: 5 });
    }
}
