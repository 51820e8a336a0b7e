//! The one tokenizer of the leak rule: text as the words it reads as.
//!
//! A word is a run of letters, digits and combining marks; everything else separates
//! words, `_` included (`DELIVERY_PERMISSION_DENIED` is three words, so an error code
//! and the same words in prose compare equal). Chinese and Japanese are written without
//! spaces between words, so their text is read as overlapping pairs of characters
//! (`退款订单` is `退款`, `款订`, `订单`), as search engines index it (Lucene's CJK
//! bigrams): a copied sentence repeats the pairs in order, and the rule's thresholds in
//! words stay meaningful (a run of five pairs is six characters). `。！？；` end a
//! sentence as `.!?;` do. A path, a file name or an address is one
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

use std::ops::Range;

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

use crate::unicode::{
    fold_look_alike, fold_look_alike_ascii, is_ignorable, is_unspaced_letter,
    joins_lines_without_space,
};

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

/// The whitespace-free chunk of `text` from byte `at` and the whitespace character
/// after it (empty at the end), or `None` at the end. Bytes, not characters: only a
/// byte above ASCII is decoded, to tell whether it starts a space (a no-break space).
fn next_chunk(text: &str, at: usize) -> Option<(Range<usize>, Range<usize>)> {
    let bytes = text.as_bytes();
    if at >= bytes.len() {
        return None;
    }
    let mut end = at;
    while let Some(&b) = bytes.get(end) {
        let width = if b.is_ascii() {
            if is_ascii_space(b) {
                return Some((at..end, end..end + 1));
            }
            1
        } else {
            let c = text[end..].chars().next().unwrap_or_default();
            if c.is_whitespace() {
                return Some((at..end, end..end + c.len_utf8()));
            }
            c.len_utf8()
        };
        end += width;
    }
    Some((at..end, end..end))
}

/// Whether an ASCII byte is a space as [`char::is_whitespace`] has it (tab, line feed,
/// vertical tab, form feed, carriage return, space).
fn is_ascii_space(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | b' ')
}

/// Ends a sentence after the last word so far.
fn end_sentence(words: &mut [Word]) {
    if let Some(last) = words.last_mut() {
        last.ends_sentence = true;
    }
}

/// Adds the words of the whitespace-free chunk `text[from..to]`. Chinese and Japanese
/// run on without spaces, so their punctuation (`，。「」`) separates as a space would,
/// and `。！？；` end a sentence.
fn split_chunk(text: &str, from: usize, to: usize, scratch: &mut String, words: &mut Vec<Word>) {
    let chunk = &text[from..to];
    let mut piece_start = from;
    if !chunk.is_ascii() {
        for (i, c) in chunk
            .char_indices()
            .filter(|&(_, c)| is_unspaced_punctuation(c))
        {
            split_piece(text, piece_start, from + i, scratch, words);
            if matches!(c, '。' | '！' | '？' | '；') {
                end_sentence(words);
            }
            piece_start = from + i + c.len_utf8();
        }
    }
    split_piece(text, piece_start, to, scratch, words);
    // Only a chunk's end is followed by whitespace (or the text's end), where a `.`, `!`,
    // `?` or `;` ends a sentence.
    if chunk.ends_with(['.', '!', '?', ';']) {
        end_sentence(words);
    }
}

/// Punctuation of Chinese and Japanese text: CJK symbols and punctuation, and the
/// fullwidth forms that are not letters or digits (`ｒ` is a disguised `r`).
fn is_unspaced_punctuation(c: char) -> bool {
    joins_lines_without_space(c) && !is_unspaced_letter(c) && !c.is_alphanumeric()
}

/// Adds the words of `text[from..to]`, a chunk without spaces or CJK punctuation: a
/// path as one word (after the Chinese or Japanese written up to it, `写到/outputs/a.csv`),
/// else its runs of word characters.
fn split_piece(text: &str, from: usize, to: usize, scratch: &mut String, words: &mut Vec<Word>) {
    let piece = &text[from..to];
    match path_in(piece) {
        Some(path) => {
            let start = from + (path.as_ptr() as usize - piece.as_ptr() as usize);
            split_unicode_chunk(text, from, start, scratch, words);
            push_word(text, start..start + path.len(), scratch, words);
        }
        None if piece.is_ascii() => split_ascii_chunk(text, from, to, words),
        None => split_unicode_chunk(text, from, to, scratch, words),
    }
}

