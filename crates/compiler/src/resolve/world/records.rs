//! The `world { … }` block of a case: its records, typed by the suite's world schema.
//!
//! ```case
//! world {
//!   schedules S2 { label "Evening walk"; time "20:00"; recurrence daily; status active }
//!   reminders R1 { label "Evening medication"; at "2026-11-09 20:00"; recurrence daily; status active }
//!   new bookings B1                 # the booking the run creates is called B1 in the prose
//! }
//! ```
//!
//! Reading happens in two passes: ids first (so references can point forwards), then
//! every field against its type.

use std::collections::hash_map::{Entry, HashMap};

use arcstr::ArcStr;
use foldhash::fast::FixedState;

use crate::diag::{codes, suggest, Diagnostic};
use crate::model::Name;
use crate::resolve::keys::body;
use crate::resolve::values::{self, ValueType};
use crate::source::Span;
use crate::syntax::ast::{Statement, ValueKind};

use crate::model::expect::FileStore;
use crate::model::value::{Bytes, FieldValue, IdIndex};
use crate::model::world::{
    id_letters, Collection, FieldType, Record, Revision, World, WorldSchema, RESERVED_FIELDS,
};

use super::shared::SharedWorlds;
use super::value::{self, TypeCx};

/// Reads a world block. A record with errors is reported and kept with the fields that
/// read well, so its id does not cascade into further errors (a case with errors gets
/// no sandbox anyway).
///
/// `files` is the suite's file store: the paths of its files must name files, each
/// once ([`FilePaths`]).
pub fn read_world(
    statement: &Statement,
    schema: &WorldSchema,
    zone: Option<chrono_tz::Tz>,
    files: Option<&FileStore>,
    shared: &SharedWorlds,
    diags: &mut Vec<Diagnostic>,
) -> World {
    let Some(block) = values::block_only(statement, diags) else {
        return World::default();
    };
    let mut world = World::default();
    let mut heads: Vec<(&Collection, Name, &Statement)> = Vec::new();
    let mut seen = SeenIds::default();
    let (statements, whole) = shared.merged(&block.statements, diags);
    world.partial = !whole;
    for statement in statements {
        if statement.name() == "new" {
            read_new_ids(statement, schema, &mut seen, &mut world, diags);
        } else if let Some((collection, id)) = record_head(statement, schema, diags) {
            match collection {
                Some(c) if claim_id(&id, c, schema, &mut seen, diags) => {
                    heads.push((c, id, statement))
                }
                Some(_) => {}
                None => world.untyped_ids.push(id),
            }
        }
    }
    let existing: IdIndex = heads
        .iter()
        .map(|(c, id, _)| (id.as_str().to_string(), c.name.as_str().to_string()))
        .chain(
            world
                .untyped_ids
                .iter()
                .map(|id| (id.as_str().to_string(), String::new())),
        )
        .collect();
    let cx = TypeCx {
        zone,
        ids: Some(&existing),
    };
    // A case's world is kept to the end of the run: sized, not grown by doubling.
    world.records.reserve_exact(heads.len());
    let mut paths = FilePaths::default();
    for (collection, id, statement) in heads {
        if let Some(store) = files.filter(|f| f.collection.as_str() == collection.name.as_str()) {
            paths.claim(statement, store, diags);
        }
        world
            .records
            .push(read_record(collection, id, statement, &cx, diags));
    }
    world
}

/// The longest name of a file or folder most file systems take, in bytes.
const MAX_FILE_NAME_BYTES: usize = 255;

/// The paths of a world's files so far, each with where it was first written. A
/// world's files are seeded into a workspace (`casec export`) and served by the
/// sandbox, by path: a path given twice would be one file to one and another file to
/// the other, and a path that cannot name a file fails only when it is written.
#[derive(Default)]
struct FilePaths<'t> {
    seen: HashMap<&'t str, Span, FixedState>,
}

impl<'t> FilePaths<'t> {
    /// Checks the path of the file record `record` of the store `files`: a file path
    /// (NUL-free, made of names of at most [`MAX_FILE_NAME_BYTES`], none empty, `.` or
    /// `..`) not given before in this world.
    fn claim(&mut self, record: &'t Statement, files: &FileStore, diags: &mut Vec<Diagnostic>) {
        let written = body(record)
            .iter()
            .find(|s| s.name() == files.path_field.as_str())
            .and_then(|s| match s.values.as_slice() {
                [value] => Some((value.as_str()?, value.span)),
                _ => None,
            });
        // A path that is not one text is reported by the record's type check.
        let Some((path, span)) = written else {
            return;
        };
        if let Some(problem) = path_problem(path) {
            diags.push(
                Diagnostic::new(
                    codes::WORLD_FILE_PATH,
                    format!("`{}` cannot name a file: {problem}", shown(path)),
                )
                .primary(span, "this path")
                .help("write a file's path as an absolute path of names: `/workspace/data/in.csv`"),
            );
            return;
        }
        match self.seen.entry(path) {
            Entry::Occupied(first) => diags.push(
                Diagnostic::new(
                    codes::WORLD_FILE_PATH,
                    format!("the file `{}` is given twice in this world", shown(path)),
                )
                .primary(span, "given again here")
                .secondary(*first.get(), "first given here")
                .help(
                    "a path names one file: keep one record of it, or give the other another path",
                ),
            ),
            Entry::Vacant(slot) => {
                slot.insert(span);
            }
        }
    }
}

