//! `casec check --staged`: a suite's files as git's index holds them, which is what
//! `git commit` would record, rather than as the working tree holds them.
//!
//! A pre-commit hook should judge what is committed: a file edited again after
//! `git add` is committed as it was added. And git knows which staged files changed
//! without looking at the working tree, where finding out means a `stat` of every
//! file (0.2–0.4 s of system time for 100,000 files on the machine of
//! docs/performance.md).
//!
//! The staged files are listed against a *base*, a tree object:
//! `git diff-index --cached B` gives every path whose staged blob differs from B's.
//! With B's own listing (`git ls-tree -r B`, or, once a cache was written, what the
//! cache recorded of B) that is the whole index. B is immutable and the diff reads one
//! snapshot of the index, so the listing is consistent even if the index changes
//! meanwhile; and the diff is fast (about 12 ms for 100,000 paths), since it compares
//! object ids, not files.
//!
//! Guarantee: the files listed are those a `git checkout-index -a` of the index would
//! write below the suite folder and the folder walk of `load` would read there: hidden
//! paths are skipped and only `.case` files count. What the walk would read but the
//! index cannot give (a symbolic link to a `.case` file or to a folder, a submodule,
//! an unmerged path) is an error, never silently left out. Every failure of git is a
//! located `io` diagnostic.

use std::borrow::Cow;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Output, Stdio};
use std::sync::Mutex;

use crate::diag::{codes, Diagnostic};
use crate::load;

/// A git object id (SHA-1 or SHA-256), as bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ObjectId {
    bytes: [u8; 32],
    len: u8,
}

impl ObjectId {
    /// The id spelt in hex by git; `None` unless it is 40 or 64 hex digits.
    pub fn from_hex(hex: &[u8]) -> Option<ObjectId> {
        if hex.len() != 40 && hex.len() != 64 {
            return None;
        }
        let mut id = ObjectId {
            bytes: [0; 32],
            len: (hex.len() / 2) as u8,
        };
        for (byte, pair) in id.bytes.iter_mut().zip(hex.chunks(2)) {
            let digit = |c: u8| (c as char).to_digit(16);
            *byte = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
        }
        Some(id)
    }

    /// The id's bytes (20 or 32).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// The id from its bytes; `None` unless there are 20 or 32.
    pub fn from_bytes(bytes: &[u8]) -> Option<ObjectId> {
        if bytes.len() != 20 && bytes.len() != 32 {
            return None;
        }
        let mut id = ObjectId {
            bytes: [0; 32],
            len: bytes.len() as u8,
        };
        id.bytes[..bytes.len()].copy_from_slice(bytes);
        Some(id)
    }

    pub fn hex(&self) -> String {
        self.as_bytes().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The all-zero id git writes for "no object" in a diff.
    fn is_null(&self) -> bool {
        self.as_bytes().iter().all(|&b| b == 0)
    }
}

/// An id is stored as its bytes (a check cache's index keeps the blobs of staged files).
impl serde::Serialize for ObjectId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.as_bytes())
    }
}

impl<'de> serde::Deserialize<'de> for ObjectId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ObjectId, D::Error> {
        let bytes = <&[u8]>::deserialize(d)?;
        ObjectId::from_bytes(bytes)
            .ok_or_else(|| serde::de::Error::invalid_length(bytes.len(), &"20 or 32 bytes"))
    }
}

/// One staged file of the suite.
pub struct StagedFile<'a> {
    /// Its path below the suite root, `/`-separated, as git spells it.
    pub below: Cow<'a, str>,
    pub blob: ObjectId,
}

impl StagedFile<'_> {
    /// The file's name in diagnostics: the one the folder walk gives it, shown.
    pub fn name(&self, shown_root: &str) -> String {
        name_of(shown_root, &self.below)
    }
}

/// The name in diagnostics of the file `below` the root shown as `shown_root`.
pub fn name_of(shown_root: &str, below: &str) -> String {
    let mut name = String::with_capacity(shown_root.len() + below.len());
    name.push_str(shown_root);
    name.push_str(below);
    match name.contains('\\') {
        // `load::display` turns a backslash into a separator.
        true => load::display(Path::new(&name)),
        false => name,
    }
}

