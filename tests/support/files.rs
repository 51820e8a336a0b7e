//! Files for tests that run casec on folders: scratch folders, copies of suites, edits.

use std::fs;
use std::path::{Path, PathBuf};

/// A fresh folder under the system's temporary folder, removed on drop.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// The folder `casec-{kind}-{pid}-{name}`: unique to the test process and test.
    pub fn new(kind: &str, name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("casec-{kind}-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("temporary folder");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Copies the folder `from` (files and folders, recursively) to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("a folder to copy into");
    for entry in fs::read_dir(from).expect("a readable folder").flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).expect("a copy");
        }
    }
}

/// Replaces the first `from` in the file at `path` by `to`; `from` must be there.
pub fn edit(path: &Path, from: &str, to: &str) {
    let text = fs::read_to_string(path).expect("a text file");
    assert!(text.contains(from), "{} holds {from:?}", path.display());
    fs::write(path, text.replacen(from, to, 1)).expect("writable");
}
