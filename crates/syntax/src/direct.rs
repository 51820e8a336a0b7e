//! The grammar of `grammar/case.pest`, followed by hand for files that parse.
//!
//! pest's generated parser was half of a build's instructions: a rule call per token,
//! each with call-limit and stack-guard bookkeeping, and a queue of pairs that the
//! builder then walked. This parser follows the same PEG rule for rule (ordered
//! choices; the implicit `WHITESPACE* (COMMENT WHITESPACE*)*` between the elements of
//! non-atomic rules, which is why a statement's span takes the spaces and the comment
//! after its last value) and builds the tree directly, with the same spans, comments
//! and string diagnostics, in the same order.
//!
//! It gives up (`None`) at the first input the grammar does not match, and then
//! [`super::parse`] runs pest, whose error a syntax error is reported from. Every
//! character that can only open one construct (`"`, `[`, `{`, `-`) commits to it: when
//! that construct fails, no other rule of the grammar can consume the character, so the
//! whole file fails in pest too. The differential test in `tests.rs` holds both parsers
//! to the same result on every `.case` file of the repository and on generated inputs.

use compact_str::CompactString;

use super::ast::*;
use super::nesting::MAX_DEPTH;
use super::strings;
use crate::diag::Diagnostic;
use crate::source::{FileId, Span};