/// How the names of a suite's files begin: the root as diagnostics show it, with a
/// separator (nothing for the current folder), so that `shown_root(root)` followed by a
/// path below the root is how `load::display` shows the path joined to the root.
pub fn shown_root(root: &Path) -> String {
    match load::display(root) {
        s if s.is_empty() || s == "." => String::new(),
        s if s.ends_with('/') => s,
        s => s + "/",
    }
}

/// The suite's staged files and how they were listed.
pub struct Listing<'a> {
    /// The tree the listing was made against.
    pub base: ObjectId,
    /// The suite's files, in the order of the folder walk.
    pub files: Vec<StagedFile<'a>>,
    /// Every path below the root where the index differs from the base, with the
    /// base's blob there (`None`: the base has no file there). With `files`, that
    /// gives the base's own listing: what a cache keeps to list the next run.
    pub changes: Vec<(String, Option<ObjectId>)>,
    /// Whether `files` and `changes` tell the base's whole listing: not when the base
    /// holds something a check cannot read (then a cache must list afresh).
    pub reusable: bool,
}

/// A tree already listed: its id and its blob at every path below the root that
/// counts (a `.case` file, not hidden), in the order of the folder walk.
pub struct KnownBase<'a> {
    pub base: ObjectId,
    pub files: Vec<StagedFile<'a>>,
}

/// A listing made against a known base is started afresh (against HEAD's tree) when
/// more paths than this have changed since it: each run would list them all again.
const REBASE_FROM_CHANGES: usize = 256;

/// The staged files of the suite at `root`, listed against `known` when its base is
/// still there, else against HEAD's tree.
pub fn list<'a>(root: &Path, known: Option<KnownBase<'a>>) -> Result<Listing<'a>, Diagnostic> {
    if let Some(known) = known {
        // A base gone from the repository (pruned) is no error: the listing starts
        // afresh, and so does one that fails for another reason, to report it.
        if let Ok(changes) = diff_index(root, known.base) {
            let rebase = changes.len() > REBASE_FROM_CHANGES.max(known.files.len() / 64)
                && head_tree(root).is_ok_and(|head| head != known.base);
            if !rebase {
                return listing(root, known, Vec::new(), changes);
            }
        }
    }
    let base = head_tree(root)?;
    let (mut files, unreadable) = ls_tree(root, base)?;
    sort_in_walk_order(&mut files);
    let changes = diff_index(root, base)?;
    listing(root, KnownBase { base, files }, unreadable, changes)
}

/// The base's listing patched by the staged changes; an error for a path the index
/// holds that a check cannot read (`unreadable` in the base and unchanged since).
fn listing<'a>(
    root: &Path,
    known: KnownBase<'a>,
    unreadable: Vec<(String, &'static str)>,
    changes: Vec<Change>,
) -> Result<Listing<'a>, Diagnostic> {
    let changes = sorted_and_merged(root, changes)?;
    let changed = |below: &str| {
        changes
            .binary_search_by(|c| c.below.as_str().cmp(below))
            .ok()
            .map(|at| &changes[at])
    };
    for (below, what) in unreadable {
        if changed(&below).is_none() {
            return Err(unreadable_path(root, &below, what));
        }
    }
    let KnownBase { base, mut files } = known;
    let patches = changes.iter().map(|c| (Cow::Owned(c.below.clone()), c.new));
    patch(&mut files, patches);
    let reusable = changes.iter().all(|c| c.old != Side::Unreadable);
    let changes = changes
        .into_iter()
        .map(|c| {
            let old = match c.old {
                Side::Blob(id) => Some(id),
                Side::Absent | Side::Unreadable => None,
            };
            (c.below, old)
        })
        .collect();
    Ok(Listing {
        base,
        files,
        changes,
        reusable,
    })
}

