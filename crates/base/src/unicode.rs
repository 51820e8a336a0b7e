//! What casec needs to know about Unicode characters that cannot be seen, or that look
//! like others: naming an invisible character in a syntax error, and reading text the
//! way the leak rule compares it (its tokenizer); and about scripts written without
//! spaces between words (Chinese, Japanese), which text blocks, word matching and the
//! leak rule read differently.
//!
//! The tables are small and fixed (Unicode 15.1): characters that render as nothing,
//! and letters of other scripts that are drawn like Latin ones. They are not meant to
//! be complete lists of confusables (Unicode's has thousands); they cover the letters
//! a person can type or paste to disguise English text.

/// Ranges of characters that render as nothing: the `Default_Ignorable_Code_Point`
/// property and the format characters (`Cf`): zero-width spaces and joiners, the soft
/// hyphen, direction marks and isolates, variation selectors, the byte order mark,
/// Hangul fillers, tags.
const INVISIBLE: &[(char, char)] = &[
    ('\u{00AD}', '\u{00AD}'),
    ('\u{034F}', '\u{034F}'),
    ('\u{0600}', '\u{0605}'),
    ('\u{061C}', '\u{061C}'),
    ('\u{06DD}', '\u{06DD}'),
    ('\u{070F}', '\u{070F}'),
    ('\u{0890}', '\u{0891}'),
    ('\u{08E2}', '\u{08E2}'),
    ('\u{115F}', '\u{1160}'),
    ('\u{17B4}', '\u{17B5}'),
    ('\u{180B}', '\u{180F}'),
    ('\u{200B}', '\u{200F}'),
    ('\u{202A}', '\u{202E}'),
    ('\u{2060}', '\u{206F}'),
    ('\u{3164}', '\u{3164}'),
    ('\u{FE00}', '\u{FE0F}'),
    ('\u{FEFF}', '\u{FEFF}'),
    ('\u{FFA0}', '\u{FFA0}'),
    ('\u{FFF0}', '\u{FFFB}'),
    ('\u{110BD}', '\u{110BD}'),
    ('\u{110CD}', '\u{110CD}'),
    ('\u{13430}', '\u{1343F}'),
    ('\u{1BCA0}', '\u{1BCA3}'),
    ('\u{1D173}', '\u{1D17A}'),
    ('\u{E0000}', '\u{E0FFF}'),
];

/// Whether `c` renders as nothing (see [`INVISIBLE`]).
pub fn is_ignorable(c: char) -> bool {
    INVISIBLE
        .binary_search_by(|&(first, last)| {
            if last < c {
                std::cmp::Ordering::Less
            } else if first > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Whether a syntax error should name `c` by its code point rather than show it: it
/// renders as nothing, or as a space that is not one (a no-break space), or is a
/// control character.
pub fn is_invisible(c: char) -> bool {
    c.is_control() || (c.is_whitespace() && c != ' ') || is_ignorable(c)
}

/// Letters of other scripts drawn like Latin letters, and digits written for the
/// letters they resemble, each with the lowercase Latin letter it stands for. Applied
/// after NFKC (which already folds fullwidth and mathematical letters) and lowercasing,
/// so only lowercase forms are listed, except for capitals whose lowercase form looks
/// different (Cyrillic `В` is drawn like `B`, its `в` is not like `b`).
const LOOK_ALIKES: &[(char, char)] = &[
    ('0', 'o'),
    ('1', 'l'),
    ('3', 'e'),
    ('4', 'a'),
    ('5', 's'),
    ('7', 't'),
    // Greek
    ('α', 'a'),
    ('β', 'b'),
    ('ε', 'e'),
    ('η', 'n'),
    ('ι', 'i'),
    ('κ', 'k'),
    ('ν', 'v'),
    ('ο', 'o'),
    ('ρ', 'p'),
    ('τ', 't'),
    ('υ', 'u'),
    ('χ', 'x'),
    ('ζ', 'z'),
    ('μ', 'u'),
    // Cyrillic
    ('а', 'a'),
    ('в', 'b'),
    ('е', 'e'),
    ('ё', 'e'),
    ('з', 'e'),
    ('к', 'k'),
    ('м', 'm'),
    ('н', 'h'),
    ('о', 'o'),
    ('р', 'p'),
    ('с', 'c'),
    ('т', 't'),
    ('у', 'y'),
    ('х', 'x'),
    ('ѕ', 's'),
    ('і', 'i'),
    ('ї', 'i'),
    ('ј', 'j'),
    ('һ', 'h'),
    ('ԁ', 'd'),
    ('ԛ', 'q'),
    ('ԝ', 'w'),
    ('ӏ', 'l'),
    ('ү', 'y'),
    ('ɡ', 'g'),
];

/// The Latin letter `c` looks like, or `c` itself. `c` is lowercase.
pub fn fold_look_alike(c: char) -> char {
    if c.is_ascii() {
        return char::from(fold_look_alike_ascii(c as u8));
    }
    LOOK_ALIKES
        .iter()
        .find(|(from, _)| *from == c)
        .map_or(c, |&(_, to)| to)
}

/// [`fold_look_alike`] of an ASCII byte (which is always ASCII), by table: most prose
/// is ASCII, and a digit or punctuation mark would otherwise search the whole list.
pub const fn fold_look_alike_ascii(b: u8) -> u8 {
    ASCII_FOLDED[(b & 0x7f) as usize]
}

/// The look-alike folding of every ASCII character; a look-alike list that folded an
/// ASCII character to another script would not compile.
const ASCII_FOLDED: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        table[i] = i as u8;
        i += 1;
    }
    // Backwards, so that the first entry for a character wins, as in the list search.
    let mut j = LOOK_ALIKES.len();
    while j > 0 {
        j -= 1;
        let (from, to) = LOOK_ALIKES[j];
        if from.is_ascii() && !from.is_ascii_lowercase() {
            assert!(to.is_ascii(), "an ASCII look-alike folds to ASCII");
            table[from as usize] = to as u8;
        }
    }
    table
};

/// Whether `c` is a letter of a script written without spaces between words: Han
/// (CJK unified ideographs, their extensions and compatibility forms), hiragana and
/// katakana (halfwidth too). Korean is written with spaces, so Hangul is not one.
pub fn is_unspaced_letter(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}'      // hiragana, katakana
        | '\u{31F0}'..='\u{31FF}'    // katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}'    // CJK extension A
        | '\u{4E00}'..='\u{9FFF}'    // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}'    // CJK compatibility ideographs
        | '\u{FF66}'..='\u{FF9F}'    // halfwidth katakana
        | '\u{20000}'..='\u{3134F}') // CJK extensions B to G
}

