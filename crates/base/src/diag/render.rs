//! Renderers: the only place diagnostics become text.
//!
//! * [`human`]: miette's graphical report (code, `file:line:col`, source excerpt,
//!   labels, help). Labels in other files than the primary one are shown as related
//!   reports with their own excerpt.
//! * [`json_line`]: one JSON object per diagnostic (schema in `docs/diagnostics.md`).
//! * [`github`]: a GitHub Actions workflow annotation line, its file named relative to
//!   the repository root (`$GITHUB_WORKSPACE`, else the git work tree), as GitHub
//!   places annotations, whatever folder casec ran in.
//!
//! Every renderer caps what the input can make long: messages, labels and help are cut
//! at [`MAX_TEXT_CHARS`] characters, and source lines too long to quote are left out of
//! excerpts, so a diagnostic stays a few hundred bytes whatever the input.

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode, SourceSpan};

use super::record::{DiagnosticRecord, Summary, SummaryRecord};
use super::{Diagnostic, Label, Severity};
use crate::source::{lexical, FileId, Origin, SourceDb};

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

/// Messages, labels and help longer than this many characters are cut: they quote the
/// input, and a mistaken ten-million-character name was printed whole in each
/// diagnostic that named it.
pub const MAX_TEXT_CHARS: usize = 1000;

pub fn human(diagnostic: &Diagnostic, db: &SourceDb, style: HumanStyle) -> String {
    let capped = capped(diagnostic);
    let diagnostic = capped.as_ref().unwrap_or(diagnostic);
    if let Some(unquoted) = without_long_lines(diagnostic, db) {
        return render_human(&unquoted, db, style, 0);
    }
    // A long line next to a labelled one is left out of the excerpt.
    let context = if long_context(diagnostic, db) { 0 } else { 1 };
    render_human(diagnostic, db, style, context)
}

fn render_human(
    diagnostic: &Diagnostic,
    db: &SourceDb,
    style: HumanStyle,
    context: usize,
) -> String {
    let theme = if style.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        .with_links(false)
        .with_context_lines(context);
    let report = MietteReport::new(diagnostic, db);
    let mut out = String::new();
    if handler.render_report(&mut out, &report).is_err() {
        out = format!(
            "{}[{}]: {}\n",
            diagnostic.severity().as_str(),
            diagnostic.code,
            diagnostic.message
        );
    }
    out
}

/// `text` cut to [`MAX_TEXT_CHARS`] characters, saying how much was left out.
pub fn cap(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        None => Cow::Borrowed(text),
        Some((cut, _)) => {
            let left = text[cut..].chars().count();
            Cow::Owned(format!("{}… ({left} more characters)", &text[..cut]))
        }
    }
}

/// The diagnostic with its texts capped, when any is too long.
pub(super) fn capped(d: &Diagnostic) -> Option<Diagnostic> {
    let too_long = |t: &str| t.len() > MAX_TEXT_CHARS;
    let long = too_long(&d.message)
        || d.help.as_deref().is_some_and(too_long)
        || d.labels.iter().any(|l| too_long(&l.message));
    long.then(|| Diagnostic {
        message: cap(&d.message).into_owned(),
        help: d.help.as_deref().map(|h| cap(h).into_owned()),
        labels: d
            .labels
            .iter()
            .map(|l| Label {
                message: cap(&l.message).into_owned(),
                ..l.clone()
            })
            .collect(),
        ..d.clone()
    })
}

/// The byte range of the line `line` of a file (without its line break).
fn line_range(file: &crate::source::SourceFile, line: usize) -> std::ops::Range<usize> {
    let start = file.lines().line_start(line);
    let end = if line + 1 < file.lines().line_count() {
        file.lines().line_start(line + 1)
    } else {
        file.text.len()
    };
    start..end
}

/// The lines a label covers (its first to its last).
fn label_lines(db: &SourceDb, label: &Label) -> std::ops::RangeInclusive<usize> {
    let file = db.file(label.span.file);
    file.lines().line_of(label.span.start as usize)..=file.lines().line_of(label.span.end as usize)
}

fn too_long_line(file: &crate::source::SourceFile, line: usize) -> bool {
    line_range(file, line).len() > MAX_QUOTED_LINE
}

