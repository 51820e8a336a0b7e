//! Import: a master JSON to a suite folder of `.case` sources.
//!
//! The master is read into the model ([`from_json`]), written as sources with shared
//! text factored out ([`emit`]), and the sources are compiled again: the import only
//! succeeds when they rebuild the very same master, byte for byte in the master style.
//! So an import either round-trips or says where it could not.

pub mod emit;
mod from_json;

use crate::diag::{codes, Diagnostic};
use crate::lower::json_style::to_master_string;
use crate::source::{FileId, SourceDb, Span};
use crate::Compilation;

/// The sources of an imported suite, as `(relative path, text)`, suite.case first.
pub type SuiteFiles = Vec<(String, String)>;

/// Imports the master JSON held by `file` in `db`.
pub fn import(db: &SourceDb, file: FileId) -> Result<SuiteFiles, Vec<Diagnostic>> {
    let text = &db.file(file).text;
    let json: serde_json::Value =
        serde_json::from_str(text).map_err(|e| vec![json_error(db, file, &e)])?;
    let mut reader = from_json::Reader::new(file);
    let suite = reader.suite(&json);
    let suite = match suite {
        Some(suite) if reader.diags.is_empty() => suite,
        _ => return Err(reader.diags),
    };
    let canonical = to_master_string(&json);
    let span = Span::new(file, 0..0);
    let modelled = crate::lower::master::master_value(&suite);
    if let Some(difference) = from_json::first_difference(&json, &modelled, "") {
        return Err(vec![Diagnostic::error(
            codes::MASTER_JSON,
            format!("the master does not follow the schema's key order: {difference}"),
        )
        .primary(span, "in this master file")
        .help("keys must appear in the order of schemas/master.schema.json")]);
    }
    names_are_writable(&suite, span)?;
    let files = emit::emit(&suite);
    let rebuilt = Compilation::resolve_sources(files.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    match rebuilt.master_json() {
        Some(master) if master == canonical => Ok(files),
        Some(master) => {
            let back: serde_json::Value = serde_json::from_str(&master).unwrap_or_default();
            let difference = from_json::first_difference(&json, &back, "")
                .unwrap_or_else(|| "formatting".into());
            Err(vec![round_trip_error(
                span,
                format!("the imported sources rebuild a different master at {difference}"),
            )])
        }
        None => {
            let first =
                rebuilt
                    .diagnostics
                    .iter()
                    .find(|d| d.is_error())
                    .map_or(String::new(), |d| {
                        let file = d
                            .primary_span()
                            .map_or("?".into(), |s| rebuilt.db.file(s.file).name.clone());
                        format!(" ({file}: {})", d.message)
                    });
            Err(vec![round_trip_error(
                span,
                format!("the imported sources do not compile{first}"),
            )])
        }
    }
}

fn round_trip_error(span: Span, message: String) -> Diagnostic {
    Diagnostic::error(codes::IMPORT_ROUND_TRIP, message)
        .primary(span, "while importing this master")
        .help("this is a casec bug: please report it with the master file")
}

fn json_error(db: &SourceDb, file: FileId, e: &serde_json::Error) -> Diagnostic {
    let f = db.file(file);
    let offset = if e.line() == 0 {
        0
    } else {
        let line = (e.line() - 1).min(f.lines.line_count() - 1);
        let start = f.lines.line_start(line);
        let column_bytes: usize = f.text[start..]
            .chars()
            .take(e.column().saturating_sub(1))
            .map(char::len_utf8)
            .sum();
        (start + column_bytes).min(f.text.len())
    };
    let message = e.to_string();
    let message = message
        .split(" at line ")
        .next()
        .unwrap_or(&message)
        .to_string();
    Diagnostic::error(codes::MASTER_JSON, format!("invalid JSON: {message}"))
        .primary(Span::new(file, offset..offset), "here")
        .help("the master must be one JSON object")
}

/// Ids, categories, tags and tools are names in the language: check that each can be
/// written as one, and that each category and tool a case uses is declared (as the
/// language requires, so an undeclared one would fail the round trip).
fn names_are_writable(suite: &crate::model::Suite, span: Span) -> Result<(), Vec<Diagnostic>> {
    let mut bad: Vec<String> = Vec::new();
    let mut check = |what: &str, name: &str| {
        if !emit::is_ident(name) {
            bad.push(format!("{what} `{name}`"));
        }
    };
    for case in &suite.cases {
        check("case id", case.id.as_str());
        check("category", case.category.as_str());
        for tag in &case.tags {
            check("tag", tag.as_str());
        }
        for tool in &case.tools {
            check("tool", tool.as_str());
        }
        for c in &case.checks {
            check("check id", c.id.as_str());
            check("dimension", c.dimension.as_str());
        }
        for o in &case.overrides {
            check("tool", o.tool.as_str());
        }
    }
    for c in &suite.categories {
        check("category", c.name.as_str());
    }
    for t in &suite.tools {
        check("tool", t.name.as_str());
        for argument in &t.arguments {
            check("tool argument", argument.name.as_str());
        }
    }
    for n in &suite.revision_notes {
        check("case id", n.case_id.as_str());
    }
    let mut lower: Vec<String> = suite
        .cases
        .iter()
        .map(|c| c.id.as_str().to_lowercase())
        .collect();
    lower.sort();
    for pair in lower.windows(2).filter(|w| w[0] == w[1]) {
        bad.push(format!(
            "case id `{}` (twice, ignoring case: file names would collide)",
            pair[0]
        ));
    }
    let categories: Vec<&str> = suite.categories.iter().map(|c| c.name.as_str()).collect();
    // Each category is a folder beside suite.case.
    for category in categories
        .iter()
        .filter(|c| c.eq_ignore_ascii_case(crate::load::SUITE_FILE))
    {
        bad.push(format!(
            "category `{category}` (its folder would clash with suite.case)"
        ));
    }
    let tools: Vec<&str> = suite.tools.iter().map(|t| t.name.as_str()).collect();
    for case in &suite.cases {
        if !categories.contains(&case.category.as_str()) {
            bad.push(format!(
                "category `{}` of {} (not in coverage)",
                case.category.as_str(),
                case.id.as_str()
            ));
        }
        let used = case
            .tools
            .iter()
            .chain(case.overrides.iter().map(|o| &o.tool));
        for tool in used.filter(|t| !tools.contains(&t.as_str())) {
            bad.push(format!(
                "tool `{}` of {} (not in tool_contracts)",
                tool.as_str(),
                case.id.as_str()
            ));
        }
    }
    bad.sort();
    bad.dedup();
    if bad.is_empty() {
        return Ok(());
    }
    Err(bad
        .into_iter()
        .map(|what| {
            Diagnostic::error(codes::MASTER_JSON, format!("cannot import {what}"))
                .primary(span, "in this master file")
                .help("names must start with a letter or `_` and hold only letters, digits, `_`, `-` and `.`; categories must be in coverage and tools in tool_contracts")
        })
        .collect())
}
