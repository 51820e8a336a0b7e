//! The incremental engine's tables and its one rule of what a change invalidates.
//!
//! A re-check (the language server after an edit, through `Recheck`) keeps
//! what a run found, and the next run takes it over wherever its inputs are unchanged,
//! so an edit costs the work of the files it changed. (`casec check --cache` keeps its
//! results on disk by content digest, in the command line's `driver/cache`, and
//! compiles what changed through a fresh `Recheck` to read the rules' results per
//! file.) What a result depends on is stated here, once:
//!
//! * a file's tree: its text and its file id (spans name files by position), in
//!   [`ParseCache`];
//! * whatever a case gives (its resolved case, its diagnostics): its own file and the
//!   run's *context*, every file's name in order with the text of each file that
//!   declares anything but cases (the suite, profiles, shapes, schemas, the stdlib),
//!   because a case reads those and never another case file; in a [`FileMemo`];
//! * whatever the declarations give (shapes and schemas, the suite's hidden texts, what
//!   cases share): the context, in a [`ContextMemo`].
//!
//! Each run's [`Scope`] is compared with the last run's once, into [`Changes`], and
//! every table enters those changes before a phase reads it: an entry made from a file
//! that has changed since, or in another context, is gone. Texts are compared, not
//! hashed: two texts taken for one would give an edited case the results of its old
//! text.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::sync::Arc;

use crate::source::{FileId, SourceDb};
use crate::syntax::{self, Parsed};

/// The inputs of one run that its results depend on: its context, and the text of
/// each of its files. A scope shares the texts of its run's `SourceDb` (by reference
/// count): keeping it for the next run copies none.
#[derive(Clone)]
pub struct Scope {
    context: Context,
    /// Each file's text, by file id.
    texts: Vec<Arc<str>>,
}

/// What every case of a run reads besides its own file: every file's name in order
/// (spans name files by position), with the text of each file that declares anything
/// but cases.
#[derive(Clone, PartialEq)]
struct Context(Vec<(String, Option<Arc<str>>)>);

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

    /// What changed since the run of `last` (everything, when there was none).
    pub fn changes_since(&self, last: Option<&Scope>) -> Changes {
        match last {
            Some(last) if self.context == last.context => {
                let same = |(i, text): (usize, &Arc<str>)| last.texts.get(i) == Some(text);
                Changes::Files(self.texts.iter().enumerate().map(same).collect())
            }
            _ => Changes::Everything,
        }
    }
}

/// What changed between two runs of a re-check.
pub enum Changes {
    /// The context (or there was no earlier run): nothing of the last run holds.
    Everything,
    /// Only the files whose text changed: `true` for each file id whose did not.
    Files(Vec<bool>),
}

impl Changes {
    fn keeps(&self, file: FileId) -> bool {
        match self {
            Changes::Everything => false,
            Changes::Files(unchanged) => unchanged.get(file.0 as usize) == Some(&true),
        }
    }
}

/// Results made from one file each, by a key that names the file: kept while that file
/// and the context are unchanged.
pub struct FileMemo<K, V> {
    entries: HashMap<K, V>,
}

/// A key of a [`FileMemo`]: it names the file its result was made from.
pub trait FromFile {
    fn file(&self) -> FileId;
}

impl<T> FromFile for (FileId, T) {
    fn file(&self) -> FileId {
        self.0
    }
}

impl<K, V> Default for FileMemo<K, V> {
    fn default() -> Self {
        FileMemo {
            entries: HashMap::new(),
        }
    }
}

impl<K: FromFile + Eq + Hash, V> FileMemo<K, V> {
    /// Forgets the results of the files `changes` does not keep.
    pub fn enter(&mut self, changes: &Changes) {
        match changes {
            Changes::Everything => self.entries.clear(),
            Changes::Files(_) => self.entries.retain(|key, _| changes.keeps(key.file())),
        }
    }

    pub fn get(&self, key: &K) -> Option<&V> {
        self.entries.get(key)
    }

