//! Document symbols: the outline of a file. Each declaration (`suite`, `tool`,
//! `category`, `profile`, `case`) with the statements of its block below it, nested
//! blocks likewise; a case's checks show the id the resolver gave them (`R1`, `A2`,
//! `S1`) when the case resolved.

use lsp_types::{DocumentSymbol, SymbolKind};

use crate::model::Case;
use crate::source::Span;
use crate::syntax::ast::Statement;

use super::convert;
use super::view::View;

/// The outline, or `None` when the file does not parse (the client keeps its last one).
pub fn outline(view: &View) -> Option<Vec<DocumentSymbol>> {
    let name = &view.unit.compilation.db.file(view.file).name;
    let tree = view.unit.cache.trees.parsed(name)?.file.as_ref()?;
    let symbols = tree
        .statements
        .iter()
        .map(|s| declaration(view, s))
        .collect();
    Some(symbols)
}

fn declaration(view: &View, statement: &Statement) -> DocumentSymbol {
    let header: Vec<&str> = statement
        .values
        .iter()
        .map(|v| {
            v.as_ident()
                .or(v.as_str())
                .unwrap_or_else(|| view.slice(v.span))
        })
        .collect();
    let (name, detail) = match (statement.name(), header.as_slice()) {
        ("suite", [title, ..]) => ("suite".to_string(), Some(title.to_string())),
        ("case", [id, title, ..]) => (format!("case {id}"), Some(title.to_string())),
        ("category", [name, count, ..]) => (
            format!("category {name}"),
            Some(crate::diag::count(count, "case")),
        ),
        (key, [id, ..]) => (format!("{key} {id}"), None),
        (key, []) => (key.to_string(), None),
    };
    let case = (statement.name() == "case")
        .then(|| resolved_case(view, header.first().copied()))
        .flatten();
    let children = statement.block.as_ref().map(|block| {
        block
            .statements
            .iter()
            .map(|s| member(view, s, case))
            .collect()
    });
    symbol(
        view,
        name,
        detail,
        kind_of(statement.name()),
        statement,
        children,
    )
}

fn resolved_case<'a>(view: &'a View, id: Option<&str>) -> Option<&'a Case> {
    let suite = view.unit.compilation.suite.as_ref()?;
    suite.cases.iter().find(|c| Some(c.id.as_str()) == id)
}

/// A statement inside a block: its key (with a check's id) and a preview of its value.
fn member(view: &View, statement: &Statement, case: Option<&Case>) -> DocumentSymbol {
    let check_id = case.and_then(|c| {
        c.checks
            .iter()
            .find(|check| check.span == statement.span)
            .map(|check| check.id.as_str())
    });
    let name = match (check_id, statement.name()) {
        (Some(id), key) => format!("{id} {key}"),
        // A client rejects a symbol without a name; a data block may have a `""` key.
        (None, "") => "\"\"".to_string(),
        (None, key) => key.to_string(),
    };
    let detail = statement.values.last().map(|v| preview(view.slice(v.span)));
    let children = statement.block.as_ref().map(|block| {
        block
            .statements
            .iter()
            .map(|s| member(view, s, None))
            .collect()
    });
    let kind = if check_id.is_some() {
        SymbolKind::EVENT
    } else {
        SymbolKind::FIELD
    };
    symbol(view, name, detail, kind, statement, children)
}

/// The first line of a value, shortened.
fn preview(text: &str) -> String {
    const MAX: usize = 60;
    let line = text
        .trim_start_matches('"')
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .trim_end_matches('"');
    match line.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}

fn kind_of(key: &str) -> SymbolKind {
    match key {
        "suite" => SymbolKind::NAMESPACE,
        "tool" => SymbolKind::FUNCTION,
        "category" => SymbolKind::ENUM,
        "profile" => SymbolKind::MODULE,
        "case" => SymbolKind::OBJECT,
        _ => SymbolKind::FIELD,
    }
}

fn symbol(
    view: &View,
    name: String,
    detail: Option<String>,
    kind: SymbolKind,
    statement: &Statement,
    children: Option<Vec<DocumentSymbol>>,
) -> DocumentSymbol {
    let db = &view.unit.compilation.db;
    let range = |span: Span| convert::range(db, span);
    #[allow(deprecated)] // `deprecated` is a required field of the type, superseded by `tags`.
    DocumentSymbol {
        name,
        detail,
        kind,
        tags: None,
        deprecated: None,
        range: range(statement.span),
        selection_range: range(statement.key.span),
        children,
    }
}
