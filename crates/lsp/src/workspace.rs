//! Open documents and the compilations they belong to.
//!
//! A document inside a suite folder (the nearest folder above it holding `suite.case`)
//! is checked with its whole suite: the suite's files as they are on disk, with the
//! unsaved text of every open document of the suite laid over them. A document in no
//! suite is checked on its own. Each such unit keeps the trees of its files between
//! checks ([`Recheck`]), so a re-check after an edit parses only the edited file and
//! re-runs the semantic rules on its cases only.
//!
//! After a check, diagnostics are published for every file of the unit whose list
//! changed since the last publication (a file that became clean gets an empty list),
//! and always for the document that was edited.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_server::{Message, Notification};
use lsp_types::notification::{Notification as _, PublishDiagnostics};
use lsp_types::{PublishDiagnosticsParams, Url};

use crate::diag::Diagnostic;
use crate::load::{self, Source};
use crate::source::Role;
use crate::source::{FileId, Origin};
use crate::{Compilation, Config, Depth, Recheck, Sources};

use super::convert;

/// What a document is checked with.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum UnitKey {
    /// The suite folder holding the document.
    Suite(PathBuf),
    /// The document alone.
    Lone(Url),
}

pub struct Document {
    pub text: String,
    pub version: i32,
    pub unit: UnitKey,
}

/// A checked unit: a suite with its files, or one lone document.
pub struct Unit {
    /// The suite's files on disk (none for a lone document), shared with each check's
    /// sources rather than copied into them.
    disk: BTreeMap<PathBuf, Arc<str>>,
    /// Files of the suite that could not be read.
    load_errors: Vec<Diagnostic>,
    pub cache: Recheck,
    pub compilation: Compilation,
    published: BTreeMap<Url, Vec<lsp_types::Diagnostic>>,
    /// The URIs made from the names of the unit's files (`convert::uri_of`), kept
    /// between checks: a name always makes the same URI, and every check publishes
    /// for every file.
    made_uris: HashMap<String, Option<Url>>,
}

impl Unit {
    /// The id of the file named `name` in the last check.
    pub fn file_id(&self, name: &str) -> Option<FileId> {
        let db = &self.compilation.db;
        db.files().find(|(_, f)| f.name == name).map(|(id, _)| id)
    }
}

#[derive(Default)]
pub struct Workspace {
    pub documents: HashMap<Url, Document>,
    pub units: BTreeMap<UnitKey, Unit>,
}

impl Workspace {
    /// The unit a document at `uri` belongs to, as the file system says now.
    pub fn unit_key(uri: &Url) -> UnitKey {
        match uri
            .to_file_path()
            .ok()
            .and_then(|p| load::suite_root_of(&p))
        {
            Some(root) => UnitKey::Suite(root),
            None => UnitKey::Lone(uri.clone()),
        }
    }

    /// The document at `uri` and the unit it was last checked with.
    pub fn document(&self, uri: &Url) -> Option<(&Document, &Unit)> {
        let document = self.documents.get(uri)?;
        Some((document, self.units.get(&document.unit)?))
    }

    /// Opens (or re-opens) a document and checks its unit afresh from disk.
    pub fn open(&mut self, uri: Url, text: String, version: i32) -> Vec<Message> {
        let unit = Workspace::unit_key(&uri);
        self.documents.insert(
            uri.clone(),
            Document {
                text,
                version,
                unit: unit.clone(),
            },
        );
        self.reload(&unit);
        self.check(&unit, Some(&uri))
    }

    /// Closes a document: its suite is checked again with the text on disk. When no
    /// open document is left in its unit (a lone document, the last one of a suite),
    /// the unit is dropped and its diagnostics are cleared.
    pub fn close(&mut self, uri: &Url) -> Vec<Message> {
        let Some(document) = self.documents.remove(uri) else {
            return Vec::new();
        };
        let in_use = self.documents.values().any(|d| d.unit == document.unit);
        if in_use {
            self.reload(&document.unit);
            return self.check(&document.unit, None);
        }
        let Some(unit) = self.units.remove(&document.unit) else {
            return Vec::new();
        };
        unit.published
            .into_keys()
            .chain([uri.clone()])
            .map(|uri| publish(uri, Vec::new(), None))
            .collect()
    }

