//! Temporary files that are renamed into place once written (an output beside its
//! target, an entry of the judge's cache): their names carry the writer's PID,
//! `.STEM.casec-tmp-PID`, so that the files of a run that was killed before it could
//! clean up are known and removed the next time casec writes in their folder, once
//! their process is gone and they have been left untouched for a minute (on Linux,
//! where `/proc` tells; elsewhere nothing is removed).

use std::collections::BTreeSet;
use std::fs::{self, Metadata};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// The marker between a temporary file's stem and the PID in its name.
const TEMP_MARK: &str = ".casec-tmp-";

/// The hidden temporary name of `stem` for this process: `.STEM.casec-tmp-PID`.
pub fn temp_name(stem: &str) -> String {
    format!(".{stem}{TEMP_MARK}{}", std::process::id())
}

/// Removes, once per folder and run, the temporary files and folders of casec
/// processes that are gone (killed before they could clean up).
pub fn remove_stale_temps(dir: &Path) {
    static CLEANED: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());
    let first_time = CLEANED
        .lock()
        .map(|mut cleaned| cleaned.insert(dir.to_path_buf()))
        .unwrap_or(false);
    if !first_time {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(temp_pid) else {
            continue;
        };
        let path = entry.path();
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if !is_stale(&meta, pid) {
            continue;
        }
        let _ = if meta.is_dir() {
            fs::remove_dir_all(&path)
        } else {
            fs::remove_file(&path)
        };
    }
}

/// The PID in a temporary name `.STEM.casec-tmp-PID`.
fn temp_pid(name: &str) -> Option<u32> {
    let (head, pid) = name.rsplit_once(TEMP_MARK)?;
    let digits = !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit());
    (name.starts_with('.') && head.len() > 1 && digits)
        .then(|| pid.parse().ok())
        .flatten()
}

/// How long a temporary file must have been left untouched before it may be removed:
/// a live writer keeps touching its file.
const STALE_AFTER: Duration = Duration::from_secs(60);

/// Whether a temporary entry is safe to remove: owned by this user, untouched for a
/// while, and its process is gone. Where that cannot be known (without `/proc`),
/// nothing is.
#[cfg(target_os = "linux")]
fn is_stale(meta: &Metadata, pid: u32) -> bool {
    use std::os::unix::fs::MetadataExt;
    // Each `/proc/PID` is owned by the effective user of its process.
    let mine = fs::metadata("/proc/self").is_ok_and(|me| me.uid() == meta.uid());
    let untouched = meta
        .modified()
        .ok()
        .and_then(|m| m.elapsed().ok())
        .is_some_and(|age| age >= STALE_AFTER);
    mine && untouched && !Path::new("/proc").join(pid.to_string()).exists()
}

#[cfg(not(target_os = "linux"))]
fn is_stale(_: &Metadata, _: u32) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_carry_the_pid() {
        assert_eq!(temp_pid(".master.json.casec-tmp-4242"), Some(4242));
        assert_eq!(temp_pid(".a.casec-tmp-"), None);
        assert_eq!(temp_pid("master.json.casec-tmp-1"), None);
        assert_eq!(temp_pid(".casec-tmp-1"), None);
        assert_eq!(temp_pid(".a.casec-tmp-1x"), None);
        assert_eq!(temp_pid(&temp_name("a.json")), Some(std::process::id()));
    }
}
