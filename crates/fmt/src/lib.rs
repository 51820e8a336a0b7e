//! Formatting: a parsed file written back in the one canonical layout.
//!
//! # Guarantees
//!
//! * **Meaning is kept.** The syntax tree of the output equals the input's, ignoring
//!   spans: every key, string, name, number, list and block is written as it was
//!   written. Quoted strings, quoted keys, names and numbers are copied byte for byte
//!   (escapes included); a text block stays a text block and a quoted string stays
//!   quoted. Text blocks keep their lines and paragraph breaks, and are only
//!   re-indented: prose is never re-wrapped.
//! * **Comments are kept and stay with what they annotate**, in their original order:
//!   a comment on a line of its own stays above the statement (or list item) that
//!   follows it, a comment after code stays at the end of that code's line, a comment
//!   after an opening `{` or `[` stays on that line, and a comment before a closing `}`,
//!   `]` or the end of the file stays there. Every comment is written exactly once
//!   (see `trivia.rs`).
//! * **Idempotent and deterministic**: formatting formatted text changes nothing, and
//!   the output depends on the input text only.
//! * **Refusal, not damage**: a file with a syntax, escape or text-block error is not
//!   formatted; its diagnostics are returned instead.
//!
//! # The canonical layout
//!
//! Two spaces per level; one statement per line; one space between a key and each of
//! its values; a block opens with `{` at the end of its statement's line and closes
//! with `}` on a line of its own; an empty block is `{}`. Blank lines: at most one in a
//! row, kept where the author left one, never right after an opening `{` or `[` nor
//! before a closing one; exactly one between two top-level statements when either has
//! a block. Comments: trailing spaces removed, one space before a comment that follows
//! code. Text blocks: `"""` ends the line that opens them, content one level deeper
//! than that line, closing `"""` at that line's level. Lists written on one line stay
//! on one line as `[a, b]` (blocks in them as `{ a 1; b 2 }`); lists written over
//! several lines put each item on its own line, followed by a comma. The file ends
//! with one newline. `docs/formatting.md` is the reference with examples.

// Module headers link to the private items of their crate: they are read by
// contributors, with `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

// The layers below, under the names the modules of this crate use for them.
use casec_base::{diag, source};
use casec_syntax as syntax;

mod printer;
mod text_block;
mod trivia;

use crate::diag::Diagnostic;
use crate::source::FileId;

/// The canonical text of `text` (the file `id`), or the diagnostics that stop it
/// from being formatted.
pub fn format_source(id: FileId, text: &str) -> Result<String, Vec<Diagnostic>> {
    let parsed = syntax::parse(id, text);
    match parsed.file {
        Some(file) if !parsed.diagnostics.iter().any(Diagnostic::is_error) => {
            let trivia = trivia::Trivia::new(text, &file);
            Ok(printer::Printer::new(trivia).file(&file, text.len()))
        }
        _ => Err(parsed.diagnostics),
    }
}

#[cfg(test)]
mod tests;
