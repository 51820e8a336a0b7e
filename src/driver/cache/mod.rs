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
//! What a case file gives is its own diagnostics: the semantic checks of its cases
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

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diag::Diagnostic;
use crate::load::{self, Source};
use crate::source::{FileId, Origin, Role, SourceDb};
use crate::syntax::ast::{ListItem, Statement, ValueKind};
use crate::{Compilation, Recheck};

use self::store::{Digest, Entry, Index, Stamp, Stored};

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

/// Checks the suite at `root` through the cache in `dir`.
pub fn check_suite(root: &Path, dir: &Path) -> Checked {
    let scanned_ns = now_ns();
    let mut walk_errors = Vec::new();
    let paths = load::case_files(root, &mut walk_errors);
    let identity = identity();
    let (Some(identity), true) = (identity, walk_errors.is_empty()) else {
        return uncached(root);
    };
    let store_path = dir.join(store_name(root));
    let bytes = fs::read(&store_path).unwrap_or_default();
    let old = Index::parse(&bytes, &identity).filter(|i| i.root == load::display(root));
    let Some(mut survey) = Survey::of(root, &paths, old.as_ref()) else {
        return uncached(root);
    };
    let context = survey.context(&identity);
    let warm = old
        .as_ref()
        .filter(|old| old.context == context)
        .and_then(|old| survey.warm(old));
    let checked = match warm {
        Some((checked, changed)) => {
            if changed {
                let index = survey.index(identity, root, scanned_ns, context, old.as_ref());
                write_index(dir, &store_path, &index);
            }
            checked
        }
        None => {
            let (checked, shared) = survey.cold();
            if let Some(shared) = shared {
                let mut index = survey.index(identity, root, scanned_ns, context, None);
                index.shared = &shared;
                write_index(dir, &store_path, &index);
            }
            checked
        }
    };
    // A command's last act: what the survey holds of every file is left to the exit.
    crate::driver::leave_to_exit((survey, old));
    crate::driver::leave_to_exit(bytes);
    checked
}

/// A check without the cache, as `casec check` does it.
fn uncached(root: &Path) -> Checked {
    let compilation = Compilation::from_dir(root);
    Checked {
        files: crate::driver::user_files(&compilation.db),
        db: compilation.db,
        diagnostics: compilation.diagnostics,
    }
}

/// What a run found of one file of the suite.
struct Seen {
    path: PathBuf,
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

/// A case file's contribution to a check.
#[derive(Clone)]
struct FileResult {
    facts: Digest,
    diagnostics: Vec<u8>,
}

/// Every file of the suite, as found by a run.
struct Survey {
    /// The suite file's path, as the folder walk gives it.
    suite_file: PathBuf,
    seen: Vec<Seen>,
}

impl Survey {
    /// Stats every file, and reads those whose stamp does not vouch for them; `None`
    /// when a file cannot be read (a check without the cache reports it).
    fn of(root: &Path, paths: &[PathBuf], old: Option<&Index>) -> Option<Survey> {
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
        let scanned = old.map_or(i64::MIN, |i| i.scanned_ns);
        let suite_file = root.join(load::SUITE_FILE);
        let at: Vec<usize> = (0..paths.len()).collect();
        let seen = crate::parallel::map(&at, paths.len() >= PARALLEL_FROM_FILES, |&at| {
            let path = &paths[at];
            let stamp = stamp(&fs::metadata(path).ok()?);
            let name = load::display(path);
            let entry = find(at, &name);
            let racy = stamp.mtime_ns >= scanned.saturating_sub(RACY_NS)
                || stamp.ctime_ns >= scanned.saturating_sub(RACY_NS);
            let mut seen = Seen {
                path: path.clone(),
                name,
                stamp,
                digest: [0; 32],
                text: None,
                vouched: false,
                result: None,
                only_cases: *path != suite_file,
            };
            match entry {
                Some(entry) if entry.stamp == stamp && !racy => {
                    seen.digest = entry.digest;
                    seen.vouched = true;
                }
                _ => {
                    let text: Arc<str> = String::from_utf8(fs::read(path).ok()?).ok()?.into();
                    seen.digest = *blake3::hash(text.as_bytes()).as_bytes();
                    seen.text = Some(text);
                }
            }
            if let Some(entry) = entry.filter(|e| e.digest == seen.digest) {
                seen.only_cases &= entry.only_cases;
                if entry.only_cases {
                    seen.result = Some(FileResult {
                        facts: entry.facts,
                        diagnostics: entry.diagnostics.to_vec(),
                    });
                }
            } else if let Some(text) = &seen.text {
                seen.only_cases &= only_cases(&crate::syntax::parse(FileId(0), text));
            }
            Some(seen)
        });
        Some(Survey {
            suite_file,
            seen: seen.into_iter().collect::<Option<Vec<Seen>>>()?,
        })
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
        let shared = store::decode_diagnostics(old.shared)?;
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
            let (mut results, _) = results(&compilation, &recheck, &self.suite_name());
            for &i in &changed {
                let name = self.seen[i].name.as_str();
                self.seen[i].result = Some(results.remove(name)?);
            }
        }
        if aggregate(&self.seen) != old.aggregate {
            return None;
        }
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
    /// the cache can hold the result (the suite resolved).
    fn cold(&mut self) -> (Checked, Option<Vec<u8>>) {
        let all: Vec<usize> = (0..self.seen.len()).collect();
        if self.read(&all).is_none() {
            // A file changed under the run: whatever it reads now is the answer.
            return (uncached_of(self), None);
        }
        let (compilation, recheck) = self.compile(&all);
        let (mut results, shared) = results(&compilation, &recheck, &self.suite_name());
        for seen in &mut self.seen {
            let parsed = recheck.trees.parsed(&seen.name);
            seen.only_cases = seen.path != self.suite_file && parsed.is_none_or(only_cases);
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
        (checked, cacheable.then_some(shared))
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
        let texts = crate::parallel::map(&missing, missing.len() >= PARALLEL_FROM_FILES, |&i| {
            let bytes = fs::read(&self.seen[i].path).ok()?;
            String::from_utf8(bytes).ok().map(Arc::<str>::from)
        });
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

    fn suite_name(&self) -> String {
        load::display(&self.suite_file)
    }

    /// The files `which` (read), compiled as the suite, in folder order.
    fn compile(&self, which: &[usize]) -> (Compilation, Recheck) {
        let sources = which
            .iter()
            .map(|&i| {
                let seen = &self.seen[i];
                let role = match seen.path == self.suite_file {
                    true => Role::SuiteFile,
                    false => Role::Member,
                };
                Source {
                    name: seen.name.clone(),
                    text: seen.text.as_deref().unwrap_or_default().to_string(),
                    role,
                    disk: None,
                }
            })
            .collect();
        let mut recheck = Recheck::default();
        let compilation = Compilation::from_suite_sources_cached(sources, &mut recheck);
        (compilation, recheck)
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
        let mut db = SourceDb::new();
        let mut ids: HashMap<String, FileId> = HashMap::new();
        for source in load::stdlib_sources() {
            ids.insert(
                source.name.clone(),
                db.add(source.name, source.text, Origin::Stdlib),
            );
        }
        for &i in &needed {
            let seen = &self.seen[i];
            let text = Arc::clone(seen.text.as_ref()?);
            ids.insert(
                seen.name.clone(),
                db.add(seen.name.clone(), text, Origin::User),
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
            files: self.seen.len(),
        })
    }

    /// The index of this run: every file's stamp and digest, and the results of the
    /// case files.
    fn index<'a>(
        &'a self,
        identity: Digest,
        root: &Path,
        scanned_ns: i64,
        context: Digest,
        old: Option<&'a Index>,
    ) -> OwnedIndex<'a> {
        OwnedIndex {
            identity,
            root: load::display(root),
            scanned_ns,
            context,
            aggregate: aggregate(&self.seen),
            shared: old.map_or(&[][..], |o| o.shared),
            seen: &self.seen,
        }
    }
}

/// An index to write, over a run's survey.
struct OwnedIndex<'a> {
    identity: Digest,
    root: String,
    scanned_ns: i64,
    context: Digest,
    aggregate: Digest,
    shared: &'a [u8],
    seen: &'a [Seen],
}