/// The tree of a file that the grammar matches and the diagnostics of its strings;
/// `None` when the grammar does not match it (or it nests deeper than pest is left
/// to guard).
pub(super) fn parse(id: FileId, text: &str) -> Option<(File, Vec<Diagnostic>)> {
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        id,
        depth: 0,
        comments: Vec::new(),
        diagnostics: Vec::new(),
        statement_stack: Vec::new(),
        value_stack: Vec::new(),
        item_stack: Vec::new(),
    };
    let statements = parser.file()?;
    Some((
        File {
            id,
            statements,
            comments: parser.comments,
        },
        parser.diagnostics,
    ))
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    id: FileId,
    depth: usize,
    comments: Vec<Span>,
    diagnostics: Vec<Diagnostic>,
    /// The statements (values, list items) of the lists being parsed, innermost last:
    /// a list is moved out into a vector of its exact length when it ends. Every
    /// file's tree is alive during resolution, so spare capacity would be a third of a
    /// large build's peak, and growing then shrinking each list was a tenth of its
    /// parse time.
    statement_stack: Vec<Statement>,
    value_stack: Vec<Value>,
    item_stack: Vec<ListItem>,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_rest(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// Where a value may start: `text_block | string | number | ident | list`.
fn is_value_start(b: u8) -> bool {
    matches!(b, b'"' | b'-' | b'[') || b.is_ascii_digit() || is_ident_start(b)
}

/// The byte length of the UTF-8 character that `lead` opens.
fn char_len(lead: u8) -> usize {
    match lead {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn at(&self, offset: usize) -> Option<u8> {
        self.bytes.get(self.pos + offset).copied()
    }

    fn span(&self, start: usize) -> Span {
        Span::new(self.id, start..self.pos)
    }

    /// `file = { SOI ~ byte_order_mark? ~ separator* ~ statements ~ EOI }`
    fn file(&mut self) -> Option<Vec<Statement>> {
        self.skip();
        if self.text[self.pos..].starts_with('\u{FEFF}') {
            self.pos += '\u{FEFF}'.len_utf8();
        }
        self.skip();
        self.separators();
        let statements = self.statements()?;
        self.skip();
        (self.pos == self.bytes.len()).then_some(statements)
    }

    /// The implicit trivia: `WHITESPACE* (COMMENT WHITESPACE*)*`.
    fn skip(&mut self) {
        loop {
            while matches!(self.peek(), Some(b' ' | b'\t')) {
                self.pos += 1;
            }
            if self.peek() != Some(b'#') {
                return;
            }
            self.comment();
        }
    }

    /// `COMMENT = @{ "#" ~ (!line_break ~ ANY)* }`: up to a `\n` or a `\r\n`.
    fn comment(&mut self) {
        let start = self.pos;
        let end = match self.text[start..].find('\n') {
            Some(at) if self.bytes[start + at - 1] == b'\r' => start + at - 1,
            Some(at) => start + at,
            None => self.bytes.len(),
        };
        self.pos = end;
        self.comments.push(self.span(start));
    }

    /// `line_break = _{ "\r\n" | "\n" }`
    fn line_break(&mut self) -> bool {
        match (self.peek(), self.at(1)) {
            (Some(b'\n'), _) => self.pos += 1,
            (Some(b'\r'), Some(b'\n')) => self.pos += 2,
            _ => return false,
        }
        true
    }

    /// `separator = _{ line_break | ";" }`
    fn separator(&mut self) -> bool {
        if self.peek() == Some(b';') {
            self.pos += 1;
            return true;
        }
        self.line_break()
    }

    /// `separator*` and the trivia after it.
    fn separators(&mut self) {
        while self.separator() {
            self.skip();
        }
    }

    /// Trivia, line breaks and trivia again (`line_break*` between the parts of a list).
    fn skip_lines(&mut self) {
        loop {
            self.skip();
            if !self.line_break() {
                return;
            }
        }
    }

    /// `statements = _{ (statement ~ (separator+ | &"}" | &EOI))* }`
    fn statements(&mut self) -> Option<Vec<Statement>> {
        let first = self.statement_stack.len();
        while self.peek().is_some_and(|b| b == b'"' || is_ident_start(b)) {
            let statement = self.statement()?;
            self.statement_stack.push(statement);
            self.skip();
            if self.separator() {
                self.skip();
                self.separators();
            } else if !matches!(self.peek(), None | Some(b'}')) {
                return None;
            }
        }
        Some(self.statement_stack.drain(first..).collect())
    }

    /// `statement = { key ~ value* ~ block? }`, `key = _{ ident | string }`
    fn statement(&mut self) -> Option<Statement> {
        let start = self.pos;
        let key = if self.peek() == Some(b'"') {
            let (name, span) = self.string()?;
            Key {
                name: name.into(),
                quoted: true,
                span,
            }
        } else {
            let span = self.ident();
            Key {
                name: self.text[span.range()].into(),
                quoted: false,
                span,
            }
        };
        self.skip();
        let first = self.value_stack.len();
        while self.peek().is_some_and(is_value_start) {
            let value = self.value()?;
            self.value_stack.push(value);
            self.skip();
        }
        let values = self.value_stack.drain(first..).collect();
        let block = if self.peek() == Some(b'{') {
            Some(self.block()?)
        } else {
            None
        };
        Some(Statement {
            key,
            values,
            block,
            span: self.span(start),
        })
    }

    /// `block = { "{" ~ separator* ~ statements ~ "}" }`
    fn block(&mut self) -> Option<Block> {
        let start = self.pos;
        self.enter()?;
        self.pos += 1;
        self.skip();
        self.separators();
        let statements = self.statements()?;
        self.skip();
        if self.peek() != Some(b'}') {
            return None;
        }
        self.pos += 1;
        self.depth -= 1;
        Some(Block {
            statements,
            span: self.span(start),
        })
    }

    /// One level deeper; past the nesting limit the file is left to pest's guard.
    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    /// `value = _{ text_block | string | number | ident | list }`, at a value start.
    fn value(&mut self) -> Option<Value> {
        let start = self.pos;
        let kind = match self.peek()? {
            b'"' => {
                if let Some(text) = self.text_block() {
                    ValueKind::Str {
                        text: text.into(),
                        style: StringStyle::TextBlock,
                    }
                } else {
                    ValueKind::Str {
                        text: self.string()?.0.into(),
                        style: StringStyle::Quoted,
                    }
                }
            }
            b'[' => ValueKind::List(self.list()?),
            b'-' => ValueKind::Number(self.number()?),
            b if b.is_ascii_digit() => ValueKind::Number(self.number()?),
            _ => ValueKind::Ident(self.text[self.ident().range()].into()),
        };
        Some(Value {
            kind,
            span: self.span(start),
        })
    }

    /// `ident = @{ (ASCII_ALPHA | "_") ~ (ASCII_ALPHANUMERIC | "_" | "-" | ".")* }`, at
    /// an identifier's first character.
    fn ident(&mut self) -> Span {
        let start = self.pos;
        self.pos += 1;
        while self.peek().is_some_and(is_ident_rest) {
            self.pos += 1;
        }
        self.span(start)
    }

    /// `number = @{ "-"? ~ ASCII_DIGIT+ ~ ("." ~ ASCII_DIGIT+)? ~ (^"e" ~ ("+" | "-")? ~ ASCII_DIGIT+)? }`
    fn number(&mut self) -> Option<CompactString> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        if !self.digits() {
            return None;
        }
        if self.peek() == Some(b'.') && self.at(1).is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(self.at(1), Some(b'+' | b'-')));
            if self.at(1 + sign).is_some_and(|b| b.is_ascii_digit()) {
                self.pos += 1 + sign;
                self.digits();
            }
        }
        Some(self.text[start..self.pos].into())
    }

    /// `ASCII_DIGIT+`; whether there was one.
    fn digits(&mut self) -> bool {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos > start
    }

    /// `string = ${ "\"" ~ string_body ~ "\"" }`: its unescaped text and its span.
    fn string(&mut self) -> Option<(String, Span)> {
        let start = self.pos;
        let body_start = start + 1;
        let mut at = body_start;
        loop {
            let stop = self.bytes[at..]
                .iter()
                .position(|&b| matches!(b, b'"' | b'\\' | b'\n'))?;
            at += stop;
            match self.bytes[at] {
                b'"' => break,
                b'\\' => {
                    // `"\\" ~ (!line_break ~ ANY)`
                    let escaped = *self.bytes.get(at + 1)?;
                    if escaped == b'\n'
                        || (escaped == b'\r' && self.bytes.get(at + 2) == Some(&b'\n'))
                    {
                        return None;
                    }
                    at += 1 + char_len(escaped);
                }
                _ => return None,
            }
        }
        let text = strings::unescape(
            &self.text[body_start..at],
            self.id,
            body_start,
            &mut self.diagnostics,
        );
        self.pos = at + 1;
        Some((text, self.span(start)))
    }

    /// `text_block = @{ "\"\"\"" ~ (!"\"\"\"" ~ ANY)* ~ "\"\"\"" }`, folded; `None`
    /// (nothing consumed) when there is no text block here.
    fn text_block(&mut self) -> Option<String> {
        let start = self.pos;
        let rest = self.text[start..].strip_prefix("\"\"\"")?;
        let close = rest.find("\"\"\"")?;
        let end = start + 3 + close + 3;
        self.pos = end;
        Some(strings::fold_text_block(
            &self.text[start..end],
            self.id,
            start,
            &mut self.diagnostics,
        ))
    }

    /// `list = { "[" ~ line_break* ~ (list_item ~ line_break* ~ ("," ~ line_break* ~
    /// list_item ~ line_break*)* ~ ("," ~ line_break*)?)? ~ "]" }`,
    /// `list_item = _{ block | value }`
    fn list(&mut self) -> Option<Vec<ListItem>> {
        self.enter()?;
        self.pos += 1;
        self.skip_lines();
        let first = self.item_stack.len();
        while self.peek().is_some_and(|b| b == b'{' || is_value_start(b)) {
            let item = if self.peek() == Some(b'{') {
                ListItem::Block(self.block()?)
            } else {
                ListItem::Value(self.value()?)
            };
            self.item_stack.push(item);
            self.skip_lines();
            if self.peek() != Some(b',') {
                break;
            }
            self.pos += 1;
            self.skip_lines();
        }
        self.skip();
        if self.peek() != Some(b']') {
            return None;
        }
        self.pos += 1;
        self.depth -= 1;
        Some(self.item_stack.drain(first..).collect())
    }
}
