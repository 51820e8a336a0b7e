//! String literals: reading (escapes, text-block folding) and writing (quoting).
//!
//! Escapes: `\"`, `\\`, `\n`, `\r`, `\t` and `\u{…}` (1–6 hex digits). A text block
//! opens with `"""` at the end of a line and closes with `"""` alone on a line; each line
//! between is trimmed, consecutive lines are joined by one space (none between Chinese
//! or Japanese characters, which are written without spaces: see
//! [`joins_lines_without_space`]), and a blank line starts a new paragraph (joined by a
//! newline).

use crate::diag::{codes, Diagnostic};
use crate::source::{FileId, Span};
use crate::unicode::joins_lines_without_space;

pub fn unescape(raw: &str, file: FileId, offset: usize, diags: &mut Vec<Diagnostic>) -> String {
    if !raw.contains('\\') {
        return raw.to_string();
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some((_, e)) = chars.next() else {
            break;
        };
        match e {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'u' => {
                let rest = &raw[i + 2..];
                match unicode_escape(rest) {
                    Some((ch, len)) => {
                        out.push(ch);
                        for _ in 0..len {
                            chars.next();
                        }
                    }
                    None => {
                        let end =
                            i + 2 + rest.find('}').map(|p| p + 1).unwrap_or(0).min(rest.len());
                        diags.push(
                            Diagnostic::new(codes::INVALID_ESCAPE, "invalid unicode escape")
                                .primary(Span::new(file, offset + i..offset + end), "not a Unicode scalar value")
                                .help("write `\\u{…}` with 1 to 6 hex digits of a valid code point, e.g. `\\u{00e9}`"),
                        );
                    }
                }
            }
            other => {
                let end = i + 1 + other.len_utf8();
                diags.push(
                    Diagnostic::new(codes::INVALID_ESCAPE, format!("unknown escape `\\{other}`"))
                        .primary(Span::new(file, offset + i..offset + end), "unknown escape")
                        .help("valid escapes are \\\" \\\\ \\n \\r \\t and \\u{…}; write `\\\\` for a backslash"),
                );
                out.push(other);
            }
        }
    }
    out
}

/// Parses `{XXXX}` at the start of `rest`; returns the character and the bytes used.
fn unicode_escape(rest: &str) -> Option<(char, usize)> {
    let body = rest.strip_prefix('{')?;
    let close = body.find('}')?;
    let hex = &body[..close];
    if hex.is_empty() || hex.len() > 6 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let ch = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
    Some((ch, close + 2))
}

pub fn fold_text_block(
    raw: &str,
    file: FileId,
    start: usize,
    diags: &mut Vec<Diagnostic>,
) -> String {
    let inner = &raw[3..raw.len() - 3];
    let inner_start = start + 3;
    let Some(first_break) = inner.find('\n') else {
        diags.push(
            Diagnostic::new(codes::TEXT_BLOCK, "a text block must span several lines")
                .primary(Span::new(file, start..start + raw.len()), "written on one line")
                .help("use a quoted string \"…\" for one-line text, or put the text on the lines between the quotes"),
        );
        return String::new();
    };
    if !inner[..first_break].trim().is_empty() {
        diags.push(
            Diagnostic::new(
                codes::TEXT_BLOCK,
                "text block content must start on the line after `\"\"\"`",
            )
            .primary(
                Span::new(file, inner_start..inner_start + first_break),
                "text after the opening quotes",
            )
            .help("move this text to the next line"),
        );
    }
    let last_break = inner.rfind('\n').unwrap_or(first_break);
    if !inner[last_break + 1..].trim().is_empty() {
        let from = inner_start + last_break + 1;
        diags.push(
            Diagnostic::new(
                codes::TEXT_BLOCK,
                "the closing `\"\"\"` of a text block must be alone on its line",
            )
            .primary(
                Span::new(file, from..inner_start + inner.len()),
                "text before the closing quotes",
            )
            .help("put the closing `\"\"\"` on a line of its own"),
        );
    }
    let body = if last_break > first_break {
        &inner[first_break + 1..last_break]
    } else {
        ""
    };
    let body_start = inner_start + first_break + 1;
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut line_start = body_start;
    for line in body.split('\n') {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
        } else {
            if needs_space(&current, trimmed) {
                current.push(' ');
            }
            let lead = line.len() - line.trim_start().len();
            current.push_str(&unescape(trimmed, file, line_start + lead, diags));
        }
        line_start += line.len() + 1;
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    paragraphs.join("\n")
}

/// Whether two consecutive lines of a text block are joined by a space: not at the
/// start of a paragraph, nor between two characters of scripts written without spaces
/// (`…收入` then `写到…` is `…收入写到…`).
fn needs_space(before: &str, after: &str) -> bool {
    match (before.chars().next_back(), after.chars().next()) {
        (None, _) => false,
        (Some(last), Some(first)) => {
            !(joins_lines_without_space(last) && joins_lines_without_space(first))
        }
        (Some(_), None) => true,
    }
}

/// The quoted literal for `text`, escaping only what must be escaped.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether `text` survives a round trip through a text block unchanged: one paragraph
/// of words separated by single spaces, with nothing that would need an escape.
pub fn foldable(text: &str) -> bool {
    !text.is_empty()
        && !text.starts_with(' ')
        && !text.ends_with(' ')
        && !text.contains("  ")
        && !text.contains("\"\"\"")
        && !text.contains('\\')
        && !text
            .chars()
            .any(|c| c.is_control() || (c.is_whitespace() && c != ' '))
}