/// Writes the index atomically; a failure is not reported (see the module header).
fn write_index(dir: &Path, path: &Path, index: &OwnedIndex) {
    let entries = index
        .seen
        .iter()
        .map(|s| {
            let result = s.result.as_ref().filter(|_| s.only_cases);
            Entry {
                name: &s.name,
                stamp: s.stamp,
                digest: s.digest,
                only_cases: s.only_cases,
                facts: result.map_or([0; 32], |r| r.facts),
                diagnostics: result.map_or(&[][..], |r| &r.diagnostics),
            }
        })
        .collect();
    let bytes = Index {
        identity: index.identity,
        root: &index.root,
        scanned_ns: index.scanned_ns,
        context: index.context,
        aggregate: index.aggregate,
        shared: index.shared,
        entries,
    }
    .encode();
    if fs::create_dir_all(dir).is_ok() {
        let _ = crate::driver::write_atomically(path, &bytes);
    }
}

/// A check without the cache, of a survey whose files changed under the run.
fn uncached_of(survey: &Survey) -> Checked {
    uncached(load::parent_or_dot(&survey.suite_file))
}

/// Whether a file holds only cases (or did not parse): no part of the context.
fn only_cases(parsed: &crate::syntax::Parsed) -> bool {
    parsed
        .file
        .as_ref()
        .is_none_or(|f| f.statements.iter().all(|s| s.name() == "case"))
}

/// Every case file's result, by name, and the suite-wide diagnostics (those of no case
/// file), encoded. A case file's diagnostics are its cases' own (the semantic checks,
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
            && recheck.trees.parsed(&file.name).is_some_and(only_cases)
    };
    let encode = |d: &Diagnostic| {
        let mut out = Vec::new();
        store::encode_diagnostic(d, db, &mut out);
        out
    };
    // Own diagnostics, by their encoding, with the files whose cases gave them.
    let mut own: HashMap<Vec<u8>, Vec<FileId>> = HashMap::new();
    for (file, diagnostics) in recheck.checks.own() {
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

/// The index file of the suite at `root`: one per suite folder, so that one cache
/// folder can serve several suites.
fn store_name(root: &Path) -> String {
    let absolute = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let hash = blake3::hash(absolute.to_string_lossy().as_bytes());
    let hex: String = hash.as_bytes()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("suite-{hex}.index")
}

fn stamp(meta: &fs::Metadata) -> Stamp {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Stamp {
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
        Stamp {
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
