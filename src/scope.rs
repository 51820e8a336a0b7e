//! What the results of a case depend on besides its own file, for re-checks that reuse
//! them (`Recheck` in `lib.rs`): its resolved case (resolution's `CaseCache`) and its
//! own diagnostics (the checks' `CheckCache`).
//!
//! A case reads the suite, its profiles, shapes, schemas and the stdlib, but never
//! another case file: so its results hold while its own file and every file that
//! declares something other than cases are unchanged, and every file is where it was in
//! the run (spans name files by position).

use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;

use crate::source::{FileId, SourceDb};
use crate::syntax::Parsed;

/// The context of one run, and the hash of each of its files.
#[derive(Clone)]
pub struct Scope {
    /// The hash of the context: every file's name in order, and the text of each file
    /// that declares anything but cases.
    pub(crate) key: u64,
    /// The hash of each file's text, by file id.
    file_hashes: Vec<u64>,
}

impl Scope {
    /// The scope of a run over `db`, whose files parsed into `trees` (in file order).
    pub fn new(db: &SourceDb, trees: &[Arc<Parsed>]) -> Scope {
        let hasher = foldhash::fast::FixedState::default();
        let file_hashes: Vec<u64> = db
            .files()
            .map(|(_, file)| hasher.hash_one(&*file.text))
            .collect();
        let mut key = hasher.build_hasher();
        for ((id, file), tree) in db.files().zip(trees) {
            file.name.hash(&mut key);
            let only_cases = tree
                .file
                .as_ref()
                .is_some_and(|f| f.statements.iter().all(|s| s.name() == "case"));
            if !only_cases {
                file_hashes[id.0 as usize].hash(&mut key);
            }
        }
        Scope {
            key: key.finish(),
            file_hashes,
        }
    }

    /// The hash of a file's text (0 for a file not in the run).
    pub(crate) fn file_hash(&self, file: FileId) -> u64 {
        self.file_hashes.get(file.0 as usize).copied().unwrap_or(0)
    }
}
