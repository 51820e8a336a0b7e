//! The value of a field of a plain kind, and every form it takes besides the statements
//! it was read from: the pieces it is written as, the texts it holds, and its JSON in a
//! layout.
//!
//! A plain value means nothing to casec beyond itself, so code that handles any plain
//! value goes through this module (its pieces, texts and JSON) rather than matching on
//! it; a new [`Form`] of value is written here, and its readers (the statements' in
//! `resolve/fields.rs`, a master's in `import/from_json.rs`). A new field kind holding a
//! value of a form that exists is a line in [`crate::shape::Kind::form`]. What matches
//! one form on purpose does so with a catch-all (the importer writes a vocabulary's
//! word bare, and plans the values one line can write).

use serde::ser::{Serialize, Serializer};
use strum::EnumDiscriminants;

use super::{Data, Name, Number, Text};

/// The value of a field of a plain kind (`text`, `texts`, `names`, `number`, `data`,
/// `objects`), or of a semantic kind kept as one (`step_limit`, `clock_step`).
///
/// A case keeps one for each such field it sets ([`crate::Case::value`]): `Data` is
/// boxed so that a value takes the size of a list (32 bytes as an `Option`), not of a
/// JSON value (88), which was an eighth of a case's model.
#[derive(Clone, Debug, PartialEq, EnumDiscriminants)]
#[strum_discriminants(name(Form), derive(Hash))]
pub enum Value {
    Text(Text),
    /// Several statements, one text each.
    Texts(Vec<Text>),
    Names(Vec<Name>),
    Number(Number),
    Data(Box<Data>),
    /// Several statements, one data block each (the `objects` kind).
    Objects(Vec<Data>),
}

/// One statement's worth of a plain value, as the source writes it.
#[derive(Clone, Copy, Debug)]
pub enum Piece<'a> {
    /// `key "…"`.
    Text(&'a Text),
    /// `key NAME NAME …`.
    Names(&'a [Name]),
    /// `key 12`.
    Number(&'a Number),
    /// `key { … }`.
    Data(&'a Data),
}

impl Form {
    /// Read from several statements (or a list of names) and a JSON array in a layout:
    /// an absent value is an empty list, never `null`.
    pub fn is_list(self) -> bool {
        matches!(self, Form::Texts | Form::Names | Form::Objects)
    }
}

impl Value {
    /// The statements the value is written as, in order: one, or one per item of a
    /// repeated kind (so, for a repeated kind, how many statements set it).
    pub fn pieces(&self) -> Vec<Piece<'_>> {
        match self {
            Value::Text(t) => vec![Piece::Text(t)],
            Value::Texts(ts) => ts.iter().map(Piece::Text).collect(),
            Value::Names(ns) => vec![Piece::Names(ns)],
            Value::Number(n) => vec![Piece::Number(n)],
            Value::Data(d) => vec![Piece::Data(d)],
            Value::Objects(blocks) => blocks.iter().map(Piece::Data).collect(),
        }
    }

    /// Every text the value holds, names included (none for numbers and data).
    pub fn texts(&self) -> Vec<&Text> {
        let mut out = Vec::new();
        for piece in self.pieces() {
            match piece {
                Piece::Text(t) => out.push(t),
                Piece::Names(ns) => out.extend(ns.iter().map(Name::text)),
                Piece::Number(_) | Piece::Data(_) => {}
            }
        }
        out
    }
}

/// The value's JSON in a layout: a string, a number, an object, or a list of them.
impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Text(t) => s.serialize_str(t.as_str()),
            Value::Texts(ts) => s.collect_seq(ts.iter().map(Text::as_str)),
            Value::Names(ns) => s.collect_seq(ns.iter().map(|n| n.as_str())),
            Value::Number(n) => n.value.serialize(s),
            Value::Data(d) => d.value.serialize(s),
            Value::Objects(blocks) => s.collect_seq(blocks.iter().map(|d| &d.value)),
        }
    }
}
