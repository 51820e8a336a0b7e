//! `casec check --cache DIR`: a suite's check reusing what earlier runs found.
//!
//! A pre-commit hook checks the whole suite a changed file belongs to, and a suite of
//! 100,000 cases takes seconds to check from scratch. Almost all of that work gives
//! the same answer as last time, so the cache keeps, per case file, the diagnostics it
//! gave, valid while
//!
//! * the file's content is the same (its blake3 digest; a git-index-like `stat` stamp
//!   — size, mtime and ctime in nanoseconds, inode, device — tells a file unchanged
//!   without reading it, except when it is *racily clean*: modified so close to the
//!   start of the run that recorded it that the stamp cannot tell, [`RACY_NS`]);
//! * its context is the same: the digest of casec itself (version and executable), the
//!   stdlib, and every file of the suite that declares anything but cases (suite.case,
//!   profiles), [`Survey::context`].
//!
//! What a case file gives is its own diagnostics: what the semantic rules find in its cases
//! (wherever they point) and whatever else is located in the file. The other
//! diagnostics (counts, `order`, shared texts, tools, …) span cases; they depend on a
//! case file only through its *facts*: the structure of its syntax tree without the
//! content of its strings (ids, categories, tags, tools, profiles, which fields a case
//! writes rather than inherits), the ids of its cases that resolved, and its own
//! non-check diagnostics. They are reused while every file's facts, and the list of
//! files, are those they were found with (the *aggregate* digest). So an edit of a
//! case's prose costs a check of that one file against its context; adding, removing
//! or renaming a case, or any edit of the context, costs a full check, which rewrites
//! the cache.
//!
//! Guarantee: the diagnostics, and so the output and exit code, are those of a check
//! without the cache. An index that is missing, truncated, altered, or written by
//! another casec is ignored and rewritten ([`store`]); it is written atomically (a
//! temporary file renamed over it), so a killed run leaves the old index or the new
//! one, and concurrent runs each write a whole index. A suite the cache cannot vouch
//! for (a file that cannot be read, no suite block) is checked without it. A cache
//! that cannot be written costs only speed: nothing is reported, since the output must
//! not depend on the cache.

mod store;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diag::{codes, Diagnostic};
use crate::driver::staged::{self, ObjectId};
use crate::load::{self, Source};
use crate::source::{FileId, Origin, Role, SourceDb};
use crate::syntax::ast::{ListItem, Statement, ValueKind};
use crate::syntax::Parsed;
use crate::{Compilation, Config, Depth, Recheck, Sources};

use self::store::{Digest, Entry, Head, Index, StagedBase, Stamp, StatStamp, Stored};

/// The environment variable naming a cache folder for `casec check`, as `--cache` does.
pub const CACHE_VAR: &str = "CASEC_CACHE";

/// A file modified less than this before the start of the run that recorded it may
/// have been modified again with the same stamp (file systems keep times in coarse
/// ticks, some in whole seconds or two): it is read and its digest compared.
const RACY_NS: i64 = 2_000_000_000;

/// Bumped when what a cached result means changes, beside casec's own identity.
const FORMAT: &str = "casec check cache 1";

/// Files to stat or read from which a survey uses all cores.
const PARALLEL_FROM_FILES: usize = 256;

/// The check of one suite: its diagnostics, the sources they point into, and how many
/// files it read.
pub struct Checked {
    pub db: SourceDb,
    pub diagnostics: Vec<Diagnostic>,
    pub files: usize,
}

/// Which state of a suite a check reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Snapshot {
    /// The files in the folder, as `casec check` reads them.
    WorkingTree,
    /// The files staged in git's index (`casec check --staged`, see [`staged`]).
    Staged,
}

/// Checks the suite at `root` as `snapshot` holds it, through the cache in `cache`
/// when there is one.
pub fn check_suite(root: &Path, cache: Option<&Path>, snapshot: Snapshot) -> Checked {
    match (snapshot, cache) {
        (Snapshot::WorkingTree, None) => uncached(root),
        (Snapshot::WorkingTree, Some(dir)) => check_working_tree(root, dir),
        (Snapshot::Staged, cache) => check_staged(root, cache),
    }
}

/// The suite's files in the folder, through the cache in `dir`.
fn check_working_tree(root: &Path, dir: &Path) -> Checked {
    let scanned_ns = now_ns();
    let mut walk_errors = Vec::new();
    let paths = load::case_files(root, &mut walk_errors);
    let identity = identity();
    let (Some(identity), true) = (identity, walk_errors.is_empty()) else {
        return uncached(root);
    };
    let store = Store::new(dir, root, Snapshot::WorkingTree, identity, scanned_ns);
    let bytes = fs::read(&store.path).unwrap_or_default();
    let old = store.parse(&bytes).filter(|i| i.head.staged.is_none());
    let Some(mut survey) = Survey::of(root, Listed::Walked(paths), None, old.as_ref()) else {
        return uncached(root);
    };
    let checked = survey.check_through(old.as_ref(), &store, None);
    let checked = checked.unwrap_or_else(|| uncached(root));
    // A command's last act: what the survey holds of every file is left to the exit.
    crate::driver::leave_to_exit((survey, old));
    crate::driver::leave_to_exit(bytes);
    checked
}

