//! How deeply blocks and lists nest, found before pest's grammar runs (the direct
//! parser counts the same levels as it reads, and gives up past [`MAX_DEPTH`]).
//!
//! Every consumer of the tree — the builder, the resolver's data readers, the
//! formatter's printer, the language server, the tree's own drop — walks nested blocks
//! and lists by recursion, one stack frame or more per level. A file nested thousands
//! of levels deep (a fuzzer's input, a generated file gone wrong) would overflow the
//! stack and abort the process, so such a file is refused with a located diagnostic
//! before anything is built. Real suites nest a handful of levels; [`MAX_DEPTH`] leaves
//! room for imported masters, whose free-form data serde_json reads 128 levels deep.
//!
//! The scan reads the lexer's tokens ([`crate::lexer`]): brackets inside comments,
//! strings and text blocks do not count. Where it could disagree with the grammar (an unterminated
//! string) the grammar stops at that point anyway, so no deeper text is ever parsed.

use crate::diag::{codes, Diagnostic};
use crate::lexer::{tokens, TokenKind};
use crate::source::{FileId, Span};

/// The deepest nesting of blocks and lists a file may have.
pub const MAX_DEPTH: usize = 256;

/// The structural brackets of a text (`{`, `}`, `[`, `]` outside comments, strings and
/// text blocks) with their byte offsets, from the tokens the grammar's lexical rules
/// read ([`crate::lexer`]).
pub(super) fn brackets(text: &str) -> impl Iterator<Item = (usize, u8)> + '_ {
    tokens(text).filter_map(|token| {
        let bracket = match token.kind {
            TokenKind::Open => b'{',
            TokenKind::Close => b'}',
            TokenKind::ListOpen => b'[',
            TokenKind::ListClose => b']',
            _ => return None,
        };
        Some((token.start, bracket))
    })
}

/// The diagnostic for a file whose blocks and lists nest deeper than [`MAX_DEPTH`],
/// located at the bracket that opens the level too many.
pub(super) fn too_deep(file: FileId, text: &str) -> Option<Diagnostic> {
    let mut depth = 0usize;
    for (at, bracket) in brackets(text) {
        match bracket {
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(diagnostic(file, at));
                }
            }
            _ => depth = depth.saturating_sub(1),
        }
    }
    None
}

fn diagnostic(file: FileId, at: usize) -> Diagnostic {
    Diagnostic::new(
        codes::SYNTAX,
        format!("blocks and lists nest more than {MAX_DEPTH} levels deep"),
    )
    .primary(
        Span::new(file, at..at + 1),
        format!("level {} opens here", MAX_DEPTH + 1),
    )
    .help("flatten the nesting: a suite needs a few levels, and deeper files are not read")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_error_at(text: &str) -> Option<usize> {
        too_deep(FileId(0), text).map(|d| d.labels[0].span.range().start)
    }

    #[test]
    fn brackets_in_comments_strings_and_text_blocks_do_not_count() {
        let text = "a { # {\n b \"{[\" \"\"\"\n { [\n\"\"\" [ ] }";
        let found: Vec<u8> = brackets(text).map(|(_, b)| b).collect();
        assert_eq!(found, b"{[]}");
    }

    #[test]
    fn the_brackets_after_an_unclosed_text_block_do_not_count() {
        // The grammar fails at the end of the `"""` line (an empty string and one left
        // open), so it never reaches them.
        let found: Vec<u8> = brackets("a { \"\"\" x\nb { c [ ] }")
            .map(|(_, b)| b)
            .collect();
        assert_eq!(found, b"{");
    }

    #[test]
    fn the_level_too_many_is_located() {
        let ok = "x ".to_string() + &"[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert_eq!(depth_error_at(&ok), None);
        let deep = "x ".to_string() + &"{\n".repeat(MAX_DEPTH + 5);
        assert_eq!(depth_error_at(&deep), Some(2 + 2 * MAX_DEPTH));
    }

    #[test]
    fn closing_brackets_lower_the_depth() {
        let siblings = "a {}\n".repeat(MAX_DEPTH * 4);
        assert_eq!(depth_error_at(&siblings), None);
    }
}
