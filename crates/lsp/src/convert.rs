//! Between casec's terms and the protocol's: byte offsets and UTF-16 positions, spans
//! and ranges, file names and URIs, diagnostics.
//!
//! The protocol counts columns in UTF-16 code units (its default encoding, which every
//! client supports); casec counts bytes. Every conversion clamps: a position past the
//! end of a line or of the file, or inside a surrogate pair, lands on the nearest
//! character boundary before it, so no message can make the server slice a string
//! out of bounds.

use std::path::Path;

use lsp_types::{
    DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Position, Range,
    Url,
};

use crate::diag::{Diagnostic, Severity};
use crate::source::{LineIndex, SourceDb, Span};

/// The byte offset of `position` in `text`.
pub fn offset(text: &str, lines: &LineIndex, position: Position) -> usize {
    let line = position.line as usize;
    if line >= lines.line_count() {
        return text.len();
    }
    let start = lines.line_start(line);
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if c == '\n' || c == '\r' || units + c.len_utf16() > position.character as usize {
            return start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// The protocol position of the byte `offset` of `text`.
pub fn position(text: &str, lines: &LineIndex, offset: usize) -> Position {
    let (line, column) = lines.line_utf16(text, offset);
    Position::new(to_u32(line), to_u32(column))
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The range of a byte range of `text`.
pub fn text_range(text: &str, lines: &LineIndex, start: usize, end: usize) -> Range {
    Range::new(position(text, lines, start), position(text, lines, end))
}

/// The range of `span` in its file.
pub fn range(db: &SourceDb, span: Span) -> Range {
    let file = db.file(span.file);
    text_range(
        &file.text,
        file.lines(),
        span.start as usize,
        span.end as usize,
    )
}

/// The byte range of `range` in `text`, start first.
pub fn byte_range(text: &str, lines: &LineIndex, range: Range) -> (usize, usize) {
    let a = offset(text, lines, range.start);
    let b = offset(text, lines, range.end);
    (a.min(b), a.max(b))
}

/// The name a file has in a compilation: its path as casec displays paths, or the
/// URI itself for a document that is not a file (an unsaved, untitled buffer).
pub fn name_of(uri: &Url) -> String {
    match uri.to_file_path() {
        Ok(path) => crate::load::display(&path),
        Err(()) => uri.to_string(),
    }
}

/// The URI of a file name made by [`name_of`].
pub fn uri_of(name: &str) -> Option<Url> {
    let path = Path::new(name);
    if path.is_absolute() {
        Url::from_file_path(path).ok()
    } else {
        Url::parse(name).ok()
    }
}

/// A casec diagnostic in protocol terms. The help follows the message on its own
/// line (the protocol has no place for it); secondary labels become related
/// information, located in whichever file they point at (`uri_for` names its URI).
pub fn diagnostic(
    d: &Diagnostic,
    db: &SourceDb,
    uri_for: &dyn Fn(&str) -> Option<Url>,
) -> lsp_types::Diagnostic {
    let primary = d.primary_span();
    let mut message = d.message.clone();
    if let Some(label) = d.labels.iter().find(|l| l.primary && !l.message.is_empty()) {
        message = format!("{message}\n{}", label.message);
    }
    if let Some(help) = &d.help {
        message = format!("{message}\nhelp: {help}");
    }
    let related: Vec<DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .filter(|l| !l.primary)
        .filter_map(|l| {
            let uri = uri_for(&db.file(l.span.file).name)?;
            Some(DiagnosticRelatedInformation {
                location: Location::new(uri, range(db, l.span)),
                message: l.message.clone(),
            })
        })
        .collect();
    lsp_types::Diagnostic {
        range: primary.map_or_else(Range::default, |span| range(db, span)),
        severity: Some(match d.severity() {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some("casec".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..lsp_types::Diagnostic::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_positions_and_byte_offsets_round_trip() {
        let text = "a — 😀 x\nsecond";
        let lines = LineIndex::new(text);
        let x = text.find('x').unwrap();
        // `a`, space, em dash (1 unit), space, emoji (2 units), space: 7 units, 11 bytes.
        assert_eq!(position(text, &lines, x), Position::new(0, 7));
        assert_eq!(offset(text, &lines, Position::new(0, 7)), x);
        assert_eq!(offset(text, &lines, Position::new(1, 3)), text.len() - 3);
    }

    #[test]
    fn out_of_range_positions_are_clamped() {
        let text = "ab😀\ncd";
        let lines = LineIndex::new(text);
        assert_eq!(offset(text, &lines, Position::new(0, 99)), 6);
        assert_eq!(offset(text, &lines, Position::new(9, 0)), text.len());
        // Inside the surrogate pair of the emoji: the emoji's start.
        assert_eq!(offset(text, &lines, Position::new(0, 3)), 2);
        assert_eq!(
            byte_range(
                text,
                &lines,
                Range::new(Position::new(1, 1), Position::new(0, 1))
            ),
            (1, 8)
        );
    }

    #[test]
    fn names_and_uris_round_trip() {
        let uri = Url::parse("file:///tmp/suite%20one/a.case").unwrap();
        assert_eq!(name_of(&uri), "/tmp/suite one/a.case");
        assert_eq!(uri_of(&name_of(&uri)), Some(uri));
        let untitled = Url::parse("untitled:Untitled-1").unwrap();
        assert_eq!(uri_of(&name_of(&untitled)), Some(untitled));
    }
}
