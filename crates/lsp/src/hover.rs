//! Hover: what a key means (its schema doc), a tool's contract, a category's or
//! profile's fields as written, a stdlib part's full text, a case's title, a tag's use,
//! a dimension, a condition's operator, and a record id's facts.

use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position};

use crate::model::expect::Op;
use crate::resolve::blocks::block_specs;
use crate::source::Origin;
use crate::syntax::ast::Statement;

use super::completion::operator_place;
use super::cursor::{self, At, Word};
use super::index::{self, Declaration, NameKind};
use super::names;
use super::view::View;

pub fn hover(view: &View, position: Position) -> Option<Hover> {
    let offset = view.offset(position);
    let context = cursor::context(view.text, offset);
    let path = context.path();
    let (text, word) = match &context.at {
        At::Key(word) => (key_text(view, &path, &word.text)?, word),
        At::Value { key, index, word } if operator_place(&path, key, *index) => {
            let op = Op::written(&word.text)?;
            let text = format!(
                "**`{}`** · condition operator\n\n{}",
                op.as_str(),
                op.meaning()
            );
            (text, word)
        }
        At::Value { key, index, word } => {
            let kind = names::reference(&path, key, *index, view.index.shape())
                .or_else(|| names::declaration(&path, key, *index))?;
            (value_text(view, kind, &word.text)?, word)
        }
        At::Text { word, .. } if path.first() == Some(&"case") => {
            (record_text(view, &word.text, offset)?, word)
        }
        At::Text { .. } | At::Nothing => return None,
    };
    Some(markdown(view, text, word))
}

fn markdown(view: &View, value: String, word: &Word) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(view.range(word.start, word.end)),
    }
}

/// The doc of `key` in the block at `path`.
fn key_text(view: &View, path: &[&str], key: &str) -> Option<String> {
    let specs = block_specs(path, view.index.shape())?;
    let spec = specs.iter().find(|s| s.key == key)?;
    let how = match (spec.required, spec.repeated) {
        (true, _) => "required",
        (false, true) => "optional, repeatable",
        (false, false) => "optional",
    };
    Some(format!("**`{key}`** · {how}\n\n{}", spec.doc))
}

fn value_text(view: &View, kind: NameKind, name: &str) -> Option<String> {
    if kind == NameKind::Dimension {
        return dimension_text(view, name);
    }
    Some(name_text(view, view.index.find(kind, name)?))
}

/// The hover text of a declared name.
pub fn name_text(view: &View, declaration: &Declaration) -> String {
    let name = &declaration.name;
    match declaration.kind {
        NameKind::Tool => format!(
            "**tool `{name}`**\n\n```\n{}\n```\n\n{}",
            signature(declaration),
            string_of(declaration.statement, "behavior").unwrap_or_default()
        ),
        NameKind::Category => format!(
            "**category `{name}`** · {} case(s) declared\n\n{}",
            declaration
                .statement
                .values
                .get(1)
                .map_or("?", |v| view.slice(v.span)),
            source(view, declaration)
        ),
        NameKind::Profile if declaration.origin == Origin::Stdlib => format!(
            "**stdlib part `{name}`**, embedded in casec\n\n{}",
            source(view, declaration)
        ),
        NameKind::Profile => format!("**profile `{name}`**\n\n{}", source(view, declaration)),
        NameKind::Tag => format!(
            "**tag `{name}`**, from the suite's `tags`: used by {} case(s)",
            tag_uses(view, name)
        ),
        NameKind::Case => format!("**case `{name}`** {}", title(declaration)),
        NameKind::Dimension => dimension_text(view, name).unwrap_or_default(),
    }
}

/// A tool's arguments as a call: `note_add(text, due, …)`; an optional
/// argument is marked with `?`.
pub fn signature(tool: &Declaration) -> String {
    let arguments: Vec<String> = body(tool.statement)
        .iter()
        .filter(|s| s.name() == "argument")
        .filter_map(|s| {
            let name = s.values.first()?.as_ident()?;
            let optional = s.values.last().and_then(|v| v.as_ident()) == Some("optional");
            Some(format!("{name}{}", if optional { "?" } else { "" }))
        })
        .collect();
    format!("{}({})", tool.name, arguments.join(", "))
}

/// A case's title, quoted, as its header gives it.
pub fn title(case: &Declaration) -> String {
    case.statement
        .values
        .get(1)
        .and_then(|v| v.as_str())
        .map_or_else(String::new, |t| format!("“{t}”"))
}

/// A dimension of the shape's grading; `None` when the grading has none of that name.
pub fn dimension_text(view: &View, name: &str) -> Option<String> {
    let (letter, _) = view
        .index
        .dimensions()
        .into_iter()
        .find(|(_, d)| *d == name)?;
    Some(format!(
        "**check dimension `{name}`**: the dimension of check ids {letter}1, {letter}2, …"
    ))
}

/// The declaration as written, in a code block, with the file it is in.
fn source(view: &View, declaration: &Declaration) -> String {
    let span = declaration.statement.span;
    format!(
        "```case\n{}\n```\n\n*{}*",
        view.slice(span),
        view.display_name(span)
    )
}

fn tag_uses(view: &View, tag: &str) -> usize {
    view.index
        .all(NameKind::Case)
        .filter(|case| {
            body(case.statement)
                .iter()
                .filter(|s| s.name() == "tags")
                .any(|s| s.values.iter().any(|v| v.as_ident() == Some(tag)))
        })
        .count()
}

/// A record id inside the strings of the case at `offset`: the fixture that mentions it.
fn record_text(view: &View, id: &str, offset: usize) -> Option<String> {
    let case = view.index.case_at(view.file, offset)?;
    let db = &view.unit.compilation.db;
    let fixtures = view.index.fixture_keys();
    let mentions = index::record_mentions(case.statement, &fixtures, db);
    if !mentions.iter().any(|m| m.id == id) {
        return None;
    }
    let (key, text) = fixtures.iter().find_map(|key| {
        let text = string_of(case.statement, key)?;
        text.contains(id).then_some((*key, text))
    })?;
    Some(format!(
        "**record `{id}`**, mentioned in the `{key}` of {}:\n\n> {}",
        case.name,
        text.replace('\n', "\n>\n> ")
    ))
}

fn body(statement: &Statement) -> &[Statement] {
    statement.block.as_ref().map_or(&[], |b| &b.statements)
}

/// The first string value of the first `key` statement in `statement`'s block.
fn string_of<'a>(statement: &'a Statement, key: &str) -> Option<&'a str> {
    body(statement)
        .iter()
        .find(|s| s.name() == key)?
        .values
        .iter()
        .find_map(|v| v.as_str())
}