/// Why `path` cannot name a file, if it cannot.
fn path_problem(path: &str) -> Option<String> {
    if path.is_empty() {
        return Some("it is empty".into());
    }
    if path.contains('\0') {
        return Some("it holds a NUL character, which no file name can".into());
    }
    let names = path.strip_prefix('/').unwrap_or(path).split('/');
    for name in names {
        match name {
            "" => return Some("it has an empty part (`//`, or a `/` at its end)".into()),
            "." | ".." => return Some(format!("it has a `{name}` part")),
            long if long.len() > MAX_FILE_NAME_BYTES => {
                return Some(format!(
                    "it has a part of {} bytes, and file systems name files of at most {MAX_FILE_NAME_BYTES}",
                    long.len()
                ))
            }
            _ => {}
        }
    }
    None
}

/// A path as a message quotes it: its first 80 characters, control characters escaped.
fn shown(path: &str) -> String {
    const SHOWN_CHARS: usize = 80;
    let mut out: String = path
        .chars()
        .take(SHOWN_CHARS)
        .flat_map(char::escape_debug)
        .collect();
    if path.chars().nth(SHOWN_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// `new COLLECTION ID…`
fn read_new_ids(
    statement: &Statement,
    schema: &WorldSchema,
    seen: &mut SeenIds,
    world: &mut World,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(names) = values::names(statement, diags) else {
        return;
    };
    let Some((collection, ids)) = names.split_first().filter(|(_, ids)| !ids.is_empty()) else {
        diags.push(
            Diagnostic::new(codes::BAD_ARGUMENTS, "`new` is not written as expected")
                .primary(statement.span, "expected a collection and at least one id")
                .help("write it as `new COLLECTION ID`, e.g. `new bookings B1`"),
        );
        return;
    };
    let Some(spec) = known_collection(collection, schema, diags) else {
        return;
    };
    for id in ids {
        if claim_id(id, spec, schema, seen, diags) {
            world.new_ids.push((collection.clone(), id.clone()));
        }
    }
}

/// The collection (when known) and id of `COLLECTION ID { … }`.
fn record_head<'a>(
    statement: &Statement,
    schema: &'a WorldSchema,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Option<&'a Collection>, Name)> {
    let key = Name::new(statement.name(), statement.key.span);
    let collection = known_collection(&key, schema, diags);
    let usage = format_args!("{} ID {{ field value; … }}", key.as_str());
    let v = values::args_with_block(statement, &[ValueType::Ident], usage, diags)?;
    Some((collection, values::name_of(&v[0])))
}

/// The collection `name` names, or an `unknown_collection` diagnostic.
pub fn known_collection<'a>(
    name: &Name,
    schema: &'a WorldSchema,
    diags: &mut Vec<Diagnostic>,
) -> Option<&'a Collection> {
    if let Some(found) = schema.collection(name.as_str()) {
        return Some(found);
    }
    let names = schema.collections.iter().map(|c| c.name.as_str());
    let d = Diagnostic::new(
        codes::UNKNOWN_COLLECTION,
        format!("unknown collection `{}`", name.as_str()),
    )
    .primary(
        name.span,
        format!("not a collection of {}", schema.name.as_str()),
    );
    diags.push(match suggest(name.as_str(), names) {
        Some(near) => d.help(format!("did you mean `{near}`?")),
        None => d.help(format!(
            "{} declares: {}",
            schema.name.as_str(),
            schema
                .collections
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    });
    None
}

/// The ids a world has claimed so far, each with where it was first written: looked up
/// by hash, so a world of 100,000 records is read in linear time.
type SeenIds = HashMap<ArcStr, Span, FixedState>;

/// Checks an id's prefix and uniqueness; records it as seen.
fn claim_id(
    id: &Name,
    collection: &Collection,
    schema: &WorldSchema,
    seen: &mut SeenIds,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    match seen.entry(id.value.clone()) {
        Entry::Occupied(first) => {
            diags.push(
                Diagnostic::new(
                    codes::DUPLICATE_RECORD,
                    format!("record id `{}` is used twice in this world", id.as_str()),
                )
                .primary(id.span, "used again here")
                .secondary(*first.get(), "first used here")
                .help("ids name one record each across the whole world; number the second one on"),
            );
            return false;
        }
        Entry::Vacant(slot) => {
            slot.insert(id.span);
        }
    }
    check_prefix(id, &collection.id_prefix, &collection.name, schema, diags)
}

/// Whether `id` is the prefix's letters followed by digits; reports it otherwise.
pub fn check_prefix(
    id: &Name,
    prefix: &Name,
    owner: &Name,
    schema: &WorldSchema,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let letters = id_letters(id.as_str());
    if letters == Some(prefix.as_str()) {
        return true;
    }
    let what = if schema.is_request_prefix(prefix.as_str()) {
        "request ids".to_string()
    } else {
        format!("ids of {}", owner.as_str())
    };
    diags.push(
        Diagnostic::new(
            codes::RECORD_ID_PREFIX,
            format!("`{}` does not look like one of the {what}", id.as_str()),
        )
        .primary(id.span, format!("expected `{}` followed by digits", prefix.as_str()))
        .help(format!(
            "{what} are `{0}1`, `{0}2`, …: the prose names records this way and the sandbox numbers new ones after them",
            prefix.as_str()
        )),
    );
    false
}

fn read_record(
    collection: &Collection,
    id: Name,
    statement: &Statement,
    cx: &TypeCx,
    diags: &mut Vec<Diagnostic>,
) -> Record {
    let mut fields: Vec<(Name, FieldValue)> = Vec::with_capacity(body(statement).len());
    let mut history = Vec::new();
    for field in body(statement) {
        if field.name() == "history" {
            history.extend(read_revision(collection, field, cx, diags));
            continue;
        }
        if let Some((name, value)) = read_field(collection, field, cx, diags) {
            if let Some((first, _)) = fields.iter().find(|(n, _)| n.as_str() == name.as_str()) {
                diags.push(
                    Diagnostic::new(
                        codes::DUPLICATE_FIELD,
                        format!(
                            "`{}` is given twice in record {}",
                            name.as_str(),
                            id.as_str()
                        ),
                    )
                    .primary(name.span, "given again here")
                    .secondary(first.span, "first given here")
                    .help("keep one value; earlier values belong in a `history` entry"),
                );
                continue;
            }
            fields.push((name, value));
        }
    }
    for spec in collection.fields.iter().filter(|f| f.required) {
        let name = spec.name.as_str();
        // A misspelling of the field is already reported as an unknown field.
        let written = |s: &Statement| {
            s.name() == name
                || (collection.field(s.name()).is_none() && suggest(s.name(), [name]).is_some())
        };
        if !body(statement).iter().any(written) {
            diags.push(
                Diagnostic::new(
                    codes::MISSING_RECORD_FIELD,
                    format!("record {} has no `{}`", id.as_str(), spec.name.as_str()),
                )
                .primary(id.span, format!("{} requires `{}`", collection.name.as_str(), spec.name.as_str()))
                .help(format!(
                    "add `{} …` ({}); mark the field `optional` in the schema if the prose may leave it out",
                    spec.name.as_str(),
                    spec.ty.describe()
                )),
            );
        }
    }
    sort_like_schema(&mut fields, collection);
    Record {
        collection: collection.name.clone(),
        id,
        fields,
        history,
    }
}

/// Fields in the order the schema declares them, so output does not depend on how
/// the author ordered a record.
fn sort_like_schema(fields: &mut [(Name, FieldValue)], collection: &Collection) {
    let rank = |name: &str| {
        collection
            .fields
            .iter()
            .position(|f| f.name.as_str() == name)
    };
    fields.sort_by_key(|(name, _)| rank(name.as_str()));
}

/// `FIELD VALUE` inside a record (or a history entry).
pub fn read_field(
    collection: &Collection,
    statement: &Statement,
    cx: &TypeCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Name, FieldValue)> {
    let name = Name::new(statement.name(), statement.key.span);
    let Some(spec) = collection.field(name.as_str()) else {
        diags.push(unknown_field(&name, collection));
        return None;
    };
    let value = match statement.values.as_slice() {
        [value] if statement.block.is_none() => value,
        // `content from "seed/sales.xlsx"`: a file of the suite folder, read with it.
        [from, path] if spec.ty == FieldType::Bytes && from.as_ident() == Some("from") => {
            let path = match &path.kind {
                ValueKind::Str { .. } => values::text_of(path),
                _ => {
                    diags.push(include_usage(statement, &name));
                    return None;
                }
            };
            if let Some(why) = include_problem(path.as_str()) {
                diags.push(
                    Diagnostic::new(
                        codes::INCLUDE,
                        format!("`{}` cannot be included: {why}", path.as_str()),
                    )
                    .primary(path.span, "a path inside the suite folder is expected")
                    .help("put the file in the suite folder and write its path relative to the folder that holds suite.case, e.g. `from \"seed/sales.xlsx\"`"),
                );
                return None;
            }
            let bytes = Bytes {
                data: Vec::new().into(),
                from: Some(path),
            };
            return Some((name, FieldValue::Bytes(bytes)));
        }
        _ => {
            diags.push(
                Diagnostic::new(
                    codes::BAD_ARGUMENTS,
                    format!("`{}` takes one value", name.as_str()),
                )
                .primary(
                    statement.span,
                    format!("expected one {}", spec.ty.describe()),
                )
                .help(format!(
                    "write it as `{} VALUE`; a list is written `[a, b]`",
                    name.as_str()
                )),
            );
            return None;
        }
    };
    match value::read(value, &spec.ty, cx, name.as_str()) {
        Ok(v) => Some((name, v)),
        Err(d) => {
            diags.push(d);
            None
        }
    }
}

fn include_usage(statement: &Statement, name: &Name) -> Diagnostic {
    Diagnostic::new(
        codes::BAD_ARGUMENTS,
        format!("`{}` includes a file by its path", name.as_str()),
    )
    .primary(statement.span, "expected `from \"PATH\"`")
    .help(format!(
        "write it as `{} from \"seed/FILE\"`, the path relative to the suite folder",
        name.as_str()
    ))
}

/// Why `path` cannot name a file inside the suite folder by its form: absolute, climbing
/// out, empty parts, a backslash (a Windows separator reads differently elsewhere).
pub fn include_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("the path is empty");
    }
    // `/…`, or a Windows drive (`C:…`).
    if path.starts_with('/') || path.as_bytes().get(1) == Some(&b':') {
        return Some("the path is absolute");
    }
    if path.contains('\\') {
        return Some("a `\\` separates nothing on Linux: write `/`");
    }
    if path.contains('\0') {
        return Some("the path holds a NUL character");
    }
    if path.split('/').any(|part| part == "..") {
        return Some("`..` climbs out of the suite folder");
    }
    if path.split('/').any(|part| part.is_empty() || part == ".") {
        return Some("the path has an empty or `.` part");
    }
    None
}

