//! What formatting must not change, in comparable form.
//!
//! * [`shape`]: the syntax tree without spans or trivia. A text block and a quoted
//!   string with the same value are *different* here: the compiler treats them alike,
//!   but the formatter promises to keep each string in the style it was written in, so
//!   the tests hold it to the stricter comparison.
//! * [`tokens`]: every token and comment in source order, commas and semicolons left
//!   out (the formatter may add or drop them), each comment marked as written after
//!   code on its line or on a line of its own. Equal token streams mean every comment
//!   kept its place among the tokens around it and its kind of line. A text block is
//!   one token: its lines, trimmed, with runs of blank lines as one paragraph break,
//!   so moving a word to another line (re-wrapping) is a change.

use casec::source::FileId;
use casec::syntax::ast::{Block, File, ListItem, Statement, StringStyle, Value, ValueKind};
use casec::syntax::parse;

#[derive(Debug, PartialEq)]
pub enum Shape {
    Statement {
        key: String,
        quoted_key: bool,
        values: Vec<Shape>,
        block: Option<Vec<Shape>>,
    },
    Str {
        text: String,
        text_block: bool,
    },
    Ident(String),
    Number(String),
    List(Vec<Shape>),
    Block(Vec<Shape>),
}

/// Parses `text`, which must be free of errors.
pub fn parse_clean(text: &str) -> File {
    let parsed = parse(FileId(0), text);
    assert!(
        !parsed.diagnostics.iter().any(|d| d.is_error()),
        "does not parse cleanly: {:?}\n{text}",
        parsed.diagnostics
    );
    parsed.file.expect("a tree")
}

pub fn shape(text: &str) -> Vec<Shape> {
    parse_clean(text).statements.iter().map(statement).collect()
}

fn statement(s: &Statement) -> Shape {
    Shape::Statement {
        key: s.key.name.to_string(),
        quoted_key: s.key.quoted,
        values: s.values.iter().map(value).collect(),
        block: s.block.as_ref().map(block),
    }
}

fn block(b: &Block) -> Vec<Shape> {
    b.statements.iter().map(statement).collect()
}

fn value(v: &Value) -> Shape {
    match &v.kind {
        ValueKind::Str { text, style } => Shape::Str {
            text: text.to_string(),
            text_block: *style == StringStyle::TextBlock,
        },
        ValueKind::Ident(name) => Shape::Ident(name.to_string()),
        ValueKind::Number(n) => Shape::Number(n.to_string()),
        ValueKind::List(items) => Shape::List(
            items
                .iter()
                .map(|item| match item {
                    ListItem::Value(v) => value(v),
                    ListItem::Block(b) => Shape::Block(block(b)),
                })
                .collect(),
        ),
    }
}

pub fn tokens(text: &str) -> Vec<String> {
    let file = parse_clean(text);
    let mut found: Vec<(usize, String)> = Vec::new();
    for s in &file.statements {
        statement_tokens(text, s, &mut found);
    }
    for c in &file.comments {
        let range = c.range();
        let line_start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
        // A byte order mark opening the file, and separators, are not code before a
        // comment: they are no tokens either.
        let before = text[line_start..range.start].trim_start_matches('\u{FEFF}');
        let kind = if before
            .chars()
            .all(|c| c.is_whitespace() || c == ';' || c == ',')
        {
            "own-line"
        } else {
            "trailing"
        };
        found.push((range.start, format!("{kind} {}", text[range].trim_end())));
    }
    found.sort_by_key(|(offset, _)| *offset);
    found.into_iter().map(|(_, token)| token).collect()
}

fn statement_tokens(text: &str, s: &Statement, out: &mut Vec<(usize, String)>) {
    out.push((
        s.key.span.range().start,
        format!("key {}", &text[s.key.span.range()]),
    ));
    for v in &s.values {
        value_tokens(text, v, out);
    }
    if let Some(b) = &s.block {
        block_tokens(text, b, out);
    }
}

fn block_tokens(text: &str, b: &Block, out: &mut Vec<(usize, String)>) {
    let range = b.span.range();
    out.push((range.start, "{".into()));
    for s in &b.statements {
        statement_tokens(text, s, out);
    }
    out.push((range.end - 1, "}".into()));
}

fn value_tokens(text: &str, v: &Value, out: &mut Vec<(usize, String)>) {
    let range = v.span.range();
    match &v.kind {
        ValueKind::List(items) => {
            out.push((range.start, "[".into()));
            for item in items {
                match item {
                    ListItem::Value(v) => value_tokens(text, v, out),
                    ListItem::Block(b) => block_tokens(text, b, out),
                }
            }
            out.push((range.end - 1, "]".into()));
        }
        ValueKind::Str {
            style: StringStyle::TextBlock,
            ..
        } => out.push((
            range.start,
            format!("text block {:?}", text_block_lines(&text[range])),
        )),
        _ => out.push((range.start, text[range].to_string())),
    }
}

/// The trimmed lines between a text block's quote lines; `""` marks a paragraph break.
fn text_block_lines(raw: &str) -> Vec<&str> {
    let pieces: Vec<&str> = raw.split('\n').collect();
    let mut lines: Vec<&str> = Vec::new();
    for line in pieces[1..pieces.len() - 1].iter().map(|l| l.trim()) {
        if !line.is_empty() || lines.last().is_some_and(|l| !l.is_empty()) {
            lines.push(line);
        }
    }
    if lines.last() == Some(&"") {
        lines.pop();
    }
    lines
}
