//! The tokens of a text as the grammar's lexical rules read them, from a lexer that
//! never fails: for the places that read a file the parsers have no tree for.
//!
//! The nesting scan ([`crate::nesting`]) reads the brackets of a file before pest
//! recurses into it, a syntax error's help looks for the string or block left open,
//! and the language server reads what the cursor is on while a file is half typed.
//! What the grammar would reject is still a token ([`TokenKind::Other`] for a character
//! no rule starts with, an open string for one whose closing quote is missing), so all
//! of them read the same tokens of any text; the parsers (`direct.rs`, pest) read the
//! files that parse.
//!
//! One reading differs from the grammar's, where the grammar stops anyway: a text
//! block whose closing `"""` is missing is one open string to the end of the text (the
//! text an author is still typing), where the grammar reads an empty string and a
//! string left open on that line, and fails there. No bracket after that point is ever
//! parsed, so the nesting scan may skip them too.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// A name or a number: a run of ASCII letters, digits, `_`, `-` and `.`.
    Word,
    /// A string or a text block, closed or left open.
    Str,
    /// `{`
    Open,
    /// `}`
    Close,
    /// `[`
    ListOpen,
    /// `]`
    ListClose,
    /// What ends a statement outside a list: a line break or `;`.
    End,
    /// `#` to the end of its line.
    Comment,
    /// Any other character.
    Other,
}

/// A token and its byte range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
    /// A string whose closing quote is missing: it runs to the end of its line, which
    /// the grammar would reject there.
    pub open: bool,
}

/// Every token of `text`, in order. A text block (`"""` … `"""`) is one token, and so is
/// one left open (to the end of the text).
pub fn tokens(text: &str) -> impl Iterator<Item = Token> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let (token, next) = next_token(text, at)?;
        at = next;
        Some(token)
    })
}

/// The token at or after `from`, and where reading goes on after it.
fn next_token(text: &str, from: usize) -> Option<(Token, usize)> {
    let start = from + text[from..].find(|c| !matches!(c, ' ' | '\t' | '\r'))?;
    let c = text[start..].chars().next()?;
    let token = |kind, end| Token {
        kind,
        start,
        end,
        open: false,
    };
    let token = match c {
        '\n' | ';' => token(TokenKind::End, start + 1),
        '{' => token(TokenKind::Open, start + 1),
        '}' => token(TokenKind::Close, start + 1),
        '[' => token(TokenKind::ListOpen, start + 1),
        ']' => token(TokenKind::ListClose, start + 1),
        '#' => token(TokenKind::Comment, line_end(text, start)),
        '"' => string(text, start),
        c if is_word_char(c) => {
            let end = text[start..]
                .find(|c: char| !is_word_char(c))
                .map_or(text.len(), |n| start + n);
            token(TokenKind::Word, end)
        }
        c => token(TokenKind::Other, start + c.len_utf8()),
    };
    Some((token, token.end))
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

fn line_end(text: &str, from: usize) -> usize {
    text[from..].find('\n').map_or(text.len(), |i| from + i)
}

/// The string or text block whose opening quote is at `open`.
fn string(text: &str, open: usize) -> Token {
    if text[open..].starts_with("\"\"\"") {
        return match text[open + 3..].find("\"\"\"") {
            Some(close) => closed_string(open, open + 3 + close + 3),
            None => open_string(open, text.len()),
        };
    }
    // A one-line string: a backslash escapes the next character, but not a line break.
    let mut chars = text[open + 1..].char_indices();
    while let Some((i, c)) = chars.next() {
        let at = open + 1 + i;
        match c {
            '"' => return closed_string(open, at + 1),
            '\n' => return open_string(open, at),
            '\\' if text[at + 1..].starts_with('\n') || text[at + 1..].starts_with("\r\n") => {
                return open_string(open, at + 1)
            }
            '\\' => {
                chars.next();
            }
            _ => {}
        }
    }
    open_string(open, text.len())
}

fn closed_string(start: usize, end: usize) -> Token {
    Token {
        kind: TokenKind::Str,
        start,
        end,
        open: false,
    }
}

fn open_string(start: usize, end: usize) -> Token {
    Token {
        open: true,
        ..closed_string(start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(TokenKind, &str, bool)> {
        tokens(text)
            .map(|t| (t.kind, &text[t.start..t.end], t.open))
            .collect()
    }

    #[test]
    fn statements_strings_and_brackets() {
        use TokenKind::*;
        assert_eq!(
            kinds("case TUJ-1 \"a \\\" b\" {\r\n tags [x, 2.5]; # c {\n}"),
            [
                (Word, "case", false),
                (Word, "TUJ-1", false),
                (Str, "\"a \\\" b\"", false),
                (Open, "{", false),
                (End, "\n", false),
                (Word, "tags", false),
                (ListOpen, "[", false),
                (Word, "x", false),
                (Other, ",", false),
                (Word, "2.5", false),
                (ListClose, "]", false),
                (End, ";", false),
                (Comment, "# c {", false),
                (End, "\n", false),
                (Close, "}", false),
            ]
        );
    }

    #[test]
    fn a_text_block_is_one_token_and_an_unclosed_one_runs_to_the_end() {
        use TokenKind::*;
        assert_eq!(
            kinds("p \"\"\"\n { [\n\"\"\" x"),
            [
                (Word, "p", false),
                (Str, "\"\"\"\n { [\n\"\"\"", false),
                (Word, "x", false)
            ]
        );
        assert_eq!(
            kinds("p \"\"\" x\n{ q [\n"),
            [(Word, "p", false), (Str, "\"\"\" x\n{ q [\n", true)]
        );
    }

    #[test]
    fn a_string_left_open_ends_at_its_line_break_even_after_a_backslash() {
        use TokenKind::*;
        assert_eq!(
            kinds("a \"x\\\nb \"é"),
            [
                (Word, "a", false),
                (Str, "\"x\\", true),
                (End, "\n", false),
                (Word, "b", false),
                (Str, "\"é", true),
            ]
        );
    }

    #[test]
    fn any_text_is_read_to_its_end() {
        for text in [
            "", "\"", "\"\"\"", "é😀", "a\\", "x \"\\", "\"\\é", "\r\r\n\t",
        ] {
            let read: Vec<Token> = tokens(text).collect();
            assert!(read.windows(2).all(|w| w[0].end <= w[1].start), "{text:?}");
            assert!(read.iter().all(|t| t.start < t.end && t.end <= text.len()));
        }
    }
}