/// Sets the blob of each path of `patches` in `files` (in walk order), adding the
/// file if it is not there; a path without a blob is removed.
pub fn patch<'a>(
    files: &mut Vec<StagedFile<'a>>,
    patches: impl Iterator<Item = (Cow<'a, str>, Option<ObjectId>)>,
) {
    // Patches are few: each is found by a binary search, and the listing is rebuilt
    // once at most.
    let mut removed = Vec::new();
    let mut added = Vec::new();
    for (below, blob) in patches {
        match (find_in_walk_order(files, &below), blob) {
            (Ok(at), Some(blob)) => files[at].blob = blob,
            (Ok(at), None) => removed.push(at),
            (Err(_), Some(blob)) => added.push(StagedFile { below, blob }),
            (Err(_), None) => {}
        }
    }
    if !removed.is_empty() {
        removed.sort_unstable();
        let mut at = 0;
        files.retain(|_| {
            at += 1;
            removed.binary_search(&(at - 1)).is_err()
        });
    }
    if !added.is_empty() {
        files.append(&mut added);
        // A long sorted run and a short one: the sort merges them in about linear time.
        files.sort_by(walk_order);
    }
}

/// Every path below `root` where the index holds another `.case` file than the tree
/// `base` does, sorted by path, with the index's blob there (`None`: no file); an
/// error where the listing would give one (an unmerged path, a link or submodule in
/// the index).
pub fn changes_since(
    root: &Path,
    base: ObjectId,
) -> Result<Vec<(String, Option<ObjectId>)>, Diagnostic> {
    let changes = sorted_and_merged(root, diff_index(root, base)?)?;
    Ok(changes.into_iter().map(|c| (c.below, c.new)).collect())
}

/// `changes` sorted by path; an error for the first path with merge conflicts.
fn sorted_and_merged(root: &Path, mut changes: Vec<Change>) -> Result<Vec<Change>, Diagnostic> {
    changes.sort_by(|a, b| a.below.cmp(&b.below));
    match changes.iter().find(|c| c.unmerged) {
        Some(change) => Err(unmerged(root, &change.below)),
        None => Ok(changes),
    }
}

/// Sorts paths below the root as the folder walk orders them.
pub fn sort_in_walk_order(files: &mut [StagedFile]) {
    files.sort_unstable_by(walk_order);
}

/// Where the file `below` is in `files` (in walk order), or where it would go.
pub fn find_in_walk_order(files: &[StagedFile], below: &str) -> Result<usize, usize> {
    files.binary_search_by(|file| walk_order_of(&file.below, below))
}

/// The order of the folder walk ([`load::walk_order`]).
fn walk_order(a: &StagedFile, b: &StagedFile) -> std::cmp::Ordering {
    walk_order_of(&a.below, &b.below)
}

pub fn walk_order_of(a: &str, b: &str) -> std::cmp::Ordering {
    load::walk_order(a.as_bytes(), b.as_bytes())
}

