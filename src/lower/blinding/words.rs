//! Words and matching units: how the blinding scan compares hidden and model text.
//!
//! Both sides are reduced to their words, lowercased and joined by single spaces, so
//! that a copy is found whatever its letter case, punctuation, spacing or line breaks.
//! A word is a run of letters, digits and `_` (`DELIVERY_PERMISSION_DENIED` is one
//! word, `20:00` is two). Normalized strings start and end with a space, so a pattern
//! found in a haystack always begins and ends on word boundaries.

use std::ops::Range;

/// Hidden units shorter than this are never matched: short phrases ("do not send",
/// "at a time") recur in independent texts, and names (tool names, check ids) are
/// shared with the model-facing side by design.
pub const MIN_WORDS: usize = 4;

/// Any run of this many consecutive words of a hidden text is a unit of its own, so a
/// partial copy of a long sentence is caught. Runs this long do not recur by chance
/// between independently written texts; in Tujora the longest run shared by a hidden
/// and a model-facing text has 4 words.
pub const RUN_WORDS: usize = 6;

/// One word: its byte range in the text and the index of the sentence it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word {
    pub start: usize,
    pub end: usize,
    pub sentence: usize,
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// A sentence ends at `.`, `!`, `?` or `;` before whitespace or the end of the text,
/// and at a line break.
fn ends_sentence(c: char, next: Option<char>) -> bool {
    c == '\n' || (matches!(c, '.' | '!' | '?' | ';') && next.is_none_or(char::is_whitespace))
}

/// The words of a text, in order.
pub fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut sentence = 0;
    let mut start: Option<usize> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if is_word_char(c) {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            out.push(Word {
                start: s,
                end: i,
                sentence,
            });
        }
        if ends_sentence(c, chars.peek().map(|&(_, n)| n)) {
            sentence += 1;
        }
    }
    if let Some(s) = start {
        out.push(Word {
            start: s,
            end: text.len(),
            sentence,
        });
    }
    out
}

/// A text reduced to its words: ` w1 w2 … wn `, with where each word's leading space
/// is, so that the normalized form of any run of words is a slice, not a new string.
pub struct Normalized {
    text: String,
    /// Offset of the space before each word, then of the final space.
    spaces: Vec<usize>,
}

impl Normalized {
    pub fn new(text: &str, words: &[Word]) -> Normalized {
        let letters: usize = words.iter().map(|w| w.end - w.start + 1).sum();
        let mut out = String::with_capacity(letters + 1);
        let mut spaces = Vec::with_capacity(words.len() + 1);
        for word in words {
            spaces.push(out.len());
            out.push(' ');
            out.extend(
                text[word.start..word.end]
                    .chars()
                    .flat_map(char::to_lowercase),
            );
        }
        spaces.push(out.len());
        out.push(' ');
        Normalized { text: out, spaces }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The normalized form of the words in `range`, spaces at both ends.
    pub fn words(&self, range: Range<usize>) -> &str {
        match (self.spaces.get(range.start), self.spaces.get(range.end)) {
            (Some(&start), Some(&end)) if start <= end => &self.text[start..=end],
            _ => "",
        }
    }
}

/// The units of a hidden text, as word ranges: every run of [`RUN_WORDS`] words (or
/// the whole text, when shorter), and every sentence shorter than a run; units under
/// [`MIN_WORDS`] words are left out.
pub fn units(words: &[Word]) -> Vec<Range<usize>> {
    let n = words.len();
    let mut out: Vec<Range<usize>> = Vec::new();
    if n >= RUN_WORDS {
        out.extend((0..=n - RUN_WORDS).map(|i| i..i + RUN_WORDS));
    } else if n >= MIN_WORDS {
        out.push(0..n);
    }
    out.extend(
        sentences(words).filter(|r| r.len() >= MIN_WORDS && r.len() < RUN_WORDS && r.len() < n),
    );
    out
}

/// Word ranges of the sentences of a text.
fn sentences(words: &[Word]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut start = 0;
    (1..=words.len()).filter_map(move |i| {
        let ends = i == words.len() || words[i].sentence != words[i - 1].sentence;
        if !ends {
            return None;
        }
        let range = start..i;
        start = i;
        Some(range)
    })
}

/// Merges overlapping or touching ranges and returns the longest (the first of equals).
pub fn longest_merged(mut ranges: Vec<Range<usize>>) -> Option<Range<usize>> {
    ranges.sort_by_key(|r| (r.start, r.end));
    let mut merged: Vec<Range<usize>> = Vec::new();
    for r in ranges {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    let longest = merged.iter().map(|r| r.len()).max()?;
    merged.into_iter().find(|r| r.len() == longest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(text: &str) -> String {
        Normalized::new(text, &words(text)).as_str().to_string()
    }

    #[test]
    fn normalizes_case_punctuation_and_spacing() {
        assert_eq!(
            norm("M2 schedule is 20:00\n  daily.  DELIVERY_PERMISSION_DENIED!"),
            " m2 schedule is 20 00 daily delivery_permission_denied "
        );
        assert_eq!(norm("Élan, ÉTÉ"), " élan été ");
        assert_eq!(norm(""), " ");
    }

    #[test]
    fn runs_of_words_are_slices_with_spaces_at_both_ends() {
        let text = "Reminder creation returns DELIVERY_PERMISSION_DENIED.";
        let normalized = Normalized::new(text, &words(text));
        assert_eq!(normalized.words(1..3), " creation returns ");
        assert_eq!(normalized.words(0..4), normalized.as_str());
        assert_eq!(normalized.words(3..9), "");
    }

    #[test]
    fn sentences_end_at_terminators_before_space_and_at_line_breaks() {
        let text = "No reminder exists. Version 1.5 is set; then\nstop";
        let sentence_of: Vec<usize> = words(text).iter().map(|w| w.sentence).collect();
        // No | reminder | exists . Version | 1 . 5 | is | set ; then \n stop
        assert_eq!(sentence_of, vec![0, 0, 0, 1, 1, 1, 1, 1, 2, 3]);
    }

    #[test]
    fn short_texts_have_no_units() {
        assert!(units(&words("Claim reminder success")).is_empty());
        assert_eq!(units(&words("Say lunch is today")), vec![0..4]);
    }

    #[test]
    fn long_texts_give_runs_and_short_sentences() {
        let text = "One two three four. Five six seven eight nine ten.";
        let units = units(&words(text));
        // Runs of six words, then the first sentence (the second is covered by a run).
        assert_eq!(units, vec![0..6, 1..7, 2..8, 3..9, 4..10, 0..4]);
    }

    #[test]
    fn merges_overlapping_ranges_to_the_longest() {
        assert_eq!(longest_merged(vec![4..12, 0..8, 20..24]), Some(0..12));
        assert_eq!(longest_merged(vec![0..4, 10..14]), Some(0..4));
        assert_eq!(longest_merged(Vec::new()), None);
    }
}
