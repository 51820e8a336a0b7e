//! What the results of a case depend on besides its own file, for re-checks that reuse
//! them (`Recheck` in `lib.rs`): its resolved case (resolution's `CaseCache`) and its
//! own diagnostics (the checks' `CheckCache`).
//!
//! A case reads the suite, its profiles, shapes, schemas and the stdlib, but never
//! another case file: so its results hold while its own file and every file that
//! declares something other than cases are unchanged, and every file is where it was in
//! the run (spans name files by position).

use std::sync::Arc;

use crate::source::{FileId, SourceDb};
use crate::syntax::Parsed;

/// The context of one run, and the text of each of its files. Texts are compared, not
/// hashed: a re-check reuses results where they are equal, so two texts taken for one
/// would give an edited case the results of its old text. A scope shares the texts of
/// its run's `SourceDb` (by reference count): keeping it for the next run copies none.
#[derive(Clone)]
pub struct Scope {
    pub(crate) context: Context,
    /// Each file's text, by file id.
    texts: Vec<Arc<str>>,
}

/// What every case of a run reads besides its own file: every file's name in order
/// (spans name files by position), with the text of each file that declares anything
/// but cases.
#[derive(Clone, PartialEq)]
pub(crate) struct Context(Vec<(String, Option<Arc<str>>)>);

impl Scope {
    /// The scope of a run over `db`, whose files parsed into `trees` (in file order).
    pub fn new(db: &SourceDb, trees: &[Arc<Parsed>]) -> Scope {
        let context = db
            .files()
            .zip(trees)
            .map(|((_, file), tree)| {
                let declares = (!tree.declares_only_cases()).then(|| Arc::clone(&file.text));
                (file.name.clone(), declares)
            })
            .collect();
        Scope {
            context: Context(context),
            texts: db.files().map(|(_, file)| Arc::clone(&file.text)).collect(),
        }
    }

    /// Which files have the same text as in the run of `last`, when that run had the
    /// same context; none when it had another (nothing of it holds).
    pub(crate) fn unchanged_since(&self, last: &Scope) -> Option<Unchanged> {
        (self.context == last.context).then(|| {
            let same = |(i, text): (usize, &Arc<str>)| last.texts.get(i) == Some(text);
            Unchanged(self.texts.iter().enumerate().map(same).collect())
        })
    }
}

/// The files of a run whose text is the same as in an earlier run of the same context,
/// by file id.
pub(crate) struct Unchanged(Vec<bool>);

impl Unchanged {
    pub(crate) fn contains(&self, file: FileId) -> bool {
        self.0.get(file.0 as usize) == Some(&true)
    }
}