/// The suite's files as staged in git's index, through the cache in `cache` when there
/// is one; the listing of the index starts from the one the cache recorded.
fn check_staged(root: &Path, cache: Option<&Path>) -> Checked {
    let identity = identity();
    let store = cache
        .zip(identity)
        .map(|(dir, identity)| Store::new(dir, root, Snapshot::Staged, identity, now_ns()));
    let bytes = store
        .as_ref()
        .and_then(|s| fs::read(&s.path).ok())
        .unwrap_or_default();
    // An index of the working tree is another file: its stat stamps never match a blob.
    let old = store.as_ref().and_then(|s| s.parse(&bytes));
    let blobs = staged::Blobs::new(root);
    if let Some(checked) = old.as_ref().and_then(|old| quick_staged(root, old, &blobs)) {
        crate::driver::leave_to_exit(old);
        crate::driver::leave_to_exit(bytes);
        return checked;
    }
    let known = old.as_ref().and_then(|old| known_base(old, root));
    let listing = match staged::list(root, known) {
        Ok(listing) => listing,
        Err(diagnostic) => return failed(diagnostic),
    };
    if !listing.files.iter().any(|f| f.below == load::SUITE_FILE) {
        return failed(
            Diagnostic::new(
                codes::MISSING_SUITE,
                format!("no {} staged in this folder", load::SUITE_FILE),
            )
            .at_path(load::display(root))
            .help(format!(
                "`git add` its {}, or check the working tree: casec check without --staged",
                load::SUITE_FILE
            )),
        );
    }
    let Some(store) = store else {
        return uncached_staged(root, &listing, &blobs);
    };
    let survey = Survey::of(
        root,
        Listed::Staged(&listing.files),
        Some(blobs),
        old.as_ref(),
    );
    let base = listing.reusable.then(|| StagedBase {
        base: listing.base,
        changes: listing
            .changes
            .iter()
            .map(|(below, old)| (below.as_str(), *old))
            .collect(),
    });
    let checked = match survey {
        Some(mut survey) => {
            let checked = survey.check_through(old.as_ref(), &store, base);
            // Done with git: the reader's process ends; the rest is left to the exit.
            let blobs = survey.blobs.take();
            crate::driver::leave_to_exit(survey);
            checked.ok_or(blobs)
        }
        None => Err(None),
    };
    // A file the cache cannot take (not UTF-8): the check without it reports it.
    let checked = checked.unwrap_or_else(|blobs| {
        let blobs = blobs.unwrap_or_else(|| staged::Blobs::new(root));
        uncached_staged(root, &listing, &blobs)
    });
    crate::driver::leave_to_exit((old, listing));
    crate::driver::leave_to_exit(bytes);
    checked
}

/// The staged files compiled as `casec check` compiles a folder, without a cache: a
/// file that is not UTF-8 is reported and left out, as the folder walk does.
fn uncached_staged(root: &Path, listing: &staged::Listing, blobs: &staged::Blobs) -> Checked {
    let shown_root = staged::shown_root(root);
    let suite_name = load::display(&root.join(load::SUITE_FILE));
    let ids: Vec<ObjectId> = listing.files.iter().map(|f| f.blob).collect();
    let mut sources = Vec::with_capacity(ids.len());
    let mut diagnostics = Vec::new();
    for (file, blob) in listing.files.iter().zip(blobs.read_all(&ids)) {
        let name = file.name(&shown_root);
        let bytes = match blob {
            staged::Blob::Bytes(bytes) => bytes,
            staged::Blob::TooLarge(size) => {
                let too_large = load::Unread::TooLarge(size, load::MAX_FILE_BYTES);
                diagnostics.push(too_large.diagnostic(Path::new(&name)));
                continue;
            }
            staged::Blob::Missing => return failed(unreadable_blobs(root)),
        };
        match String::from_utf8(bytes) {
            Ok(text) => sources.push(suite_source(name, text, &suite_name)),
            Err(e) => diagnostics.push(load::not_utf8(&name, &e)),
        }
    }
    let compilation = Compilation::new(Sources::Read(sources, diagnostics));
    crate::driver::leave_to_exit(compilation.suite);
    Checked {
        files: crate::driver::user_files(&compilation.db),
        db: compilation.db,
        diagnostics: compilation.diagnostics,
    }
}

/// Files changed since the index was written that a warm check of staged files
/// re-checks without a survey; beyond, it surveys every file and writes the index.
const QUICK_FROM_CHANGED: usize = 8;

