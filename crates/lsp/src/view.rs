//! One open document as a request sees it: its text and file in the last check of its
//! unit, the declarations of that unit, and how to locate spans for the client.

use std::collections::HashMap;
use std::path::Path;

use lsp_types::{Location, Position, Range, Url};

use crate::load;
use crate::source::{FileId, LineIndex, Origin, Span};

use super::convert;
use super::index::Index;
use super::stdlib;
use super::workspace::{self, Document, Unit, UnitKey, Workspace};

pub struct View<'a> {
    pub uri: &'a Url,
    pub unit: &'a Unit,
    pub file: FileId,
    pub text: &'a str,
    pub lines: &'a LineIndex,
    pub index: Index<'a>,
    workspace: &'a Workspace,
    cache_dir: &'a Path,
}

impl<'a> View<'a> {
    /// The view of the open document `uri`; `None` when it is not open.
    pub fn new(workspace: &'a Workspace, uri: &'a Url, cache_dir: &'a Path) -> Option<View<'a>> {
        let (_, unit) = workspace.document(uri)?;
        let file = unit.file_id(&convert::name_of(uri))?;
        let source = unit.compilation.db.file(file);
        Some(View {
            uri,
            unit,
            file,
            text: &source.text,
            lines: source.lines(),
            index: Index::new(&unit.compilation.db, &unit.cache.trees),
            workspace,
            cache_dir,
        })
    }

    pub fn offset(&self, position: Position) -> usize {
        convert::offset(self.text, self.lines, position)
    }

    /// The range of a byte range of this document.
    pub fn range(&self, start: usize, end: usize) -> Range {
        convert::text_range(self.text, self.lines, start, end)
    }

    /// The text of `span` (in any file of the unit).
    pub fn slice(&self, span: Span) -> &'a str {
        self.unit.compilation.db.slice(span)
    }

    /// The display name of the file of `span`.
    pub fn file_name(&self, span: Span) -> &'a str {
        &self.unit.compilation.db.file(span.file).name
    }

    /// The open documents, by URI.
    pub fn documents(&self) -> &'a HashMap<Url, Document> {
        &self.workspace.documents
    }

    /// The name of the file of `span` for people: relative to the document's suite
    /// folder when it is inside it.
    pub fn display_name(&self, span: Span) -> &'a str {
        let name = self.file_name(span);
        let document = self.workspace.documents.get(self.uri);
        if let Some(UnitKey::Suite(root)) = document.map(|d| &d.unit) {
            let root = load::display(root);
            if let Some(relative) = name.strip_prefix(root.as_str()) {
                return relative.trim_start_matches('/');
            }
        }
        name
    }

    /// Where `span` is, for the client: a stdlib file is written to the cache first.
    pub fn location(&self, span: Span) -> Option<Location> {
        let db = &self.unit.compilation.db;
        let file = db.file(span.file);
        let uri = match file.origin {
            Origin::Stdlib => stdlib::uri(self.cache_dir, &file.name)?,
            Origin::User => workspace::uri_for(&self.workspace.documents, &file.name)?,
        };
        Some(Location::new(uri, convert::range(db, span)))
    }
}