/// What a path of the index is to a check of the suite.
enum WalkedAs {
    /// A `.case` file the walk would read.
    CaseFile,
    /// Something the walk would skip: hidden, or not a `.case` file.
    Skipped,
    /// Something the walk would read that the index cannot give.
    Unreadable(&'static str),
}

/// `below` (a path below the root) with git's file `mode`, as the walk would take it.
fn walked_as(root: &Path, below: &str, mode: &str) -> WalkedAs {
    if below.split('/').any(|part| part.starts_with('.')) {
        return WalkedAs::Skipped;
    }
    let case_file = below.ends_with(".case");
    match mode {
        "100644" | "100755" if case_file => WalkedAs::CaseFile,
        "120000" if case_file || root.join(path_of(below)).is_dir() => WalkedAs::Unreadable(
            "a symbolic link: git's index holds the link, not what it leads to",
        ),
        "160000" => WalkedAs::Unreadable("a git submodule: its files are not in this index"),
        _ => WalkedAs::Skipped,
    }
}

/// A changed path of `git diff-index --cached`: the base's side and the index's.
struct Change {
    below: String,
    old: Side,
    new: Option<ObjectId>,
    unmerged: bool,
}

/// Every counted path below `root` whose staged blob differs from `base`'s.
fn diff_index(root: &Path, base: ObjectId) -> Result<Vec<Change>, Diagnostic> {
    let base = base.hex();
    let args = [
        "diff-index",
        "--cached",
        "--raw",
        "-z",
        "--no-renames",
        "--relative",
        &base,
    ];
    let out = git(root, &args)?;
    let mut fields = out.split(|&b| b == 0);
    let mut changes = Vec::new();
    while let Some(meta) = fields.next().filter(|m| !m.is_empty()) {
        let below = fields.next().ok_or_else(|| garbled(root, "diff-index"))?;
        let below = String::from_utf8_lossy(below).into_owned();
        let change = parse_change(root, meta, below).ok_or_else(|| garbled(root, "diff-index"))?;
        changes.extend(change?);
    }
    Ok(changes)
}

/// One line of `git diff-index --raw` (`:old-mode new-mode old-id new-id status`) for
/// the path `below`: `None` if it does not parse; the change if the path counts.
fn parse_change(
    root: &Path,
    meta: &[u8],
    below: String,
) -> Option<Result<Option<Change>, Diagnostic>> {
    let meta = std::str::from_utf8(meta).ok()?.strip_prefix(':')?;
    let parts: Vec<&str> = meta.split(' ').collect();
    let [old_mode, new_mode, old_id, new_id, status] = parts[..] else {
        return None;
    };
    let id = |hex: &str| ObjectId::from_hex(hex.as_bytes()).map(|id| (!id.is_null()).then_some(id));
    let (old_id, new_id) = (id(old_id)?, id(new_id)?);
    if status == "U" {
        let counts = !matches!(walked_as(root, &below, "100644"), WalkedAs::Skipped);
        return Some(Ok(counts.then_some(Change {
            below,
            old: Side::Absent,
            new: None,
            unmerged: true,
        })));
    }
    let old = match walked_as(root, &below, old_mode) {
        WalkedAs::CaseFile => old_id.map_or(Side::Absent, Side::Blob),
        WalkedAs::Skipped => Side::Absent,
        WalkedAs::Unreadable(_) => Side::Unreadable,
    };
    let new = match walked_as(root, &below, new_mode) {
        WalkedAs::CaseFile => new_id,
        WalkedAs::Skipped => None,
        WalkedAs::Unreadable(what) => return Some(Err(unreadable_path(root, &below, what))),
    };
    let counts = new.is_some() || old != Side::Absent;
    Some(Ok(counts.then_some(Change {
        below,
        old,
        new,
        unmerged: false,
    })))
}

/// What the base holds at a changed path.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Absent,
    Blob(ObjectId),
    /// Something a check cannot read from git (see [`WalkedAs::Unreadable`]).
    Unreadable,
}

/// A tree's counted paths below the root with their blobs, and the paths there that a
/// check cannot read from git.
type TreeListing = (Vec<StagedFile<'static>>, Vec<(String, &'static str)>);

/// The blob of every counted path below `root` in the tree `base`, and the paths
/// there that a check cannot read from git.
fn ls_tree(root: &Path, base: ObjectId) -> Result<TreeListing, Diagnostic> {
    let out = git(root, &["ls-tree", "-r", "-z", &base.hex()])?;
    let mut blobs = Vec::new();
    let mut unreadable = Vec::new();
    for line in out.split(|&b| b == 0).filter(|l| !l.is_empty()) {
        let (mode, id, below) = parse_tree_line(line).ok_or_else(|| garbled(root, "ls-tree"))?;
        match walked_as(root, &below, mode) {
            WalkedAs::CaseFile => blobs.push(StagedFile {
                below: Cow::Owned(below),
                blob: id,
            }),
            WalkedAs::Skipped => {}
            WalkedAs::Unreadable(what) => unreadable.push((below, what)),
        }
    }
    Ok((blobs, unreadable))
}

/// One line of `git ls-tree` (`mode type id<TAB>path`).
fn parse_tree_line(line: &[u8]) -> Option<(&str, ObjectId, String)> {
    let tab = line.iter().position(|&b| b == b'\t')?;
    let below = String::from_utf8_lossy(&line[tab + 1..]).into_owned();
    let meta = std::str::from_utf8(&line[..tab]).ok()?;
    let mut parts = meta.split(' ');
    let (mode, _kind, id) = (parts.next()?, parts.next()?, parts.next()?);
    Some((mode, ObjectId::from_hex(id.as_bytes())?, below))
}

