//! `Compilation`: a suite's sources compiled through the phases (parse, resolve, the rules),
//! from scratch or through the incremental engine (`Recheck`).

use std::path::Path;
use std::sync::Arc;

use crate::diag::Diagnostic;
use crate::incremental::{self, ParseCache};
use crate::load::{self, Source};
use crate::source::{FileId, Role, SourceDb};
use crate::{diag, lower, model, resolve, rules, syntax};

/// The result of compiling one suite: its sources, the resolved model (if the suite
/// block resolved) and every diagnostic, sorted by file and position.
pub struct Compilation {
    pub db: SourceDb,
    pub suite: Option<model::Suite>,
    pub diagnostics: Vec<Diagnostic>,
}

/// What a compilation reads.
pub enum Sources<'a> {
    /// The suite folder at a path (the folder holding `suite.case`), read from disk.
    Folder(&'a Path),
    /// Files on disk that belong to no suite, read in path order: profiles are
    /// validated, and cases are reported as needing a suite.
    Files(&'a [&'a Path]),
    /// Sources the caller read, compiled in the order given, with the diagnostics of
    /// reading them. A suite folder's files in the order [`load::suite_sources`] reads
    /// them compile as [`Sources::Folder`] does, even in what depends on file order
    /// (which of two cases with one id comes first).
    Read(Vec<Source>, Vec<Diagnostic>),
}

impl Sources<'_> {
    /// In-memory `(name, text)` pairs, compiled in name order; the one named
    /// `suite.case` is the suite file.
    pub fn in_memory<N: AsRef<str>, T: AsRef<str>>(
        pairs: impl IntoIterator<Item = (N, T)>,
    ) -> Sources<'static> {
        Sources::Read(load::named_sources(pairs), Vec::new())
    }

    /// One file under a display name: a one-file suite when it declares a `suite`, else
    /// a file of profiles and cases outside any suite.
    pub fn lone(name: &str, text: &str) -> Sources<'static> {
        Sources::Read(vec![Source::lone(name, text)], Vec::new())
    }
}

/// How to compile: what, how far, and what a re-check may reuse. A [`Sources`] alone is
/// the config of a whole compilation from scratch.
pub struct Config<'a> {
    pub sources: Sources<'a>,
    pub depth: Depth,
    /// What the last run of a re-check of the same suite left (the trees of unchanged
    /// files, the resolved cases and what the rules found in unchanged cases), reused and replaced
    /// by this run's: an edit costs the work of the files it changed. For the language
    /// server and `casec check --cache`.
    pub recheck: Option<&'a mut Recheck>,
}

impl<'a> From<Sources<'a>> for Config<'a> {
    fn from(sources: Sources<'a>) -> Config<'a> {
        Config {
            sources,
            depth: Depth::Check,
            recheck: None,
        }
    }
}

impl Compilation {
    /// Compiles as `config` says: parses every source (a file with a syntax error is
    /// left out, the others go on), resolves the suite and, at [`Depth::Check`], runs
    /// the semantic rules on it.
    pub fn new<'a>(config: impl Into<Config<'a>>) -> Compilation {
        let Config {
            sources,
            depth,
            recheck,
        } = config.into();
        let mut diagnostics = Vec::new();
        let (sources, root) = match sources {
            Sources::Folder(root) => match not_a_suite_folder(root) {
                Some(wrong_place) => {
                    return Compilation {
                        diagnostics: vec![wrong_place],
                        ..Compilation::empty()
                    }
                }
                None => (load::suite_sources(root, &mut diagnostics), Some(root)),
            },
            Sources::Files(paths) => (read_files(paths, &mut diagnostics), None),
            Sources::Read(sources, read) => {
                diagnostics = read;
                (sources, None)
            }
        };
        let mut compilation = Compilation::compile(sources, diagnostics, depth, recheck);
        if let (Some(suite), Some(root)) = (&mut compilation.suite, root) {
            suite.root = Some(root.to_path_buf());
            // Outputs carry the bytes of included files, so they are read at any depth.
            let mut found = rules::suite_files::read_includes(suite, root);
            if depth == Depth::Check {
                found.extend(rules::suite_files::missing_adapter_programs(suite, root));
            }
            if !found.is_empty() {
                compilation.diagnostics.extend(found);
                diag::sort(&mut compilation.diagnostics, &compilation.db);
            }
        }
        compilation
    }

    /// Compiles `sources` after the stdlib's: from scratch, or through `recheck`.
    fn compile(
        sources: Vec<Source>,
        mut diagnostics: Vec<Diagnostic>,
        depth: Depth,
        recheck: Option<&mut Recheck>,
    ) -> Compilation {
        let mut db = SourceDb::new();
        let mut all = load::stdlib_sources();
        all.extend(sources);
        let files = load::add_all(&mut db, all);
        let suite = match recheck {
            None => compile_fresh(&db, &files, &mut diagnostics, depth),
            Some(recheck) => recheck.compile(&db, &files, &mut diagnostics, depth),
        };
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
    /// Also run the semantic rules (what `casec check` does).
    Check,
}

