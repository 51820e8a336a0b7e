//! The words of a written text, each with its place in the source.
//!
//! Rules that point into prose (a weekday, a record id, a leaked phrase) need the span
//! of one word, not of the whole string. A [`Text`] keeps only the span of its literal,
//! and its value has been unescaped and, for a text block, folded. Folding only changes
//! whitespace and unescaping only changes escapes, so the words of the literal as
//! written, unescaped one by one, are the words of the value: this module splits the
//! literal and maps each word back to its bytes.
//!
//! Guarantee: [`words`] returns exactly the whitespace-separated words of the value,
//! in order. A word written with an escape is located at the whole written word; if the
//! literal cannot be read back (a text not written as a string), every word is located
//! at the text's span.

use std::borrow::Cow;
use std::ops::Range;

use crate::model::Text;
use crate::source::{SourceDb, Span};
use crate::syntax::strings;

/// One word of a text: its value (borrowed from the source when written as it reads)
/// and where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word<'a> {
    pub text: Cow<'a, str>,
    pub span: Span,
    /// The word's bytes in the source are exactly `text` (no escape, no fallback).
    exact: bool,
}

impl<'a> Word<'a> {
    /// The span of the bytes `range` of this word; the whole word's span when the word
    /// was not written as it reads.
    pub fn part(&self, range: Range<usize>) -> Span {
        if !self.exact || range.end > self.text.len() {
            return self.span;
        }
        Span {
            file: self.span.file,
            start: self.span.start + range.start as u32,
            end: self.span.start + range.end as u32,
        }
    }

    /// The span of the word without surrounding punctuation (`12` of `12.`).
    pub fn core(&self) -> Span {
        let start = self.text.len()
            - self
                .text
                .trim_start_matches(|c: char| !c.is_alphanumeric())
                .len();
        let end = self
            .text
            .trim_end_matches(|c: char| !c.is_alphanumeric())
            .len();
        if start >= end {
            return self.span;
        }
        self.part(start..end)
    }

    /// Lower case, without surrounding punctuation: the form in which words compare.
    /// Borrowed unless the word has capitals, so most prose allocates nothing.
    pub fn normalized(&self) -> Cow<'a, str> {
        match &self.text {
            Cow::Borrowed(text) => normalize(text),
            Cow::Owned(text) => Cow::Owned(normalize(text).into_owned()),
        }
    }

    /// Whether sentence punctuation ends the word (so the next word starts a new
    /// phrase).
    pub fn ends_sentence(&self) -> bool {
        self.text
            .trim_end_matches(['"', '\'', ')', '”', '’'])
            .ends_with(['.', ';', ':', '?', '!'])
    }
}

/// The form in which words compare: lower case, without surrounding punctuation.
pub fn normalize(text: &str) -> Cow<'_, str> {
    let core = text.trim_matches(|c: char| !c.is_alphanumeric());
    if core.chars().any(char::is_uppercase) {
        Cow::Owned(core.to_lowercase())
    } else {
        Cow::Borrowed(core)
    }
}

/// The words of `text`, located in the source.
pub fn words<'a>(db: &'a SourceDb, text: &'a Text) -> Vec<Word<'a>> {
    let located = located_words(db, text);
    let faithful = located
        .iter()
        .map(|w| w.text.as_ref())
        .eq(text.as_str().split_whitespace());
    if faithful {
        return located;
    }
    text.as_str()
        .split_whitespace()
        .map(|w| Word {
            text: Cow::Borrowed(w),
            span: text.span,
            exact: false,
        })
        .collect()
}

/// The byte range of a literal's content: inside `"""…"""` or `"…"`.
pub fn content_range(raw: &str) -> Range<usize> {
    if raw.len() >= 6 && raw.starts_with("\"\"\"") && raw.ends_with("\"\"\"") {
        3..raw.len() - 3
    } else if raw.len() >= 2 && raw.starts_with('"') && raw.ends_with('"') {
        1..raw.len() - 1
    } else {
        0..raw.len()
    }
}

fn located_words<'a>(db: &'a SourceDb, text: &Text) -> Vec<Word<'a>> {
    let raw = db.slice(text.span);
    let content = content_range(raw);
    let base = text.span.start as usize + content.start;
    let file = text.span.file;
    let mut out = Vec::new();
    for (offset, token) in tokens(&raw[content]) {
        let span = Span::new(file, base + offset..base + offset + token.len());
        if !token.contains('\\') {
            out.push(Word {
                text: Cow::Borrowed(token),
                span,
                exact: true,
            });
            continue;
        }
        // Escapes were reported by the parser already; here only the value matters.
        let unescaped = strings::unescape(token, file, 0, &mut Vec::new());
        out.extend(unescaped.split_whitespace().map(|part| Word {
            text: Cow::Owned(part.to_string()),
            span,
            exact: false,
        }));
    }
    out
}

/// Whitespace-separated tokens of `s` with their byte offsets.
fn tokens(s: &str) -> impl Iterator<Item = (usize, &str)> {
    s.split(char::is_whitespace)
        .filter(|t| !t.is_empty())
        .map(move |t| (t.as_ptr() as usize - s.as_ptr() as usize, t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Origin;

    /// Calls `f` with the words of the literal `literal` (whose value is `value`) in
    /// `source`.
    fn with_words(source: &str, literal: &str, value: &str, f: impl FnOnce(&SourceDb, &[Word])) {
        let mut db = SourceDb::new();
        let file = db.add("t.case", source, Origin::User);
        let start = source.find(literal).expect("literal in source");
        let text = Text::new(value, Span::new(file, start..start + literal.len()));
        f(&db, &words(&db, &text));
    }

    fn slices<'a>(db: &'a SourceDb, words: &[Word]) -> Vec<&'a str> {
        words.iter().map(|w| db.slice(w.span)).collect()
    }

    #[test]
    fn words_of_a_quoted_string_point_at_their_bytes() {
        let source = "user \"Call  Jo, now.\"";
        with_words(
            source,
            "\"Call  Jo, now.\"",
            "Call  Jo, now.",
            |db, words| {
                assert_eq!(slices(db, words), ["Call", "Jo,", "now."]);
                assert_eq!(words[1].normalized(), "jo");
                assert!(words[2].ends_sentence());
                assert_eq!(db.slice(words[1].part(0..2)), "Jo");
                assert_eq!(db.slice(words[2].core()), "now");
            },
        );
    }

    #[test]
    fn words_of_a_text_block_cross_lines() {
        let source = "facts \"\"\"\n    November 10\n    Tuesday.\n  \"\"\"";
        with_words(source, &source[6..], "November 10 Tuesday.", |db, words| {
            assert_eq!(slices(db, words), ["November", "10", "Tuesday."]);
        });
    }

    #[test]
    fn an_escaped_word_is_located_at_the_written_word() {
        let source = r#"need "say \"hi\" twice""#;
        with_words(source, &source[5..], "say \"hi\" twice", |db, words| {
            assert_eq!(words[1].text, "\"hi\"");
            assert_eq!(db.slice(words[1].span), r#"\"hi\""#);
            assert_eq!(words[1].part(0..1), words[1].span);
        });
    }

    #[test]
    fn a_text_not_written_as_a_string_falls_back_to_its_span() {
        with_words("need R1", "need R1", "Read M1 first", |_, words| {
            assert_eq!(words.len(), 3);
            assert!(words.iter().all(|w| w.span.range() == (0..7)));
        });
    }
}