/// The diagnostic located by `file:line:col` instead of a quotation, when one of its
/// labels lies on a line too long to quote.
fn without_long_lines(d: &Diagnostic, db: &SourceDb) -> Option<Diagnostic> {
    let too_long = |label: &Label| {
        let file = db.file(label.span.file);
        label_lines(db, label).any(|line| too_long_line(file, line))
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

/// Whether a line just before or after a label (which an excerpt shows as context) is
/// too long to quote.
fn long_context(d: &Diagnostic, db: &SourceDb) -> bool {
    d.labels.iter().any(|label| {
        let file = db.file(label.span.file);
        let lines = label_lines(db, label);
        let before = lines.start().checked_sub(1);
        let after = Some(lines.end() + 1).filter(|&l| l < file.lines().line_count());
        [before, after]
            .into_iter()
            .flatten()
            .any(|line| too_long_line(file, line))
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
    source: Option<Excerpt>,
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
                source: Some(Excerpt::of(db, file, &d.labels)),
                labels: labels_in(db, &d.labels, file),
                related: Vec::new(),
            })
            .collect();
        let message = match (&d.path, primary_file) {
            (Some(path), None) => format!("{}: {}", path, d.message),
            _ => d.message.clone(),
        };
        MietteReport {
            code: Some(d.code.name),
            severity: Some(d.severity()),
            message,
            help: d.help.clone(),
            source: primary_file.map(|file| Excerpt::of(db, file, &d.labels)),
            labels: primary_file
                .map(|file| labels_in(db, &d.labels, file))
                .unwrap_or_default(),
            related,
        }
    }
}

/// Files from this size are quoted from a window around a diagnostic's labels: miette
/// finds a span's line by scanning its source from the start, and a file of 100,000
/// cases with a diagnostic each was scanned (and copied) whole for every one of them.
const WINDOW_FROM_BYTES: usize = 64 << 10;

/// The lines of a file around a diagnostic's labels, as miette reads a source: the
/// whole file when it is small, else from two lines before its first label to two lines
/// after its last (more than the context an excerpt shows), numbered as in the file.
/// Without a leading byte order mark, which the reader's editor does not show either.
/// Spans into it are relative to its start ([`labels_in`]).
#[derive(Debug)]
struct Excerpt {
    name: String,
    text: std::sync::Arc<str>,
    range: std::ops::Range<usize>,
    /// The line of the file the excerpt starts at (zero-based).
    first_line: usize,
}

impl Excerpt {
    fn of(db: &SourceDb, file: FileId, labels: &[Label]) -> Excerpt {
        const MARGIN_LINES: usize = 2;
        let f = db.file(file);
        let whole = Excerpt {
            name: f.name.clone(),
            text: std::sync::Arc::clone(&f.text),
            range: bom_len(db, file)..f.text.len(),
            first_line: 0,
        };
        if f.text.len() < WINDOW_FROM_BYTES {
            return whole;
        }
        let lines = labels
            .iter()
            .filter(|l| l.span.file == file)
            .flat_map(|l| label_lines(db, l));
        let (Some(first), Some(last)) = (lines.clone().min(), lines.max()) else {
            return whole;
        };
        let first = first.saturating_sub(MARGIN_LINES);
        let after = last + MARGIN_LINES + 1;
        let start = match first {
            0 => whole.range.start,
            _ => f.lines().line_start(first),
        };
        let end = match after < f.lines().line_count() {
            true => f.lines().line_start(after),
            false => f.text.len(),
        };
        Excerpt {
            range: start..end,
            first_line: first,
            ..whole
        }
    }
}

impl miette::SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        let window = &self.text.as_bytes()[self.range.clone()];
        let read = <[u8] as SourceCode>::read_span(
            window,
            span,
            context_lines_before,
            context_lines_after,
        )?;
        Ok(Box::new(miette::MietteSpanContents::new_named(
            self.name.clone(),
            read.data(),
            *read.span(),
            read.line() + self.first_line,
            read.column(),
            read.line_count() + self.first_line,
        )))
    }
}

/// The bytes of a byte order mark opening the file, if it has one.
fn bom_len(db: &SourceDb, file: FileId) -> usize {
    if db.file(file).text.starts_with('\u{FEFF}') {
        '\u{FEFF}'.len_utf8()
    } else {
        0
    }
}