/// The tree of HEAD, or git's empty tree in a repository without commits.
fn head_tree(root: &Path) -> Result<ObjectId, Diagnostic> {
    let args = ["rev-parse", "--verify", "--quiet", "HEAD^{tree}"];
    let head = run(root, &args, &[])?;
    let hex = match head.status.code() {
        Some(0) => head.stdout,
        // No commit yet (`--quiet` fails with 1): the empty tree of this repository's
        // hash. Anything else (not a repository) is git's error.
        Some(1) => git_with_input(root, &["hash-object", "-t", "tree", "--stdin"], b"")?,
        _ => return Err(failure(root, &args, &head)),
    };
    ObjectId::from_hex(hex.trim_ascii()).ok_or_else(|| garbled(root, "rev-parse"))
}

/// The staged text of one file (a file in no suite): git's error if the index does not
/// hold it.
pub fn read_file(path: &Path) -> Result<String, Diagnostic> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let object = format!(":./{}", name.unwrap_or_default());
    let folder = load::parent_or_dot(path);
    let size =
        git(folder, &["cat-file", "-s", &object]).map_err(|d| d.at_path(load::display(path)))?;
    let size: u64 = std::str::from_utf8(&size)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .ok_or_else(|| garbled(folder, "cat-file -s").at_path(load::display(path)))?;
    if size > load::MAX_FILE_BYTES {
        return Err(load::Unread::TooLarge(size, load::MAX_FILE_BYTES).diagnostic(path));
    }
    let bytes =
        git(folder, &["cat-file", "blob", &object]).map_err(|d| d.at_path(load::display(path)))?;
    String::from_utf8(bytes).map_err(|e| load::not_utf8(&load::display(path), &e))
}

/// Reads blobs through one `git cat-file --batch`, started when first needed.
pub struct Blobs {
    root: PathBuf,
    process: Mutex<Option<Batch>>,
}

struct Batch {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Blobs {
    pub fn new(root: &Path) -> Blobs {
        Blobs {
            root: root.to_path_buf(),
            process: Mutex::new(None),
        }
    }

    /// The contents of the blobs `ids`, asked for all at once (a writer thread feeds
    /// git while this one reads its answers: one request after another would wait for
    /// each answer); [`Blob::Missing`] for each one git cannot give.
    pub fn read_all(&self, ids: &[ObjectId]) -> Vec<Blob> {
        let mut answers = Vec::with_capacity(ids.len());
        let Ok(mut process) = self.process.lock() else {
            return vec![Blob::Missing; ids.len()];
        };
        if process.is_none() {
            *process = self.start();
        }
        let Some(batch) = process.as_mut() else {
            return vec![Blob::Missing; ids.len()];
        };
        let in_sync = std::thread::scope(|scope| {
            let Batch {
                child,
                input,
                output,
            } = batch;
            let writer = scope.spawn(move || -> std::io::Result<()> {
                let mut input = std::io::BufWriter::new(input);
                for id in ids {
                    writeln!(input, "{}", id.hex())?;
                }
                input.flush()
            });
            let mut in_sync = true;
            for _ in ids {
                match answer(output) {
                    Ok(content) => answers.push(content),
                    Err(()) => {
                        // Out of step with git: nothing more it says can be trusted,
                        // and the writer must not wait on a reader that stopped.
                        in_sync = false;
                        let _ = child.kill();
                        break;
                    }
                }
            }
            in_sync && writer.join().is_ok_and(|wrote| wrote.is_ok())
        });
        if !in_sync {
            // A process that answered badly is not asked again.
            if let Some(mut batch) = process.take() {
                let _ = batch.child.kill();
                let _ = batch.child.wait();
            }
        }
        answers.resize(ids.len(), Blob::Missing);
        answers
    }