pub fn unknown_field(name: &Name, collection: &Collection) -> Diagnostic {
    let names = collection
        .fields
        .iter()
        .map(|f| f.name.as_str())
        .chain(RESERVED_FIELDS.iter().copied());
    let d = Diagnostic::new(
        codes::UNKNOWN_RECORD_FIELD,
        format!(
            "{} has no field `{}`",
            collection.name.as_str(),
            name.as_str()
        ),
    )
    .primary(name.span, "not a field of this collection");
    match suggest(name.as_str(), names) {
        Some(near) => d.help(format!("did you mean `{near}`?")),
        None => d.help(format!(
            "{} has: {}",
            collection.name.as_str(),
            collection
                .fields
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// `history "WHEN" ["reason"] { field old_value … }`
fn read_revision(
    collection: &Collection,
    statement: &Statement,
    cx: &TypeCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<Revision> {
    let usage = "history \"YYYY-MM-DD HH:MM\" \"reason\" { field earlier_value }";
    let (when, reason) = match statement.values.as_slice() {
        [when] => (when, None),
        [when, reason] if matches!(reason.kind, ValueKind::Str { .. }) => {
            (when, Some(values::text_of(reason)))
        }
        _ => {
            values::args_with_block(statement, &[ValueType::Str, ValueType::Str], usage, diags);
            return None;
        }
    };
    let changed_at = match value::read(when, &FieldType::DateTime, cx, "history") {
        Ok(FieldValue::DateTime(dt)) => dt,
        Ok(_) => return None,
        Err(d) => {
            diags.push(d);
            return None;
        }
    };
    let mut fields: Vec<(Name, FieldValue)> = body(statement)
        .iter()
        .filter_map(|s| read_field(collection, s, cx, diags))
        .collect();
    if fields.is_empty() {
        diags.push(
            Diagnostic::new(
                codes::MISSING_FIELD,
                "this history entry records no earlier value",
            )
            .primary(statement.key.span, "expected `{ field earlier_value }`")
            .help(format!("write it as `{usage}`")),
        );
        return None;
    }
    sort_like_schema(&mut fields, collection);
    Some(Revision {
        changed_at,
        reason,
        fields,
    })
}
