//! The diagnostic model shared by every phase.
//!
//! Phases never print: they return [`Diagnostic`] values (a stable code, which gives
//! the severity, a message, labelled spans, optional help and an optional
//! machine-applicable [`Fix`]). Only the command line renders them, through [`render`];
//! the language server turns them into protocol diagnostics and quick fixes
//! (`lsp::convert`). [`codes`] declares every code with its documentation, from which
//! `docs/diagnostics.md` is generated.

pub mod codes;
pub mod record;
pub mod render;

use strum::IntoStaticStr;

use crate::source::{SourceDb, Span};

/// Named `error` and `warning` in every rendering (human, JSON, GitHub annotations).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A span with a short message. The primary label marks the place to fix; secondary
/// labels mark other places involved (the first definition of a duplicate, say).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
    pub primary: bool,
}

/// A mechanical fix: replacing the text at `span` with `replacement` resolves the
/// diagnostic. Only for fixes that need no judgement (a "did you mean" name), so an
/// editor can offer it as a one-click code action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub span: Span,
    pub replacement: String,
    /// What applying it does, as an editor shows it: "replace with `medication`".
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Its code, which gives its severity ([`Diagnostic::severity`]).
    pub code: &'static codes::Code,
    pub message: String,
    pub labels: Vec<Label>,
    pub help: Option<String>,
    /// A diagnostic about a file as a whole (I/O, a missing suite) has no span but
    /// still names the file.
    pub path: Option<Box<str>>,
    pub fix: Option<Box<Fix>>,
}

impl Diagnostic {
    /// A diagnostic of `code`, with the severity the code is declared with.
    pub fn new(code: &'static codes::Code, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            message: message.into(),
            labels: Vec::new(),
            help: None,
            path: None,
            fix: None,
        }
    }

    pub fn primary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: true,
        });
        self
    }

    pub fn secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: false,
        });
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Attaches a machine-applicable fix: `replacement` in place of the text at `span`.
    pub fn fix(
        mut self,
        span: Span,
        replacement: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        self.fix = Some(Box::new(Fix {
            span,
            replacement: replacement.into(),
            message: message.into(),
        }));
        self
    }

    pub fn at_path(mut self, path: impl Into<String>) -> Diagnostic {
        self.path = Some(path.into().into_boxed_str());
        self
    }

    pub fn severity(&self) -> Severity {
        self.code.severity
    }

    pub fn is_error(&self) -> bool {
        self.severity() == Severity::Error
    }

    /// Whether the command could not do what it was asked (exit code 2, which CI tells
    /// from a suite that fails its checks): a code declared `usage` (a path that cannot
    /// be read, programs the user has not allowed to run), or a path holding no suite
    /// (a `missing_suite` at no place in a file).
    pub fn is_usage_error(&self) -> bool {
        self.code.usage || (self.code == codes::MISSING_SUITE && self.labels.is_empty())
    }

    /// The span of the primary label, or of the first label.
    pub fn primary_span(&self) -> Option<Span> {
        self.labels
            .iter()
            .find(|l| l.primary)
            .or(self.labels.first())
            .map(|l| l.span)
    }
}

/// Orders diagnostics by file name, then position, then code, so output is the same
/// whatever order the files were read in.
pub fn sort(diagnostics: &mut [Diagnostic], db: &SourceDb) {
    diagnostics.sort_by(|a, b| sort_key(a, db).cmp(&sort_key(b, db)));
}

/// The order of diagnostics: file name, start offset, code, message.
pub fn sort_key<'a>(d: &'a Diagnostic, db: &'a SourceDb) -> (&'a str, u32, &'static str, &'a str) {
    match d.primary_span() {
        Some(span) => (
            db.file(span.file).name.as_str(),
            span.start,
            d.code.name,
            d.message.as_str(),
        ),
        None => (
            d.path.as_deref().unwrap_or(""),
            0,
            d.code.name,
            d.message.as_str(),
        ),
    }
}

/// `n` and the word for what is counted, singular for one: "1 case", "3 cases".
pub fn count(n: impl std::fmt::Display, singular: &str) -> String {
    let n = n.to_string();
    let suffix = if n == "1" { "" } else { "s" };
    format!("{n} {singular}{suffix}")
}

/// A "did you mean" diagnostic's help and fix: `name`, written at `span`, is replaced by
/// `near`.
pub fn did_you_mean(d: Diagnostic, span: Span, near: &str) -> Diagnostic {
    d.help(format!("did you mean `{near}`?"))
        .fix(span, near, format!("replace with `{near}`"))
}

/// "did you mean" help: the closest candidate by edit distance if close enough, else
/// the shortest candidate that the name begins (`tool_failure` → `tool_failure_or_…`).
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let candidates: Vec<&str> = candidates.into_iter().collect();
    let threshold = |c: &str| (name.len().max(c.len()) / 3).max(1);
    // The distance is at least the difference in length: a name far longer than every
    // candidate (a mistaken megabyte-long token) is dismissed without comparing, which
    // would cost the product of the lengths.
    let close = candidates
        .iter()
        .filter(|c| name.len().abs_diff(c.len()) <= threshold(c))
        .map(|c| (strsim::damerau_levenshtein(name, c), *c))
        .filter(|(distance, c)| *distance <= threshold(c))
        .min_by_key(|(distance, c)| (*distance, *c))
        .map(|(_, c)| c);
    close.or_else(|| {
        candidates
            .iter()
            .filter(|c| name.chars().count() >= 3 && c.starts_with(name))
            .min_by_key(|c| (c.len(), **c))
            .copied()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_nearest_close_name_only() {
        let names = ["medication", "appointments", "belongings"];
        assert_eq!(suggest("medicaton", names), Some("medication"));
        assert_eq!(suggest("xyz", names), None);
        assert_eq!(suggest("appoint", names), Some("appointments"));
    }

    #[test]
    fn counts_are_singular_for_one() {
        assert_eq!(count(1, "case"), "1 case");
        assert_eq!(count(0, "case"), "0 cases");
        assert_eq!(count(12, "error"), "12 errors");
    }

    #[test]
    fn a_huge_name_is_dismissed_at_once() {
        let huge = "x".repeat(10_000_000);
        let start = std::time::Instant::now();
        assert_eq!(suggest(&huge, ["medication", "xxxxxxxxx"]), None);
        assert!(start.elapsed() < std::time::Duration::from_secs(1));
    }
}