/// The warm check of staged files from the index `old` and git's diff alone: only the
/// files whose blob is not the one the index holds are read and checked, against the
/// context. It writes nothing: the index's entries of those files stay as they were,
/// and the next run checks them again, until a survey writes the index.
///
/// `None` when that cannot give the answer a survey would: a file added or removed,
/// more than [`QUICK_FROM_CHANGED`] changed, a changed file that is part of the context
/// or whose facts changed (the suite-wide diagnostics may change), or git failing
/// (the survey reports it).
fn quick_staged(root: &Path, old: &Index, blobs: &staged::Blobs) -> Option<Checked> {
    let base = old.head.staged.as_ref()?;
    let changes = staged::changes_since(root, base.base).ok()?;
    // The blob of each path that may differ from the entries: the index's where it
    // differs from the base, else the base's where the index differed from it when
    // the entries were written.
    let mut now: Vec<(&str, Option<ObjectId>)> =
        changes.iter().map(|(b, n)| (b.as_str(), *n)).collect();
    for &(below, base_blob) in &base.changes {
        if changes
            .binary_search_by(|(b, _)| b.as_str().cmp(below))
            .is_err()
        {
            now.push((below, base_blob));
        }
    }
    let shown_root = staged::shown_root(root);
    let mut changed: Vec<(usize, ObjectId)> = Vec::new();
    for (below, blob) in now {
        let name = staged::name_of(&shown_root, below);
        let at = old
            .entries
            .binary_search_by(|e| staged::walk_order_of(e.name, &name));
        match (at, blob) {
            (Ok(at), Some(blob)) if old.entries[at].stamp != Stamp::Blob(blob) => {
                changed.push((at, blob));
            }
            (Ok(_), Some(_)) | (Err(_), None) => {}
            // A file added or removed.
            (Ok(_), None) | (Err(_), Some(_)) => return None,
        }
    }
    if changed.len() > QUICK_FROM_CHANGED
        || changed.iter().any(|&(at, _)| !old.entries[at].only_cases)
    {
        return None;
    }
    changed.sort_unstable_by_key(|c| c.0);
    let context: Vec<usize> = (0..old.entries.len())
        .filter(|&at| !old.entries[at].only_cases)
        .collect();
    let blob_of = |at: usize| old.entries[at].stamp.blob();
    // The texts of the context and of the changed files, asked of git at once.
    let mut wanted: Vec<(usize, ObjectId)> = Vec::with_capacity(context.len() + changed.len());
    for &at in &context {
        wanted.push((at, blob_of(at)?));
    }
    wanted.extend(changed.iter().copied());
    let mut texts = read_texts(blobs, &wanted)?;
    let suite_name = load::display(&root.join(load::SUITE_FILE));
    let mut which: Vec<usize> = context
        .iter()
        .copied()
        .chain(changed.iter().map(|c| c.0))
        .collect();
    which.sort_unstable();
    let sources = which
        .iter()
        .map(|&at| {
            let name = old.entries[at].name.to_string();
            suite_source(name, texts[&at].to_string(), &suite_name)
        })
        .collect();
    let (compilation, recheck) = check_keeping_trees(sources);
    let (mut results, _) = results(&compilation, &recheck, &suite_name);
    let mut replaced: HashMap<usize, FileResult> = HashMap::new();
    for &(at, _) in &changed {
        let entry = &old.entries[at];
        let result = results.remove(entry.name)?;
        let still_cases = recheck
            .trees
            .parsed(entry.name)
            .is_none_or(Parsed::declares_only_cases);
        if result.facts != entry.facts || !still_cases {
            return None;
        }
        replaced.insert(at, result);
    }
    crate::driver::leave_to_exit((compilation, recheck));
    let mut stored = store::decode_diagnostics(old.head.shared)?;
    for (at, entry) in old.entries.iter().enumerate() {
        if !entry.only_cases {
            continue;
        }
        let diagnostics = replaced
            .get(&at)
            .map_or(entry.diagnostics, |r| &r.diagnostics);
        if !diagnostics.is_empty() {
            stored.extend(store::decode_diagnostics(diagnostics)?);
        }
    }
    let named: HashSet<&str> = stored.iter().flat_map(Stored::files).collect();
    let needed: Vec<usize> = (0..old.entries.len())
        .filter(|&at| !old.entries[at].only_cases || named.contains(old.entries[at].name))
        .collect();
    let mut unread = Vec::new();
    for &at in needed.iter().filter(|at| !texts.contains_key(at)) {
        unread.push((at, blob_of(at)?));
    }
    texts.extend(read_texts(blobs, &unread)?);
    let mut sources = Vec::with_capacity(needed.len());
    for at in needed {
        sources.push((old.entries[at].name, texts.remove(&at)?));
    }
    assemble(stored, sources, old.entries.len())
}

/// The texts of the blobs `wanted`, by the entry each is for; `None` if one cannot be
/// read or is not UTF-8.
fn read_texts(
    blobs: &staged::Blobs,
    wanted: &[(usize, ObjectId)],
) -> Option<HashMap<usize, Arc<str>>> {
    let ids: Vec<ObjectId> = wanted.iter().map(|w| w.1).collect();
    let mut texts = HashMap::with_capacity(wanted.len());
    for (&(at, _), text) in wanted.iter().zip(blobs.read_all(&ids)) {
        texts.insert(at, utf8(text.bytes()?)?);
    }
    Some(texts)
}

/// The tree an index of staged files was listed against, with its blob at every path:
/// where it differed from the index, as recorded; elsewhere, the entries' blobs.
fn known_base<'a>(old: &Index<'a>, root: &Path) -> Option<staged::KnownBase<'a>> {
    let staged = old.head.staged.as_ref()?;
    let prefix = staged::shown_root(root);
    let mut files = Vec::with_capacity(old.entries.len());
    for entry in &old.entries {
        let blob = entry.stamp.blob()?;
        let below = Cow::Borrowed(entry.name.strip_prefix(prefix.as_str())?);
        files.push(staged::StagedFile { below, blob });
    }
    let patches = staged
        .changes
        .iter()
        .map(|&(below, base_blob)| (Cow::Borrowed(below), base_blob));
    staged::patch(&mut files, patches);
    Some(staged::KnownBase {
        base: staged.base,
        files,
    })
}

/// A file of the suite as a source: the suite file when it is `suite_name`.
fn suite_source(name: String, text: String, suite_name: &str) -> Source {
    let role = match name == suite_name {
        true => Role::SuiteFile,
        false => Role::Member,
    };
    Source {
        name,
        text: text.into(),
        role,
        disk: None,
    }
}

/// A suite's check that could not start: the one diagnostic that says why.
fn failed(diagnostic: Diagnostic) -> Checked {
    Checked {
        db: SourceDb::new(),
        diagnostics: vec![diagnostic],
        files: 0,
    }
}

