//! Turning pest's error into a diagnostic a person can act on.
//!
//! pest reports a position and the rules it expected there. Two mistakes are common
//! enough to deserve their own wording: a block left open at the end of the file, and a
//! string left open at the end of a line. Everything else says what was found and
//! what could stand there instead.

use pest::error::{Error, ErrorVariant, InputLocation};

use super::{strings, Rule};
use crate::diag::{codes, Diagnostic};
use crate::lexer::{tokens, TokenKind};
use crate::source::{FileId, Span};

pub(super) fn syntax_error(file: FileId, text: &str, error: &Error<Rule>) -> Diagnostic {
    let pos = match error.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((start, _)) => start,
    }
    .min(text.len());
    if let Some(quote) = unterminated_string(text, pos) {
        return Diagnostic::new(codes::SYNTAX, "unterminated string")
            .primary(Span::new(file, quote..line_end(text, quote)), "this string is not closed on its line")
            .help("close the string with `\"`; for text over several lines use a text block (\"\"\" … \"\"\")");
    }
    if pos == text.len() {
        if let Some(open) = unclosed_brace(text) {
            return Diagnostic::new(
                codes::SYNTAX,
                "unclosed block: the file ends before its `}`",
            )
            .primary(
                Span::new(file, open..open + 1),
                "this block is never closed",
            )
            .help("add the missing `}`");
        }
    }
    let expected = match &error.variant {
        ErrorVariant::ParsingError { positives, .. } => expected_list(positives),
        // pest's only custom errors are its resource limits: the stack guard stops
        // nesting deep enough to overflow the stack.
        ErrorVariant::CustomError { .. } => return too_deep(file, text, pos),
    };
    let found = describe_found(text, pos);
    let end = (pos + text[pos..].chars().next().map_or(0, char::len_utf8)).min(text.len());
    let mut d = Diagnostic::new(codes::SYNTAX, format!("unexpected {found}"))
        .primary(Span::new(file, pos..end), format!("expected {expected}"));
    if text[pos..]
        .chars()
        .next()
        .is_some_and(crate::unicode::is_invisible)
    {
        d = d.help(
            "delete the invisible character: editors may not show it (a byte order mark may only open a file)",
        );
    } else if let Some(word) = word_in_another_script(&text[pos..]) {
        d = d.help(format!(
            "names are written in ASCII letters, digits, `_`, `-` and `.`; write a name in another script as a string: `{}`",
            strings::quote(word)
        ));
    } else if text[pos..].starts_with('}') {
        d = d.help("this `}` closes no block; remove it or add the matching `{`");
    } else if text[pos..].starts_with('{') {
        d = d.help(
            "a block opens at the end of a statement, after its key and values: `key value {`",
        );
    } else {
        d = d.help(
            "a statement is a name, then values on the same line, then an optional `{ … }` block",
        );
    }
    d
}

/// The word `rest` starts with, when it starts with a letter outside ASCII (a Chinese
/// column name, an accented key), as a string would hold it.
fn word_in_another_script(rest: &str) -> Option<&str> {
    let first = rest.chars().next()?;
    if first.is_ascii() || !first.is_alphabetic() {
        return None;
    }
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .unwrap_or(rest.len());
    Some(rest[..end].trim_end_matches(['.', '-']))
}

fn too_deep(file: FileId, text: &str, pos: usize) -> Diagnostic {
    let end = (pos + text[pos..].chars().next().map_or(0, char::len_utf8)).min(text.len());
    Diagnostic::new(codes::SYNTAX, "the file nests too deeply to be parsed")
        .primary(Span::new(file, pos..end), "nested too deeply from here on")
        .help("flatten the nested lists or blocks")
}

fn line_end(text: &str, from: usize) -> usize {
    text[from..].find('\n').map_or(text.len(), |i| from + i)
}

/// The opening quote of a one-line string left open on the line containing `pos`,
/// before `pos`.
fn unterminated_string(text: &str, pos: usize) -> Option<usize> {
    let line_start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    tokens(text)
        .take_while(|t| t.start <= pos)
        .filter(|t| t.kind == TokenKind::Str && t.open && t.start >= line_start)
        // A text block's quotes are not a string left open.
        .filter(|t| !text[t.start..].starts_with("\"\"\""))
        .map(|t| t.start)
        .last()
}

/// The last `{` without its `}`, skipping strings, text blocks and comments.
fn unclosed_brace(text: &str) -> Option<usize> {
    let mut stack = Vec::new();
    for (at, bracket) in super::nesting::brackets(text) {
        match bracket {
            b'{' => stack.push(at),
            b'}' => {
                stack.pop();
            }
            _ => {}
        }
    }
    stack.pop()
}

fn describe_found(text: &str, pos: usize) -> String {
    match text[pos..].chars().next() {
        None => "end of file".to_string(),
        Some('\n') | Some('\r') => "end of line".to_string(),
        // Shown as it is, an invisible character would read as "unexpected ``".
        Some('\u{FEFF}') => "byte order mark (U+FEFF) inside the file".to_string(),
        Some(c) if crate::unicode::is_invisible(c) => {
            format!("invisible character U+{:04X}", u32::from(c))
        }
        Some(c) => format!("`{c}`"),
    }
}

fn expected_list(rules: &[Rule]) -> String {
    let mut names: Vec<&str> = rules.iter().map(|r| rule_name(*r)).collect();
    names.sort_unstable();
    names.dedup();
    match names.len() {
        0 => "something else".to_string(),
        1 => names[0].to_string(),
        n => format!("{} or {}", names[..n - 1].join(", "), names[n - 1]),
    }
}

fn rule_name(rule: Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of file",
        Rule::statement | Rule::key => "a statement",
        Rule::ident => "a name",
        Rule::number => "a number",
        Rule::string | Rule::string_body => "a string",
        Rule::text_block => "a text block",
        Rule::list => "a list",
        Rule::block => "a block",
        Rule::file => "a statement",
        Rule::COMMENT => "a comment",
        Rule::WHITESPACE => "a space",
        Rule::line_break | Rule::separator => "end of line",
        Rule::byte_order_mark => "a byte order mark",
        Rule::statements => "a statement",
        Rule::value | Rule::list_item => "a value",
    }
}
