//! The judge's cache: one file per answered request, `DIR/<digest>.json`, keyed by the
//! request's key (judge model, prompt version, item text, evidence digest and the whole
//! request body).
//!
//! Only clear verdicts are cached: an endpoint error or an unreadable answer is asked
//! again next time. An entry is written under a temporary name and renamed into place,
//! so a killed run leaves no half entry; an entry that cannot be read, does not parse
//! or holds another key is ignored (and replaced after the next answer), so a broken
//! cache costs requests, never a different verdict.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{json, Value as Json};

use super::verdict::Verdict;

pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// The cache in `dir`, created if absent (its parent must exist).
    pub fn open(dir: &Path) -> io::Result<Cache> {
        match fs::create_dir(dir) {
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
            _ => {}
        }
        if !dir.is_dir() {
            return Err(io::Error::other(format!(
                "`{}` is not a folder",
                dir.display()
            )));
        }
        Ok(Cache {
            dir: dir.to_path_buf(),
        })
    }

    fn path(&self, key: &str) -> PathBuf {
        let name = key.strip_prefix("blake3:").unwrap_or(key);
        self.dir.join(format!("{name}.json"))
    }

    /// The verdict stored for `key`, if a sound entry holds it.
    pub fn get(&self, key: &str) -> Option<Verdict> {
        let text = fs::read_to_string(self.path(key)).ok()?;
        let entry: Json = serde_json::from_str(&text).ok()?;
        if entry.get("key").and_then(Json::as_str) != Some(key) {
            return None;
        }
        let verdict = entry.get("verdict")?;
        Some(Verdict {
            met: verdict.get("met")?.as_bool()?,
            reason: verdict.get("reason")?.as_str()?.to_string(),
        })
    }

    /// Stores the verdict for `key`.
    pub fn put(&self, key: &str, verdict: &Verdict) -> io::Result<()> {
        let entry = json!({
            "key": key,
            "verdict": { "met": verdict.met, "reason": verdict.reason },
        });
        let target = self.path(key);
        // Unique per process and write: two threads may answer the same request.
        static WRITES: AtomicUsize = AtomicUsize::new(0);
        let temp = self.dir.join(format!(
            ".{}.{}-{}.tmp",
            target
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            std::process::id(),
            WRITES.fetch_add(1, Ordering::Relaxed)
        ));
        fs::write(&temp, format!("{entry}\n"))?;
        fs::rename(&temp, &target).inspect_err(|_| {
            let _ = fs::remove_file(&temp);
        })
    }
}
