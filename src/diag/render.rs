//! Renderers: the only place diagnostics become text.
//!
//! * [`human`]: miette's graphical report (code, `file:line:col`, source excerpt,
//!   labels, help). Labels in other files than the primary one are shown as related
//!   reports with their own excerpt.
//! * [`json_line`]: one JSON object per diagnostic (schema in `docs/diagnostics.md`).
//! * [`github`]: a GitHub Actions workflow annotation line.

use std::fmt;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceSpan};
use serde_json::json;

use super::{Diagnostic, Label, Severity};
use crate::source::{FileId, SourceDb};

/// Options for terminal output. Snapshots use no colour and a fixed width.
#[derive(Clone, Copy, Debug)]
pub struct HumanStyle {
    pub color: bool,
    pub width: usize,
}

impl HumanStyle {
    pub const PLAIN: HumanStyle = HumanStyle {
        color: false,
        width: 100,
    };
}

/// Source lines longer than this are not quoted. A master JSON is often one line: a
/// 40 MB master was printed whole under each of its diagnostics.
const MAX_QUOTED_LINE: usize = 500;

pub fn human(diagnostic: &Diagnostic, db: &SourceDb, style: HumanStyle) -> String {
    if let Some(unquoted) = without_long_lines(diagnostic, db) {
        return human(&unquoted, db, style);
    }
    let theme = if style.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        .with_links(false);
    let report = MietteReport::new(diagnostic, db);
    let mut out = String::new();
    if handler.render_report(&mut out, &report).is_err() {
        out = format!(
            "{}[{}]: {}\n",
            diagnostic.severity.as_str(),
            diagnostic.code,
            diagnostic.message
        );
    }
    out
}

/// The diagnostic located by `file:line:col` instead of a quotation, when one of its
/// labels lies on a line too long to quote.
fn without_long_lines(d: &Diagnostic, db: &SourceDb) -> Option<Diagnostic> {
    let too_long = |label: &Label| {
        let file = db.file(label.span.file);
        let line = file.lines.line_of(label.span.start as usize);
        let end = if line + 1 < file.lines.line_count() {
            file.lines.line_start(line + 1)
        } else {
            file.text.len()
        };
        end - file.lines.line_start(line) > MAX_QUOTED_LINE
    };
    if !d.labels.iter().any(too_long) {
        return None;
    }
    let location = d.primary_span().map(|span| {
        let at = db.line_col(span.file, span.start as usize);
        format!("{}:{}:{}", db.file(span.file).name, at.line, at.column)
    });
    Some(Diagnostic {
        labels: Vec::new(),
        path: location
            .map(String::into_boxed_str)
            .or_else(|| d.path.clone()),
        ..d.clone()
    })
}

/// A view of one file's labels of a diagnostic in miette's terms.
#[derive(Debug)]
struct MietteReport {
    /// `None` for the part of a diagnostic that quotes another file.
    code: Option<&'static str>,
    severity: Option<Severity>,
    message: String,
    help: Option<String>,
    source: Option<NamedSource<String>>,
    labels: Vec<LabeledSpan>,
    related: Vec<MietteReport>,
}

impl MietteReport {
    fn new(d: &Diagnostic, db: &SourceDb) -> MietteReport {
        let primary_file = d.primary_span().map(|s| s.file);
        let mut other_files: Vec<FileId> = Vec::new();
        for label in &d.labels {
            if Some(label.span.file) != primary_file && !other_files.contains(&label.span.file) {
                other_files.push(label.span.file);
            }
        }
        let related = other_files
            .into_iter()
            .map(|file| MietteReport {
                code: None,
                severity: None,
                message: format!("{}, continued in {}", d.code, db.file(file).name),
                help: None,
                source: Some(named_source(db, file)),
                labels: labels_in(&d.labels, file),
                related: Vec::new(),
            })
            .collect();
        let message = match (&d.path, primary_file) {
            (Some(path), None) => format!("{}: {}", path, d.message),
            _ => d.message.clone(),
        };
        MietteReport {
            code: Some(d.code),
            severity: Some(d.severity),
            message,
            help: d.help.clone(),
            source: primary_file.map(|file| named_source(db, file)),
            labels: primary_file
                .map(|file| labels_in(&d.labels, file))
                .unwrap_or_default(),
            related,
        }
    }
}

fn named_source(db: &SourceDb, file: FileId) -> NamedSource<String> {
    let f = db.file(file);
    NamedSource::new(f.name.clone(), f.text.to_string())
}