fn unreadable_blobs(root: &Path) -> Diagnostic {
    Diagnostic::new(codes::IO, "cannot read the staged files from git")
        .at_path(load::display(root))
        .help("check the repository with `git fsck`, or check without --staged")
}

/// Where a run reads and writes the index of its suite.
struct Store<'a> {
    dir: &'a Path,
    path: PathBuf,
    identity: Digest,
    /// The suite's root, as shown in diagnostics.
    root: String,
    /// When the run started, in the file system's time (racily clean files).
    scanned_ns: i64,
}

impl<'a> Store<'a> {
    fn new(
        dir: &'a Path,
        root: &'a Path,
        snapshot: Snapshot,
        identity: Digest,
        scanned_ns: i64,
    ) -> Store<'a> {
        Store {
            dir,
            path: dir.join(store_name(root, snapshot)),
            identity,
            root: load::display(root),
            scanned_ns,
        }
    }

    /// The index in `bytes` when it was written by this casec for this suite.
    fn parse<'b>(&self, bytes: &'b [u8]) -> Option<Index<'b>> {
        Index::parse(bytes, &self.identity).filter(|i| i.head.root == self.root)
    }
}

/// A check without the cache, as `casec check` does it.
fn uncached(root: &Path) -> Checked {
    let compilation = Compilation::new(Sources::Folder(root));
    Checked {
        files: crate::driver::user_files(&compilation.db),
        db: compilation.db,
        diagnostics: compilation.diagnostics,
    }
}

/// What a run found of one file of the suite.
struct Seen {
    /// Its place in the run's listing.
    at: usize,
    name: String,
    stamp: Stamp,
    digest: Digest,
    /// The text, when the run read it.
    text: Option<Arc<str>>,
    /// The index's stamp vouched for the file: it was not read to be surveyed.
    vouched: bool,
    /// What the file gives: from the index while the file is unchanged, else from this
    /// run's check of it.
    result: Option<FileResult>,
    only_cases: bool,
}

impl Seen {
    /// The file's text, read: with its digest.
    fn take_text(&mut self, text: Arc<str>) {
        self.digest = *blake3::hash(text.as_bytes()).as_bytes();
        self.text = Some(text);
    }

    /// What [`settled`] found of it.
    fn take_settled(&mut self, (only_cases, result): (bool, Option<FileResult>)) {
        self.only_cases = only_cases;
        if result.is_some() {
            self.result = result;
        }
    }

    /// The blob of a staged file.
    fn blob(&self) -> Option<ObjectId> {
        self.stamp.blob()
    }
}

/// What `seen` takes from its entry of the last index when its content is the same
/// (its result, whether it is context); else, when read, whether it holds only cases.
fn settle(seen: &mut Seen, entry: Option<&Entry>) {
    let found = settled(seen, entry);
    seen.take_settled(found);
}

/// What [`settle`] finds: whether `seen` holds only cases, and the result its entry
/// vouches for, if any.
fn settled(seen: &Seen, entry: Option<&Entry>) -> (bool, Option<FileResult>) {
    if let Some(entry) = entry.filter(|e| e.digest == seen.digest) {
        let result = entry.only_cases.then(|| FileResult {
            facts: entry.facts,
            diagnostics: entry.diagnostics.to_vec(),
        });
        return (seen.only_cases && entry.only_cases, result);
    }
    let only_cases = match &seen.text {
        Some(text) => {
            seen.only_cases && crate::syntax::parse(FileId(0), text).declares_only_cases()
        }
        None => seen.only_cases,
    };
    (only_cases, None)
}

/// Bytes read as a file's text: `None` unless UTF-8.
fn utf8(bytes: Vec<u8>) -> Option<Arc<str>> {
    String::from_utf8(bytes).ok().map(Arc::<str>::from)
}

/// A case file's contribution to a check.
#[derive(Clone)]
struct FileResult {
    facts: Digest,
    diagnostics: Vec<u8>,
}

/// The files of a suite as a run lists them.
enum Listed<'a> {
    /// By the folder walk: their stamps are `stat`ed.
    Walked(Vec<PathBuf>),
    /// From git's index: their stamps are their blobs, read through the survey's
    /// reader.
    Staged(&'a [staged::StagedFile<'a>]),
}

/// Every file of the suite, as found by a run.
struct Survey {
    /// The suite file's name, as diagnostics show it.
    suite_name: String,
    seen: Vec<Seen>,
    /// The files of the folder walk, for a survey of the working tree.
    walked: Vec<PathBuf>,
    /// The reader of the staged files' blobs, for a survey of the index.
    blobs: Option<staged::Blobs>,
    /// The [`aggregate`] of `seen`, once a warm check found it (the index needs it).
    aggregate: Option<Digest>,
}