    fn start(&self) -> Option<Batch> {
        let mut child = git_command(&self.root)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let input = child.stdin.take()?;
        let output = BufReader::new(child.stdout.take()?);
        Some(Batch {
            child,
            input,
            output,
        })
    }
}

/// What `git cat-file --batch` gave for one blob.
#[derive(Clone, Debug)]
pub enum Blob {
    Bytes(Vec<u8>),
    /// Larger than a source may be ([`load::MAX_FILE_BYTES`]): its size. Its bytes were
    /// skipped, never held.
    TooLarge(u64),
    /// Not a blob git has.
    Missing,
}

impl Blob {
    /// The bytes, when git gave them.
    pub fn bytes(self) -> Option<Vec<u8>> {
        match self {
            Blob::Bytes(bytes) => Some(bytes),
            Blob::TooLarge(_) | Blob::Missing => None,
        }
    }
}

/// One answer of `git cat-file --batch`: `id blob size`, the content and a newline, or
/// `id missing`. `Err` when it is neither: the stream is out of step.
fn answer(output: &mut impl BufRead) -> Result<Blob, ()> {
    let mut header = Vec::new();
    output.read_until(b'\n', &mut header).map_err(|_| ())?;
    let header = std::str::from_utf8(&header).map_err(|_| ())?.trim_end();
    let mut parts = header.split(' ');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(_), Some("missing" | "ambiguous"), None) => Ok(Blob::Missing),
        (Some(_), Some(kind), Some(size)) => {
            let size: u64 = size.parse().map_err(|_| ())?;
            // The content is followed by a newline.
            let with_newline = size.checked_add(1).ok_or(())?;
            if size > load::MAX_FILE_BYTES {
                let skipped = std::io::copy(&mut output.take(with_newline), &mut std::io::sink());
                return match skipped {
                    Ok(n) if n == with_newline => Ok(Blob::TooLarge(size)),
                    _ => Err(()),
                };
            }
            let mut content = vec![0; usize::try_from(with_newline).map_err(|_| ())?];
            output.read_exact(&mut content).map_err(|_| ())?;
            if content.pop() != Some(b'\n') {
                return Err(());
            }
            Ok(match kind {
                "blob" => Blob::Bytes(content),
                _ => Blob::Missing,
            })
        }
        _ => Err(()),
    }
}

impl Drop for Blobs {
    fn drop(&mut self) {
        let process = self.process.get_mut().ok().and_then(Option::take);
        if let Some(Batch {
            mut child, input, ..
        }) = process
        {
            // End of input ends cat-file.
            drop(input);
            let _ = child.wait();
        }
    }
}

/// `git` run in `root`, with git's own environment made independent of the folder:
/// a hook runs with `GIT_DIR` and `GIT_INDEX_FILE` set, possibly relative to where
/// git started, which `-C root` would otherwise reinterpret; and with `GIT_DIR` set
/// and no `GIT_WORK_TREE`, git takes the current folder as the top of the work tree,
/// which for casec's git is `root`, not casec's own folder.
fn git_command(root: &Path) -> Command {
    let mut command = Command::new("git");
    command.arg("-C").arg(root);
    let cwd = std::env::current_dir().ok();
    let absolute = |value: OsString| match &cwd {
        Some(cwd) => OsString::from(cwd.join(value)),
        None => value,
    };
    for var in [
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_COMMON_DIR",
    ] {
        if let Some(value) = std::env::var_os(var) {
            command.env(var, absolute(value));
        }
    }
    if std::env::var_os("GIT_DIR").is_some() && std::env::var_os("GIT_WORK_TREE").is_none() {
        command.env("GIT_WORK_TREE", absolute(OsString::from(".")));
    }
    command
}

fn git(root: &Path, args: &[&str]) -> Result<Vec<u8>, Diagnostic> {
    git_with_input(root, args, &[])
}

fn git_with_input(root: &Path, args: &[&str], input: &[u8]) -> Result<Vec<u8>, Diagnostic> {
    let out = run(root, args, input)?;
    match out.status.success() {
        true => Ok(out.stdout),
        false => Err(failure(root, args, &out)),
    }
}

