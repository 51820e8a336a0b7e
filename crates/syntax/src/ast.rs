//! The syntax tree: statements, blocks and values with their spans.
//!
//! The tree is generic (a key, values, an optional block); meaning is given by the
//! resolver. Comments are not part of the tree but kept beside it, by span, for the
//! formatter.

use compact_str::CompactString;

use crate::source::{FileId, Span};

#[derive(Clone, Debug)]
pub struct File {
    pub id: FileId,
    pub statements: Vec<Statement>,
    pub comments: Vec<Span>,
}

#[derive(Clone, Debug)]
pub struct Statement {
    pub key: Key,
    pub values: Vec<Value>,
    pub block: Option<Block>,
    pub span: Span,
}

impl Statement {
    pub fn name(&self) -> &str {
        &self.key.name
    }
}

#[derive(Clone, Debug)]
pub struct Key {
    pub name: CompactString,
    /// Written as a quoted string (only useful in free-form data blocks).
    pub quoted: bool,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Block {
    pub statements: Vec<Statement>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Value {
    pub kind: ValueKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StringStyle {
    Quoted,
    TextBlock,
}

#[derive(Clone, Debug)]
pub enum ValueKind {
    Str {
        text: CompactString,
        style: StringStyle,
    },
    Ident(CompactString),
    Number(CompactString),
    List(Vec<ListItem>),
}

#[derive(Clone, Debug)]
pub enum ListItem {
    Value(Value),
    Block(Block),
}

impl Value {
    /// A short description for "expected a string, found …" messages.
    pub fn describe(&self) -> &'static str {
        match self.kind {
            ValueKind::Str { .. } => "a string",
            ValueKind::Ident(_) => "a name",
            ValueKind::Number(_) => "a number",
            ValueKind::List(_) => "a list",
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            ValueKind::Str { text, .. } => Some(text),
            _ => None,
        }
    }

    pub fn as_ident(&self) -> Option<&str> {
        match &self.kind {
            ValueKind::Ident(name) => Some(name),
            _ => None,
        }
    }
}