    /// Files changed on disk (saved, created, deleted): every open document's unit is
    /// found again (a suite.case may have appeared or gone) and re-checked from disk.
    pub fn refresh(&mut self) -> Vec<Message> {
        let mut keys: Vec<UnitKey> = Vec::new();
        for (uri, document) in &mut self.documents {
            document.unit = Workspace::unit_key(uri);
            keys.push(document.unit.clone());
        }
        keys.sort();
        keys.dedup();
        let mut out = Vec::new();
        let stale: Vec<UnitKey> = self
            .units
            .keys()
            .filter(|k| !keys.contains(k))
            .cloned()
            .collect();
        for key in stale {
            if let Some(unit) = self.units.remove(&key) {
                out.extend(
                    unit.published
                        .into_keys()
                        .map(|uri| publish(uri, Vec::new(), None)),
                );
            }
        }
        for key in &keys {
            self.reload(key);
            out.extend(self.check(key, None));
        }
        out
    }

    /// Reads a suite's files from disk again.
    fn reload(&mut self, key: &UnitKey) {
        let unit = self.units.entry(key.clone()).or_insert_with(|| Unit {
            disk: BTreeMap::new(),
            load_errors: Vec::new(),
            cache: Recheck::default(),
            compilation: Compilation::empty(),
            published: BTreeMap::new(),
            made_uris: HashMap::new(),
        });
        let UnitKey::Suite(root) = key else {
            return;
        };
        unit.load_errors.clear();
        // Read as `casec check` reads a suite: never a FIFO, a device or the server's
        // own standard input behind a link, nothing outside the suite, within the caps.
        unit.disk = load::suite_files(root, &mut unit.load_errors)
            .into_iter()
            .map(|(path, source)| (path, source.text))
            .collect();
    }

    /// Checks a unit with the open documents' text and publishes what changed;
    /// `edited` is always published.
    pub fn check(&mut self, key: &UnitKey, edited: Option<&Url>) -> Vec<Message> {
        let sources = self.sources(key);
        let Some(unit) = self.units.get_mut(key) else {
            return Vec::new();
        };
        let last = std::mem::replace(&mut unit.compilation, Compilation::empty());
        unit.cache.keep(last);
        unit.compilation = Compilation::new(Config {
            sources: Sources::Read(sources, Vec::new()),
            depth: Depth::Check,
            recheck: Some(&mut unit.cache),
        });
        let mut made = std::mem::take(&mut unit.made_uris);
        let uris = Uris::new(&self.documents, &mut made, &unit.compilation);
        let mut fresh = diagnostics_by_file(unit, &|name| uris.get(name));
        unit.made_uris = made;
        // A file that left the suite (deleted, renamed) keeps no diagnostics.
        for uri in unit.published.keys() {
            fresh.entry(uri.clone()).or_default();
        }
        let mut out = Vec::new();
        for (uri, diagnostics) in &fresh {
            let before = unit.published.get(uri).map_or(&[][..], Vec::as_slice);
            if before != diagnostics.as_slice() || Some(uri) == edited {
                let version = self.documents.get(uri).map(|d| d.version);
                out.push(publish(uri.clone(), diagnostics.clone(), version));
            }
        }
        fresh.retain(|_, diagnostics| !diagnostics.is_empty());
        unit.published = fresh;
        out
    }

