//! A workspace on disk as the run's file store: after a run's trace is replayed, the
//! files a folder holds replace the store's, so the checks that grade the reference
//! sandbox grade what a real run left behind (`casec replay --workspace`, the Python
//! package's `replay(workspace=…)`, and through it the evaluator a folder export
//! writes). One semantics: nothing here decides a check; [`super::eval`] does, on the
//! store this leaves.
//!
//! The folder stands for the file system root: `ROOT/outputs/a.csv` is the file
//! `/outputs/a.csv`. Every regular file under it is read; symbolic links are not
//! followed (one could point anywhere on the machine that grades), and so not read, nor
//! are the system folders at its top (`usr`, `etc`, `tmp`, …: see
//! [`crate::model::tool::SYSTEM_FOLDERS`]), which a workspace never holds. A
//! store whose content field is `bytes` (std.workspace_world's) holds each file's
//! exact bytes; one of `text` holds a file whose bytes are not UTF-8 with each invalid
//! sequence replaced by U+FFFD: it exists, and a text or table check on it fails with
//! what it holds. Then the store's files are exactly the folder's: a file at a
//! path the store already holds takes the folder's content (a change when it differs,
//! as a tool's write would be), a path only the folder holds is a new file, and a file
//! the folder lacks is removed.
//!
//! Limits keep a hostile folder from exhausting the grader: at most [`MAX_FILES`]
//! files, each at most [`MAX_FILE_BYTES`], at most [`MAX_DEPTH`] folders deep.

use std::collections::BTreeMap;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::model::tool::file_store;
use crate::model::value::{Bytes, FieldValue};
use crate::model::world::FieldType;

use super::services::records::create_record;
use super::Runtime;
use crate::model::tool::SYSTEM_FOLDERS;

/// The most files a workspace may hold.
pub const MAX_FILES: usize = 10_000;
/// The largest file read, in bytes (64 MiB).
pub const MAX_FILE_BYTES: u64 = 64 << 20;
/// The deepest folder read, counted from the root.
pub const MAX_DEPTH: usize = 64;

/// Why a folder cannot stand for a run's files.
#[derive(Debug)]
pub enum WorkspaceError {
    /// The suite's tools keep no files (or disagree on where).
    NoFileStore,
    NotAFolder(PathBuf),
    Unreadable {
        path: PathBuf,
        error: std::io::Error,
    },
    /// A file or folder name that is not UTF-8 cannot be a path of the store.
    NameNotUtf8(PathBuf),
    FileTooLarge {
        path: PathBuf,
        bytes: u64,
    },
    TooManyFiles,
    TooDeep(PathBuf),
}

impl fmt::Display for WorkspaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkspaceError::NoFileStore => f.write_str(
                "the suite's tools keep no files (no tool is bound to a `files.*` service, or two disagree on the store): a workspace has nothing to stand for",
            ),
            WorkspaceError::NotAFolder(p) => write!(f, "`{}` is not a folder", p.display()),
            WorkspaceError::Unreadable { path, error } => {
                write!(f, "cannot read `{}`: {error}", path.display())
            }
            WorkspaceError::NameNotUtf8(p) => {
                write!(f, "`{}`: a file name that is not UTF-8 cannot be a path the checks name", p.display())
            }
            WorkspaceError::FileTooLarge { path, bytes } => write!(
                f,
                "`{}` holds {bytes} bytes, more than the {MAX_FILE_BYTES} a workspace file may",
                path.display()
            ),
            WorkspaceError::TooManyFiles => {
                write!(f, "the workspace holds more than {MAX_FILES} files")
            }
            WorkspaceError::TooDeep(p) => write!(
                f,
                "`{}` lies more than {MAX_DEPTH} folders deep",
                p.display()
            ),
        }
    }
}

impl std::error::Error for WorkspaceError {}

/// Makes the files under `root` the run's file store (see the module's rules).
pub fn overlay(rt: &mut Runtime, root: &Path) -> Result<(), WorkspaceError> {
    if !root.is_dir() {
        return Err(WorkspaceError::NotAFolder(root.to_path_buf()));
    }
    overlay_files(rt, files_under(root)?, |_| true).map(drop)
}

