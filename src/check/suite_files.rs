//! The files a suite names inside its folder: the programs and scripts of its adapters
//! must be there. The one rule that reads the file system rather than the model, run by
//! [`crate::Compilation::new`] for a suite read from a folder (never cached: the files
//! may change while the sources do not). It only asks whether a file exists; nothing
//! is read or run.

use std::path::{Component, Path};

use crate::diag::{codes, Diagnostic};
use crate::model::tool::{Adapter, Binding};
use crate::model::{Suite, Text};

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
