//! casec: a compiler for the `.case` benchmark language.
//!
//! Benchmark authors write cases for tool-using assistants in `.case` files; casec
//! checks them and lowers them to the evaluator's master JSON, to blinded model
//! bundles and to sandbox initialisation, and runs a reference sandbox over them.
//!
//! The phases, one module each: [`syntax`] (parse) → [`resolve`] (shapes, defaults,
//! names, tools and each case's typed world, into the [`model`]) → [`check`] (semantic
//! rules) → [`lower`] (outputs), with [`diag`] carrying diagnostics out of every phase. Beside them: [`fmt`] (the
//! formatter), [`import`] (master JSON to sources), [`runtime`] (the reference
//! sandbox), [`judge`] (verdicts on the items a run leaves for review), and the language server ([`lsp`]), which runs the same phases for an
//! editor and re-checks through [`Compilation::from_sources_cached`] with a
//! [`Recheck`], so that an edit costs the work of the files it changed.
//!
//! # Embedding
//!
//! ```
//! use casec::Compilation;
//!
//! // A suite of casec's own shape (`std.casec`): a goal (check G1), further checks.
//! let suite = r#"
//! suite "Demo" {
//!   system_prompt "You are a helpful assistant."
//!   clock "2026-11-09T10:30:00-05:00"
//!   timezone "America/New_York"
//! }
//! tool get_clock { behavior "Return the case time."; service clock }
//! case DEMO-1 "Clock lookup" {
//!   user "What time is it?"
//!   goal "Read the clock rather than guess."
//!   check "Call get_clock"
//!   critical "Invent a time."
//! }
//! "#;
//! let compilation = Compilation::from_sources([("suite.case", suite)]);
//! assert!(!compilation.has_errors(), "{:?}", compilation.diagnostics);
//! let master = compilation.master_json().unwrap();
//! assert!(master.starts_with(r#"{ "name": "Demo""#));
//! let bundles = compilation.bundles().unwrap().expect("no hidden text reaches the model");
//! assert!(bundles.bundles[0].json.starts_with(r#"{ "id": "DEMO-1""#));
//! ```

// Module headers link to the private modules of their phase: they are read by
// contributors, with `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

// The test corpus generator, shared with the integration tests, names the crate.
#[cfg(test)]
extern crate self as casec;

mod capped_lines;
pub mod check;
pub mod diag;
pub mod driver;
pub mod fmt;
pub mod import;
pub mod judge;
pub mod leaks;
pub mod load;
pub mod lower;
pub mod lsp;
pub mod model;
mod parallel;
pub mod resolve;
pub mod runtime;
pub mod scope;
pub mod source;
pub mod syntax;
mod temp_files;
mod unicode;

use std::path::Path;
use std::sync::Arc;

use diag::Diagnostic;
use load::Source;
use source::Role;
use source::SourceDb;
use syntax::ParseCache;

