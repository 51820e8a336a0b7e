//! What the cursor is on, read from the text alone.
//!
//! Completion runs while a file is half-typed, when the parser often has no tree to
//! give (an unclosed string or block). So the position is read from the tokens of the
//! syntax's lexer that never fails ([`crate::syntax::lexer`]): tokens, statement ends
//! and braces are enough to tell the enclosing blocks (`case TUJ-1 { override note_add "…" { … } }`), the statement
//! under the cursor and which of its values is being written. Meaning is then given by
//! the schema tables, as for the resolver.

use crate::syntax::lexer::{tokens, Token, TokenKind};

/// A name (or the empty place for one) and its byte range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    pub start: usize,
    pub end: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum At {
    /// The key of a statement, or the empty start of one.
    Key(Word),
    /// A value that is a name (or the place for one): `index` counts the values before it.
    Value {
        key: String,
        index: usize,
        word: Word,
    },
    /// Inside a string value of the statement `key`; `word` is the run of letters and
    /// digits around the cursor (a record id such as `M1`).
    Text { key: String, word: Word },
    /// A comment, punctuation, or anything else that names nothing.
    Nothing,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Context {
    /// The keys of the statements that opened the enclosing blocks, outermost first
    /// (`case`, then `override`): the path the schema knows.
    pub blocks: Vec<String>,
    /// Keys of the other statements directly in the innermost block.
    pub siblings: Vec<String>,
    pub at: At,
}

impl Context {
    pub fn path(&self) -> Vec<&str> {
        self.blocks.iter().map(String::as_str).collect()
    }
}

/// The context of the byte `offset` of `text` (clamped to the text).
pub fn context(text: &str, offset: usize) -> Context {
    let offset = floor_char_boundary(text, offset);
    let mut walk = Walk::default();
    let mut found: Option<(Vec<String>, At)> = None;
    // Open blocks when the cursor was found: the walk goes on to the end of the
    // cursor's block, to learn the keys written after the cursor too.
    let mut depth = 0;
    for token in tokens(text) {
        if found.is_none() {
            if contains(&token, offset) {
                found = Some(walk.snapshot(text, Some(&token), offset));
            } else if token.start >= offset {
                found = Some(walk.snapshot(text, None, offset));
            }
            depth = walk.frames.len();
        }
        walk.step(text, &token);
        if found.is_some() && walk.frames.len() < depth {
            break;
        }
    }
    let (blocks, at) = match found {
        Some(found) => found,
        None => {
            depth = walk.frames.len();
            walk.snapshot(text, None, offset)
        }
    };
    let mut siblings = match depth {
        0 => walk.top_keys,
        n if walk.frames.len() >= n => walk.frames.swap_remove(n - 1).keys,
        _ => walk.closed_keys,
    };
    if let At::Key(word) = &at {
        if let Some(own) = siblings.iter().position(|k| *k == word.text) {
            siblings.remove(own);
        }
    }
    Context {
        blocks,
        siblings,
        at,
    }
}

fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// Whether the cursor at `offset` is on the token: at either end of a name, strictly
/// inside a closed string, anywhere after the opening quote of an unclosed one.
fn contains(token: &Token, offset: usize) -> bool {
    match token.kind {
        TokenKind::Word => token.start <= offset && offset <= token.end,
        TokenKind::Str if token.open => token.start < offset && offset <= token.end,
        TokenKind::Str | TokenKind::Comment => token.start < offset && offset < token.end,
        _ => false,
    }
}

struct Frame {
    /// The key of the statement that opened the block.
    key: String,
    /// Keys of the statements of this block seen so far.
    keys: Vec<String>,
}

/// The lexer's walk through the statements, one token at a time.
#[derive(Default)]
struct Walk {
    /// Open blocks; the file itself is not one.
    frames: Vec<Frame>,
    top_keys: Vec<String>,
    /// The statement being read: its tokens so far.
    current: Vec<Token>,
    /// Open `[` of the current statement: line ends inside a list do not end it.
    list_depth: usize,
    /// The keys of the block that closed last, kept for the cursor's own block.
    closed_keys: Vec<String>,
}

impl Walk {
    fn step(&mut self, text: &str, token: &Token) {
        match token.kind {
            TokenKind::Comment | TokenKind::Other => {}
            TokenKind::End if self.list_depth == 0 => self.end_statement(text),
            TokenKind::End => {}
            TokenKind::ListOpen => {
                self.list_depth += 1;
                self.current.push(*token);
            }
            TokenKind::ListClose => {
                self.list_depth = self.list_depth.saturating_sub(1);
                self.current.push(*token);
            }
            TokenKind::Open => {
                let key = self.key(text);
                self.end_statement(text);
                self.list_depth = 0;
                self.frames.push(Frame {
                    key,
                    keys: Vec::new(),
                });
            }
            TokenKind::Close => {
                self.end_statement(text);
                self.list_depth = 0;
                if let Some(frame) = self.frames.pop() {
                    self.closed_keys = frame.keys;
                }
            }
            TokenKind::Word | TokenKind::Str => self.current.push(*token),
        }
    }

    fn end_statement(&mut self, text: &str) {
        if let Some(first) = self.current.first() {
            let key = word_text(text, first);
            match self.frames.last_mut() {
                Some(frame) => frame.keys.push(key),
                None => self.top_keys.push(key),
            }
        }
        self.current.clear();
    }

    fn key(&self, text: &str) -> String {
        self.current
            .first()
            .map(|t| word_text(text, t))
            .unwrap_or_default()
    }

    /// The blocks and what is at `offset` (on `token`, if any).
    fn snapshot(&self, text: &str, token: Option<&Token>, offset: usize) -> (Vec<String>, At) {
        let blocks = self.frames.iter().map(|f| f.key.clone()).collect();
        let at = match token {
            Some(t) if t.kind == TokenKind::Comment => At::Nothing,
            Some(t) if t.kind == TokenKind::Str => self.in_string(text, offset),
            Some(t) => self.slot(text, word_text(text, t), t.start, t.end),
            None => self.slot(text, String::new(), offset, offset),
        };
        (blocks, at)
    }

    fn slot(&self, text: &str, word: String, start: usize, end: usize) -> At {
        let word = Word {
            text: word,
            start,
            end,
        };
        match self.current.first() {
            None => At::Key(word),
            Some(_) if self.list_depth > 0 => At::Nothing,
            Some(key) => At::Value {
                key: word_text(text, key),
                index: self.current.len() - 1,
                word,
            },
        }
    }

    fn in_string(&self, text: &str, offset: usize) -> At {
        match self.current.first() {
            Some(key) if key.kind == TokenKind::Word => At::Text {
                key: word_text(text, key),
                word: id_around(text, offset),
            },
            _ => At::Nothing,
        }
    }
}

fn word_text(text: &str, token: &Token) -> String {
    text.get(token.start..token.end).unwrap_or("").to_string()
}

/// The run of ASCII letters and digits around `offset`.
fn id_around(text: &str, offset: usize) -> Word {
    let bytes = text.as_bytes();
    let is_id = |b: u8| b.is_ascii_alphanumeric();
    let mut start = offset;
    while start > 0 && is_id(bytes[start - 1]) {
        start -= 1;
    }
    let mut end = offset;
    while end < bytes.len() && is_id(bytes[end]) {
        end += 1;
    }
    Word {
        text: text[start..end].to_string(),
        start,
        end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The context at the `|` of `marked`, which is removed from the text.
    fn at(marked: &str) -> Context {
        let offset = marked.find('|').expect("a cursor mark");
        let text = marked.replacen('|', "", 1);
        context(&text, offset)
    }

    fn word(text: &str, start: usize, end: usize) -> Word {
        Word {
            text: text.to_string(),
            start,
            end,
        }
    }

    #[test]
    fn a_new_line_in_a_case_is_a_key_with_the_case_as_its_block() {
        let c = at("case A \"t\" {\n  category x\n  |\n  user \"u\"\n}\n");
        assert_eq!(c.path(), ["case"]);
        assert_eq!(c.siblings, ["category", "user"]);
        assert_eq!(c.at, At::Key(word("", 28, 28)));
    }

    #[test]
    fn a_partial_value_names_its_statement_and_index() {
        let c = at("case A \"t\" {\n  tags a med|\n");
        assert_eq!(c.path(), ["case"]);
        assert_eq!(
            c.at,
            At::Value {
                key: "tags".into(),
                index: 1,
                word: word("med", 22, 25)
            }
        );
    }

    #[test]
    fn nested_blocks_and_closed_ones_are_followed() {
        let text = "case A \"t\" {\n  override w \"m\" { result \"r\" }\n  followup {\n    as|";
        let c = at(text);
        assert_eq!(c.path(), ["case", "followup"]);
        assert!(matches!(c.at, At::Key(ref w) if w.text == "as"));
        let c = at("case A \"t\" { check \"x\" { evidence \"e\" } }\n|");
        assert!(c.path().is_empty());
    }

    #[test]
    fn strings_give_the_id_around_the_cursor() {
        let c = at("case A \"t\" {\n  check \"Read M|1 — then 😀\"\n}");
        assert_eq!(
            c.at,
            At::Text {
                key: "check".into(),
                word: word("M1", 27, 29)
            }
        );
    }

    #[test]
    fn an_unclosed_string_still_holds_the_cursor_at_its_end() {
        let c = at("case A \"t\" {\n  final \"Q|");
        assert!(matches!(c.at, At::Text { ref key, .. } if key == "final"));
    }

    #[test]
    fn text_blocks_comments_and_lists_are_single_tokens() {
        let c = at("suite \"s\" {\n  purpose \"\"\"\n    {  M|\n  \"\"\"\n}");
        assert!(matches!(c.at, At::Text { ref key, .. } if key == "purpose"));
        assert_eq!(c.path(), ["suite"]);
        assert_eq!(at("# tags |x\n").at, At::Nothing);
        let c = at("suite \"s\" {\n  reference_data {\n    pages [1,\n      |2]\n  }\n}");
        assert_eq!(c.at, At::Nothing);
        assert_eq!(c.path(), ["suite", "reference_data"]);
    }

    #[test]
    fn a_text_block_still_being_typed_holds_the_cursor() {
        let c = at("suite \"s\" {\n  purpose \"\"\"\n    Read {M1\n    then |");
        assert!(matches!(c.at, At::Text { ref key, .. } if key == "purpose"));
        assert_eq!(c.path(), ["suite"]);
    }

    #[test]
    fn anything_at_all_gives_a_context() {
        for text in [
            "", "}", "}}}{", "\"", "\"\"\"", "é😀", "[[[", "a\\", "x \"\\",
        ] {
            for offset in 0..=text.len() + 2 {
                let _ = context(text, offset);
            }
        }
    }
}