    /// The sources of a unit: for a suite, its files on disk with open documents'
    /// text over them (an open document not yet saved is added), in name order; for a
    /// lone document, its text.
    fn sources(&self, key: &UnitKey) -> Vec<Source> {
        match key {
            UnitKey::Lone(uri) => self
                .documents
                .get(uri)
                .map(|d| vec![Source::lone(&convert::name_of(uri), &d.text)])
                .unwrap_or_default(),
            UnitKey::Suite(root) => {
                let mut texts: BTreeMap<PathBuf, Arc<str>> = BTreeMap::new();
                if let Some(unit) = self.units.get(key) {
                    texts.extend(unit.disk.iter().map(|(p, t)| (p.clone(), Arc::clone(t))));
                }
                for (uri, document) in &self.documents {
                    if document.unit == *key {
                        if let Ok(path) = uri.to_file_path() {
                            texts.insert(path, document.text.as_str().into());
                        }
                    }
                }
                let suite_file = root.join(load::SUITE_FILE);
                let mut sources: Vec<Source> = texts
                    .into_iter()
                    .map(|(path, text)| suite_source(&suite_file, &path, text))
                    .collect();
                sources.sort_by(|a, b| a.name.cmp(&b.name));
                sources
            }
        }
    }
}

fn suite_source(suite_file: &Path, path: &Path, text: Arc<str>) -> Source {
    let role = if path == suite_file {
        Role::SuiteFile
    } else {
        Role::Member
    };
    Source {
        name: load::display(path),
        text,
        role,
        disk: None,
    }
}

/// The diagnostics of a unit's last check by file URI, with an entry (maybe empty) for
/// every user file.
fn diagnostics_by_file(
    unit: &Unit,
    uri_for: &dyn Fn(&str) -> Option<Url>,
) -> BTreeMap<Url, Vec<lsp_types::Diagnostic>> {
    let db = &unit.compilation.db;
    let mut out: BTreeMap<Url, Vec<lsp_types::Diagnostic>> = db
        .files()
        .filter(|(_, f)| f.origin == Origin::User)
        .filter_map(|(_, f)| Some((uri_for(&f.name)?, Vec::new())))
        .collect();
    for d in unit.load_errors.iter().chain(&unit.compilation.diagnostics) {
        let file = match d.primary_span() {
            Some(span) if db.file(span.file).origin == Origin::Stdlib => continue,
            Some(span) => db.file(span.file).name.as_str(),
            None => d.path.as_deref().unwrap_or_default(),
        };
        if let Some(uri) = uri_for(file) {
            out.entry(uri)
                .or_default()
                .push(convert::diagnostic(d, db, uri_for));
        }
    }
    out
}

/// The URI of the user file `name`: the client's own URI when the file is open (a
/// client may spell a path differently from casec), else one made from the name.
pub fn uri_for(documents: &HashMap<Url, Document>, name: &str) -> Option<Url> {
    documents
        .keys()
        .find(|uri| convert::name_of(uri) == name)
        .cloned()
        .or_else(|| convert::uri_of(name))
}

/// [`uri_for`] for the files of one check, each open document's name made once.
struct Uris<'a> {
    open: HashMap<String, &'a Url>,
    made: &'a HashMap<String, Option<Url>>,
}

impl<'a> Uris<'a> {
    /// The URIs of the user files of `compilation`: made ones are remembered in
    /// `made`, which then forgets the names of files no longer in it.
    fn new(
        documents: &'a HashMap<Url, Document>,
        made: &'a mut HashMap<String, Option<Url>>,
        compilation: &Compilation,
    ) -> Uris<'a> {
        let open: HashMap<String, &Url> = documents
            .keys()
            .map(|uri| (convert::name_of(uri), uri))
            .collect();
        let names: std::collections::HashSet<&str> = compilation
            .db
            .files()
            .filter(|(_, f)| f.origin == Origin::User)
            .map(|(_, f)| f.name.as_str())
            .collect();
        made.retain(|name, _| names.contains(name.as_str()));
        for name in names {
            if !open.contains_key(name) && !made.contains_key(name) {
                made.insert(name.to_string(), convert::uri_of(name));
            }
        }
        Uris { open, made }
    }

    fn get(&self, name: &str) -> Option<Url> {
        match self.open.get(name) {
            Some(uri) => Some((*uri).clone()),
            None => match self.made.get(name) {
                Some(made) => made.clone(),
                None => convert::uri_of(name),
            },
        }
    }
}

fn publish(uri: Url, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) -> Message {
    Message::Notification(Notification::new(
        PublishDiagnostics::METHOD.to_string(),
        PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        },
    ))
}