    pub fn contains(&self, key: &K) -> bool {
        self.entries.contains_key(key)
    }

    pub fn take(&mut self, key: &K) -> Option<V> {
        self.entries.remove(key)
    }

    pub fn insert(&mut self, key: K, value: V) {
        self.entries.insert(key, value);
    }

    /// Keeps only this run's results, `kept`: those of cases no longer in the suite go.
    pub fn replace(&mut self, kept: impl IntoIterator<Item = (K, V)>) {
        self.entries = kept.into_iter().collect();
    }

    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.entries.iter()
    }
}

/// A result of the declarations: kept while the context is unchanged.
pub struct ContextMemo<V> {
    value: Option<V>,
}

impl<V> Default for ContextMemo<V> {
    fn default() -> Self {
        ContextMemo { value: None }
    }
}

impl<V> ContextMemo<V> {
    /// Forgets the result when the context changed.
    pub fn enter(&mut self, changes: &Changes) {
        if let Changes::Everything = changes {
            self.value = None;
        }
    }

    /// The kept result, or the one `make` gives, kept.
    pub fn get_or_make(&mut self, make: impl FnOnce() -> V) -> &mut V {
        self.value.get_or_insert_with(make)
    }

    pub fn get(&self) -> Option<&V> {
        self.value.as_ref()
    }

    pub fn set(&mut self, value: V) {
        self.value = Some(value);
    }
}

/// Each file's last tree, by file name: reused while the file's text and id are the
/// same (a re-check parses only the files that changed; parsing is most of a
/// compilation's time).
#[derive(Default)]
pub struct ParseCache {
    entries: HashMap<String, ParsedFile>,
}

struct ParsedFile {
    id: FileId,
    text: Arc<str>,
    parsed: Arc<Parsed>,
}

impl ParseCache {
    /// The trees of `files` (id, name, text), in order: the kept tree of each file whose
    /// text and id are unchanged, the others parsed together (on all cores when there is
    /// enough text: a first check of a large suite parses every file). Forgets the files
    /// that are not among them.
    pub fn parse_all(&mut self, files: &[(FileId, &str, &Arc<str>)]) -> Vec<Arc<Parsed>> {
        let kept = |cache: &ParseCache, (id, name, text): &(FileId, &str, &Arc<str>)| {
            let entry = cache.entries.get(*name)?;
            (entry.id == *id && entry.text == **text).then(|| Arc::clone(&entry.parsed))
        };
        let missing: Vec<&(FileId, &str, &Arc<str>)> =
            files.iter().filter(|f| kept(self, f).is_none()).collect();
        let texts: Vec<(FileId, &str)> = missing.iter().map(|(id, _, t)| (*id, &***t)).collect();
        for ((id, name, text), tree) in missing.iter().zip(syntax::parse_all(&texts)) {
            let entry = ParsedFile {
                id: *id,
                text: Arc::clone(text),
                parsed: Arc::new(tree),
            };
            self.entries.insert(name.to_string(), entry);
        }
        let names: HashSet<&str> = files.iter().map(|(_, name, _)| *name).collect();
        self.entries.retain(|name, _| names.contains(name.as_str()));
        // One tree per file, even for two files of one name (the second's entry took
        // the first's place): a file without its entry is parsed on its own.
        files
            .iter()
            .map(|file| kept(self, file).unwrap_or_else(|| Arc::new(syntax::parse(file.0, file.2))))
            .collect()
    }

