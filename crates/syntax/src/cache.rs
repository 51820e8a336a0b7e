//! Parsed files kept between compilations of the same files.
//!
//! The language server re-checks a whole suite after every edit, but an edit changes
//! one file: parsing is most of a compilation's time, while resolving a suite is cheap.
//! The cache keeps each file's tree by name and reuses it while the file's text and id
//! are unchanged, so a re-check parses only the edited file.

use std::collections::HashMap;
use std::sync::Arc;

use crate::source::FileId;

use super::{parse, Parsed};

struct Entry {
    id: FileId,
    text: Arc<str>,
    parsed: Arc<Parsed>,
}

#[derive(Default)]
pub struct ParseCache {
    entries: HashMap<String, Entry>,
}

impl ParseCache {
    /// The tree of `text`, the file `id` named `name`: the cached one when the same
    /// text was parsed under the same id (spans carry the id), else a fresh parse.
    pub fn parse(&mut self, id: FileId, name: &str, text: &Arc<str>) -> Arc<Parsed> {
        if let Some(entry) = self.entries.get(name) {
            if entry.id == id && entry.text == *text {
                return Arc::clone(&entry.parsed);
            }
        }
        let parsed = Arc::new(parse(id, text));
        self.entries.insert(
            name.to_string(),
            Entry {
                id,
                text: Arc::clone(text),
                parsed: Arc::clone(&parsed),
            },
        );
        parsed
    }

    /// The trees of `files` (id, name, text), in order, as [`ParseCache::parse`] gives
    /// them one by one; the files not cached are parsed together, on all cores when
    /// there is enough text (a first check of a large suite parses every file).
    pub fn parse_all(&mut self, files: &[(FileId, &str, &Arc<str>)]) -> Vec<Arc<Parsed>> {
        let missing: Vec<&(FileId, &str, &Arc<str>)> = files
            .iter()
            .filter(|(id, name, text)| {
                self.entries
                    .get(*name)
                    .is_none_or(|e| e.id != *id || e.text != **text)
            })
            .collect();
        let texts: Vec<(FileId, &str)> = missing.iter().map(|(id, _, t)| (*id, &***t)).collect();
        for ((id, name, text), tree) in missing.iter().zip(super::parse_all(&texts)) {
            let entry = Entry {
                id: *id,
                text: Arc::clone(text),
                parsed: Arc::new(tree),
            };
            self.entries.insert(name.to_string(), entry);
        }
        files
            .iter()
            .map(|(id, name, text)| self.parse(*id, name, text))
            .collect()
    }

    /// The last tree parsed for the file `name`.
    pub fn parsed(&self, name: &str) -> Option<&Parsed> {
        self.entries.get(name).map(|e| e.parsed.as_ref())
    }

    /// Forgets every file not named in `names` (files removed from the suite).
    pub fn retain(&mut self, names: &[&str]) {
        self.entries
            .retain(|name, _| names.contains(&name.as_str()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_a_tree_only_for_the_same_text_and_id() {
        let mut cache = ParseCache::default();
        let text: Arc<str> = Arc::from("case A \"t\" {}\n");
        let first = cache.parse(FileId(1), "a.case", &text);
        let again = cache.parse(FileId(1), "a.case", &Arc::from("case A \"t\" {}\n"));
        assert!(Arc::ptr_eq(&first, &again));
        let moved = cache.parse(FileId(2), "a.case", &text);
        assert!(!Arc::ptr_eq(&first, &moved));
        let edited = cache.parse(FileId(2), "a.case", &Arc::from("case B \"t\" {}\n"));
        assert!(!Arc::ptr_eq(&moved, &edited));
        assert_eq!(edited.file.as_ref().map(|f| f.id), Some(FileId(2)));
    }

    #[test]
    fn retain_drops_files_that_left() {
        let mut cache = ParseCache::default();
        cache.parse(FileId(0), "a.case", &Arc::from(""));
        cache.parse(FileId(1), "b.case", &Arc::from(""));
        cache.retain(&["b.case"]);
        assert!(cache.parsed("a.case").is_none());
        assert!(cache.parsed("b.case").is_some());
    }
}
