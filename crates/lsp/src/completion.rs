//! Completion: the keys the enclosing block accepts, the names a value slot refers to
//! (categories, tags, tools, profiles and stdlib parts, case ids, dimensions), the
//! operators of a condition, and inside a case's strings the record ids its facts
//! mention.
//!
//! Items replace the name written so far (from its start to the cursor), so names with
//! dots and dashes (`std.everyday_assistance`, `TUJ-034`) complete whole whatever the
//! client takes for a word. The client filters by what is typed.

use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionTextEdit, Documentation, MarkupContent,
    MarkupKind, Position, Range, TextEdit,
};

use strum::VariantArray;

use crate::model::expect::Op;
use crate::resolve::blocks::block_specs;
use crate::resolve::keys::KeySpec;
use crate::source::Origin;

use super::cursor::{self, At, Context, Word};
use super::hover;
use super::index::{self, NameKind};
use super::names;
use super::view::View;

pub fn completion(view: &View, position: Position) -> Vec<CompletionItem> {
    let offset = view.offset(position);
    let context = cursor::context(view.text, offset);
    let path = context.path();
    match &context.at {
        At::Key(word) => keys(view, &context, word, offset),
        At::Value { key, index, word } => {
            match names::reference(&path, key, *index, view.index.shape()) {
                Some(kind) => name_items(view, kind, word, offset),
                None if operator_place(&path, key, *index) => operators(view, word, offset),
                None => Vec::new(),
            }
        }
        At::Text { word, .. } if path.first() == Some(&"case") => records(view, word, offset),
        At::Text { .. } | At::Nothing => Vec::new(),
    }
}

/// The keys of the block at the cursor, less those already given that may appear once.
fn keys(view: &View, context: &Context, word: &Word, offset: usize) -> Vec<CompletionItem> {
    let Some(specs) = block_specs(&context.path(), view.index.shape()) else {
        return Vec::new();
    };
    let insert = Insert::new(view, word, offset);
    let given = |spec: &KeySpec| !spec.repeated && context.siblings.iter().any(|k| k == spec.key);
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for spec in &specs {
        if given(spec) || seen.contains(&spec.key) {
            continue;
        }
        seen.push(spec.key);
        let kind = CompletionItemKind::KEYWORD;
        let documentation = Some(spec.doc.to_string());
        out.push(insert.item(spec.key, kind, key_detail(spec), documentation));
    }
    out
}

/// The blocks whose statements are conditions (`PATH [OP] VALUE`): an assertion's
/// record, count, call or verification, an override's `when`, a refusal, `any`.
const CONDITION_BLOCKS: &[&str] = &[
    "record", "count", "called", "verified", "when", "refuse", "any",
];

/// Whether the value at the cursor may be a condition's operator: the first value of a
/// condition, or the second of a read's `where FIELD [OP] ARG`.
pub(super) fn operator_place(path: &[&str], key: &str, index: usize) -> bool {
    let block = path.last().copied().unwrap_or_default();
    match (block, key) {
        ("read", "where") => index == 1,
        _ => index == 0 && CONDITION_BLOCKS.contains(&block),
    }
}

/// The operators a condition may write before its value.
fn operators(view: &View, word: &Word, offset: usize) -> Vec<CompletionItem> {
    let insert = Insert::new(view, word, offset);
    Op::VARIANTS
        .iter()
        .filter(|op| **op != Op::Eq)
        .map(|op| {
            let detail = "condition operator".to_string();
            let documentation = Some(op.meaning().to_string());
            insert.item(
                op.as_str(),
                CompletionItemKind::OPERATOR,
                detail,
                documentation,
            )
        })
        .collect()
}

fn key_detail(spec: &KeySpec) -> String {
    match (spec.required, spec.repeated) {
        (true, _) => "required".to_string(),
        (false, true) => "optional, repeatable".to_string(),
        (false, false) => "optional".to_string(),
    }
}

fn name_items(view: &View, kind: NameKind, word: &Word, offset: usize) -> Vec<CompletionItem> {
    let insert = Insert::new(view, word, offset);
    if kind == NameKind::Dimension {
        return view
            .index
            .dimensions()
            .into_iter()
            .map(|(_, name)| {
                let detail = "check dimension".to_string();
                let documentation = hover::dimension_text(view, name);
                insert.item(name, CompletionItemKind::ENUM_MEMBER, detail, documentation)
            })
            .collect();
    }
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for declaration in view.index.all(kind) {
        if seen.contains(&declaration.name.as_str()) {
            continue;
        }
        seen.push(&declaration.name);
        let (item_kind, detail) = match kind {
            NameKind::Category => (CompletionItemKind::ENUM, "category".to_string()),
            NameKind::Tag => (CompletionItemKind::CONSTANT, "tag".to_string()),
            NameKind::Tool => (CompletionItemKind::FUNCTION, hover::signature(declaration)),
            NameKind::Profile if declaration.origin == Origin::Stdlib => {
                (CompletionItemKind::MODULE, "stdlib part".to_string())
            }
            NameKind::Profile => (CompletionItemKind::MODULE, "profile".to_string()),
            _ => (CompletionItemKind::REFERENCE, hover::title(declaration)),
        };
        let documentation = Some(hover::name_text(view, declaration));
        out.push(insert.item(&declaration.name, item_kind, detail, documentation));
    }
    out
}

/// The record ids of the case around the cursor.
fn records(view: &View, word: &Word, offset: usize) -> Vec<CompletionItem> {
    let Some(case) = view.index.case_at(view.file, offset) else {
        return Vec::new();
    };
    let insert = Insert::new(view, word, offset);
    let detail = format!("record mentioned in the fixtures of {}", case.name);
    let fixtures = view.index.fixture_keys();
    index::record_mentions(case.statement, &fixtures, &view.unit.compilation.db)
        .into_iter()
        .map(|mention| {
            let kind = CompletionItemKind::VARIABLE;
            insert.item(&mention.id, kind, detail.clone(), None)
        })
        .collect()
}

/// Where an accepted item goes: over the name typed so far.
struct Insert {
    range: Range,
}

impl Insert {
    fn new(view: &View, word: &Word, offset: usize) -> Insert {
        Insert {
            range: view.range(word.start, offset.max(word.start)),
        }
    }

    fn item(
        &self,
        label: &str,
        kind: CompletionItemKind,
        detail: String,
        documentation: Option<String>,
    ) -> CompletionItem {
        CompletionItem {
            label: label.to_string(),
            kind: Some(kind),
            detail: Some(detail),
            documentation: documentation.map(|value| {
                Documentation::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value,
                })
            }),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
                self.range,
                label.to_string(),
            ))),
            ..CompletionItem::default()
        }
    }
}