    /// The last tree parsed for the file `name`.
    pub fn parsed(&self, name: &str) -> Option<&Parsed> {
        self.entries.get(name).map(|e| e.parsed.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Origin;

    fn files<'a>(named: &'a [(FileId, &'a str, Arc<str>)]) -> Vec<(FileId, &'a str, &'a Arc<str>)> {
        named
            .iter()
            .map(|(id, name, text)| (*id, *name, text))
            .collect()
    }

    #[test]
    fn a_tree_is_reused_only_for_the_same_text_and_id() {
        let mut cache = ParseCache::default();
        let text: Arc<str> = Arc::from("case A \"t\" {}\n");
        let first = cache.parse_all(&files(&[(FileId(1), "a.case", Arc::clone(&text))]));
        let again = cache.parse_all(&files(&[(
            FileId(1),
            "a.case",
            Arc::from("case A \"t\" {}\n"),
        )]));
        assert!(Arc::ptr_eq(&first[0], &again[0]));
        let moved = cache.parse_all(&files(&[(FileId(2), "a.case", Arc::clone(&text))]));
        assert!(!Arc::ptr_eq(&first[0], &moved[0]));
        let edited = cache.parse_all(&files(&[(
            FileId(2),
            "a.case",
            Arc::from("case B \"t\" {}\n"),
        )]));
        assert!(!Arc::ptr_eq(&moved[0], &edited[0]));
        assert_eq!(edited[0].file.as_ref().map(|f| f.id), Some(FileId(2)));
    }

    #[test]
    fn files_that_left_are_forgotten() {
        let mut cache = ParseCache::default();
        let a: Arc<str> = Arc::from("");
        cache.parse_all(&files(&[
            (FileId(0), "a.case", Arc::clone(&a)),
            (FileId(1), "b.case", Arc::clone(&a)),
        ]));
        cache.parse_all(&files(&[(FileId(0), "b.case", a)]));
        assert!(cache.parsed("a.case").is_none());
        assert!(cache.parsed("b.case").is_some());
    }

    #[test]
    fn two_files_of_one_name_get_a_tree_each() {
        let mut cache = ParseCache::default();
        let (a, b): (Arc<str>, Arc<str>) = (
            Arc::from("case A \"t\" {}\n"),
            Arc::from("case B \"t\" {}\n"),
        );
        let trees = cache.parse_all(&files(&[
            (FileId(0), "x.case", a),
            (FileId(1), "x.case", b),
        ]));
        let ids: Vec<Option<FileId>> = trees
            .iter()
            .map(|t| t.file.as_ref().map(|f| f.id))
            .collect();
        assert_eq!(ids, [Some(FileId(0)), Some(FileId(1))]);
    }

    /// A scope of files `(name, text)`, parsed.
    fn scope(named: &[(&str, &str)]) -> Scope {
        let mut db = SourceDb::new();
        let trees: Vec<Arc<Parsed>> = named
            .iter()
            .map(|(name, text)| {
                let id = db.add(*name, text.to_string(), Origin::User);
                Arc::new(syntax::parse(id, text))
            })
            .collect();
        Scope::new(&db, &trees)
    }

    #[test]
    fn a_case_file_edit_changes_that_file_a_declaration_edit_everything() {
        let suite = ("suite.case", "suite \"S\" {}\n");
        let case = |text| ("a.case", text);
        let first = scope(&[suite, case("case A \"t\" {}\n")]);
        let mut memo: FileMemo<(FileId, u32), &str> = FileMemo::default();
        memo.insert((FileId(0), 0), "suite's");
        memo.insert((FileId(1), 0), "case's");
        let mut declared: ContextMemo<&str> = ContextMemo::default();
        declared.set("shapes");

        let edited = scope(&[suite, case("case A \"edited\" {}\n")]);
        let changes = edited.changes_since(Some(&first));
        memo.enter(&changes);
        declared.enter(&changes);
        assert!(memo.contains(&(FileId(0), 0)) && !memo.contains(&(FileId(1), 0)));
        assert_eq!(declared.get(), Some(&"shapes"));

        let redeclared = scope(&[
            ("suite.case", "suite \"T\" {}\n"),
            case("case A \"edited\" {}\n"),
        ]);
        let changes = redeclared.changes_since(Some(&edited));
        memo.enter(&changes);
        declared.enter(&changes);
        assert!(!memo.contains(&(FileId(0), 0)));
        assert_eq!(declared.get(), None);
        assert!(matches!(edited.changes_since(None), Changes::Everything));
    }
}