impl Survey {
    /// Stamps every file (a `stat`, or its blob from the listing), and reads those
    /// whose stamp does not vouch for them; `None` when a file cannot be read, or the
    /// walked files pass the suite's size cap (a check without the cache reports it).
    fn of(
        root: &Path,
        listed: Listed,
        blobs: Option<staged::Blobs>,
        old: Option<&Index>,
    ) -> Option<Survey> {
        let entries = old.map_or(&[][..], |i| i.entries.as_slice());
        // Files are usually where the last run found them: looked up by position first,
        // by name (a map made once, when needed) after.
        let by_name: std::sync::OnceLock<HashMap<&str, &Entry>> = std::sync::OnceLock::new();
        let find = |at: usize, name: &str| -> Option<&Entry> {
            match entries.get(at).filter(|e| e.name == name) {
                Some(entry) => Some(entry),
                None => by_name
                    .get_or_init(|| entries.iter().map(|e| (e.name, e)).collect())
                    .get(name)
                    .copied(),
            }
        };
        let scanned = old.map_or(i64::MIN, |i| i.head.scanned_ns);
        let (walked, staged) = match listed {
            Listed::Walked(paths) => (paths, &[][..]),
            Listed::Staged(files) => (Vec::new(), files),
        };
        let count = walked.len().max(staged.len());
        let shown_root = staged::shown_root(root);
        let mut survey = Survey {
            suite_name: load::display(&root.join(load::SUITE_FILE)),
            seen: Vec::new(),
            walked,
            blobs,
            aggregate: None,
        };
        let at: Vec<usize> = (0..count).collect();
        let stamped_bytes = std::sync::atomic::AtomicU64::new(0);
        let found = crate::parallel::map(&at, count >= PARALLEL_FROM_FILES, |&at| {
            let (name, stamp) = match survey.walked.get(at) {
                Some(path) => (
                    load::display(path),
                    Stamp::Stat(stamp(&fs::metadata(path).ok()?)),
                ),
                None => (staged[at].name(&shown_root), Stamp::Blob(staged[at].blob)),
            };
            if let Stamp::Stat(stat) = stamp {
                let before =
                    stamped_bytes.fetch_add(stat.size, std::sync::atomic::Ordering::Relaxed);
                if before.saturating_add(stat.size) > load::MAX_SUITE_BYTES {
                    return None;
                }
            }
            let entry = find(at, &name);
            let racy = match stamp {
                Stamp::Stat(stat) => {
                    stat.mtime_ns >= scanned.saturating_sub(RACY_NS)
                        || stat.ctime_ns >= scanned.saturating_sub(RACY_NS)
                }
                Stamp::Blob(_) => false,
            };
            let not_suite = name != survey.suite_name;
            let mut seen = Seen {
                at,
                name,
                stamp,
                digest: [0; 32],
                text: None,
                vouched: false,
                result: None,
                only_cases: not_suite,
            };
            match entry {
                Some(entry) if entry.stamp == stamp && !racy => {
                    seen.digest = entry.digest;
                    seen.vouched = true;
                }
                // Read with the others through one request to git, below.
                _ if matches!(stamp, Stamp::Blob(_)) => return Some((seen, entry)),
                _ => seen.take_text(survey.read_walked(&seen)?),
            }
            settle(&mut seen, entry);
            Some((seen, entry))
        });
        let mut found = found.into_iter().collect::<Option<Vec<_>>>()?;
        // The staged files the index does not vouch for.
        let unread: Vec<usize> = (0..found.len())
            .filter(|&i| !found[i].0.vouched && found[i].0.text.is_none())
            .collect();
        let ids: Vec<ObjectId> = unread.iter().filter_map(|&i| found[i].0.blob()).collect();
        let texts = survey
            .blobs
            .as_ref()
            .map(|b| b.read_all(&ids))
            .unwrap_or_default();
        if texts.len() != unread.len() {
            return None;
        }
        for (&i, text) in unread.iter().zip(texts) {
            found[i].0.take_text(utf8(text.bytes()?)?);
        }
        let outcomes = crate::parallel::map(&unread, unread.len() >= PARALLEL_FROM_FILES, |&i| {
            let (seen, entry) = &found[i];
            settled(seen, *entry)
        });
        for (&i, outcome) in unread.iter().zip(outcomes) {
            found[i].0.take_settled(outcome);
        }
        survey.seen = found.into_iter().map(|(seen, _)| seen).collect();
        Some(survey)
    }

    /// The text of a file of the folder walk; `None` if it cannot be read as a source
    /// ([`load::read_bytes`]: a regular file within the size cap) or is not UTF-8.
    /// (Staged files are read in batches, through [`staged::Blobs::read_all`].)
    fn read_walked(&self, seen: &Seen) -> Option<Arc<str>> {
        utf8(load::read_bytes(self.walked.get(seen.at)?).ok()?.0)
    }

    /// The check of the survey through the index `old` of the last run: warm when the
    /// index still holds, else cold; the index written again when it changed (with
    /// `staged`, the base of a listing of staged files). `None` when a file cannot be
    /// read, or changed under the run.
    fn check_through(
        &mut self,
        old: Option<&Index>,
        store: &Store,
        staged: Option<StagedBase>,
    ) -> Option<Checked> {
        let context = self.context(&store.identity);
        let base_changed =
            old.is_none_or(|old| !same_base(old.head.staged.as_ref(), staged.as_ref()));
        let warm = old
            .filter(|old| old.head.context == context)
            .and_then(|old| self.warm(old));
        match warm {
            Some((checked, changed)) => {
                if changed || base_changed {
                    let shared = old.map_or(&[][..], |o| o.head.shared);
                    self.write_index(store, context, shared, staged);
                }
                Some(checked)
            }
            None => {
                let (checked, shared) = self.cold()?;
                if let Some(shared) = shared {
                    self.write_index(store, context, &shared, staged);
                }
                Some(checked)
            }
        }
    }

    /// The digest of everything a case file's result depends on besides the file.
    fn context(&self, identity: &Digest) -> Digest {
        let mut h = blake3::Hasher::new();
        h.update(identity);
        for seen in self.seen.iter().filter(|s| !s.only_cases) {
            put(&mut h, seen.name.as_bytes());
            h.update(&seen.digest);
        }
        *h.finalize().as_bytes()
    }

