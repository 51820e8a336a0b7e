//! The names a suite declares, where, and what they are: read from the syntax trees of
//! a compilation, so they are there even when the suite has errors and the resolver
//! built no model.
//!
//! The suite's shape is read from the trees too: it gives the keys of each block, the
//! check dimensions and the fixture fields. Record ids are the ids a case's fixtures
//! (its harness-visible texts, Tujora's `facts`) mention (`M1`, `B1`, `Q1`).

use std::sync::Arc;

use crate::incremental::ParseCache;
use crate::model::shape::{Kind, Shape, Visibility};
use crate::source::{FileId, Origin, SourceDb, Span};
use crate::syntax::ast::{Statement, ValueKind};

/// What kind of thing a name names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameKind {
    Category,
    Tag,
    Tool,
    Profile,
    Case,
    Dimension,
}

/// One declared name: `tool note_add { … }`, a tag in the suite's `tags`, …
pub struct Declaration<'a> {
    pub kind: NameKind,
    pub name: String,
    /// Where the name itself is written.
    pub span: Span,
    /// The declaring statement (for a tag, the suite's `tags` statement).
    pub statement: &'a Statement,
    pub origin: Origin,
}

/// Every declaration of a compilation, in file order, then source order, and the
/// suite's shape.
pub struct Index<'a> {
    declarations: Vec<Declaration<'a>>,
    shape: Option<Arc<Shape>>,
}

impl<'a> Index<'a> {
    pub fn new(db: &SourceDb, cache: &'a ParseCache) -> Index<'a> {
        let trees: Vec<(&'a crate::syntax::ast::File, Origin)> = db
            .files()
            .filter_map(|(_, file)| {
                let tree = cache.parsed(&file.name)?.file.as_ref()?;
                Some((tree, file.origin))
            })
            .collect();
        let schema = chosen_schema(&trees);
        let shape = crate::resolve::shape_of_trees(
            trees
                .iter()
                .map(|(tree, origin)| (*tree, *origin == Origin::Stdlib)),
        );
        let mut declarations = Vec::new();
        for (tree, origin) in trees {
            for statement in &tree.statements {
                declare(statement, origin, schema.as_deref(), &mut declarations);
            }
        }
        Index {
            declarations,
            shape,
        }
    }

    /// The suite's shape, when it reads.
    pub fn shape(&self) -> Option<&Shape> {
        self.shape.as_deref()
    }

    /// The check dimensions of the shape's grading: `(letter, name)`.
    pub fn dimensions(&self) -> Vec<(&str, &str)> {
        self.shape().map_or_else(Vec::new, |shape| {
            shape
                .grading
                .dimensions
                .iter()
                .map(|d| (d.letter.as_str(), d.name.as_str()))
                .collect()
        })
    }

    /// The keys of the case fields that hold fixtures: prose the harness holds.
    pub fn fixture_keys(&self) -> Vec<&str> {
        self.shape().map_or_else(Vec::new, |shape| {
            shape
                .case_fields
                .iter()
                .filter(|f| f.visibility == Visibility::Harness && f.kind == Kind::Text)
                .map(|f| f.key.as_str())
                .collect()
        })
    }

    pub fn find(&self, kind: NameKind, name: &str) -> Option<&Declaration<'a>> {
        self.declarations
            .iter()
            .find(|d| d.kind == kind && d.name == name)
    }

    pub fn all(&self, kind: NameKind) -> impl Iterator<Item = &Declaration<'a>> {
        self.declarations.iter().filter(move |d| d.kind == kind)
    }

    /// The case declared by the top-level statement holding `offset` of `file`.
    pub fn case_at(&self, file: FileId, offset: usize) -> Option<&Declaration<'a>> {
        self.all(NameKind::Case).find(|d| {
            let span = d.statement.span;
            span.file == file && (span.start as usize..=span.end as usize).contains(&offset)
        })
    }
}

/// The world schema the suite block names (`world_schema std.everyday_world`): its
/// tools are the suite's.
fn chosen_schema(trees: &[(&crate::syntax::ast::File, Origin)]) -> Option<String> {
    let suite = trees
        .iter()
        .flat_map(|(tree, _)| &tree.statements)
        .find(|s| s.name() == "suite")?;
    let chosen = suite
        .block
        .as_ref()?
        .statements
        .iter()
        .find(|s| s.name() == "world_schema")?;
    chosen.values.first()?.as_ident().map(str::to_string)
}

