//! The one tokenizer of the leak rule: text as the words it reads as.
//!
//! A word is a run of letters, digits and combining marks; everything else separates
//! words, `_` included (`DELIVERY_PERMISSION_DENIED` is three words, so an error code
//! and the same words in prose compare equal). A path, a file name or an address is one
//! word (`/outputs/q1_summary.csv`, `notes.md`): a task must name the file it asks for
//! and its checks must name it too. Before words compare they are
//! normalised so that a disguise reads as what it disguises:
//!
//! * characters that render as nothing (zero-width spaces and joiners, the soft
//!   hyphen, direction marks, variation selectors: `unicode::is_ignorable`) are
//!   dropped without ending the word, so `re\u{200B}minder` is `reminder`;
//! * each word is put in Unicode compatibility form (NFKC: fullwidth `ｒｅｍｉｎｄｅｒ`
//!   and mathematical letters become plain letters, ligatures are split) and lowercased;
//! * letters of other scripts drawn like Latin ones (Cyrillic `о`, Greek `ο`) and digits
//!   written for letters (`0` for `o`, `1` for `l`) fold to the Latin letter
//!   (`unicode::fold_look_alike`). Both sides fold alike, so real digits still match.
//!
//! Each word keeps its byte range in the text (to report it) and whether a sentence
//! ends after it; it compares by the hash of its normal form, and a match is confirmed
//! on the normal forms themselves ([`normal_form`]), so a hash collision is never
//! reported.

use std::hash::BuildHasher;
use std::ops::Range;

use foldhash::fast::FixedState;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

use crate::unicode::{fold_look_alike, fold_look_alike_ascii, is_ignorable};

/// One word of a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word {
    /// The hash of the word's normal form.
    pub hash: u64,
    /// Its bytes in the text.
    pub start: u32,
    pub end: u32,
    /// A sentence ends after it (`.`, `!`, `?` or `;` before a space or the end, or a
    /// line break).
    pub ends_sentence: bool,
}

impl Word {
    pub fn range(&self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// The words of a text, in order.
#[derive(Clone, Debug, Default)]
pub struct Tokens {
    pub words: Vec<Word>,
}

fn is_word_char(c: char) -> bool {
    // Most prose is ASCII, where no character is a combining mark or invisible: the
    // table look-ups are for the rest.
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    c.is_alphanumeric() || is_combining_mark(c) || is_ignorable(c)
}

/// A text being split into words, a character at a time.
struct Splitter<'t> {
    text: &'t str,
    words: Vec<Word>,
    scratch: String,
    /// Where the whitespace-free chunk being read starts.
    chunk_start: Option<usize>,
}

impl Splitter<'_> {
    /// Reads the character `c` at byte `i`.
    #[inline]
    fn step(&mut self, i: usize, c: char) {
        if !c.is_whitespace() {
            self.chunk_start.get_or_insert(i);
            return;
        }
        if let Some(s) = self.chunk_start.take() {
            split_chunk(self.text, s, i, &mut self.scratch, &mut self.words);
        }
        if c == '\n' {
            self.end_sentence();
        }
    }

    fn end_sentence(&mut self) {
        if let Some(last) = self.words.last_mut() {
            last.ends_sentence = true;
        }
    }

    fn finish(mut self) -> Tokens {
        if let Some(s) = self.chunk_start.take() {
            let end = self.text.len();
            split_chunk(self.text, s, end, &mut self.scratch, &mut self.words);
        }
        self.end_sentence();
        Tokens { words: self.words }
    }
}

/// Adds the words of the whitespace-free chunk `text[from..to]`: the chunk as one word
/// if it is a path, else its runs of word characters.
fn split_chunk(text: &str, from: usize, to: usize, scratch: &mut String, words: &mut Vec<Word>) {
    let chunk = &text[from..to];
    if let Some(path) = path_in(chunk) {
        let start = from + (path.as_ptr() as usize - chunk.as_ptr() as usize);
        push_word(text, start..start + path.len(), scratch, words);
        if ends_sentence_at(
            chunk,
            path.len() + (path.as_ptr() as usize - chunk.as_ptr() as usize),
        ) {
            if let Some(last) = words.last_mut() {
                last.ends_sentence = true;
            }
        }
        return;
    }
    if chunk.is_ascii() {
        split_ascii_chunk(text, from, to, scratch, words);
        return;
    }
    let mut start: Option<usize> = None;
    let mut chars = chunk.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if is_word_char(c) {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            push_word(text, from + s..from + i, scratch, words);
        }
        if ends_sentence(c, chars.peek().map(|&(_, n)| n)) {
            if let Some(last) = words.last_mut() {
                last.ends_sentence = true;
            }
        }
    }
    if let Some(s) = start {
        push_word(text, from + s..to, scratch, words);
    }
}