fn labels_in(labels: &[Label], file: FileId) -> Vec<LabeledSpan> {
    labels
        .iter()
        .filter(|l| l.span.file == file)
        .map(|l| {
            let span = SourceSpan::from(l.span.range());
            let text = (!l.message.is_empty()).then(|| l.message.clone());
            if l.primary {
                LabeledSpan::new_primary_with_span(text, span)
            } else {
                LabeledSpan::new_with_span(text, span)
            }
        })
        .collect()
}

impl fmt::Display for MietteReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for MietteReport {}

impl miette::Diagnostic for MietteReport {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.code
            .map(|code| Box::new(code) as Box<dyn fmt::Display>)
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            Some(Severity::Error) => miette::Severity::Error,
            Some(Severity::Warning) => miette::Severity::Warning,
            None => miette::Severity::Advice,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if self.labels.is_empty() {
            None
        } else {
            Some(Box::new(self.labels.iter().cloned()))
        }
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        if self.related.is_empty() {
            None
        } else {
            Some(Box::new(
                self.related.iter().map(|r| r as &dyn miette::Diagnostic),
            ))
        }
    }
}

/// One diagnostic as a JSON object (serialized on one line).
pub fn json_value(d: &Diagnostic, db: &SourceDb) -> serde_json::Value {
    let location = |span: crate::source::Span| {
        let start = db.line_col(span.file, span.start as usize);
        let end = db.line_col(span.file, span.end as usize);
        json!({
            "file": db.file(span.file).name,
            "start": span.start,
            "end": span.end,
            "line": start.line,
            "column": start.column,
            "end_line": end.line,
            "end_column": end.column,
        })
    };
    let labels: Vec<_> = d
        .labels
        .iter()
        .map(|l| {
            let mut v = location(l.span);
            v["message"] = json!(l.message);
            v["primary"] = json!(l.primary);
            v
        })
        .collect();
    let mut value = json!({
        "code": d.code,
        "severity": d.severity.as_str(),
        "message": d.message,
    });
    match d.primary_span() {
        Some(span) => {
            for (k, v) in location(span).as_object().into_iter().flatten() {
                value[k] = v.clone();
            }
        }
        None => {
            value["file"] = json!(d.path);
        }
    }
    value["labels"] = json!(labels);
    value["help"] = json!(d.help);
    value["fix"] = match &d.fix {
        Some(fix) => {
            let mut v = location(fix.span);
            v["replacement"] = json!(fix.replacement);
            v["message"] = json!(fix.message);
            v
        }
        None => serde_json::Value::Null,
    };
    value["rendered"] = json!(human(d, db, HumanStyle::PLAIN));
    value
}

pub fn json_line(d: &Diagnostic, db: &SourceDb) -> String {
    json_value(d, db).to_string()
}

/// The closing line of `--format json`.
pub fn json_summary(errors: usize, warnings: usize, files: usize) -> String {
    json!({ "summary": { "errors": errors, "warnings": warnings, "files": files } }).to_string()
}

/// `::error file=…,line=…,col=…,endLine=…,endColumn=…,title=…::message`
pub fn github(d: &Diagnostic, db: &SourceDb) -> String {
    let kind = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut properties = Vec::new();
    match d.primary_span() {
        Some(span) => {
            let start = db.line_col(span.file, span.start as usize);
            let end = db.line_col(span.file, span.end as usize);
            properties.push(format!(
                "file={}",
                escape_property(&db.file(span.file).name)
            ));
            properties.push(format!("line={}", start.line));
            properties.push(format!("col={}", start.column));
            properties.push(format!("endLine={}", end.line));
            properties.push(format!("endColumn={}", end.column));
        }
        None => {
            if let Some(path) = &d.path {
                properties.push(format!("file={}", escape_property(path)));
            }
        }
    }
    properties.push(format!("title={}", escape_property(d.code)));
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    format!(
        "::{} {}::{}",
        kind,
        properties.join(","),
        escape_data(&message)
    )
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_located_not_quoted() {
        let mut db = SourceDb::new();
        let line = format!("{{ \"a\": \"{}\" }}", "x".repeat(100_000));
        let file = db.add("master.json", line, crate::source::Origin::User);
        let d = Diagnostic::error(crate::diag::codes::MASTER_JSON, "a mistake")
            .primary(crate::source::Span::new(file, 7..8), "here");
        let out = human(&d, &db, HumanStyle::PLAIN);
        assert!(out.len() < 1_000, "{} bytes", out.len());
        assert!(out.contains("master.json:1:8: a mistake"), "{out}");
    }

    #[test]
    fn github_escapes_data_and_properties() {
        assert_eq!(escape_data("50%\r\nx"), "50%25%0D%0Ax");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