/// The runs of word characters of an ASCII chunk, byte by byte: most chunks of prose
/// are ASCII, and no byte of them needs decoding.
fn split_ascii_chunk(text: &str, from: usize, to: usize, words: &mut Vec<Word>) {
    let chunk = &text.as_bytes()[from..to];
    let mut at = 0;
    while at < chunk.len() {
        // Each word is normalised and hashed as it is read, a table look-up a byte.
        let start = at;
        let mut hash = WordHash::EMPTY;
        while let Some(&normal) = chunk.get(at).map(|&b| &ASCII_WORD[usize::from(b & 0x7f)]) {
            if normal == 0 {
                break;
            }
            hash = hash.add(normal);
            at += 1;
        }
        if at == start {
            at += 1;
            continue;
        }
        words.push(Word {
            hash: hash.finish(),
            start: (from + start) as u32,
            end: (from + at) as u32,
            ends_sentence: false,
        });
    }
}

/// The runs of word characters of any chunk, Chinese and Japanese runs as pairs of
/// characters.
fn split_unicode_chunk(
    text: &str,
    from: usize,
    to: usize,
    scratch: &mut String,
    words: &mut Vec<Word>,
) {
    let mut start: Option<usize> = None;
    let mut unspaced: Vec<usize> = Vec::new();
    for (i, c) in text[from..to].char_indices() {
        // An invisible character inside a run is dropped from the pair it falls in
        // (`退\u{200B}款` is `退款`), as it is from any word.
        if !unspaced.is_empty() && is_ignorable(c) {
            continue;
        }
        let unspaced_letter = is_unspaced_letter(c);
        if !unspaced_letter && !unspaced.is_empty() {
            push_pairs(text, from, &unspaced, from + i, scratch, words);
            unspaced.clear();
        }
        if unspaced_letter || !is_word_char(c) {
            if let Some(s) = start.take() {
                push_word(text, from + s..from + i, scratch, words);
            }
        }
        if unspaced_letter {
            unspaced.push(i);
        } else if is_word_char(c) {
            start.get_or_insert(i);
        }
    }
    if !unspaced.is_empty() {
        push_pairs(text, from, &unspaced, to, scratch, words);
    }
    if let Some(s) = start {
        push_word(text, from + s..to, scratch, words);
    }
}