fn declare<'a>(
    statement: &'a Statement,
    origin: Origin,
    schema: Option<&str>,
    out: &mut Vec<Declaration<'a>>,
) {
    let kind = match statement.name() {
        "tool" => NameKind::Tool,
        "category" => NameKind::Category,
        "profile" => NameKind::Profile,
        "case" => NameKind::Case,
        "suite" => return declare_tags(statement, origin, out),
        // The world schema the suite names declares tools over its collections.
        "schema" => {
            let name = first_name(statement).map(|(n, _)| match origin {
                Origin::Stdlib => format!("std.{n}"),
                Origin::User => n.to_string(),
            });
            if name.is_some() && name.as_deref() == schema {
                for tool in statement.block.iter().flat_map(|b| &b.statements) {
                    if tool.name() == "tool" {
                        declare(tool, origin, schema, out);
                    }
                }
            }
            return;
        }
        _ => return,
    };
    let Some((name, span)) = first_name(statement) else {
        return;
    };
    let name = match (kind, origin) {
        (NameKind::Profile, Origin::Stdlib) => format!("std.{name}"),
        _ => name.to_string(),
    };
    out.push(Declaration {
        kind,
        name,
        span,
        statement,
        origin,
    });
}

fn declare_tags<'a>(suite: &'a Statement, origin: Origin, out: &mut Vec<Declaration<'a>>) {
    let body = suite.block.iter().flat_map(|b| &b.statements);
    for tags in body.filter(|s| s.name() == "tags") {
        for value in &tags.values {
            if let Some(name) = value.as_ident() {
                out.push(Declaration {
                    kind: NameKind::Tag,
                    name: name.to_string(),
                    span: value.span,
                    statement: tags,
                    origin,
                });
            }
        }
    }
}

/// The name a declaration's first value gives, with its span.
fn first_name(statement: &Statement) -> Option<(&str, Span)> {
    let value = statement.values.first()?;
    value.as_ident().map(|name| (name, value.span))
}

/// A record id the facts of a case mention, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordMention {
    pub id: String,
    pub span: Span,
}

/// Every record id mentioned in the fixtures of `case` (the statements with a key of
/// `fixtures`), each once, at its first mention, in order. A record id is a word of
/// capital letters followed by digits (`M1`, `B12`), the way fixture facts name records.
pub fn record_mentions(case: &Statement, fixtures: &[&str], db: &SourceDb) -> Vec<RecordMention> {
    let mut out: Vec<RecordMention> = Vec::new();
    let body = case.block.iter().flat_map(|b| &b.statements);
    for facts in body.filter(|s| fixtures.contains(&s.name())) {
        for value in &facts.values {
            if !matches!(value.kind, ValueKind::Str { .. }) {
                continue;
            }
            for (start, id) in record_ids(db.slice(value.span)) {
                if !out.iter().any(|m| m.id == id) {
                    let at = value.span.start as usize + start;
                    out.push(RecordMention {
                        id: id.to_string(),
                        span: Span::new(value.span.file, at..at + id.len()),
                    });
                }
            }
        }
    }
    out
}

/// The record-id words of `text` with their byte offsets.
fn record_ids(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    crate::model::world::ascii_words(text)
        .filter(|&(start, word)| {
            let letters = word.trim_end_matches(|c: char| c.is_ascii_digit());
            let digits = word.len() - letters.len();
            let boundary = start == 0 || !matches!(bytes[start - 1], b'-' | b'_' | b'.');
            boundary
                && digits > 0
                && !letters.is_empty()
                && letters.bytes().all(|b| b.is_ascii_uppercase())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_ids_are_capitals_then_digits() {
        let text = "M2 schedule; booking B1 (request Q12) — not TUJ-047, 2026T10, Mx1 or X.";
        let ids: Vec<&str> = record_ids(text).into_iter().map(|(_, id)| id).collect();
        assert_eq!(ids, ["M2", "B1", "Q12"]);
        assert_eq!(record_ids("B1")[0], (0, "B1"));
    }
}