/// Splits `text` at spaces into lines of at most `width` characters (a longer word
/// stands alone on its line). A space between two Chinese or Japanese characters is
/// never a break: folding would join the lines without it.
pub fn wrap(text: &str, width: usize) -> Vec<&str> {
    let mut lines = Vec::new();
    let (mut line_start, mut line_end, mut line_chars) = (0, 0, 0);
    let mut word_start = 0;
    for word in text.split(breaks_line(text)) {
        let word_chars = word.chars().count();
        if line_end > line_start && line_chars + 1 + word_chars > width {
            lines.push(&text[line_start..line_end]);
            line_start = word_start;
            line_chars = word_chars;
        } else if line_end > line_start {
            line_chars += 1 + word_chars;
        } else {
            line_chars = word_chars;
        }
        line_end = word_start + word.len();
        word_start = line_end + 1;
    }
    lines.push(&text[line_start..line_end]);
    lines
}

/// A pattern for [`str::split`] matching the spaces of `text` a line may break at:
/// those not between two characters that [`joins_lines_without_space`].
fn breaks_line(text: &str) -> impl FnMut(char) -> bool + '_ {
    let mut previous = None;
    let mut rest = text.chars();
    move |c| {
        rest.next();
        let before = previous.replace(c);
        c == ' '
            && !(before.is_some_and(joins_lines_without_space)
                && rest.clone().next().is_some_and(joins_lines_without_space))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fold(raw: &str) -> (String, Vec<Diagnostic>) {
        let mut diags = Vec::new();
        let text = fold_text_block(raw, FileId(0), 0, &mut diags);
        (text, diags)
    }

    #[test]
    fn escapes_round_trip_through_quote() {
        let text = "a \"b\" \\ c\nd\te\u{1}é";
        let quoted = quote(text);
        let mut diags = Vec::new();
        let back = unescape(&quoted[1..quoted.len() - 1], FileId(0), 0, &mut diags);
        assert_eq!(back, text);
        assert!(diags.is_empty());
    }

    #[test]
    fn unknown_escape_is_reported_at_its_bytes() {
        let mut diags = Vec::new();
        unescape("ab\\qc", FileId(0), 10, &mut diags);
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].labels[0].span.range(), 12..14);
    }

    #[test]
    fn bad_unicode_escapes_are_reported() {
        for raw in [
            "\\u{}",
            "\\u{110000}",
            "\\u{d800}",
            "\\u1234",
            "\\u{1234567}",
        ] {
            let mut diags = Vec::new();
            unescape(raw, FileId(0), 0, &mut diags);
            assert_eq!(diags.len(), 1, "{raw}");
        }
    }

    #[test]
    fn text_blocks_fold_lines_and_keep_paragraphs() {
        let (text, diags) = fold("\"\"\"\n    one two\n    three\n\n    four\n  \"\"\"");
        assert_eq!(text, "one two three\nfour");
        assert!(diags.is_empty());
    }

    #[test]
    fn chinese_and_japanese_lines_join_without_a_space() {
        let (text, _) = fold("\"\"\"\n  请读取销售表，\n  把收入写到\n  /outputs/a.csv。\n  会議は\n  明日です\n\"\"\"");
        assert_eq!(
            text,
            "请读取销售表，把收入写到 /outputs/a.csv。会議は明日です"
        );
        // Latin text next to Chinese keeps its space, and so does Korean.
        let (text, _) = fold("\"\"\"\n  收入\n  revenue\n  한국어\n  문장\n\"\"\"");
        assert_eq!(text, "收入 revenue 한국어 문장");
    }

    #[test]
    fn text_block_layout_mistakes_are_reported() {
        assert_eq!(fold("\"\"\"one\"\"\"").1.len(), 1);
        assert_eq!(fold("\"\"\"x\n a\n\"\"\"").1.len(), 1);
        assert_eq!(fold("\"\"\"\n a\n b\"\"\"").1.len(), 1);
    }

    #[test]
    fn wrapping_then_folding_restores_foldable_text() {
        let text = "The quick brown fox jumps over the lazy dog and keeps running far away.";
        assert!(foldable(text));
        for width in [1, 5, 10, 20, 80] {
            let lines = wrap(text, width);
            assert_eq!(lines.join(" "), text);
            for line in &lines {
                assert!(
                    line.chars().count() <= width || !line.contains(' '),
                    "{width}: {line}"
                );
            }
        }
    }

    #[test]
    fn wrapping_never_breaks_where_folding_would_drop_the_space() {
        let text = "收入 写到 表格 a b 。 c";
        for width in 1..text.len() {
            let lines = wrap(text, width);
            let block = format!("\"\"\"\n{}\n\"\"\"", lines.join("\n"));
            assert_eq!(fold(&block).0, text, "{width}: {lines:?}");
        }
        assert_eq!(wrap(text, 1), ["收入 写到 表格", "a", "b", "。", "c"]);
    }

    #[test]
    fn foldable_rejects_what_folding_would_change() {
        for text in ["", " a", "a ", "a  b", "a\nb", "a\\b", "a\"\"\"b", "a\tb"] {
            assert!(!foldable(text), "{text:?}");
        }
    }
}
