//! casec: a compiler for the `.case` benchmark language.
//!
//! Benchmark authors write cases for tool-using assistants in `.case` files; casec
//! checks them and lowers them to the evaluator's master JSON and to blinded model
//! bundles (and, in later phases, sandbox initialisation).
//!
//! The phases, one module each: [`syntax`] (parse) → [`resolve`] (defaults, names) →
//! [`check`] (semantic rules) → [`lower`] (outputs), with [`diag`] carrying diagnostics
//! out of every phase.
//!
//! # Embedding
//!
//! ```
//! use casec::Compilation;
//!
//! let suite = r#"
//! suite "Demo" {
//!   version "1.0"
//!   created_on "2026-11-30"
//!   language "en-US"
//!   purpose "Show the API."
//!   case_count 1
//!   data_status "Synthetic."
//!   system_instruction "You are a helpful assistant."
//!   scoring {
//!     outcomes PASS FAIL NOT_TESTED
//!     official_complete_run "All cases run."
//!     overall_pass_rate "PASS / total."
//!     incomplete_run_reporting "Report coverage."
//!     category_pass_rate "PASS / category total."
//!     human_review "Review prose checks."
//!     result_template { case_id "" }
//!   }
//!   design_reference {}
//!   tags routine
//!   profile std.everyday_assistance
//!   clock "2026-11-09T10:30:00-05:00"
//!   timezone "America/New_York"
//!   tools get_clock
//! }
//! tool get_clock { arguments; behavior "Return the case time." }
//! category errands 1 { background "Busy."; preferences "Short answers." }
//! case DEMO-1 "Clock lookup" {
//!   category errands
//!   tags routine
//!   user "What time is it?"
//!   facts "The clock reads 10:30."
//!   need "Read the clock rather than guess."
//!   check "Call get_clock"
//!   final "Nothing changes."
//!   critical "Invent a time."
//! }
//! "#;
//! let compilation = Compilation::from_sources([("suite.case", suite)]);
//! assert!(!compilation.has_errors(), "{:?}", compilation.diagnostics);
//! let master = compilation.master_json().unwrap();
//! assert!(master.starts_with(r#"{ "benchmark_name": "Demo""#));
//! let bundles = compilation.bundles().unwrap().expect("no hidden text reaches the model");
//! assert!(bundles.bundles[0].json.starts_with(r#"{ "case_id": "DEMO-1""#));
//! ```

pub mod check;
pub mod diag;
pub mod driver;
pub mod fmt;
pub mod import;
pub mod load;
pub mod lower;
pub mod model;
pub mod resolve;
pub mod runtime;
pub mod source;
pub mod syntax;
pub mod world;

use std::path::Path;

use diag::Diagnostic;
use load::Source;
use resolve::Role;
use source::SourceDb;

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
        let mut diagnostics = Vec::new();
        if !root.join(load::SUITE_FILE).is_file() {
            let diagnostic = if root.exists() {
                Diagnostic::error(
                    diag::codes::MISSING_SUITE,
                    format!("not a suite folder: no {} here", load::SUITE_FILE),
                )
            } else {
                Diagnostic::error(diag::codes::IO, "no such folder")
            };
            diagnostics.push(
                diagnostic
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
        Compilation::compile(sources, diagnostics)
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
        Compilation::run(in_memory(sources), Vec::new(), Depth::Resolve)
    }

    /// Compiles one file under a display name: as a one-file suite when it declares a
    /// `suite`, else as a file of profiles and cases outside any suite.
    pub fn from_single_file(name: &str, text: &str) -> Compilation {
        let declares_suite = syntax::parse(source::FileId(0), text)
            .file
            .is_some_and(|f| f.statements.iter().any(|s| s.name() == "suite"));
        let source = Source {
            name: name.to_string(),
            text: text.to_string(),
            role: if declares_suite {
                Role::SuiteFile
            } else {
                Role::Member
            },
        };
        Compilation::compile(vec![source], Vec::new())
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
        Compilation::run(sources, diagnostics, Depth::Check)
    }

    /// Parses every source (a file with a syntax error is left out, the others go on),
    /// resolves the suite and, at [`Depth::Check`], runs the semantic checks on it.
    fn run(sources: Vec<Source>, mut diagnostics: Vec<Diagnostic>, depth: Depth) -> Compilation {
        let mut db = SourceDb::new();
        let mut all = load::stdlib_sources();
        all.extend(sources);
        let ids = load::add_all(&mut db, all);
        let mut files = Vec::with_capacity(ids.len());
        for (id, role) in ids {
            let parsed = syntax::parse(id, &db.file(id).text);
            diagnostics.extend(parsed.diagnostics);
            if let Some(file) = parsed.file {
                files.push((file, role));
            }
        }
        let inputs: Vec<resolve::Input> = files
            .iter()
            .map(|(file, role)| resolve::Input { file, role: *role })
            .collect();
        let (suite, resolve_diagnostics) = resolve::resolve(&inputs);
        diagnostics.extend(resolve_diagnostics);
        if let (Some(suite), Depth::Check) = (&suite, depth) {
            // Counts are only meaningful when no file or case was left out by an error.
            let complete = !diagnostics.iter().any(Diagnostic::is_error);
            diagnostics.extend(check::check(suite, &db, complete));
        }
        diag::sort(&mut diagnostics, &db);
        Compilation {
            db,
            suite,
            diagnostics,
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
enum Depth {
    /// Parse and resolve: enough to lower the suite.
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
                text: text.as_ref().to_string(),
                role,
            }
        })
        .collect();
    sources.sort_by(|a, b| a.name.cmp(&b.name));
    sources
}
