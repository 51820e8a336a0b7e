//! The typed world of a case: world schemas (collections of typed fields) and the
//! records a world holds. Readers are in `resolve::world`, rules in `rules::world`,
//! the sandbox JSON in `lower::sandbox`.

use strum::{EnumString, IntoStaticStr};

use crate::{Name, Text};

use super::time::ZonedDateTime;
use super::value::FieldValue;
use super::value::IdIndex;

/// Names a world block reserves for itself: no collection may take them.
pub const RESERVED_COLLECTIONS: &[&str] = &["new"];
/// Names a record block reserves for itself: no field may take them.
pub const RESERVED_FIELDS: &[&str] = &["history"];

#[derive(Clone, Debug)]
pub struct WorldSchema {
    pub name: Name,
    /// The letters of request ids (`Q` for Q1), when the schema's tools issue them.
    pub request_prefix: Option<Name>,
    pub collections: Vec<Collection>,
    /// The tools the schema declares over its collections.
    pub tools: Vec<super::tool::Tool>,
}

impl WorldSchema {
    pub fn collection(&self, name: &str) -> Option<&Collection> {
        self.collections.iter().find(|c| c.name.as_str() == name)
    }

    /// The collections whose ids start with exactly these letters.
    pub fn collections_with_prefix<'a>(
        &'a self,
        letters: &'a str,
    ) -> impl Iterator<Item = &'a Collection> + 'a {
        self.collections
            .iter()
            .filter(move |c| c.id_prefix.as_str() == letters)
    }

    pub fn is_request_prefix(&self, letters: &str) -> bool {
        self.request_prefix
            .as_ref()
            .is_some_and(|p| p.as_str() == letters)
    }
}

#[derive(Clone, Debug)]
pub struct Collection {
    pub name: Name,
    pub doc: Option<Text>,
    pub id_prefix: Name,
    /// Writes are refused (e.g. prescriptions).
    pub read_only: bool,
    pub fields: Vec<FieldSpec>,
}

impl Collection {
    pub fn field(&self, name: &str) -> Option<&FieldSpec> {
        self.fields.iter().find(|f| f.name.as_str() == name)
    }
}

#[derive(Clone, Debug)]
pub struct FieldSpec {
    pub name: Name,
    pub ty: FieldType,
    pub required: bool,
    pub doc: Option<Text>,
}

/// A field's type, named in schemas by its word in lower case (`datetime`); the types
/// with arguments (`enum a b`, `ref c`, `list T`) are read word by word, not by name.
#[derive(Clone, Debug, PartialEq, IntoStaticStr, EnumString)]
#[strum(serialize_all = "lowercase")]
pub enum FieldType {
    Text,
    Date,
    Time,
    DateTime,
    Duration,
    Recurrence,
    Bool,
    Number,
    /// A whole number (stored as a number: `3` equals `3.0`).
    Integer,
    #[strum(disabled)]
    Enum(Vec<String>),
    /// A record id of one of these collections.
    #[strum(disabled)]
    Ref(Vec<String>),
    #[strum(disabled)]
    List(Box<FieldType>),
    /// A file's content: any bytes (written as a text, or included from the suite folder).
    Bytes,
}

impl FieldType {
    /// The type with its article, for a message: `a number`, `an integer`.
    pub fn with_article(&self) -> String {
        let name = self.describe();
        match name.starts_with(['a', 'e', 'i', 'o', 'u']) {
            true => format!("an {name}"),
            false => format!("a {name}"),
        }
    }

    /// How the type is written in a schema, e.g. `list enum locate ring`.
    pub fn describe(&self) -> String {
        match self {
            FieldType::Enum(values) => format!("enum {}", values.join(" ")),
            FieldType::Ref(targets) => format!("ref {}", targets.join(" ")),
            FieldType::List(item) => format!("list {}", item.describe()),
            simple => <&str>::from(simple).to_string(),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct World {
    pub records: Vec<Record>,
    /// Ids the run will give to records it creates, by collection, in order.
    pub new_ids: Vec<(Name, Name)>,
    /// Ids of records written under an unknown collection (already reported): known,
    /// so that naming them elsewhere does not repeat the error.
    pub untyped_ids: Vec<Name>,
    /// The world starts from a shared world that is unknown (reported): its records
    /// are not all known, so names of records are not checked against them.
    pub partial: bool,
}

impl World {
    pub fn record(&self, id: &str) -> Option<&Record> {
        self.records.iter().find(|r| r.id.as_str() == id)
    }

    /// Every id the case may name: existing records and declared new ones.
    pub fn all_ids(&self) -> IdIndex {
        let mut ids = self.existing_ids();
        for (collection, id) in &self.new_ids {
            ids.insert(id.as_str().to_string(), collection.as_str().to_string());
        }
        ids
    }

    /// Record ids with their collection; untyped ids map to no collection (`""`).
    pub fn existing_ids(&self) -> IdIndex {
        let untyped = self
            .untyped_ids
            .iter()
            .map(|id| (id.as_str().to_string(), String::new()));
        self.records
            .iter()
            .map(|r| (r.id.as_str().to_string(), r.collection.as_str().to_string()))
            .chain(untyped)
            .collect()
    }
}

#[derive(Clone, Debug)]
pub struct Record {
    pub collection: Name,
    pub id: Name,
    pub fields: Vec<(Name, FieldValue)>,
    /// Earlier states, oldest first: what the fields were before each change.
    pub history: Vec<Revision>,
}

#[derive(Clone, Debug)]
pub struct Revision {
    pub changed_at: ZonedDateTime,
    pub reason: Option<Text>,
    pub fields: Vec<(Name, FieldValue)>,
}

/// The runs of ASCII letters and digits of `text` with their byte offsets: the words
/// an id can be. Bytes, not characters: no byte of a multi-byte character is an ASCII
/// letter or digit, so the words and their offsets are the same without decoding.
pub fn ascii_words(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while bytes.get(at).is_some_and(|b| !b.is_ascii_alphanumeric()) {
            at += 1;
        }
        let start = at;
        while bytes.get(at).is_some_and(u8::is_ascii_alphanumeric) {
            at += 1;
        }
        (at > start).then(|| (start, &text[start..at]))
    })
}

/// The letters of an id shaped like `CT12` (capitals, then digits).
pub fn id_letters(id: &str) -> Option<&str> {
    let split = id.find(|c: char| c.is_ascii_digit())?;
    let (letters, digits) = id.split_at(split);
    let ok = !letters.is_empty()
        && letters.chars().all(|c| c.is_ascii_uppercase())
        && digits.chars().all(|c| c.is_ascii_digit());
    ok.then_some(letters)
}