/// [`split_chunk`] of an ASCII chunk that is not a path, byte by byte: most chunks of
/// prose are, and no byte of them needs decoding.
fn split_ascii_chunk(
    text: &str,
    from: usize,
    to: usize,
    scratch: &mut String,
    words: &mut Vec<Word>,
) {
    let bytes = &text.as_bytes()[from..to];
    let mut start: Option<usize> = None;
    for (i, &b) in bytes.iter().enumerate() {
        if b.is_ascii_alphanumeric() {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            push_word(text, from + s..from + i, scratch, words);
        }
        // Inside a chunk, only its end is followed by whitespace.
        if ends_sentence(char::from(b), bytes.get(i + 1).map(|&n| char::from(n))) {
            if let Some(last) = words.last_mut() {
                last.ends_sentence = true;
            }
        }
    }
    if let Some(s) = start {
        push_word(text, from + s..to, scratch, words);
    }
}

/// The path or file name a chunk is, without the punctuation around it: a `/` or a `.`
/// between word characters (`/outputs/q1_summary.csv`, `notes.md`, `example.com/a`).
/// A number with a decimal point is not a path.
fn path_in(chunk: &str) -> Option<&str> {
    // Most chunks are plain words, with neither separator to look at.
    if !chunk.bytes().any(|b| b == b'/' || b == b'.') {
        return None;
    }
    let trimmed = chunk
        .trim_start_matches(|c: char| !is_word_char(c) && c != '/')
        .trim_end_matches(|c: char| !is_word_char(c));
    let bytes = trimmed.as_bytes();
    let joined = |i: usize| {
        let after = bytes
            .get(i + 1)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b >= 0x80);
        let before = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] >= 0x80);
        match bytes[i] {
            b'/' => after,
            b'.' => after && before,
            _ => false,
        }
    };
    let has_separator = (0..bytes.len()).any(joined);
    let number = trimmed.chars().all(|c| c.is_ascii_digit() || c == '.');
    (has_separator && !number).then_some(trimmed)
}

/// Whether what follows `at` in a chunk ends a sentence (`.`, `!`, `?` or `;` before
/// the chunk's end).
fn ends_sentence_at(chunk: &str, at: usize) -> bool {
    chunk[at..].ends_with(['.', '!', '?', ';'])
}

fn ends_sentence(c: char, next: Option<char>) -> bool {
    c == '\n' || (matches!(c, '.' | '!' | '?' | ';') && next.is_none_or(char::is_whitespace))
}

