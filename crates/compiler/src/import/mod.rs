//! Import: a master JSON to a suite folder of `.case` sources.
//!
//! The master's shape is the stdlib shape named, or the one whose master layout has
//! the most of the master's top-level keys. The master is read into the model by that
//! layout ([`from_json`]), written as sources with shared text factored out ([`emit`]),
//! and the sources are compiled again: the import only succeeds when they rebuild the
//! very same master, byte for byte in the master style. So an import either
//! round-trips or says where it could not.

pub mod emit;
mod from_json;

use std::sync::Arc;

use crate::diag::{codes, Diagnostic};
use crate::lower::json_style::to_master_string;
use crate::model::shape::{ExportFormat, Shape, TurnEntry};
use crate::source::{FileId, SourceDb, Span};
use crate::{Compilation, Config, Depth, Sources};

/// The sources of an imported suite, as `(relative path, text)`, suite.case first.
pub type SuiteFiles = Vec<(String, String)>;

/// Imports the master JSON held by `file` in `db`, of the shape its keys show.
pub fn import(db: &SourceDb, file: FileId) -> Result<SuiteFiles, Vec<Diagnostic>> {
    import_as(db, file, None)
}

/// Imports the master JSON held by `file` in `db` as a master of the stdlib shape
/// `shape` (`std.tujora`), or of the shape its keys show.
pub fn import_as(
    db: &SourceDb,
    file: FileId,
    shape: Option<&str>,
) -> Result<SuiteFiles, Vec<Diagnostic>> {
    let text = &db.file(file).text;
    let json: serde_json::Value =
        serde_json::from_str(text).map_err(|e| vec![json_error(db, file, &e)])?;
    let span = Span::new(file, 0..0);
    let shape = master_shape(&json, shape, span)?;
    let mut reader = from_json::Reader::new(file, shape.clone());
    let suite = reader.suite(&json);
    let mut suite = match suite {
        Some(suite) if reader.diags.is_empty() => suite,
        _ => return Err(reader.diags),
    };
    let mut unwritable = Vec::new();
    for (i, case) in suite.cases.iter_mut().enumerate() {
        // Without derived checks, each check is written with its id: a case with none
        // would derive its checks again.
        if !from_json::underive(case, &shape) && case.checks.is_empty() {
            unwritable.push(
                Diagnostic::new(
                    codes::MASTER_JSON,
                    format!("cases[{i}]: a case needs at least one required check"),
                )
                .primary(span, "in this master file")
                .help(format!(
                    "the checks of shape `{}` cannot be written as none",
                    shape.name.as_str()
                )),
            );
        }
    }
    if !unwritable.is_empty() {
        return Err(unwritable);
    }
    let canonical = to_master_string(&json);
    let modelled = crate::lower::master::master_value(&suite);
    if let Some(difference) = from_json::first_difference(&json, &modelled, "") {
        return Err(vec![Diagnostic::new(
            codes::MASTER_JSON,
            format!("the master does not follow its shape's key order: {difference}"),
        )
        .primary(span, "in this master file")
        .help(format!(
            "keys must appear in the order of the master layout of `{}`",
            shape.name.as_str()
        ))]);
    }
    names_are_writable(&suite, span)?;
    let known = known_fields(&suite, &case_layout(&shape.master));
    let files = emit::emit(&suite, &known);
    let rebuilt = rebuild(&files);
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
        None => Err(vec![round_trip_error(
            span,
            format!(
                "the imported sources do not compile{}",
                first_error(&rebuilt)
            ),
        )]),
    }
}

/// The stdlib shape `named`, or the one whose master layout has the most of the
/// top-level keys of `json`.
fn master_shape(
    json: &serde_json::Value,
    named: Option<&str>,
    span: Span,
) -> Result<Arc<Shape>, Vec<Diagnostic>> {
    let shapes = crate::resolve::stdlib_shapes();
    let mut names: Vec<&str> = shapes.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    if let Some(named) = named {
        return shapes
            .iter()
            .find(|s| s.name.as_str() == named)
            .cloned()
            .ok_or_else(|| {
                vec![
                    Diagnostic::new(codes::UNKNOWN_SHAPE, format!("unknown shape `{named}`"))
                        .primary(span, "importing this master")
                        .help(format!("the stdlib shapes: {}", names.join(", "))),
                ]
            });
    }
    let keys: Vec<&str> = json
        .as_object()
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    // The shape whose master has the most of the master's keys; the reader then
    // reports the keys that differ.
    let common = |shape: &Shape| {
        shape
            .master
            .entries
            .iter()
            .filter(|e| keys.contains(&e.key.as_str()))
            .count()
    };
    let best = shapes.iter().map(|s| common(s)).max().unwrap_or(0);
    let matching: Vec<&Arc<Shape>> = shapes
        .iter()
        .filter(|s| best > 0 && common(s) == best)
        .collect();
    match matching.as_slice() {
        [one] => Ok((*one).clone()),
        _ => Err(vec![Diagnostic::new(
            codes::MASTER_JSON,
            "cannot tell which shape this master follows",
        )
        .primary(
            span,
            "its top-level keys are those of no stdlib shape's master (or of several)",
        )
        .help(format!(
            "name the shape with `--shape` (one of {})",
            names.join(", ")
        ))]),
    }
}