/// The result of compiling one suite: its sources, the resolved model (if the suite
/// block resolved) and every diagnostic, sorted by file and position.
pub struct Compilation {
    pub db: SourceDb,
    pub suite: Option<model::Suite>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Compilation {
    /// Compiles the suite folder at `root` (a folder holding `suite.case`).
    pub fn from_dir(root: &Path) -> Compilation {
        Compilation::from_dir_to(root, Depth::Check)
    }

    /// Compiles the suite folder at `root`, as far as `depth`.
    pub fn from_dir_to(root: &Path, depth: Depth) -> Compilation {
        let mut diagnostics = Vec::new();
        if !root.join(load::SUITE_FILE).is_file() {
            // Either way the command was pointed at the wrong place: a usage error
            // (exit 2, see `driver::exit_code`).
            let (code, message) = if !root.exists() {
                (diag::codes::IO, "no such file or folder".to_string())
            } else if root.is_dir() {
                (
                    diag::codes::MISSING_SUITE,
                    format!("no {} in this folder", load::SUITE_FILE),
                )
            } else {
                (diag::codes::MISSING_SUITE, "not a folder".to_string())
            };
            diagnostics.push(
                Diagnostic::new(code, message)
                    .at_path(load::display(root))
                    .help("point casec at a suite folder: the folder that holds suite.case"),
            );
            return Compilation {
                db: SourceDb::new(),
                suite: None,
                diagnostics,
            };
        }
        let sources = load::suite_sources(root, &mut diagnostics);
        let mut compilation = Compilation::run(sources, diagnostics, depth, None);
        if let Some(suite) = &mut compilation.suite {
            suite.root = Some(root.to_path_buf());
        }
        compilation
    }

    /// Compiles in-memory sources. A source named `suite.case` is the suite file.
    pub fn from_sources<N: AsRef<str>, T: AsRef<str>>(
        sources: impl IntoIterator<Item = (N, T)>,
    ) -> Compilation {
        Compilation::compile(in_memory(sources), Vec::new())
    }

    /// Like [`Compilation::from_sources`], but stops after resolution: the semantic
    /// checks do not run. Import uses it, because it must reproduce any master
    /// faithfully, defects included; `casec check` then shows what to fix.
    pub fn resolve_sources<N: AsRef<str>, T: AsRef<str>>(
        sources: impl IntoIterator<Item = (N, T)>,
    ) -> Compilation {
        Compilation::run(in_memory(sources), Vec::new(), Depth::Resolve, None)
    }

    /// Compiles one file under a display name: as a one-file suite when it declares a
    /// `suite`, else as a file of profiles and cases outside any suite.
    pub fn from_single_file(name: &str, text: &str) -> Compilation {
        Compilation::from_single_file_to(name, text, Depth::Check)
    }

    /// Like [`Compilation::from_single_file`], as far as `depth`.
    pub fn from_single_file_to(name: &str, text: &str, depth: Depth) -> Compilation {
        Compilation::run(vec![Source::lone(name, text)], Vec::new(), depth, None)
    }

    /// Compiles `sources` (in name order, whatever order they come in) reusing what
    /// `cache` holds from the last run for unchanged files (their trees, the checks of
    /// their cases), and leaves this run's in it. For callers that re-check the same
    /// suite after small edits: the language server.
    pub fn from_sources_cached(mut sources: Vec<Source>, cache: &mut Recheck) -> Compilation {
        sources.sort_by(|a, b| a.name.cmp(&b.name));
        Compilation::run(sources, Vec::new(), Depth::Check, Some(cache))
    }

    /// Like [`Compilation::from_sources_cached`], with `sources` in the order given: a
    /// suite folder's files in the order [`load::suite_sources`] reads them, so that
    /// what depends on file order (which of two cases with one id comes first) is what
    /// [`Compilation::from_dir`] gives. For `casec check --cache`, which reads the
    /// folder itself.
    pub fn from_suite_sources_cached(sources: Vec<Source>, cache: &mut Recheck) -> Compilation {
        Compilation::run(sources, Vec::new(), Depth::Check, Some(cache))
    }

    /// Compiles a suite's `sources` in the order given (a suite folder's files in the
    /// order [`load::suite_sources`] reads them), as [`Compilation::from_dir`] would
    /// compile the folder, with the `diagnostics` of reading them. For `casec check
    /// --staged`, which reads git's index.
    pub fn from_suite_sources(sources: Vec<Source>, diagnostics: Vec<Diagnostic>) -> Compilation {
        Compilation::run(sources, diagnostics, Depth::Check, None)
    }

    /// Compiles loose files that belong to no suite, from their `sources` (members),
    /// as [`Compilation::from_files`] compiles them from disk.
    pub fn from_loose_sources(mut sources: Vec<Source>) -> Compilation {
        load::sort_paths_by(&mut sources, |s| Path::new(&s.name));
        Compilation::compile(sources, Vec::new())
    }

    /// Compiles loose files that belong to no suite: profiles are validated, and cases
    /// are reported as needing a suite.
    pub fn from_files(paths: &[&Path]) -> Compilation {
        let mut diagnostics = Vec::new();
        let mut sorted = paths.to_vec();
        sorted.sort();
        let sources = sorted
            .into_iter()
            .filter_map(|p| load::read(p, Role::Member, &mut diagnostics))
            .collect();
        Compilation::compile(sources, diagnostics)
    }

    fn compile(sources: Vec<Source>, diagnostics: Vec<Diagnostic>) -> Compilation {
        Compilation::run(sources, diagnostics, Depth::Check, None)
    }

    /// Parses every source (a file with a syntax error is left out, the others go on),
    /// resolves the suite and, at [`Depth::Check`], runs the semantic checks on it. With
    /// a cache, unchanged files reuse their trees; without, files parse in parallel.
    fn run(
        sources: Vec<Source>,
        mut diagnostics: Vec<Diagnostic>,
        depth: Depth,
        mut cache: Option<&mut Recheck>,
    ) -> Compilation {
        let mut db = SourceDb::new();
        let mut all = load::stdlib_sources();
        all.extend(sources);
        let ids = load::add_all(&mut db, all);
        let (trees, texts): (Vec<_>, Vec<_>) =
            parse_files(&db, &ids, cache.as_deref_mut().map(|c| &mut c.trees))
                .into_iter()
                .unzip();
        for tree in &trees {
            diagnostics.extend(tree.diagnostics.iter().cloned());
        }
        let scope = cache.is_some().then(|| scope::Scope::new(&db, &trees));
        // Resolution takes the trees and drops them as it goes; the checks read the
        // model and the source text only.
        let inputs: Vec<resolve::Input> = trees
            .into_iter()
            .zip(texts)
            .zip(&ids)
            .filter(|((tree, _), _)| tree.file.is_some())
            .map(|((tree, outlined), (_, role))| resolve::Input {
                tree,
                role: *role,
                outlined,
            })
            .collect();
        let (suite, resolve_diagnostics) = match (cache.as_deref_mut(), &scope) {
            (Some(cache), Some(scope)) => resolve::resolve_reusing(inputs, &mut cache.cases, scope),
            _ => resolve::resolve(inputs),
        };
        diagnostics.extend(resolve_diagnostics);
        if let (Some(suite), Depth::Check) = (&suite, depth) {
            let reuse = cache.map(|c| &mut c.checks).zip(scope.as_ref());
            let found = check::check(suite, &db, &diagnostics, reuse);
            diagnostics.extend(found);
        }
        diag::sort(&mut diagnostics, &db);
        Compilation {
            db,
            suite,
            diagnostics,
        }
    }

    /// A compilation of nothing: no sources, no suite, no diagnostics.
    pub fn empty() -> Compilation {
        Compilation {
            db: SourceDb::new(),
            suite: None,
            diagnostics: Vec::new(),
        }
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    pub fn warning_count(&self) -> usize {
        self.diagnostics.len() - self.error_count()
    }

    /// The master JSON, when the suite compiled without errors.
    pub fn master_json(&self) -> Option<String> {
        self.clean_suite().map(lower::master::master_json)
    }

    /// The blinded model bundles, when the suite compiled without errors: `Ok` once the
    /// blinding proof holds, else the diagnostics that stop them.
    pub fn bundles(&self) -> Option<Result<lower::bundle::BundleSet, Vec<Diagnostic>>> {
        let suite = self.clean_suite()?;
        Some(lower::bundle::bundles(suite).map_err(|mut diagnostics| {
            diag::sort(&mut diagnostics, &self.db);
            diagnostics
        }))
    }

    fn clean_suite(&self) -> Option<&model::Suite> {
        self.suite.as_ref().filter(|_| !self.has_errors())
    }
}

/// How far a compilation goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// Parse and resolve: enough to lower the suite exactly as its sources say, even
    /// when it breaks a semantic rule (a suite imported from a flawed master).
    Resolve,
    /// Also run the semantic checks.
    Check,
}

/// In-memory `(name, text)` pairs as sources, sorted by name; `suite.case` is the
/// suite file.
fn in_memory<N: AsRef<str>, T: AsRef<str>>(
    sources: impl IntoIterator<Item = (N, T)>,
) -> Vec<Source> {
    let mut sources: Vec<Source> = sources
        .into_iter()
        .map(|(name, text)| {
            let name = name.as_ref().to_string();
            let role = if name == load::SUITE_FILE {
                Role::SuiteFile
            } else {
                Role::Member
            };
            Source {
                name,
                text: text.as_ref().into(),
                role,
                disk: None,
            }
        })
        .collect();
    sources.sort_by(|a, b| a.name.cmp(&b.name));
    sources
}

/// What a re-check of the same suite can reuse from the last run: the trees of
/// unchanged files, and the resolved cases and the checks of cases whose file and
/// context ([`scope::Scope`]) are unchanged.
#[derive(Default)]
pub struct Recheck {
    pub trees: ParseCache,
    pub cases: resolve::CaseCache,
    pub checks: check::CheckCache,
}

impl Recheck {
    /// Takes over the cases of the compilation this cache last made, so that the next
    /// re-check reuses them instead of resolving them again (without this, it
    /// resolves every case).
    pub fn keep(&mut self, last: Compilation) {
        if let Some(suite) = last.suite {
            self.cases.keep(suite);
        }
    }
}

/// The trees of the files `ids` of `db`, in order: through `cache` when there is one
/// (it then forgets files no longer in `db`), else parsed in parallel, each member
/// file's reduced to its [`resolve::outline`] and given with its text, from which
/// resolution parses its cases again.
fn parse_files(
    db: &SourceDb,
    ids: &[(source::FileId, Role)],
    cache: Option<&mut ParseCache>,
) -> Vec<(Arc<syntax::Parsed>, Option<Arc<str>>)> {
    match cache {
        Some(cache) => {
            let files: Vec<(source::FileId, &str, &Arc<str>)> = ids
                .iter()
                .map(|(id, _)| {
                    let file = db.file(*id);
                    (*id, file.name.as_str(), &file.text)
                })
                .collect();
            let trees = cache.parse_all(&files);
            let names: Vec<&str> = db.files().map(|(_, f)| f.name.as_str()).collect();
            cache.retain(&names);
            trees.into_iter().map(|tree| (tree, None)).collect()
        }
        None => {
            let texts: Vec<(source::FileId, &str)> = ids
                .iter()
                .map(|(id, _)| (*id, &*db.file(*id).text))
                .collect();
            syntax::parse_all_keeping(&texts, |i, mut parsed| {
                let (id, role) = ids[i];
                let outlined = match (&mut parsed.file, role) {
                    (Some(file), Role::Member) => {
                        resolve::outline(file);
                        Some(Arc::clone(&db.file(id).text))
                    }
                    _ => None,
                };
                (Arc::new(parsed), outlined)
            })
        }
    }
}
