//! Prose hygiene: empty strings and stray spaces.
//!
//! Every string of the master is prose someone reads or a model sees. An empty or
//! blank string is almost always a field left unfinished; a leading, trailing or
//! doubled space is a typo that survives into the JSON (a text block trims its lines,
//! so only spaces inside a line can be doubled there). Escaped whitespace (`\n`, `\t`)
//! was written on purpose and is not reported.
//!
//! Guarantee: warnings, each at the exact spaces (or the empty literal); only string
//! literals are looked at, each once per run (the caller deduplicates shared texts).
//! Linear in the literal's length.

use crate::diag::{codes, Diagnostic};
use crate::model::shape::FieldDecl;
use crate::model::Text;
use crate::source::{SourceDb, Span};

use super::words::content_range;

/// Checks one written string literal of the declared field `field` (when the shape
/// declares the field it belongs to).
pub fn check(text: &Text, db: &SourceDb, field: Option<&FieldDecl>, out: &mut Vec<Diagnostic>) {
    let raw = db.slice(text.span);
    if !raw.starts_with('"') {
        return;
    }
    if text.as_str().trim().is_empty() {
        out.push(
            Diagnostic::new(codes::EMPTY_TEXT, "this string is empty")
                .primary(text.span, "nothing written here")
                .help(empty_help(field)),
        );
        return;
    }
    let content = content_range(raw);
    let base = text.span.start as usize + content.start;
    let inner = &raw[content];
    let problems = if raw.starts_with("\"\"\"") {
        text_block_spacing(inner)
    } else {
        quoted_spacing(inner)
    };
    for (range, what) in problems {
        let span = Span::new(text.span.file, base + range.start..base + range.end);
        out.push(
            Diagnostic::new(codes::TEXT_SPACING, format!("{what} in a string"))
                .primary(span, what)
                .help(match what {
                    DOUBLED => "use one space between words",
                    _ => "remove the space",
                }),
        );
    }
}

/// How to fix an empty string of `field`: a required field must be written; only an
/// optional or repeated one may be removed instead.
fn empty_help(field: Option<&FieldDecl>) -> String {
    let Some(field) = field else {
        return "write the text".to_string();
    };
    let key = field.key.as_str().rsplit('.').next().unwrap_or_default();
    if field.repeated() {
        format!("write the text, or remove this `{key}` statement")
    } else if !field.required {
        format!("write the text, or remove the `{key}` statement: it is optional")
    } else {
        format!("write the text: `{key}` is required")
    }
}

const LEADING: &str = "leading space";
const TRAILING: &str = "trailing space";
const DOUBLED: &str = "doubled space";

type Problem = (std::ops::Range<usize>, &'static str);

fn quoted_spacing(inner: &str) -> Vec<Problem> {
    let body_start = inner.len() - inner.trim_start_matches(is_space).len();
    let body_end = inner.trim_end_matches(is_space).len();
    let mut problems = Vec::new();
    if body_start > 0 {
        problems.push((0..body_start, LEADING));
    }
    problems.extend(doubled(&inner[body_start..body_end], body_start));
    if body_end < inner.len() {
        problems.push((body_end..inner.len(), TRAILING));
    }
    problems
}

/// Doubled spaces inside the lines of a text block (its lines are trimmed when folded).
fn text_block_spacing(inner: &str) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut line_start = 0;
    for line in inner.split('\n') {
        let trimmed = line.trim();
        if !trimmed.is_empty() {
            let offset = line_start + (line.len() - line.trim_start().len());
            problems.extend(doubled(trimmed, offset));
        }
        line_start += line.len() + 1;
    }
    problems
}

/// Runs of two or more spaces or tabs in `s`, offset by `offset`. Bytes, not
/// characters: both are ASCII, and no byte of a multi-byte character is either.
fn doubled(s: &str, offset: usize) -> Vec<Problem> {
    let bytes = s.as_bytes();
    let mut problems = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if !is_space_byte(bytes[at]) {
            at += 1;
            continue;
        }
        let start = at;
        while bytes.get(at).copied().is_some_and(is_space_byte) {
            at += 1;
        }
        if at - start >= 2 {
            problems.push((offset + start..offset + at, DOUBLED));
        }
    }
    problems
}

fn is_space(c: char) -> bool {
    c == ' ' || c == '\t'
}

fn is_space_byte(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Origin;
    use crate::syntax::ast::Statement;

    /// Every string literal among `statements`, with its span.
    fn literals(statements: &[Statement], out: &mut Vec<Text>) {
        for statement in statements {
            for value in &statement.values {
                if let Some(text) = value.as_str() {
                    out.push(Text::new(text, value.span));
                }
            }
            if let Some(block) = &statement.block {
                literals(&block.statements, out);
            }
        }
    }

    /// The run skips the stdlib (authors cannot fix it), so it must be clean itself.
    #[test]
    fn the_stdlib_prose_is_clean() {
        for (name, source) in crate::load::STDLIB {
            let mut db = SourceDb::new();
            let file = db.add(*name, *source, Origin::User);
            let parsed = crate::syntax::parse(file, source);
            let mut texts = Vec::new();
            literals(
                &parsed.file.expect("the stdlib parses").statements,
                &mut texts,
            );
            assert!(!texts.is_empty());
            let mut found = Vec::new();
            for text in &texts {
                check(text, &db, None, &mut found);
            }
            assert!(found.is_empty(), "{name}: {found:?}");
        }
    }

    #[test]
    fn quoted_strings_report_each_stray_space_at_its_bytes() {
        assert_eq!(
            quoted_spacing(" a  b "),
            vec![(0..1, LEADING), (2..4, DOUBLED), (5..6, TRAILING)]
        );
        assert!(quoted_spacing("a b").is_empty());
    }

    #[test]
    fn text_blocks_report_only_spaces_inside_a_line() {
        let inner = "\n    one  two\n    three \n  ";
        assert_eq!(text_block_spacing(inner), vec![(8..10, DOUBLED)]);
    }
}