impl Tokens {
    /// Splits and normalises `text`. Linear in its length.
    pub fn of(text: &str) -> Tokens {
        let mut splitter = Splitter {
            text,
            // Prose averages five to six bytes a word.
            words: Vec::with_capacity(text.len() / 5 + 1),
            scratch: String::new(),
            chunk_start: None,
        };
        if text.is_ascii() {
            // Most prose: no character to decode.
            for (i, &b) in text.as_bytes().iter().enumerate() {
                splitter.step(i, char::from(b));
            }
        } else {
            for (i, c) in text.char_indices() {
                splitter.step(i, c);
            }
        }
        splitter.finish()
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

/// Adds the word at `range` of `text`, unless it is only invisible characters.
fn push_word(text: &str, range: Range<usize>, scratch: &mut String, words: &mut Vec<Word>) {
    let word = &text[range.clone()];
    let hash = match short_ascii_hash(word.as_bytes()) {
        Some(hash) => hash,
        None => {
            normalize_into(word, scratch);
            if scratch.is_empty() {
                return;
            }
            FixedState::default().hash_one(scratch.as_bytes())
        }
    };
    words.push(Word {
        hash,
        start: range.start as u32,
        end: range.end as u32,
        ends_sentence: false,
    });
}

/// The hash of a short ASCII word's normal form (the hash [`normalize_into`] and
/// `hash_one` give), normalised on the stack: most words of prose are.
fn short_ascii_hash(word: &[u8]) -> Option<u64> {
    let mut normal = [0u8; 32];
    if word.len() > normal.len() || !word.is_ascii() {
        return None;
    }
    for (slot, &b) in normal.iter_mut().zip(word) {
        *slot = ascii_normal(b);
    }
    Some(FixedState::default().hash_one(&normal[..word.len()]))
}

/// The normal form of an ASCII character of a word: lowercased, look-alikes folded.
fn ascii_normal(b: u8) -> u8 {
    fold_look_alike_ascii(b.to_ascii_lowercase())
}

/// The normal form of one word, as it compares.
pub fn normal_form(word: &str) -> String {
    let mut out = String::new();
    normalize_into(word, &mut out);
    out
}

fn normalize_into(word: &str, out: &mut String) {
    out.clear();
    if word.is_ascii() {
        // Most prose: no invisible characters, nothing for NFKC to change.
        out.extend(word.bytes().map(|b| char::from(ascii_normal(b))));
        return;
    }
    let visible = word.chars().filter(|&c| !is_ignorable(c));
    for c in visible.nfkc().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || is_combining_mark(c) || matches!(c, '/' | '.' | '_' | '-') {
            out.push(fold_look_alike(c));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_or_file_name_is_one_word() {
        assert_eq!(
            forms("Save /outputs/sales/region_summary.csv now. Done."),
            ["save", "/outputs/sales/region_summary.csv", "now", "done"]
        );
        assert_eq!(forms("see example.com/a"), ["see", "example.com/a"]);
        // A sentence's full stop and a lone slash still separate.
        assert_eq!(forms("daily. and / or"), ["daily", "and", "or"]);
    }

    fn forms(text: &str) -> Vec<String> {
        Tokens::of(text)
            .words
            .iter()
            .map(|w| normal_form(&text[w.range()]))
            .collect()
    }

    fn same(a: &str, b: &str) {
        let hashes = |t: &str| -> Vec<u64> { Tokens::of(t).words.iter().map(|w| w.hash).collect() };
        assert_eq!(
            hashes(a),
            hashes(b),
            "{a:?} vs {b:?}: {:?} {:?}",
            forms(a),
            forms(b)
        );
    }

    #[test]
    fn words_split_at_punctuation_and_underscores() {
        assert_eq!(
            forms("Returns DELIVERY_PERMISSION_DENIED, at 20:00."),
            [
                "returns",
                "delivery",
                "permission",
                "denied",
                "at",
                "2o",
                "oo"
            ]
        );
    }

    #[test]
    fn disguises_read_as_what_they_disguise() {
        let plain = "Claim reminder success";
        same("Cl\u{200B}aim re\u{00AD}minder suc\u{2060}cess", plain);
        same("Ｃｌａｉｍ ｒｅｍｉｎｄｅｒ ｓｕｃｃｅｓｓ", plain);
        same("Сlаіm rеmіndеr succеss", plain);
        same("CLAIM_REMINDER_SUCCESS", plain);
        same("C1aim rem1nder 5ucce55", "Claim remlnder success");
        same("n0t f0und", "not found");
        same("e\u{0301}te\u{0301}", "été");
    }

    #[test]
    fn sentences_end_at_terminators_and_line_breaks() {
        let ends: Vec<bool> = Tokens::of("No reminder exists. Version 1.5 is set; then\nstop")
            .words
            .iter()
            .map(|w| w.ends_sentence)
            .collect();
        assert_eq!(
            ends,
            [false, false, true, false, false, false, false, true, true, true]
        );
    }

    #[test]
    fn short_ascii_words_hash_as_their_normal_form() {
        let words = [
            "Reminder",
            "Q1",
            "20",
            "/outputs/a.csv",
            "x",
            "DENIED",
            &"w".repeat(32),
        ];
        for word in words {
            let normal = normal_form(word);
            assert_eq!(
                short_ascii_hash(word.as_bytes()),
                Some(FixedState::default().hash_one(normal.as_bytes())),
                "{word}"
            );
        }
        assert_eq!(short_ascii_hash("w".repeat(33).as_bytes()), None);
        assert_eq!(short_ascii_hash("été".as_bytes()), None);
    }

    #[test]
    fn invisible_only_words_are_no_words() {
        assert!(Tokens::of("\u{200B} \u{FEFF}").is_empty());
        let text = "a\u{200B}b";
        assert_eq!(Tokens::of(text).words[0].range(), 0..text.len());
    }
}
