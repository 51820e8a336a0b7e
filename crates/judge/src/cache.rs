//! The judge's cache: one file per answered request, `DIR/<digest>.json`, keyed by the
//! request's key (judge model, prompt version, item text, evidence digest and the whole
//! request body). `casec serve --person-cache` keeps a simulated person's turns the same
//! way, keyed by the digest of the request body.
//!
//! Only clear verdicts (and readable turns) are cached: an endpoint error or an
//! unreadable answer is asked again next time. A verdict read from the cache decides an
//! item, so the cache is trusted only as far as no one but its user can write it:
//!
//! * **The folder** is created readable and writable by its user only (0700). An
//!   existing one is refused unless it is a real folder (not a symbolic link) owned by
//!   the user and writable by no one else: a folder in a shared place such as `/tmp`
//!   cannot become someone else's way to change the verdicts.
//! * **An entry is written** to a new file (`O_EXCL`, not through a link, mode 0600)
//!   under an unpredictable temporary name, then renamed into place. A link planted at
//!   any name is never written through: the temporary file is new, and a rename
//!   replaces a link at the entry's name, never its target. Temporary files of killed
//!   runs are removed when the cache is opened, once their process is gone
//!   ([`crate::temp_files`]).
//! * **An entry is read** only when it is a regular file (a link, a FIFO or a device is
//!   ignored, and never opened for a read that could block), of at most
//!   [`MAX_ENTRY_BYTES`].
//! * **An entry is verified**: it holds its key, the digest of the request body and a
//!   check digest over both and the verdict. A truncated, corrupt, hand-edited or moved
//!   entry is ignored (and replaced after the next answer), so a broken cache costs
//!   requests, never a different verdict. The check is no seal: whoever can write the
//!   folder can compute it too; the folder's permissions are what keeps others out.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::{json, Value as Json};

use super::prompt::{digest, Request};
use super::verdict::ItemVerdict;
use crate::load;
use crate::temp_files::{remove_stale_temps, temp_name};

/// The largest entry read: a verdict is a sentence, so anything near this is not one
/// casec wrote (and a larger verdict is not cached).
pub const MAX_ENTRY_BYTES: u64 = 1 << 20;

/// How many unpredictable temporary names are tried before a write gives up.
const TEMP_TRIES: usize = 8;

pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// The cache in `dir`, created (user-only) if absent; its parent must exist. An
    /// existing `dir` that others could write is refused, with why.
    pub fn open(dir: &Path) -> io::Result<Cache> {
        create_private(dir)?;
        refuse_shared(dir)?;
        remove_stale_temps(dir);
        Ok(Cache {
            dir: dir.to_path_buf(),
        })
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(entry_name(key))
    }

    /// The verdict stored for `request`, if a sound entry holds it.
    pub fn get(&self, request: &Request) -> Option<ItemVerdict> {
        let verdict = self.get_answer(&request.key, &request.body, "verdict")?;
        Some(ItemVerdict {
            met: verdict.get("met")?.as_bool()?,
            reason: verdict.get("reason")?.as_str()?.to_string(),
        })
    }

    /// Stores the verdict for `request`, replacing whatever sits at its entry's name.
    pub fn put(&self, request: &Request, verdict: &ItemVerdict) -> io::Result<()> {
        let answer = json!({ "met": verdict.met, "reason": verdict.reason });
        self.put_answer(&request.key, &request.body, "verdict", &answer)
    }

    /// The answer of kind `kind` (`verdict`, a simulated person's `turn`) stored under
    /// `key` for the request `body`, if a sound entry holds it.
    pub fn get_answer(&self, key: &str, body: &Json, kind: &str) -> Option<Json> {
        let text = read_entry(&self.path(key))?;
        let stored: Json = serde_json::from_str(&text).ok()?;
        let answer = stored.get(kind)?;
        (stored == entry(key, body, kind, answer)).then(|| answer.clone())
    }

    /// Stores an answer of kind `kind` under `key` for the request `body`, replacing
    /// whatever sits at its entry's name.
    pub fn put_answer(&self, key: &str, body: &Json, kind: &str, answer: &Json) -> io::Result<()> {
        let text = format!("{}\n", entry(key, body, kind, answer));
        if text.len() as u64 > MAX_ENTRY_BYTES {
            return Err(io::Error::other("the answer is too long to cache"));
        }
        let name = entry_name(key);
        let (temp, mut file) = self.create_temp(&name)?;
        let written = file
            .write_all(text.as_bytes())
            .and_then(|()| fs::rename(&temp, self.dir.join(&name)));
        if written.is_err() {
            let _ = fs::remove_file(&temp);
        }
        written
    }

    /// A new temporary file for the entry `name`, under a name no one can foresee.
    fn create_temp(&self, name: &str) -> io::Result<(PathBuf, File)> {
        let mut tries = 0;
        loop {
            let temp = self
                .dir
                .join(temp_name(&format!("{name}.{}", unpredictable())));
            match create_new(&temp) {
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < TEMP_TRIES => {
                    tries += 1;
                }
                Err(e) => return Err(e),
                Ok(file) => return Ok((temp, file)),
            }
        }
    }
}

/// The file name of the entry for `key`.
fn entry_name(key: &str) -> String {
    format!("{}.json", key.strip_prefix("blake3:").unwrap_or(key))
}

/// The entry that stores `answer` (of kind `kind`) under `key` for the request `body`:
/// the key, the digest of the body, the answer, and a check digest over the three.
fn entry(key: &str, body: &Json, kind: &str, answer: &Json) -> Json {
    let request_digest = digest(body.to_string().as_bytes());
    let check = json!([key, request_digest, kind, answer]);
    let mut entry = json!({ "key": key, "request": request_digest });
    entry[kind] = answer.clone();
    entry["check"] = digest(check.to_string().as_bytes()).into();
    entry
}