/// Imports JSON Lines written by an export (a benchmark's tasks config), one case per
/// line, as a suite of the stdlib shape `shape` (or the one whose JSON Lines export
/// has the first line's keys) named `name`. The cases' categories are the suite's, each
/// declared with its number of cases. Like a master's import, it succeeds only when the
/// sources export the very same lines again. Rows of a `turns` export become trace
/// files of observed conversations instead ([`import_turns`]).
pub fn import_lines(
    db: &SourceDb,
    file: FileId,
    shape: Option<&str>,
    name: &str,
) -> Result<SuiteFiles, Vec<Diagnostic>> {
    let text = &db.file(file).text;
    let span = Span::new(file, 0..0);
    let mut lines: Vec<(usize, serde_json::Value)> = Vec::new();
    let mut diags = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let at = db
            .file(file)
            .lines()
            .line_start(i.min(db.file(file).lines().line_count() - 1));
        match serde_json::from_str(line) {
            Ok(value) => lines.push((i + 1, value)),
            Err(e) => diags.push(
                Diagnostic::new(
                    codes::MASTER_JSON,
                    format!("line {}: invalid JSON: {e}", i + 1),
                )
                .primary(Span::new(file, at..at + line.len()), "not a JSON object")
                .help("give JSON Lines: one JSON object per line"),
            ),
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    let first = lines.first().map(|(_, v)| v.clone()).unwrap_or_default();
    let (shape, layout) = match lines_shape(&first, shape, span)? {
        (shape, LinesLayout::Cases(layout)) => (shape, layout),
        (_, LinesLayout::Turns(entries)) => return import_turns(&entries, &lines, db, file),
    };
    let mut reader = from_json::Reader::new(file, shape.clone());
    let mut suite = reader.empty_suite(name);
    for (n, value) in &lines {
        if let Some(case) = reader.case(&layout, value, &format!("line {n}")) {
            suite.cases.push(case);
        }
    }
    if !reader.diags.is_empty() {
        return Err(reader.diags);
    }
    for case in &mut suite.cases {
        from_json::underive(case, &shape);
        if let Some(category) = &case.category {
            match suite
                .categories
                .iter_mut()
                .find(|c| c.name.as_str() == category.as_str())
            {
                Some(c) => {
                    let n = c.count.value.as_u64().unwrap_or(0) + 1;
                    c.count.value = n.into();
                }
                None => suite.categories.push(crate::model::Category {
                    name: category.clone(),
                    count: crate::model::Number {
                        value: 1.into(),
                        span,
                    },
                }),
            }
        }
    }
    suite.tags = from_json::case_tags(&suite.cases);
    names_are_writable(&suite, span)?;
    let known = known_fields(&suite, &[&layout]);
    let files = emit::emit(&suite, &known);
    let rebuilt = rebuild(&files);
    let expected: String = lines
        .iter()
        .map(|(_, v)| format!("{}\n", serde_json::to_string(v).unwrap_or_default()))
        .collect();
    let exported = rebuilt
        .suite
        .as_ref()
        .filter(|_| !rebuilt.has_errors())
        .and_then(|s| {
            let name = shape
                .exports
                .iter()
                .find(|e| matches!(e.format, ExportFormat::JsonLines(_)))?;
            match crate::lower::export::export(s, name.name.as_str(), &[])? {
                Ok(crate::lower::export::Exported::Lines(text)) => Some(text),
                _ => None,
            }
        });
    match exported {
        Some(text) if text == expected => Ok(files),
        Some(_) => Err(vec![round_trip_error(
            span,
            "the imported sources export different lines".into(),
        )]),
        None => Err(vec![round_trip_error(
            span,
            format!(
                "the imported sources do not compile{}",
                first_error(&rebuilt)
            ),
        )]),
    }
}

/// Imports the rows of a `turns` export (one per turn of an observed conversation) as
/// trace files, `<episode>.trace.jsonl` each: the folder `observed/` of the suite whose
/// cases they cite. Like every import, it succeeds only when the traces export the same
/// rows again (compared as values). A row's diagnostics point at its line.
fn import_turns(
    entries: &[TurnEntry],
    lines: &[(usize, serde_json::Value)],
    db: &SourceDb,
    file: FileId,
) -> Result<SuiteFiles, Vec<Diagnostic>> {
    use crate::runtime::observed::{conversations, natural_order, rows};
    let span = Span::new(file, 0..0);
    let source = db.file(file);
    let line_span = |n: usize| {
        let at = source
            .lines()
            .line_start((n - 1).min(source.lines().line_count() - 1));
        let len = source.text[at..]
            .find('\n')
            .unwrap_or(source.text.len() - at);
        Span::new(file, at..at + len)
    };
    let values: Vec<serde_json::Value> = lines.iter().map(|(_, v)| v.clone()).collect();
    let read = conversations(entries, &values).map_err(|errors| {
        errors
            .into_iter()
            .map(|(i, why)| {
                Diagnostic::new(codes::MASTER_JSON, format!("line {}: {why}", lines[i].0))
                    .primary(line_span(lines[i].0), "this row")
                    .help("see docs/people.md#observed-conversations")
            })
            .collect::<Vec<_>>()
    })?;
    let mut ordered: Vec<&crate::runtime::observed::Conversation> = read.iter().collect();
    ordered.sort_by(|a, b| natural_order(&a.name, &b.name));
    if let Some((_, out_of_place)) = ordered.iter().zip(&read).find(|(a, b)| a.name != b.name) {
        return Err(vec![Diagnostic::new(
            codes::MASTER_JSON,
            format!("episode {} is out of order", out_of_place.name),
        )
        .primary(span, "in these rows")
        .help("give the episodes in the order an export writes them: by id, numbers in numeric order (`2` before `10`)")]);
    }
    let mut exported = Vec::new();
    for conversation in &read {
        let text = rows(entries, &conversation.events).map_err(|why| {
            vec![round_trip_error(
                span,
                format!("episode {}: {why}", conversation.name),
            )]
        })?;
        exported.extend(text.lines().filter_map(|l| serde_json::from_str(l).ok()));
    }
    if exported.len() != lines.len() {
        return Err(vec![round_trip_error(
            span,
            "the imported traces export a different number of rows".into(),
        )]);
    }
    // The rows read back as values: key order, spacing and escapes inside a JSON text
    // are the writer's, not the data.
    for ((n, given), made) in lines.iter().zip(&exported) {
        let (given, made) = (decoded(entries, given), decoded(entries, made));
        if given != made {
            let key = entries
                .iter()
                .map(|e| e.key.as_str())
                .find(|k| given.get(k) != made.get(k))
                .unwrap_or_default();
            return Err(vec![Diagnostic::new(
                codes::MASTER_JSON,
                format!("line {n}: `{key}` does not read back as it is written"),
            )
            .primary(line_span(*n), "this row")
            .help(format!(
                "the traces hold it as {}; see docs/people.md#observed-conversations",
                made.get(key).cloned().unwrap_or_default()
            ))]);
        }
    }
    Ok(read
        .iter()
        .map(|c| {
            let text: String = c
                .events
                .iter()
                .map(|e| format!("{}\n", e.to_json()))
                .collect();
            (
                format!("{}{}", c.name, crate::runtime::trace_files::TRACE_SUFFIX),
                text,
            )
        })
        .collect())
}

/// A row with each `json_text` value decoded (a string that is no JSON stays as it is).
fn decoded(entries: &[TurnEntry], row: &serde_json::Value) -> serde_json::Value {
    let mut row = row.clone();
    for entry in entries.iter().filter(|e| e.json_text) {
        if let Some(value) = row.get_mut(entry.key.as_str()) {
            if let Some(parsed) = value.as_str().and_then(|t| serde_json::from_str(t).ok()) {
                *value = parsed;
            }
        }
    }
    row
}

/// The case layouts inside a master layout: the item layouts of its `cases` entries.
fn case_layout(master: &crate::model::shape::Layout) -> Vec<&crate::model::shape::Layout> {
    use crate::model::shape::{Builtin, LayoutSource, Slot};
    let mut out = Vec::new();
    for entry in &master.entries {
        match &entry.value {
            Slot::Source {
                source: LayoutSource::Builtin(Builtin::Cases),
                items: Some(items),
            } => out.push(items),
            Slot::Object(inner) => out.extend(case_layout(inner)),
            Slot::Source { .. } => {}
        }
    }
    out
}

/// Which case fields an import has values for: those the case layouts hold, the text
/// fields checks derive from (their value is a derived check's requirement), and the
/// evidence field when the checks carry evidence.
fn known_fields(
    suite: &crate::model::Suite,
    layouts: &[&crate::model::shape::Layout],
) -> Vec<bool> {
    use crate::model::shape::{Kind, Layout, LayoutSource, Slot};
    fn walk(layout: &Layout, known: &mut [bool]) {
        for entry in &layout.entries {
            match &entry.value {
                Slot::Source {
                    source: LayoutSource::Field(id),
                    ..
                } => known[*id] = true,
                Slot::Object(inner) => walk(inner, known),
                Slot::Source { .. } => {}
            }
        }
    }
    let shape = &suite.shape;
    let mut known = vec![false; shape.case_fields.len()];
    for layout in layouts {
        walk(layout, &mut known);
    }
    for derivation in &shape.grading.derivations {
        known[derivation.field] = true;
    }
    if let Some(evidence) = shape.case_field(Kind::Evidence) {
        known[evidence] = suite
            .cases
            .iter()
            .flat_map(|c| &c.checks)
            .any(|c| c.evidence.is_some());
    }
    known
}

/// How an export lays out its lines: a case per line, or a turn of an observed
/// conversation per line.
enum LinesLayout {
    Cases(crate::model::shape::Layout),
    Turns(Vec<TurnEntry>),
}

/// The stdlib shape `named` (or the one with a JSON Lines or turns export of exactly
/// the keys of `first`), with that export's layout.
fn lines_shape(
    first: &serde_json::Value,
    named: Option<&str>,
    span: Span,
) -> Result<(Arc<Shape>, LinesLayout), Vec<Diagnostic>> {
    let keys: Vec<&str> = first
        .as_object()
        .map(|m| m.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let mut candidates = Vec::new();
    for shape in crate::resolve::stdlib_shapes() {
        for export in &shape.exports {
            let (export_keys, layout): (Vec<&str>, LinesLayout) = match &export.format {
                ExportFormat::JsonLines(layout) => (
                    layout.entries.iter().map(|e| e.key.as_str()).collect(),
                    LinesLayout::Cases(layout.clone()),
                ),
                ExportFormat::Turns(entries) => (
                    entries.iter().map(|e| e.key.as_str()).collect(),
                    LinesLayout::Turns(entries.clone()),
                ),
                ExportFormat::Folders(_) => continue,
            };
            // A turns export's rows are read as values, so their keys in any order.
            let same = match layout {
                LinesLayout::Turns(_) => {
                    let (mut ours, mut theirs) = (export_keys.clone(), keys.clone());
                    ours.sort_unstable();
                    theirs.sort_unstable();
                    ours == theirs
                }
                LinesLayout::Cases(_) => export_keys == keys,
            };
            // A named shape's rows are read by its export of the same keys, or by its
            // case lines, whose reader then says which keys differ.
            let wanted = match named {
                None => same,
                Some(n) => {
                    n == shape.name.as_str() && (same || matches!(layout, LinesLayout::Cases(_)))
                }
            };
            if wanted {
                candidates.push((shape.clone(), layout, same));
            }
        }
    }
    if candidates.len() > 1 {
        candidates.retain(|(_, _, same)| *same);
    }
    let mut candidates: Vec<_> = candidates.into_iter().map(|(s, l, _)| (s, l)).collect();
    match candidates.len() {
        1 => Ok(candidates.remove(0)),
        _ => Err(vec![Diagnostic::new(
            codes::MASTER_JSON,
            "cannot tell which shape these lines follow",
        )
        .primary(
            span,
            "no stdlib shape exports lines with exactly these keys (or several do)",
        )
        .help(closest_export(&keys).unwrap_or_else(|| {
            "give lines with exactly the keys of a stdlib shape's `jsonl` or `turns` export, or name the shape with `--shape`".into()
        }))]),
    }
}

/// The stdlib line export whose keys differ least from `keys`, and how, when one
/// differs by a few keys: what a user whose file lost or gained a column needs to know.
fn closest_export(keys: &[&str]) -> Option<String> {
    let mut best: Option<(usize, String)> = None;
    for shape in crate::resolve::stdlib_shapes() {
        for export in &shape.exports {
            let ours: Vec<&str> = match &export.format {
                ExportFormat::JsonLines(layout) => {
                    layout.entries.iter().map(|e| e.key.as_str()).collect()
                }
                ExportFormat::Turns(entries) => entries.iter().map(|e| e.key.as_str()).collect(),
                ExportFormat::Folders(_) => continue,
            };
            let missing: Vec<&str> = ours.iter().copied().filter(|k| !keys.contains(k)).collect();
            let extra: Vec<&str> = keys.iter().copied().filter(|k| !ours.contains(k)).collect();
            let distance = missing.len() + extra.len();
            if distance > 3 || best.as_ref().is_some_and(|(d, _)| *d <= distance) {
                continue;
            }
            let quoted = |ks: &[&str]| {
                ks.iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let mut what = Vec::new();
            if !missing.is_empty() {
                what.push(format!("no {}", quoted(&missing)));
            }
            if !extra.is_empty() {
                what.push(format!("also {}", quoted(&extra)));
            }
            let text = format!(
                "these lines are nearly {}'s `{}` export, but have {}: give each line exactly its keys",
                shape.name.as_str(),
                export.name.as_str(),
                what.join(" and ")
            );
            best = Some((distance, text));
        }
    }
    best.map(|(_, text)| text)
}

fn first_error(compilation: &Compilation) -> String {
    compilation
        .diagnostics
        .iter()
        .find(|d| d.is_error())
        .map_or(String::new(), |d| {
            let file = d
                .primary_span()
                .map_or("?".into(), |s| compilation.db.file(s.file).name.clone());
            format!(" ({file}: {})", d.message)
        })
}

fn round_trip_error(span: Span, message: String) -> Diagnostic {
    Diagnostic::new(codes::IMPORT_ROUND_TRIP, message)
        .primary(span, "while importing this master")
        .help("this is a casec bug: please report it with the master file")
}

fn json_error(db: &SourceDb, file: FileId, e: &serde_json::Error) -> Diagnostic {
    let f = db.file(file);
    let offset = if e.line() == 0 {
        0
    } else {
        let line = (e.line() - 1).min(f.lines().line_count() - 1);
        let start = f.lines().line_start(line);
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
    Diagnostic::new(codes::MASTER_JSON, format!("invalid JSON: {message}"))
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
        if let Some(category) = &case.category {
            check("category", category.as_str());
        }
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
    let mut twice = Vec::new();
    for t in &suite.tools {
        check("tool", t.name.as_str());
        for (i, argument) in t.arguments.iter().enumerate() {
            check("tool argument", argument.name.as_str());
            if t.arguments[..i]
                .iter()
                .any(|a| a.name.as_str() == argument.name.as_str())
            {
                twice.push(format!(
                    "tool `{}` (argument `{}` twice)",
                    t.name.as_str(),
                    argument.name.as_str()
                ));
            }
        }
    }
    for n in &suite.revision_notes {
        check("case id", n.case_id.as_str());
    }
    bad.extend(twice);
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
        let category = case.category.as_ref().map(|c| c.as_str());
        if let Some(category) = category.filter(|c| !categories.contains(c)) {
            bad.push(format!(
                "category `{category}` of {} (not among the suite's categories)",
                case.id.as_str()
            ));
        }
        let used = case
            .tools
            .iter()
            .chain(case.overrides.iter().map(|o| &o.tool));
        for tool in used.filter(|t| !tools.contains(&t.as_str())) {
            bad.push(format!(
                "tool `{}` of {} (not among the suite's tools)",
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
            Diagnostic::new(codes::MASTER_JSON, format!("cannot import {what}"))
                .primary(span, "in this master file")
                .help("names must start with a letter or `_` and hold only letters, digits, `_`, `-` and `.`; a case's category and tools must be the suite's")
        })
        .collect())
}

/// The suite the imported `files` make, resolved but not checked: the import must
/// reproduce any master faithfully, defects included; `casec check` then shows what to
/// fix.
fn rebuild(files: &[(String, String)]) -> Compilation {
    Compilation::new(Config {
        sources: Sources::in_memory(files.iter().map(|(p, t)| (p.as_str(), t.as_str()))),
        depth: Depth::Resolve,
        recheck: None,
    })
}