/// The words of a run of Chinese or Japanese characters starting at the offsets
/// `starts` (relative to `from`) and ending at `end`: each pair of neighbours, or the
/// one character of a run of one.
fn push_pairs(
    text: &str,
    from: usize,
    starts: &[usize],
    end: usize,
    scratch: &mut String,
    words: &mut Vec<Word>,
) {
    let ends = || starts.iter().skip(1).map(|&s| from + s).chain([end]);
    if starts.len() == 1 {
        push_word(text, from + starts[0]..end, scratch, words);
        return;
    }
    for (first, pair_end) in starts.iter().zip(ends().skip(1)) {
        push_word(text, from + first..pair_end, scratch, words);
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
    let mut trimmed = chunk
        .trim_start_matches(|c: char| !is_word_char(c) && c != '/')
        .trim_end_matches(|c: char| !is_word_char(c));
    // Chinese or Japanese runs into a path without a space: the path starts at its `/`.
    if let Some(slash) = trimmed.find('/') {
        if trimmed[..slash].chars().all(is_unspaced_letter) {
            trimmed = &trimmed[slash..];
        }
    }
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

impl Tokens {
    /// Splits and normalises `text`. Linear in its length.
    #[inline(never)]
    pub fn of(text: &str) -> Tokens {
        // Prose averages five to six bytes a word.
        let mut words = Vec::with_capacity(text.len() / 5 + 1);
        let mut scratch = String::new();
        let mut at = 0;
        while let Some((chunk, space)) = next_chunk(text, at) {
            if !chunk.is_empty() {
                split_chunk(text, chunk.start, chunk.end, &mut scratch, &mut words);
            }
            if text.as_bytes().get(space.start) == Some(&b'\n') {
                end_sentence(&mut words);
            }
            at = space.end;
        }
        end_sentence(&mut words);
        Tokens { words }
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
    let hash = if word.is_ascii() {
        // Its normal form byte by byte, as `normalize_into` gives it, without a copy.
        let normal = word.bytes().map(ascii_normal);
        normal.fold(WordHash::EMPTY, WordHash::add).finish()
    } else {
        normalize_into(word, scratch);
        if scratch.is_empty() {
            return;
        }
        WordHash::of(scratch.as_bytes())
    };
    words.push(Word {
        hash,
        start: range.start as u32,
        end: range.end as u32,
        ends_sentence: false,
    });
}

/// The hash of a word's normal form, fed a byte at a time (FNV-1a, then mixed), so
/// that an ASCII word is hashed while it is read. Every word is hashed by it, whichever
/// way it was normalised, so equal normal forms have equal hashes.
#[derive(Clone, Copy)]
struct WordHash(u64);

impl WordHash {
    const EMPTY: WordHash = WordHash(0xCBF2_9CE4_8422_2325);

    fn add(self, byte: u8) -> WordHash {
        WordHash((self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3))
    }

    /// The hash, its bits spread (murmur3's finaliser): FNV's high bits, which the
    /// leak rule's bit sets use, depend little on a word's last byte.
    fn finish(self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^ (h >> 33)
    }

    fn of(normal: &[u8]) -> u64 {
        normal
            .iter()
            .fold(WordHash::EMPTY, |h, &b| h.add(b))
            .finish()
    }
}

/// For each ASCII character, its normal form if it is a word character, else 0.
const ASCII_WORD: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        if (b as u8).is_ascii_alphanumeric() {
            table[b] = fold_look_alike_ascii((b as u8).to_ascii_lowercase());
        }
        b += 1;
    }
    table
};

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
    fn every_word_hashes_as_its_normal_form() {
        let words = [
            "Reminder",
            "Q1",
            "20",
            "/outputs/a.csv",
            "x",
            "DENIED",
            &"w".repeat(40),
            "été",
            "ｒｅｍｉｎｄｅｒ",
            "re\u{200B}minder",
        ];
        for word in words {
            let tokens = Tokens::of(word);
            assert_eq!(tokens.len(), 1, "{word}");
            let normal = normal_form(word);
            assert_eq!(
                tokens.words[0].hash,
                WordHash::of(normal.as_bytes()),
                "{word}"
            );
        }
        // The table the ASCII path reads agrees with the normal form of each character.
        for b in 0u8..128 {
            let expected = if b.is_ascii_alphanumeric() {
                ascii_normal(b)
            } else {
                0
            };
            assert_eq!(ASCII_WORD[usize::from(b)], expected, "{b}");
        }
    }

    #[test]
    fn chinese_and_japanese_read_as_pairs_of_characters() {
        assert_eq!(forms("退款订单"), ["退款", "款订", "订单"]);
        assert_eq!(forms("会議は明日"), ["会議", "議は", "は明", "明日"]);
        // A lone character is a word; Latin words, numbers and paths keep their form.
        assert_eq!(forms("北 Q2 收入"), ["北", "q2", "收入"]);
        assert_eq!(
            forms("写到/outputs/地区汇总.csv，再读回"),
            ["写到", "/outputs/地区汇总.csv", "再读", "读回"]
        );
        // Korean is written with spaces: its words stay whole.
        assert_eq!(forms("한국어 문장"), ["한국어", "문장"]);
    }

    #[test]
    fn chinese_punctuation_separates_and_ends_sentences() {
        let tokens = Tokens::of("退款订单。没有计入，收入");
        let ends: Vec<bool> = tokens.words.iter().map(|w| w.ends_sentence).collect();
        assert_eq!(ends, [false, false, true, false, false, false, true]);
        same("退款订单没有计入", "退\u{200B}款订单没有计\u{2060}入");
        same("退款，订单", "退款、订单");
    }

    #[test]
    fn invisible_only_words_are_no_words() {
        assert!(Tokens::of("\u{200B} \u{FEFF}").is_empty());
        let text = "a\u{200B}b";
        assert_eq!(Tokens::of(text).words[0].range(), 0..text.len());
    }
}