    /// The check from the index and the changed files, when the suite-wide diagnostics
    /// of the index still hold (the context is unchanged); with whether the index
    /// needs writing again.
    fn warm(&mut self, old: &Index) -> Option<(Checked, bool)> {
        let shared = store::decode_diagnostics(old.head.shared)?;
        let changed: Vec<usize> = (0..self.seen.len())
            .filter(|&i| self.seen[i].only_cases && self.seen[i].result.is_none())
            .collect();
        if !changed.is_empty() {
            let mut files: Vec<usize> = (0..self.seen.len())
                .filter(|&i| !self.seen[i].only_cases)
                .chain(changed.iter().copied())
                .collect();
            files.sort_unstable();
            self.read(&files)?;
            let (compilation, recheck) = self.compile(&files);
            let (mut results, _) = results(&compilation, &recheck, &self.suite_name);
            for &i in &changed {
                let name = self.seen[i].name.as_str();
                self.seen[i].result = Some(results.remove(name)?);
            }
        }
        let found = aggregate(&self.seen);
        if found != old.head.aggregate {
            return None;
        }
        self.aggregate = Some(found);
        let mut stored = shared;
        for seen in &self.seen {
            let result = seen.result.as_ref().filter(|_| seen.only_cases);
            if let Some(result) = result {
                stored.extend(store::decode_diagnostics(&result.diagnostics)?);
            }
        }
        let checked = self.checked(stored)?;
        let index_changed =
            self.seen.iter().any(|s| !s.vouched) || old.entries.len() != self.seen.len();
        Some((checked, index_changed))
    }

    /// The whole suite checked afresh; with its suite-wide diagnostics, encoded, when
    /// the cache can hold the result (the suite resolved). `None` when a file cannot
    /// be read now: it changed under the run.
    fn cold(&mut self) -> Option<(Checked, Option<Vec<u8>>)> {
        // The results change: a warm attempt's aggregate no longer holds.
        self.aggregate = None;
        let all: Vec<usize> = (0..self.seen.len()).collect();
        self.read(&all)?;
        let (compilation, recheck) = self.compile(&all);
        let (mut results, shared) = results(&compilation, &recheck, &self.suite_name);
        for seen in &mut self.seen {
            let parsed = recheck.trees.parsed(&seen.name);
            seen.only_cases =
                seen.name != self.suite_name && parsed.is_none_or(Parsed::declares_only_cases);
            seen.result = results.remove(seen.name.as_str());
        }
        let cacheable = compilation.suite.is_some();
        // As `casec check` does: the model and the trees are left to the exit.
        crate::driver::leave_to_exit((compilation.suite, recheck));
        let checked = Checked {
            files: crate::driver::user_files(&compilation.db),
            db: compilation.db,
            diagnostics: compilation.diagnostics,
        };
        Some((checked, cacheable.then_some(shared)))
    }

    /// Reads the files `which` that this run has not read: `None` if one cannot be, else
    /// how many turned out changed although the index held their result (modified
    /// under the run: their result is dropped).
    fn read(&mut self, which: &[usize]) -> Option<usize> {
        let missing: Vec<usize> = which
            .iter()
            .copied()
            .filter(|&i| self.seen[i].text.is_none())
            .collect();
        let texts = match &self.blobs {
            // Staged files: their blobs asked for all at once.
            Some(blobs) => {
                let ids: Vec<ObjectId> = missing
                    .iter()
                    .filter_map(|&i| self.seen[i].blob())
                    .collect();
                let texts = blobs.read_all(&ids);
                texts
                    .into_iter()
                    .map(|t| t.bytes().and_then(utf8))
                    .collect()
            }
            None => crate::parallel::map(&missing, missing.len() >= PARALLEL_FROM_FILES, |&i| {
                self.read_walked(&self.seen[i])
            }),
        };
        if texts.len() != missing.len() {
            return None;
        }
        let mut changed = 0;
        for (i, text) in missing.into_iter().zip(texts) {
            let text = text?;
            let digest = *blake3::hash(text.as_bytes()).as_bytes();
            if digest != self.seen[i].digest && self.seen[i].result.is_some() {
                self.seen[i].result = None;
                changed += 1;
            }
            self.seen[i].digest = digest;
            self.seen[i].text = Some(text);
        }
        Some(changed)
    }

    /// The files `which` (read), as sources of the suite, in folder order.
    fn sources(&self, which: &[usize]) -> Vec<Source> {
        which
            .iter()
            .map(|&i| {
                let seen = &self.seen[i];
                let text = seen.text.as_deref().unwrap_or_default().to_string();
                suite_source(seen.name.clone(), text, &self.suite_name)
            })
            .collect()
    }

    /// The files `which` (read), compiled as the suite, in folder order.
    fn compile(&self, which: &[usize]) -> (Compilation, Recheck) {
        check_keeping_trees(self.sources(which))
    }

