//! A diagnostic as a JSON record: a line of `--format json` (and of the Python
//! binding's lists), whose contract is `schemas/diagnostics.schema.json`. The types are
//! the record: serde writes them, and schemars derives the schema (for what serde
//! writes: a field skipped when absent is optional, an `Option` always written is
//! nullable) that the integration tests hold to the committed one
//! (`tests/record_schemas.rs`).

use schemars::JsonSchema;
use serde::Serialize;

use super::render::{human, HumanStyle};
use super::Diagnostic;
use crate::source::{SourceDb, Span};

/// One diagnostic. The location fields (`start` … `end_column`) describe the primary
/// label and are there together, or absent for a diagnostic about a whole file or run
/// (then `file` names the path, or is null).
#[derive(Serialize, JsonSchema)]
pub struct DiagnosticRecord {
    /// The stable code; see docs/diagnostics.md.
    pub code: &'static str,
    pub severity: &'static str,
    pub message: String,
    /// The file of the primary label, or the path the diagnostic is about.
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub start: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
    pub end: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub column: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub end_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub end_column: Option<usize>,
    /// Every labelled span, in the order the rule gives them.
    pub labels: Vec<LabelRecord>,
    pub help: Option<String>,
    /// A machine-applicable fix, or null.
    pub fix: Option<FixRecord>,
    /// The human rendering (no colour), as `--format human` prints it.
    pub rendered: String,
}

/// Where a span is: its file, its bytes, and its first and last lines and columns.
#[derive(Serialize, JsonSchema)]
pub struct Location {
    pub file: String,
    pub start: u32,
    pub end: u32,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

#[derive(Serialize, JsonSchema)]
pub struct LabelRecord {
    #[serde(flatten)]
    pub at: Location,
    pub message: String,
    /// The place to fix.
    pub primary: bool,
}

/// Replace the bytes `start..end` of `file` with `replacement`.
#[derive(Serialize, JsonSchema)]
pub struct FixRecord {
    #[serde(flatten)]
    pub at: Location,
    pub replacement: String,
    pub message: String,
}

/// The closing line of `--format json`.
#[derive(Serialize, JsonSchema)]
pub struct SummaryRecord {
    pub summary: Summary,
}

#[derive(Serialize, JsonSchema)]
pub struct Summary {
    pub errors: usize,
    pub warnings: usize,
    /// The files the run read.
    pub files: usize,
}

impl DiagnosticRecord {
    /// The record of `d`, whose spans point into `db`.
    pub fn of(d: &Diagnostic, db: &SourceDb) -> DiagnosticRecord {
        let capped = super::render::capped(d);
        let d = capped.as_ref().unwrap_or(d);
        let primary = d.primary_span().map(|span| Location::of(span, db));
        let file = match &primary {
            Some(at) => Some(at.file.clone()),
            None => d.path.as_deref().map(str::to_string),
        };
        DiagnosticRecord {
            code: d.code.name,
            severity: d.severity().as_str(),
            message: d.message.clone(),
            file,
            start: primary.as_ref().map(|at| at.start),
            end: primary.as_ref().map(|at| at.end),
            line: primary.as_ref().map(|at| at.line),
            column: primary.as_ref().map(|at| at.column),
            end_line: primary.as_ref().map(|at| at.end_line),
            end_column: primary.as_ref().map(|at| at.end_column),
            labels: d
                .labels
                .iter()
                .map(|l| LabelRecord {
                    at: Location::of(l.span, db),
                    message: l.message.clone(),
                    primary: l.primary,
                })
                .collect(),
            help: d.help.clone(),
            fix: d.fix.as_ref().map(|fix| FixRecord {
                at: Location::of(fix.span, db),
                replacement: fix.replacement.clone(),
                message: fix.message.clone(),
            }),
            rendered: human(d, db, HumanStyle::PLAIN),
        }
    }
}

impl Location {
    fn of(span: Span, db: &SourceDb) -> Location {
        let start = db.line_col(span.file, span.start as usize);
        let end = db.line_col(span.file, span.end as usize);
        Location {
            file: db.file(span.file).name.clone(),
            start: span.start,
            end: span.end,
            line: start.line,
            column: start.column,
            end_line: end.line,
            end_column: end.column,
        }
    }
}