/// Why `root` is not a suite folder (no `suite.case` in it), if it is not. Either way
/// the command was pointed at the wrong place: a usage error (exit 2, see
/// [`Diagnostic::is_usage_error`]).
fn not_a_suite_folder(root: &Path) -> Option<Diagnostic> {
    if root.join(load::SUITE_FILE).is_file() {
        return None;
    }
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
    Some(
        Diagnostic::new(code, message)
            .at_path(load::display(root))
            .help("point casec at a suite folder: the folder that holds suite.case"),
    )
}

/// The files at `paths`, read in path order as members of no suite.
fn read_files(paths: &[&Path], diagnostics: &mut Vec<Diagnostic>) -> Vec<Source> {
    let mut sorted = paths.to_vec();
    sorted.sort();
    sorted
        .into_iter()
        .filter_map(|p| load::read(p, Role::Member, diagnostics))
        .collect()
}

/// Compiles the files `ids` of `db` from scratch: they parse in parallel, and
/// resolution takes the trees (dropping a file of cases only once its cases are resolved).
fn compile_fresh(
    db: &SourceDb,
    ids: &[(FileId, Role)],
    diagnostics: &mut Vec<Diagnostic>,
    depth: Depth,
) -> Option<model::Suite> {
    let texts: Vec<(FileId, &str)> = ids
        .iter()
        .map(|(id, _)| (*id, &*db.file(*id).text))
        .collect();
    let trees = syntax::parse_all(&texts)
        .into_iter()
        .map(Arc::new)
        .collect();
    let inputs = resolve_inputs(trees, ids, diagnostics);
    let resolved = resolve::resolve(inputs);
    checked(resolved, db, diagnostics, depth, None)
}

/// The incremental engine: what a re-check of the same suite reuses from its last run
/// (the trees of unchanged files, the resolved cases and what the rules found in cases whose file
/// and context are unchanged, what the declarations gave), by the one rule of
/// [`incremental`]: each run's [`incremental::Scope`] is compared with the last run's
/// once, and every table forgets what the changes invalidate before a phase reads it.
#[derive(Default)]
pub struct Recheck {
    pub trees: ParseCache,
    /// The scope of the last run.
    last: Option<incremental::Scope>,
    pub cases: resolve::CaseCache,
    pub rules: rules::RuleCache,
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

    /// Compiles the files `ids` of `db` as [`compile_fresh`] does, with the same
    /// result, reusing what this cache holds and leaving this run's in it.
    fn compile(
        &mut self,
        db: &SourceDb,
        ids: &[(FileId, Role)],
        diagnostics: &mut Vec<Diagnostic>,
        depth: Depth,
    ) -> Option<model::Suite> {
        let files: Vec<(FileId, &str, &Arc<str>)> = ids
            .iter()
            .map(|(id, _)| {
                let file = db.file(*id);
                (*id, file.name.as_str(), &file.text)
            })
            .collect();
        let trees = self.trees.parse_all(&files);
        let scope = incremental::Scope::new(db, &trees);
        let changes = scope.changes_since(self.last.as_ref());
        self.cases.enter(&changes);
        self.rules.enter(&changes);
        self.last = Some(scope);
        let inputs = resolve_inputs(trees, ids, diagnostics);
        let resolved = resolve::resolve_reusing(inputs, &mut self.cases);
        checked(resolved, db, diagnostics, depth, Some(&mut self.rules))
    }
}

/// The parsed files `ids` as resolution's inputs; their syntax errors go to
/// `diagnostics`, and a file with a syntax error is left out. Resolution takes the
/// trees and drops them as it goes; the rules read the model and the source text only.
fn resolve_inputs(
    trees: Vec<Arc<syntax::Parsed>>,
    ids: &[(FileId, Role)],
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<resolve::Input> {
    for tree in &trees {
        diagnostics.extend(tree.diagnostics.iter().cloned());
    }
    trees
        .into_iter()
        .zip(ids)
        .filter(|(tree, _)| tree.file.is_some())
        .map(|(tree, (_, role))| resolve::Input { tree, role: *role })
        .collect()
}

/// The suite `resolved` gives, its diagnostics added to `diagnostics` and, at
/// [`Depth::Check`], what the rules find in it (reusing `reuse`'s for unchanged
/// cases).
fn checked(
    resolved: (Option<model::Suite>, Vec<Diagnostic>),
    db: &SourceDb,
    diagnostics: &mut Vec<Diagnostic>,
    depth: Depth,
    reuse: Option<&mut rules::RuleCache>,
) -> Option<model::Suite> {
    let (suite, found) = resolved;
    diagnostics.extend(found);
    if let (Some(suite), Depth::Check) = (&suite, depth) {
        let found = rules::run(suite, db, diagnostics, reuse);
        diagnostics.extend(found);
    }
    suite
}