    /// The diagnostics `stored`, sorted, with the sources they point into: the stdlib,
    /// the context and every file a diagnostic names.
    fn checked(&mut self, stored: Vec<Stored>) -> Option<Checked> {
        let named: HashSet<&str> = stored.iter().flat_map(Stored::files).collect();
        let needed: Vec<usize> = self
            .seen
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.only_cases || named.contains(s.name.as_str()))
            .map(|(i, _)| i)
            .collect();
        if self.read(&needed)? > 0 {
            return None;
        }
        let mut sources = Vec::with_capacity(needed.len());
        for &i in &needed {
            let seen = &self.seen[i];
            sources.push((seen.name.as_str(), Arc::clone(seen.text.as_ref()?)));
        }
        assemble(stored, sources, self.seen.len())
    }

    /// Writes the index of this run: every file's stamp and digest, the results of the
    /// case files, the suite-wide diagnostics `shared`.
    fn write_index(
        &self,
        store: &Store,
        context: Digest,
        shared: &[u8],
        staged: Option<StagedBase>,
    ) {
        let head = Head {
            identity: store.identity,
            root: &store.root,
            scanned_ns: store.scanned_ns,
            context,
            aggregate: self.aggregate.unwrap_or_else(|| aggregate(&self.seen)),
            shared,
            staged,
        };
        let entries = self.seen.iter().map(|s| {
            let result = s.result.as_ref().filter(|_| s.only_cases);
            Entry {
                name: &s.name,
                stamp: s.stamp,
                digest: s.digest,
                only_cases: s.only_cases,
                facts: result.map_or([0; 32], |r| r.facts),
                diagnostics: result.map_or(&[][..], |r| &r.diagnostics),
            }
        });
        // A failure is not reported (see the module header).
        if fs::create_dir_all(store.dir).is_ok() {
            let write = |w: &mut dyn std::io::Write| head.write_to(entries, w);
            let _ = crate::driver::write_atomically_with(&store.path, write);
        }
    }
}

/// The check of `files` files whose diagnostics are `stored`: with the sources they
/// point into (`sources`, the context and every file a diagnostic names, in folder
/// order) after the stdlib, sorted. `None` if a diagnostic names a file not there.
fn assemble(stored: Vec<Stored>, sources: Vec<(&str, Arc<str>)>, files: usize) -> Option<Checked> {
    let mut db = SourceDb::new();
    let mut ids: HashMap<String, FileId> = HashMap::new();
    for source in load::stdlib_sources() {
        ids.insert(
            source.name.clone(),
            db.add(source.name, source.text, Origin::Stdlib),
        );
    }
    for (name, text) in sources {
        ids.insert(
            name.to_string(),
            db.add(name.to_string(), text, Origin::User),
        );
    }
    let mut diagnostics = Vec::with_capacity(stored.len());
    for s in stored {
        diagnostics.push(s.diagnostic(&|name| ids.get(name).copied())?);
    }
    crate::diag::sort(&mut diagnostics, &db);
    Some(Checked {
        db,
        diagnostics,
        files,
    })
}

/// Whether two indexes of staged files were listed against the same base, alike.
fn same_base(a: Option<&StagedBase>, b: Option<&StagedBase>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.base == b.base && a.changes == b.changes,
        _ => false,
    }
}

/// Every case file's result, by name, and the suite-wide diagnostics (those of no case
/// file), encoded. A case file's diagnostics are its cases' own (the semantic rules',
/// wherever they point) and every other diagnostic located in it, in the order of the
/// run; its facts digest its tree without string contents, its resolved case ids and
/// those other diagnostics.
fn results(
    compilation: &Compilation,
    recheck: &Recheck,
    suite_file: &str,
) -> (HashMap<String, FileResult>, Vec<u8>) {
    let db = &compilation.db;
    let case_file = |id: FileId| {
        let file = db.file(id);
        file.origin == Origin::User
            && file.name != suite_file
            && recheck
                .trees
                .parsed(&file.name)
                .is_some_and(Parsed::declares_only_cases)
    };
    let encode = |d: &Diagnostic| {
        let mut out = Vec::new();
        store::encode_diagnostic(d, db, &mut out);
        out
    };
    // Own diagnostics, by their encoding, with the files whose cases gave them.
    let mut own: HashMap<Vec<u8>, Vec<FileId>> = HashMap::new();
    for (file, diagnostics) in recheck.rules.own() {
        for d in diagnostics {
            own.entry(encode(d)).or_default().push(file);
        }
    }
    let mut diagnostics: HashMap<FileId, Vec<u8>> = HashMap::new();
    let mut located: HashMap<FileId, Vec<u8>> = HashMap::new();
    let mut shared = Vec::new();
    for d in &compilation.diagnostics {
        let bytes = encode(d);
        if let Some(file) = own.get_mut(&bytes).and_then(Vec::pop) {
            diagnostics
                .entry(file)
                .or_default()
                .extend_from_slice(&bytes);
            continue;
        }
        match d.primary_span().map(|s| s.file).filter(|&f| case_file(f)) {
            Some(file) => {
                located.entry(file).or_default().extend_from_slice(&bytes);
                diagnostics
                    .entry(file)
                    .or_default()
                    .extend_from_slice(&bytes);
            }
            None => shared.extend_from_slice(&bytes),
        }
    }
    let mut resolved: HashMap<FileId, Vec<&str>> = HashMap::new();
    for case in compilation.suite.iter().flat_map(|s| &s.cases) {
        resolved
            .entry(case.extent.file)
            .or_default()
            .push(case.id.as_str());
    }
    let mut out = HashMap::new();
    for (id, file) in db.files().filter(|&(id, _)| case_file(id)) {
        let mut h = blake3::Hasher::new();
        if let Some(tree) = recheck
            .trees
            .parsed(&file.name)
            .and_then(|p| p.file.as_ref())
        {
            let mut structure = StructureHasher(&mut h);
            structure.statements(&tree.statements);
        }
        h.update(b"\0resolved");
        for case in resolved.get(&id).into_iter().flatten() {
            put(&mut h, case.as_bytes());
        }
        h.update(b"\0located");
        put(&mut h, located.get(&id).map_or(&[][..], Vec::as_slice));
        let result = FileResult {
            facts: *h.finalize().as_bytes(),
            diagnostics: diagnostics.remove(&id).unwrap_or_default(),
        };
        out.insert(file.name.clone(), result);
    }
    (out, shared)
}