/// `git args` run in `root` with `input`: its output, whatever its exit status.
fn run(root: &Path, args: &[&str], input: &[u8]) -> Result<Output, Diagnostic> {
    let child = git_command(root)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = child.map_err(|e| {
        git_error(
            root,
            &format!("cannot run git: {e}"),
            "--staged reads git's index: install git, or check without --staged",
        )
    })?;
    if let Some(mut stdin) = child.stdin.take() {
        // Small inputs only (none or an empty file): no risk of filling the pipe.
        let _ = stdin.write_all(input);
    }
    child.wait_with_output().map_err(|e| {
        git_error(
            root,
            &format!("git failed: {e}"),
            "check that the folder is in a git work tree",
        )
    })
}

/// A git command that failed, with the first line git gave as the reason.
fn failure(root: &Path, args: &[&str], out: &Output) -> Diagnostic {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr.lines().next().unwrap_or("").trim();
    let first = first.strip_prefix("fatal: ").unwrap_or(first);
    git_error(
        root,
        &format!("`git {}` failed: {first}", args[0]),
        "--staged checks the files staged in git's index: run it inside a git work tree",
    )
}

fn git_error(path: &Path, message: &str, help: &str) -> Diagnostic {
    Diagnostic::new(codes::IO, message)
        .at_path(load::display(path))
        .help(help)
}

fn unmerged(root: &Path, below: &str) -> Diagnostic {
    git_error(
        &root.join(path_of(below)),
        "the file has unresolved merge conflicts in git's index",
        "resolve the conflicts and `git add` the file",
    )
}

fn unreadable_path(root: &Path, below: &str, what: &str) -> Diagnostic {
    git_error(
        &root.join(path_of(below)),
        &format!("cannot check this path as staged: it is {what}"),
        "check the working tree instead: run casec check without --staged",
    )
}

fn garbled(root: &Path, command: &str) -> Diagnostic {
    git_error(
        root,
        &format!("`git {command}` gave output casec cannot read"),
        "check that `git` on the PATH is git",
    )
}

/// A `/`-separated path below the root as a path of this system.
fn path_of(below: &str) -> PathBuf {
    below.split('/').collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Cursor, Read};

    #[test]
    fn a_blob_past_the_file_cap_is_skipped_unheld_and_the_stream_stays_in_step() {
        let size = load::MAX_FILE_BYTES + 1;
        let header = format!("{} blob {size}\n", "a".repeat(40));
        let stream = Cursor::new(header)
            .chain(std::io::repeat(b'x').take(size))
            .chain(Cursor::new(format!("\n{} blob 3\nabc\n", "b".repeat(40))));
        let mut output = BufReader::new(stream);
        assert!(matches!(answer(&mut output), Ok(Blob::TooLarge(s)) if s == size));
        assert!(matches!(answer(&mut output), Ok(Blob::Bytes(b)) if b == b"abc"));
    }

    #[test]
    fn a_blob_cut_short_puts_the_stream_out_of_step() {
        let header = format!("{} blob {}\n", "a".repeat(40), load::MAX_FILE_BYTES + 1);
        let mut output = BufReader::new(Cursor::new(header).chain(Cursor::new("short")));
        assert!(answer(&mut output).is_err());
        let mut output = BufReader::new(Cursor::new(format!("{} blob 3\nab", "c".repeat(40))));
        assert!(answer(&mut output).is_err());
    }

    #[test]
    fn object_ids_read_back_from_hex_and_bytes() {
        let hex = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
        let id = ObjectId::from_hex(hex.as_bytes()).expect("40 hex digits");
        assert_eq!(id.hex(), hex);
        assert_eq!(ObjectId::from_bytes(id.as_bytes()), Some(id));
        let long = "a".repeat(64);
        assert_eq!(
            ObjectId::from_hex(long.as_bytes()).map(|i| i.hex()),
            Some(long)
        );
        for bad in ["", "4b82", "g".repeat(40).as_str(), &"a".repeat(41)] {
            assert_eq!(ObjectId::from_hex(bad.as_bytes()), None, "{bad}");
        }
        assert!(ObjectId::from_hex(&[b'0'; 40]).is_some_and(|i| i.is_null()));
    }
}