/// Makes `files` the run's file store among the store's paths `in_scope` takes (a
/// file out of scope, or a record without a path, stays as it is); the ids of the
/// records it changed, created or removed.
pub fn overlay_files(
    rt: &mut Runtime,
    mut files: BTreeMap<String, Vec<u8>>,
    in_scope: impl Fn(&str) -> bool,
) -> Result<Vec<String>, WorkspaceError> {
    let store = file_store(&rt.suite.tools)
        .and_then(Result::ok)
        .ok_or(WorkspaceError::NoFileStore)?;
    let schema = rt.sandbox.schema.clone();
    let Some(collection) = schema.collection(store.collection.as_str()) else {
        return Err(WorkspaceError::NoFileStore);
    };
    let (path_field, content_field) = (store.path_field.as_str(), store.content_field.as_str());
    let holds_bytes = collection
        .field(content_field)
        .is_some_and(|f| f.ty == FieldType::Bytes);
    let content = |data: Vec<u8>| match holds_bytes {
        true => FieldValue::Bytes(Bytes::new(data)),
        false => FieldValue::Text(
            String::from_utf8(data)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        ),
    };
    let now = rt.now_text().to_string();
    let held: Vec<(String, Option<String>)> = rt
        .state
        .in_collection(collection.name.as_str())
        .map(|r| {
            let path = match r.field(path_field) {
                Some(FieldValue::Text(p)) => Some(p.clone()),
                _ => None,
            };
            (r.id.clone(), path)
        })
        .filter(|(_, path)| path.as_deref().is_some_and(&in_scope))
        .collect();
    let mut changed = Vec::new();
    for (id, path) in held {
        match path.and_then(|p| files.remove(&p)) {
            Some(data) => {
                if let Some(record) = rt.state.get_mut(&id) {
                    let update = vec![(content_field.to_string(), Some(content(data)))];
                    if record.apply(update, &now, Some("workspace"), collection) {
                        changed.push(id);
                    }
                }
            }
            None => {
                rt.state.remove(&id);
                changed.push(id);
            }
        }
    }
    for (path, data) in files {
        let fields = vec![
            (path_field.to_string(), FieldValue::Text(path)),
            (content_field.to_string(), content(data)),
        ];
        changed.extend(create_record(rt, collection, fields).changed);
    }
    Ok(changed)
}

/// The regular files under `root`, by store path (`/outputs/a.csv`), with their bytes.
pub fn files_under(root: &Path) -> Result<BTreeMap<String, Vec<u8>>, WorkspaceError> {
    let mut files = BTreeMap::new();
    read_folder(root, "", 0, &mut files)?;
    Ok(files)
}

/// Reads the regular files under `folder` (the path `prefix` in the store) into
/// `files`, by store path.
fn read_folder(
    folder: &Path,
    prefix: &str,
    depth: usize,
    files: &mut BTreeMap<String, Vec<u8>>,
) -> Result<(), WorkspaceError> {
    if depth > MAX_DEPTH {
        return Err(WorkspaceError::TooDeep(folder.to_path_buf()));
    }
    let unreadable = |path: &Path, error| WorkspaceError::Unreadable {
        path: path.to_path_buf(),
        error,
    };
    let entries = std::fs::read_dir(folder).map_err(|e| unreadable(folder, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| unreadable(folder, e))?;
        let path = entry.path();
        let name = entry
            .file_name()
            .into_string()
            .map_err(|_| WorkspaceError::NameNotUtf8(path.clone()))?;
        let at = format!("{prefix}/{name}");
        // The entry itself, not what a link points at.
        let kind = entry.file_type().map_err(|e| unreadable(&path, e))?;
        if kind.is_dir() {
            if depth == 0 && SYSTEM_FOLDERS.contains(&name.as_str()) {
                continue;
            }
            read_folder(&path, &at, depth + 1, files)?;
        } else if kind.is_file() {
            if files.len() == MAX_FILES {
                return Err(WorkspaceError::TooManyFiles);
            }
            // Read to one byte past the limit: a file may grow while it is read.
            let file = std::fs::File::open(&path).map_err(|e| unreadable(&path, e))?;
            let mut content = Vec::new();
            file.take(MAX_FILE_BYTES + 1)
                .read_to_end(&mut content)
                .map_err(|e| unreadable(&path, e))?;
            if content.len() as u64 > MAX_FILE_BYTES {
                let bytes = entry.metadata().map_or(content.len() as u64, |m| m.len());
                return Err(WorkspaceError::FileTooLarge { path, bytes });
            }
            files.insert(at, content);
        }
    }
    Ok(())
}