/// Hashes a tree's structure: keys, names, numbers and the kinds of values, but not
/// the content of strings (prose) nor positions, which cases do not share.
struct StructureHasher<'h>(&'h mut blake3::Hasher);

impl StructureHasher<'_> {
    fn statements(&mut self, statements: &[Statement]) {
        put(self.0, &(statements.len() as u64).to_le_bytes());
        for s in statements {
            put(self.0, s.key.name.as_bytes());
            self.0.update(&[u8::from(s.key.quoted)]);
            put(self.0, &(s.values.len() as u64).to_le_bytes());
            for v in &s.values {
                self.value(&v.kind);
            }
            match &s.block {
                Some(block) => self.statements(&block.statements),
                None => {
                    self.0.update(b"-");
                }
            }
        }
    }

    fn value(&mut self, kind: &ValueKind) {
        match kind {
            ValueKind::Str { text, style } => {
                let style = u8::from(*style == crate::syntax::ast::StringStyle::TextBlock);
                self.0.update(&[b's', style, u8::from(text.is_empty())]);
            }
            ValueKind::Ident(name) => {
                self.0.update(b"i");
                put(self.0, name.as_bytes());
            }
            ValueKind::Number(n) => {
                self.0.update(b"n");
                put(self.0, n.as_bytes());
            }
            ValueKind::List(items) => {
                self.0.update(b"l");
                put(self.0, &(items.len() as u64).to_le_bytes());
                for item in items {
                    match item {
                        ListItem::Value(v) => self.value(&v.kind),
                        ListItem::Block(b) => self.statements(&b.statements),
                    }
                }
            }
        }
    }
}

/// The digest of every case file's name and facts, in folder order, and of which files
/// are context: what the suite-wide diagnostics were found with.
fn aggregate(seen: &[Seen]) -> Digest {
    let mut h = blake3::Hasher::new();
    for s in seen {
        put(&mut h, s.name.as_bytes());
        match s.result.as_ref().filter(|_| s.only_cases) {
            Some(result) => h.update(&result.facts),
            None => h.update(b"context"),
        };
    }
    *h.finalize().as_bytes()
}

/// A length-prefixed part of a digest, so that parts cannot run into each other.
fn put(h: &mut blake3::Hasher, bytes: &[u8]) {
    h.update(&(bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

/// casec itself: its version, its executable (a rebuilt casec of the same version may
/// answer differently) and the stdlib it embeds. `None` when the executable cannot be
/// found: a cache then cannot tell one casec from another.
fn identity() -> Option<Digest> {
    let exe = std::env::current_exe().ok()?;
    let stamp = stamp(&fs::metadata(&exe).ok()?);
    let mut h = blake3::Hasher::new();
    put(&mut h, FORMAT.as_bytes());
    put(&mut h, env!("CARGO_PKG_VERSION").as_bytes());
    put(&mut h, exe.to_string_lossy().as_bytes());
    for n in [stamp.size, stamp.mtime_ns as u64, stamp.inode, stamp.device] {
        h.update(&n.to_le_bytes());
    }
    for (name, text) in load::STDLIB {
        put(&mut h, name.as_bytes());
        put(&mut h, text.as_bytes());
    }
    Some(*h.finalize().as_bytes())
}

/// The index file of the suite at `root`: one per suite folder and snapshot, so that
/// one cache folder can serve several suites, and checks of the working tree and of
/// the staged files do not replace each other's.
fn store_name(root: &Path, snapshot: Snapshot) -> String {
    let absolute = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let hash = blake3::hash(absolute.to_string_lossy().as_bytes());
    let hex: String = hash.as_bytes()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    match snapshot {
        Snapshot::WorkingTree => format!("suite-{hex}.index"),
        Snapshot::Staged => format!("suite-{hex}.staged.index"),
    }
}

fn stamp(meta: &fs::Metadata) -> StatStamp {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        StatStamp {
            size: meta.size(),
            mtime_ns: meta.mtime().saturating_mul(1_000_000_000) + meta.mtime_nsec(),
            ctime_ns: meta.ctime().saturating_mul(1_000_000_000) + meta.ctime_nsec(),
            inode: meta.ino(),
            device: meta.dev(),
        }
    }
    #[cfg(not(unix))]
    {
        let ns = |t: std::io::Result<std::time::SystemTime>| {
            t.ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i64)
        };
        StatStamp {
            size: meta.len(),
            mtime_ns: ns(meta.modified()),
            ctime_ns: ns(meta.created()),
            inode: 0,
            device: 0,
        }
    }
}

fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}

/// `sources` checked as the suite, keeping in a [`Recheck`] the trees and facts a
/// cache entry is made from.
fn check_keeping_trees(sources: Vec<Source>) -> (Compilation, Recheck) {
    let mut recheck = Recheck::default();
    let compilation = Compilation::new(Config {
        sources: Sources::Read(sources, Vec::new()),
        depth: Depth::Check,
        recheck: Some(&mut recheck),
    });
    (compilation, recheck)
}
