//! Edits the server proposes: a quick fix for each diagnostic of the document that has
//! a machine-applicable [`Fix`](crate::diag::Fix), and whole-document formatting.
//!
//! Formatting returns only the lines that change (a line diff of the document against
//! `casec fmt`'s output), so the client keeps cursors, folds and marks elsewhere. A
//! document that does not parse is not formatted: the result is `null`, and its
//! syntax diagnostics are already published.

use std::collections::HashMap;

use lsp_types::{CodeAction, CodeActionKind, Range, TextEdit, WorkspaceEdit};
use similar::{DiffOp, TextDiff};

use crate::fmt::format_source;

use super::convert;
use super::view::View;
use super::workspace;

/// The quick fixes for the diagnostics of the document that touch `range`.
pub fn code_actions(view: &View, range: Range) -> Vec<CodeAction> {
    let (start, end) = convert::byte_range(view.text, view.lines, range);
    let db = &view.unit.compilation.db;
    let uri_for = |name: &str| workspace::uri_for(view.documents(), name);
    view.unit
        .compilation
        .diagnostics
        .iter()
        .filter_map(|d| {
            let fix = d.fix.as_ref()?;
            let span = d.primary_span()?;
            let touches = span.start as usize <= end && start <= span.end as usize;
            (span.file == view.file && fix.span.file == view.file && touches).then_some((d, fix))
        })
        .map(|(d, fix)| {
            let edit = TextEdit::new(convert::range(db, fix.span), fix.replacement.clone());
            CodeAction {
                title: fix.message.clone(),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![convert::diagnostic(d, db, &uri_for)]),
                edit: Some(WorkspaceEdit {
                    changes: Some(HashMap::from([(view.uri.clone(), vec![edit])])),
                    ..WorkspaceEdit::default()
                }),
                is_preferred: Some(true),
                ..CodeAction::default()
            }
        })
        .collect()
}

/// The edits that turn the document into its canonical form, or `None` when it does
/// not parse.
pub fn formatting(view: &View) -> Option<Vec<TextEdit>> {
    let formatted = format_source(view.file, view.text).ok()?;
    Some(line_edits(view, &formatted))
}

/// One edit per run of changed lines between the document and `new`.
fn line_edits(view: &View, new: &str) -> Vec<TextEdit> {
    let diff = TextDiff::from_lines(view.text, new);
    let old_starts = line_starts(diff.old_slices());
    let new_starts = line_starts(diff.new_slices());
    diff.ops()
        .iter()
        .filter(|op| !matches!(op, DiffOp::Equal { .. }))
        .map(|op| {
            let (old_lines, new_lines) = (op.old_range(), op.new_range());
            let range = view.range(old_starts[old_lines.start], old_starts[old_lines.end]);
            let text = &new[new_starts[new_lines.start]..new_starts[new_lines.end]];
            TextEdit::new(range, text.to_string())
        })
        .collect()
}

/// The byte offset where each line starts, then the text's end: `starts[n]..starts[n + 1]`
/// is line `n` as the diff split it (with its line break).
fn line_starts(lines: &[&str]) -> Vec<usize> {
    let mut starts = Vec::with_capacity(lines.len() + 1);
    let mut at = 0;
    starts.push(at);
    for line in lines {
        at += line.len();
        starts.push(at);
    }
    starts
}
