//! The embedded stdlib as files an editor can open.
//!
//! The stdlib lives inside the casec binary, but "go to definition" needs a location
//! every client can open. A custom URI scheme would need code in each editor, so the
//! server writes the stdlib files, read-only, to a cache folder on first use and points
//! at them there:
//!
//! `$CASEC_CACHE_DIR` (else `$XDG_CACHE_HOME/casec`, else `~/.cache/casec`, else the
//! system temporary folder's `casec`) `/stdlib-<version>-<hash>/<file>.case`
//!
//! The hash is of the embedded texts, so a folder is never shared by two different
//! stdlibs and is written once. The files' text is exactly the embedded text, so the
//! ranges of the compilation's stdlib files are valid in them.

use std::fs;
use std::path::{Path, PathBuf};

use lsp_types::Url;

use crate::load::STDLIB;

/// Where the stdlib files go. The cache root of the environment when not given.
pub fn default_cache_dir() -> PathBuf {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("CASEC_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    let cache_root = var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|home| Path::new(&home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    cache_root.join("casec")
}

/// The folder for this binary's stdlib under `cache_dir`.
fn stdlib_dir(cache_dir: &Path) -> PathBuf {
    cache_dir.join(format!(
        "stdlib-{}-{:016x}",
        env!("CARGO_PKG_VERSION"),
        fingerprint()
    ))
}

/// FNV-1a over every stdlib file's name and text: stable across runs and machines.
fn fingerprint() -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (name, text) in STDLIB {
        for byte in name.bytes().chain([0]).chain(text.bytes()).chain([0]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

/// The URI of the stdlib file a compilation names `name` (`<stdlib>/x.case`), written
/// to the cache first if needed; `None` when it is no stdlib file or cannot be written.
pub fn uri(cache_dir: &Path, name: &str) -> Option<Url> {
    let file = name.strip_prefix("<stdlib>/")?;
    let (_, text) = STDLIB.iter().find(|(n, _)| *n == file)?;
    let path = stdlib_dir(cache_dir).join(file);
    // Read as a source is: a FIFO or device planted in the cache is not opened.
    let current =
        crate::load::read_bytes(&path).is_ok_and(|(on_disk, _)| on_disk == text.as_bytes());
    if !current {
        write_read_only(&path, text).ok()?;
    }
    let absolute = if path.is_absolute() {
        path
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    Url::from_file_path(absolute).ok()
}

/// Writes `text` to `path` through a temporary file, then marks it read-only: it is a
/// view of the binary's stdlib, and edits there would change nothing.
fn write_read_only(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".casec-tmp-{}", std::process::id()));
    // A new file, never an existing one: the cache may sit in a shared temporary
    // folder, where a link planted at this predictable name must not be written through.
    let _ = fs::remove_file(&tmp);
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)?;
    std::io::Write::write_all(&mut file, text.as_bytes())?;
    drop(file);
    let mut permissions = fs::metadata(&tmp)?.permissions();
    permissions.set_readonly(true);
    fs::set_permissions(&tmp, permissions)?;
    let renamed = fs::rename(&tmp, path);
    if renamed.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    renamed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_link_planted_at_the_temporary_name_is_not_written_through() {
        let cache = std::env::temp_dir().join(format!("casec-stdlib-link-{}", std::process::id()));
        let dir = stdlib_dir(&cache);
        fs::create_dir_all(&dir).expect("the cache folder");
        let victim = cache.join("victim.txt");
        fs::write(&victim, "kept").expect("the victim");
        let tmp = dir.join(format!(".casec-tmp-{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &tmp).expect("the planted link");
        let (file, text) = STDLIB[0];
        let written = uri(&cache, &format!("<stdlib>/{file}"));
        assert!(written.is_some(), "the stdlib file is still written");
        assert_eq!(fs::read_to_string(&victim).expect("the victim"), "kept");
        assert_eq!(
            fs::read_to_string(dir.join(file)).expect("the stdlib file"),
            text
        );
        let mut permissions = fs::metadata(dir.join(file)).expect("written").permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        permissions.set_readonly(false);
        let _ = fs::set_permissions(dir.join(file), permissions);
        let _ = fs::remove_dir_all(&cache);
    }

    #[test]
    fn stdlib_files_are_written_once_read_only_and_named_by_uri() {
        let cache = std::env::temp_dir().join(format!("casec-stdlib-test-{}", std::process::id()));
        let (file, text) = STDLIB[0];
        let name = format!("<stdlib>/{file}");
        let first = uri(&cache, &name).expect("written");
        let path = first.to_file_path().expect("a file URI");
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
        assert!(fs::metadata(&path).unwrap().permissions().readonly());
        assert_eq!(uri(&cache, &name), Some(first));
        assert_eq!(uri(&cache, "suite.case"), None);
        let mut permissions = fs::metadata(&path).unwrap().permissions();
        #[allow(clippy::permissions_set_readonly_false)]
        permissions.set_readonly(false);
        let _ = fs::set_permissions(&path, permissions);
        let _ = fs::remove_dir_all(&cache);
    }
}
