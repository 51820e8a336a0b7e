//! The lines of a text block, as the formatter re-indents them.
//!
//! Folding (see [`crate::syntax::strings`]) trims every line, joins lines with one
//! space (none between Chinese or Japanese characters) and turns any run of blank lines into one paragraph break, ignoring blank
//! lines at the start and end. So the formatter may trim lines, drop leading and
//! trailing blank lines and collapse runs of them without changing the value; it never
//! moves a word to another line.

/// One line of a text block's body.
#[derive(Debug, PartialEq)]
pub(super) enum BodyLine<'a> {
    Text(&'a str),
    ParagraphBreak,
}

/// The body of the text block `raw` (from its opening to its closing quotes, both
/// included), trimmed line by line, with paragraph breaks normalised.
pub(super) fn body_lines(raw: &str) -> Vec<BodyLine<'_>> {
    let inner = raw
        .strip_prefix("\"\"\"")
        .and_then(|r| r.strip_suffix("\"\"\""))
        .unwrap_or("");
    // The first piece is the rest of the opening line and the last one the start of
    // the closing line: both blank in a text block that parsed without errors.
    let pieces: Vec<&str> = inner.split('\n').collect();
    let body = pieces.get(1..pieces.len().saturating_sub(1)).unwrap_or(&[]);
    let mut lines = Vec::new();
    let mut pending_break = false;
    for line in body.iter().map(|l| l.trim()) {
        if line.is_empty() {
            pending_break = !lines.is_empty();
            continue;
        }
        if pending_break {
            lines.push(BodyLine::ParagraphBreak);
            pending_break = false;
        }
        lines.push(BodyLine::Text(line));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::BodyLine::{ParagraphBreak, Text};
    use super::*;

    #[test]
    fn lines_are_trimmed_and_kept_apart() {
        let raw = "\"\"\"  \n      one two\n  three\n    \"\"\"";
        assert_eq!(body_lines(raw), vec![Text("one two"), Text("three")]);
    }

    #[test]
    fn paragraph_breaks_are_normalised() {
        let raw = "\"\"\"\n\n  a\n\n\n  b\n \n\"\"\"";
        assert_eq!(body_lines(raw), vec![Text("a"), ParagraphBreak, Text("b")]);
    }

    #[test]
    fn an_empty_block_has_no_lines() {
        assert!(body_lines("\"\"\"\n\"\"\"").is_empty());
        assert!(body_lines("\"\"\"\n\n\n  \"\"\"").is_empty());
    }

    #[test]
    fn carriage_returns_are_line_endings() {
        let raw = "\"\"\"\r\n  a\r\n  b\r\n\"\"\"";
        assert_eq!(body_lines(raw), vec![Text("a"), Text("b")]);
    }
}
