//! The files a suite names inside its folder: the programs and scripts of its adapters
//! must be there, and the files its worlds include (`content from "seed/sales.xlsx"`)
//! are read into the model. The one module that reads the file system rather than the
//! model, run by `Compilation::new` for a suite read from a folder (never
//! cached: the files may change while the sources do not). Nothing is run, and nothing
//! outside the suite folder is read: a path that leads out of it is refused.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::Read;
use std::path::{Component, Path};
use std::sync::Arc;

use crate::diag::{codes, Diagnostic};
use crate::model::tool::{Adapter, Binding};
use crate::model::value::FieldValue;
use crate::model::{Suite, Text};
use crate::source::Span;

/// The largest file a suite may include: 64 MiB, as much as `replay --workspace` reads
/// of one file a run left.
const INCLUDE_LIMIT: u64 = 64 << 20;

/// Reads every file the suite's worlds include from the folder `root` into its value
/// (each file once, however many cases start from a world that includes it); a
/// diagnostic, once per place it is written, for each that cannot be read.
pub fn read_includes(suite: &mut Suite, root: &Path) -> Vec<Diagnostic> {
    let Ok(root) = fs::canonicalize(root) else {
        return Vec::new();
    };
    let mut read: HashMap<String, Result<Arc<[u8]>, String>> = HashMap::new();
    let mut reported: HashSet<Span> = HashSet::new();
    let mut diags = Vec::new();
    let records = suite
        .cases
        .iter_mut()
        .filter_map(|case| case.sandbox.as_mut())
        .flat_map(|sandbox| sandbox.world.records.iter_mut());
    for record in records {
        for (_, value) in &mut record.fields {
            let FieldValue::Bytes(bytes) = value else {
                continue;
            };
            let Some(from) = bytes.from.clone() else {
                continue;
            };
            let found = read
                .entry(from.as_str().to_string())
                .or_insert_with(|| read_included(&root, from.as_str()));
            match found {
                Ok(data) => bytes.data = data.clone(),
                Err(why) if reported.insert(from.span) => diags.push(
                    Diagnostic::new(
                        codes::INCLUDE,
                        format!("`{}` cannot be included: {why}", from.as_str()),
                    )
                    .primary(from.span, "this file of the suite folder")
                    .help("put the file in the suite folder and write its path relative to the folder that holds suite.case"),
                ),
                Err(_) => {}
            }
        }
    }
    diags
}

/// The bytes of the file at `path` inside `root` (its real path): none that lead out of
/// the folder by a link, are not a regular file, or pass [`INCLUDE_LIMIT`].
fn read_included(root: &Path, path: &str) -> Result<Arc<[u8]>, String> {
    let real = fs::canonicalize(root.join(path))
        .map_err(|_| "there is no such file in the suite folder".to_string())?;
    if !real.starts_with(root) {
        return Err("a symbolic link leads outside the suite folder".into());
    }
    let metadata = fs::metadata(&real).map_err(|e| e.to_string())?;
    if !metadata.is_file() {
        return Err("it is not a regular file".into());
    }
    let mut data = Vec::new();
    fs::File::open(&real)
        .and_then(|f| f.take(INCLUDE_LIMIT + 1).read_to_end(&mut data))
        .map_err(|e| e.to_string())?;
    if data.len() as u64 > INCLUDE_LIMIT {
        return Err("it is larger than 64 MiB".into());
    }
    Ok(data.into())
}

/// A diagnostic for every adapter word naming a file the suite folder `root` lacks.
pub fn missing_adapter_programs(suite: &Suite, root: &Path) -> Vec<Diagnostic> {
    suite
        .tools
        .iter()
        .filter_map(|tool| match &tool.binding {
            Binding::Adapter(adapter) => Some((tool.name.as_str(), adapter)),
            _ => None,
        })
        .filter_map(|(tool, adapter)| {
            let word = file_word(adapter)?;
            (!root.join(word.as_str()).is_file()).then(|| missing(tool, word))
        })
        .collect()
}

/// The word of an adapter that names a file of the suite: the program when it is a
/// relative path, else the first argument of a bare program when it reads as a file
/// (a path or a name with an extension, not an option). Absolute and climbing paths
/// are left to the consent rules (docs/security.md), which run before a program starts.
fn file_word(adapter: &Adapter) -> Option<&Text> {
    let (program, args) = adapter.command.split_first()?;
    let word = match Path::new(program.as_str()).components().count() > 1 {
        true => program,
        false => args.first().filter(|a| reads_as_file(a.as_str()))?,
    };
    let path = Path::new(word.as_str());
    path.components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        .then_some(word)
}

fn reads_as_file(word: &str) -> bool {
    let path = Path::new(word);
    !word.starts_with('-')
        && !word.contains(['=', ' '])
        && (path.components().count() > 1 || path.extension().is_some())
}

fn missing(tool: &str, word: &Text) -> Diagnostic {
    let file = word.as_str();
    Diagnostic::new(
        codes::MISSING_ADAPTER_PROGRAM,
        format!("the adapter of `{tool}` runs `{file}`, which is not in the suite folder"),
    )
    .primary(word.span, "no such file")
    .help(format!(
        "add `{file}` to the suite folder, or correct the path: it is relative to the folder that holds suite.case"
    ))
}

#[cfg(test)]
mod tests {
    use super::reads_as_file;

    #[test]
    fn scripts_read_as_files_and_options_and_commands_do_not() {
        for file in ["tools/notes.py", "notes.js", "./run", "a/b"] {
            assert!(reads_as_file(file), "{file}");
        }
        for word in ["-m", "-c", "run", "--config=x.toml", "print('x'); 1.0"] {
            assert!(!reads_as_file(word), "{word}");
        }
    }
}