/// 64 bits no other process can foresee: std's `RandomState` keys come from the
/// operating system's random source.
fn unpredictable() -> String {
    use std::hash::{BuildHasher, Hasher, RandomState};
    use std::time::SystemTime;
    let mut hasher = RandomState::new().build_hasher();
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    hasher.write_u128(now);
    format!("{:016x}", hasher.finish())
}

/// Creates `dir` readable and writable by its user only; an existing `dir` is left as
/// it is (and checked by [`refuse_shared`]).
fn create_private(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    match builder.create(dir) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
}

/// Refuses a cache folder that is a symbolic link or not a folder, or (on unix) that
/// belongs to another user or that others may write.
fn refuse_shared(dir: &Path) -> io::Result<()> {
    let meta = fs::symlink_metadata(dir)?;
    if meta.file_type().is_symlink() {
        return Err(io::Error::other(
            "the folder is a symbolic link: give the folder itself (casec keeps verdicts only in a folder of your own)",
        ));
    }
    if !meta.is_dir() {
        return Err(io::Error::other("it is not a folder"));
    }
    refuse_others(dir, &meta)
}

#[cfg(unix)]
fn refuse_others(dir: &Path, meta: &fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let shown = dir.display();
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me {
        return Err(io::Error::other(format!(
            "the folder belongs to another user (uid {}, you are {me}): whoever owns it could change the verdicts casec reads from it; give a folder of your own",
            meta.uid()
        )));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(io::Error::other(format!(
            "the folder can be written by other users (mode {mode:04o}): they could change the verdicts casec reads from it; make it yours alone (`chmod go-w {shown}`) or give another folder"
        )));
    }
    Ok(())
}

#[cfg(not(unix))]
fn refuse_others(_: &Path, _: &fs::Metadata) -> io::Result<()> {
    Ok(())
}

/// Creates the file `path`, which must not exist (not even as a link), for writing.
fn create_new(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt;
        options
            .mode(0o600)
            .custom_flags(OFlags::NOFOLLOW.bits() as i32);
    }
    options.open(path)
}

/// The text of the entry at `path`, if it is a regular file of at most
/// [`MAX_ENTRY_BYTES`] in UTF-8.
fn read_entry(path: &Path) -> Option<String> {
    // Not through a link, and never a FIFO or a device: the folder is the user's own
    // (`open` refuses a shared one), but an entry is read as if it might not be.
    let (bytes, _) = load::read_regular(path, MAX_ENTRY_BYTES, load::Links::Refuse).ok()?;
    String::from_utf8(bytes).ok()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt};

    #[test]
    fn a_new_file_is_never_created_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        let planted = dir.path().join("planted");
        // A dangling link: without O_EXCL, opening it would create the victim.
        symlink(&victim, &planted).unwrap();
        assert!(create_new(&planted).is_err());
        assert!(!victim.exists());
        fs::write(&victim, "mine").unwrap();
        assert!(create_new(&planted).is_err());
        assert_eq!(fs::read_to_string(&victim).unwrap(), "mine");
    }

    #[test]
    fn the_folder_is_created_private_and_a_shared_one_refused() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        Cache::open(&cache).unwrap();
        let mode = fs::metadata(&cache).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        fs::set_permissions(&cache, fs::Permissions::from_mode(0o775)).unwrap();
        let refused = Cache::open(&cache).err().unwrap().to_string();
        assert!(refused.contains("written by other users"), "{refused}");
        assert!(refused.contains("0775"), "{refused}");
        fs::set_permissions(&cache, fs::Permissions::from_mode(0o755)).unwrap();
        Cache::open(&cache).unwrap();
        let link = dir.path().join("link");
        symlink(&cache, &link).unwrap();
        let refused = Cache::open(&link).err().unwrap().to_string();
        assert!(refused.contains("symbolic link"), "{refused}");
    }

    fn request(key: &str) -> Request {
        Request {
            body: json!({ "model": "m", "messages": [] }),
            key: format!("blake3:{key}"),
            evidence_digest: String::new(),
            missing: None,
        }
    }

    #[test]
    fn a_link_at_an_entry_is_not_read_and_is_replaced_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(&dir.path().join("cache")).unwrap();
        let (asked, verdict) = (
            request("ab12"),
            ItemVerdict {
                met: true,
                reason: "yes".into(),
            },
        );
        cache.put(&asked, &verdict).unwrap();
        assert_eq!(cache.get(&asked), Some(verdict.clone()));
        let entry = cache.path(&asked.key);
        let elsewhere = dir.path().join("elsewhere.json");
        fs::rename(&entry, &elsewhere).unwrap();
        symlink(&elsewhere, &entry).unwrap();
        assert_eq!(cache.get(&asked), None, "a sound entry behind a link");
        let before = fs::read(&elsewhere).unwrap();
        cache.put(&asked, &verdict).unwrap();
        assert!(fs::symlink_metadata(&entry).unwrap().is_file());
        assert_eq!(fs::read(&elsewhere).unwrap(), before);
        assert_eq!(cache.get(&asked), Some(verdict.clone()));
        // Another request's entry under this one's name.
        let other = request("cd34");
        fs::copy(&entry, cache.path(&other.key)).unwrap();
        assert_eq!(cache.get(&other), None);
        let mode = fs::metadata(&entry).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn temporary_names_differ_every_time() {
        assert_ne!(unpredictable(), unpredictable());
    }
}