fn labels_in(db: &SourceDb, labels: &[Label], file: FileId) -> Vec<LabeledSpan> {
    let shift = Excerpt::of(db, file, labels).range.start;
    labels
        .iter()
        .filter(|l| l.span.file == file)
        .map(|l| {
            let range = l.span.range();
            let span = SourceSpan::from(
                range.start.saturating_sub(shift)..range.end.saturating_sub(shift),
            );
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

/// One diagnostic as a JSON object: its [`DiagnosticRecord`].
pub fn json_value(d: &Diagnostic, db: &SourceDb) -> serde_json::Value {
    serde_json::to_value(DiagnosticRecord::of(d, db)).unwrap_or_default()
}

/// One diagnostic as a line of `--format json`.
pub fn json_line(d: &Diagnostic, db: &SourceDb) -> String {
    serde_json::to_string(&DiagnosticRecord::of(d, db)).unwrap_or_default()
}

/// The closing line of `--format json`.
pub fn json_summary(errors: usize, warnings: usize, files: usize) -> String {
    let summary = Summary {
        errors,
        warnings,
        files,
    };
    serde_json::to_string(&SummaryRecord { summary }).unwrap_or_default()
}

/// `::error file=…,line=…,col=…,endLine=…,endColumn=…,title=…::message`
pub fn github(d: &Diagnostic, db: &SourceDb) -> String {
    let capped = capped(d);
    let d = capped.as_ref().unwrap_or(d);
    let kind = d.severity().as_str();
    let mut properties = Vec::new();
    match d.primary_span() {
        Some(span) => {
            let start = db.line_col(span.file, span.start as usize);
            let end = db.line_col(span.file, span.end as usize);
            let file = db.file(span.file);
            let name = match file.origin {
                Origin::User => annotation_path(&file.name),
                Origin::Stdlib => file.name.clone(),
            };
            properties.push(format!("file={}", escape_property(&name)));
            properties.push(format!("line={}", start.line));
            properties.push(format!("col={}", start.column));
            properties.push(format!("endLine={}", end.line));
            properties.push(format!("endColumn={}", end.column));
        }
        None => {
            if let Some(path) = &d.path {
                let name = annotation_path(path);
                properties.push(format!("file={}", escape_property(&name)));
            }
        }
    }
    properties.push(format!("title={}", escape_property(d.code.name)));
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

/// The path an annotation names for a file named `name` (as typed, relative to the
/// current folder): GitHub places an annotation by its path from the repository root,
/// so `../medication/TUJ-011.case` typed in a category folder is annotated as
/// `cases/tujora/medication/TUJ-011.case`. The root is `$GITHUB_WORKSPACE` when set,
/// else the nearest folder above the file holding `.git`; a file outside it is named by
/// its absolute path (no `..`); without a root the name is kept as typed.
pub fn annotation_path(name: &str) -> String {
    let workspace = std::env::var_os("GITHUB_WORKSPACE").filter(|w| !w.is_empty());
    relative_to_root(name, workspace.as_deref().map(Path::new)).unwrap_or_else(|| name.to_string())
}

/// `name` relative to `workspace`, or to the git work tree holding it when there is no
/// workspace; `None` when there is neither.
fn relative_to_root(name: &str, workspace: Option<&Path>) -> Option<String> {
    let cwd = std::env::current_dir().ok()?;
    let written = lexical(&cwd.join(name));
    let canonical = std::fs::canonicalize(name).ok();
    let root = match workspace {
        Some(w) => lexical(&cwd.join(w)),
        None => git_root(&written).or_else(|| git_root(canonical.as_deref()?))?,
    };
    // As written first (a path through a symbolic link keeps its spelling), then with
    // links resolved on both sides.
    let canonical_root = std::fs::canonicalize(&root).ok();
    let relative = written.strip_prefix(&root).ok().or_else(|| {
        canonical
            .as_deref()?
            .strip_prefix(canonical_root.as_deref()?)
            .ok()
    });
    let path = match relative {
        Some(relative) => relative.to_path_buf(),
        None => canonical.unwrap_or(written),
    };
    Some(path.to_string_lossy().replace('\\', "/"))
}

/// The nearest folder at or above `path` holding `.git` (a folder, or the file a
/// worktree or submodule has).
fn git_root(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .find(|a| a.join(".git").exists())
        .map(Path::to_path_buf)
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

    /// `d` rendered from its whole file, as miette reads a `NamedSource`.
    fn rendered_whole(d: &Diagnostic, db: &SourceDb) -> String {
        let file = d.primary_span().unwrap().file;
        let shift = bom_len(db, file);
        let mut report = MietteReport::new(d, db);
        let f = db.file(file);
        report.source = Some(Excerpt {
            name: f.name.clone(),
            text: std::sync::Arc::clone(&f.text),
            range: shift..f.text.len(),
            first_line: 0,
        });
        report.labels = d
            .labels
            .iter()
            .map(|l| {
                let span =
                    SourceSpan::from(l.span.start as usize - shift..l.span.end as usize - shift);
                let text = Some(l.message.clone());
                match l.primary {
                    true => LabeledSpan::new_primary_with_span(text, span),
                    false => LabeledSpan::new_with_span(text, span),
                }
            })
            .collect();
        let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor())
            .with_width(100)
            .with_links(false)
            .with_context_lines(1);
        let mut out = String::new();
        handler.render_report(&mut out, &report).unwrap();
        out
    }

    /// A large file is quoted from a window around the labels, exactly as from the
    /// whole file: same lines, same numbers, labels near its start and end included.
    #[test]
    fn a_large_file_is_quoted_from_a_window_as_from_the_whole() {
        for bom in ["", "\u{FEFF}"] {
            let mut db = SourceDb::new();
            let mut text = bom.to_string();
            for i in 0..20_000 {
                text.push_str(&format!("case C{i} \"title {i}\" {{}}\n"));
            }
            assert!(text.len() > WINDOW_FROM_BYTES);
            // The id of the case on the one-based `line`.
            let at = |line: usize| {
                let start = match line {
                    1 => bom.len(),
                    _ => text.match_indices('\n').nth(line - 2).unwrap().0 + 1,
                };
                start + 5..start + 7
            };
            let cases = [
                vec![(at(10_000), true), (at(9_990), false)],
                vec![(at(3), true), (at(1), false)],
                vec![(at(19_999), true), (at(20_000), false)],
                vec![(at(15_000), true), (at(2), false), (at(19_998), false)],
            ];
            let file = db.add("big.case", text.clone(), crate::source::Origin::User);
            for labels in cases {
                let mut d = Diagnostic::new(crate::diag::codes::DUPLICATE_CASE, "a mistake");
                for (range, primary) in labels {
                    let span = crate::source::Span::new(file, range);
                    d = match primary {
                        true => d.primary(span, "here"),
                        false => d.secondary(span, "and there"),
                    };
                }
                assert_eq!(human(&d, &db, HumanStyle::PLAIN), rendered_whole(&d, &db));
            }
        }
    }

    #[test]
    fn long_lines_are_located_not_quoted() {
        let mut db = SourceDb::new();
        let line = format!("{{ \"a\": \"{}\" }}", "x".repeat(100_000));
        let file = db.add("master.json", line, crate::source::Origin::User);
        let d = Diagnostic::new(crate::diag::codes::MASTER_JSON, "a mistake")
            .primary(crate::source::Span::new(file, 7..8), "here");
        let out = human(&d, &db, HumanStyle::PLAIN);
        assert!(out.len() < 1_000, "{} bytes", out.len());
        assert!(out.contains("master.json:1:8: a mistake"), "{out}");
    }

    #[test]
    fn annotation_paths_are_from_the_root_without_dot_dot() {
        let root = std::env::current_dir().unwrap();
        let sub = root.join("src");
        let typed = format!("{}/../cases/x.case", sub.display());
        assert_eq!(
            relative_to_root(&typed, Some(&root)).as_deref(),
            Some("cases/x.case")
        );
        assert_eq!(
            relative_to_root("cases/./y.case", Some(&root)).as_deref(),
            Some("cases/y.case")
        );
        // Outside the root: the absolute path, never `..`.
        let outside = relative_to_root("../elsewhere/z.case", Some(&root)).unwrap();
        assert!(!outside.contains(".."), "{outside}");
        assert!(outside.ends_with("elsewhere/z.case"), "{outside}");
    }

    #[test]
    fn github_escapes_data_and_properties() {
        assert_eq!(escape_data("50%\r\nx"), "50%25%0D%0Ax");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
