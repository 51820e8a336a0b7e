//! `files.read`, `files.write`, `files.list`: a store of files keyed by path.
//!
//! A file's content is its bytes (a `bytes` content field) or text: a read answers the
//! text of a UTF-8 file, and `{"base64": "…"}` for other bytes (an xlsx, an image); a
//! write stores the text it is given.
//!
//! Files are records of the bound collection, found by their path field. A write to a
//! path that holds a file overwrites its content (the earlier content goes into the
//! record's history); to a new path it creates a file. A read of a path that holds no
//! file is the error `FILE_NOT_FOUND`. A list gives the sorted paths under a folder
//! (every path without one). Paths are compared exactly: `/out/a.csv` is not `out/a.csv`.

use serde_json::{json, Value as Json};

use crate::model::tool::{FileOp, Files};
use crate::model::value::{Bytes, FieldValue};
use crate::model::world::FieldType;

use super::super::{CallResult, Runtime};
use super::argument;
use super::records::create_record;

pub fn run(rt: &mut Runtime, f: &Files, arguments: &Json) -> CallResult {
    let path = argument(arguments, f.path_argument.as_ref())
        .unwrap_or_default()
        .to_string();
    match f.op {
        FileOp::Read => read(rt, f, &path),
        FileOp::Write => {
            let content = arguments
                .get(f.content_argument.as_ref().map_or("", |c| c.as_str()))
                .and_then(Json::as_str)
                .unwrap_or_default()
                .to_string();
            write(rt, f, &path, content)
        }
        FileOp::List => list(rt, f, &path),
    }
}

/// The id of the file at `path`.
fn file_at(rt: &Runtime, f: &Files, path: &str) -> Option<String> {
    let wanted = FieldValue::Text(path.to_string());
    rt.state
        .in_collection(f.files_collection.as_str())
        .find(|r| r.field(f.path_field.as_str()) == Some(&wanted))
        .map(|r| r.id.clone())
}

fn read(rt: &Runtime, f: &Files, path: &str) -> CallResult {
    let Some(id) = file_at(rt, f, path) else {
        return CallResult::error("FILE_NOT_FOUND", format!("no file at `{path}`"));
    };
    let content = rt
        .state
        .get(&id)
        .and_then(|r| r.field(f.content_field.as_str()))
        .map(FieldValue::to_json)
        .unwrap_or(Json::Null);
    CallResult::ok(
        json!({ "path": path, "content": content }),
        vec![id],
        Vec::new(),
    )
}

fn write(rt: &mut Runtime, f: &Files, path: &str, content: String) -> CallResult {
    let schema = rt.sandbox.schema.clone();
    let Some(collection) = schema.collection(f.files_collection.as_str()) else {
        return CallResult::error("UNAVAILABLE", "this sandbox holds no files");
    };
    let bytes = content.len();
    let content = match collection.field(f.content_field.as_str()).map(|c| &c.ty) {
        Some(FieldType::Bytes) => FieldValue::Bytes(Bytes::new(content.into_bytes())),
        _ => FieldValue::Text(content),
    };
    if let Some(id) = file_at(rt, f, path) {
        let now = rt.now_text().to_string();
        let Some(record) = rt.state.get_mut(&id) else {
            return CallResult::not_found(path);
        };
        let update = vec![(f.content_field.as_str().to_string(), Some(content))];
        let changed = record.apply(update, &now, Some("overwrite"), collection);
        let changed = if changed {
            vec![id.clone()]
        } else {
            Vec::new()
        };
        return CallResult::ok(
            json!({ "path": path, "bytes": bytes, "created": false }),
            vec![id],
            changed,
        );
    }
    let fields = vec![
        (
            f.path_field.as_str().to_string(),
            FieldValue::Text(path.to_string()),
        ),
        (f.content_field.as_str().to_string(), content),
    ];
    let created = create_record(rt, collection, fields);
    if created.failed() {
        return created;
    }
    CallResult::ok(
        json!({ "path": path, "bytes": bytes, "created": true }),
        created.returned,
        created.changed,
    )
}

fn list(rt: &Runtime, f: &Files, folder: &str) -> CallResult {
    let prefix = if folder.is_empty() || folder.ends_with('/') {
        folder.to_string()
    } else {
        format!("{folder}/")
    };
    let mut found: Vec<(String, String)> = rt
        .state
        .in_collection(f.files_collection.as_str())
        .filter_map(|r| match r.field(f.path_field.as_str()) {
            Some(FieldValue::Text(p)) if p.starts_with(&prefix) => Some((p.clone(), r.id.clone())),
            _ => None,
        })
        .collect();
    found.sort();
    let (paths, ids): (Vec<String>, Vec<String>) = found.into_iter().unzip();
    CallResult::ok(json!({ "folder": folder, "paths": paths }), ids, Vec::new())
}