/// Whether a line break next to `c` is no space when the line on its other side
/// meets another such character: a letter of [`is_unspaced_letter`], or CJK
/// punctuation (`、。「」`) or a fullwidth form (`，！？：`). CSS reads line breaks in
/// East Asian text the same way (CSS Text 3, segment break transformation).
pub fn joins_lines_without_space(c: char) -> bool {
    is_unspaced_letter(c) || matches!(c, '\u{3000}'..='\u{303F}' | '\u{FF00}'..='\u{FFEF}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_and_japanese_are_unspaced_and_korean_is_not() {
        for c in ['会', '議', 'ひ', 'カ', 'ｶ', '𠀋'] {
            assert!(is_unspaced_letter(c), "{c:?}");
        }
        for c in ['한', 'a', '1', '。', '，'] {
            assert!(!is_unspaced_letter(c), "{c:?}");
        }
        assert!(joins_lines_without_space('。') && joins_lines_without_space('，'));
        assert!(!joins_lines_without_space('.') && !joins_lines_without_space('한'));
    }

    #[test]
    fn invisible_ranges_are_sorted_and_found() {
        assert!(INVISIBLE.windows(2).all(|w| w[0].1 < w[1].0));
        for c in ['\u{200B}', '\u{00AD}', '\u{FEFF}', '\u{2060}', '\u{E0041}'] {
            assert!(is_ignorable(c), "{c:?}");
        }
        for c in ['a', ' ', '\u{00A0}', 'é'] {
            assert!(!is_ignorable(c), "{c:?}");
        }
        assert!(is_invisible('\u{00A0}') && is_invisible('\u{7}') && !is_invisible('x'));
    }

    #[test]
    fn the_ascii_table_folds_as_the_list_does() {
        for b in 0..128u8 {
            let listed = LOOK_ALIKES
                .iter()
                .find(|(from, _)| *from == char::from(b) && !b.is_ascii_lowercase())
                .map_or(char::from(b), |&(_, to)| to);
            assert_eq!(char::from(fold_look_alike_ascii(b)), listed, "{b}");
        }
    }

    #[test]
    fn look_alikes_fold_to_latin() {
        let folded: String = "сlаіm reміnder 5ucce55"
            .chars()
            .map(fold_look_alike)
            .collect();
        assert_eq!(folded, "claim reminder success");
        assert_eq!(fold_look_alike('é'), 'é');
    }
}
