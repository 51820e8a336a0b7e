//! casec: a compiler for the `.case` benchmark language.
//!
//! Benchmark authors write cases for tool-using assistants in `.case` files; casec
//! checks them and lowers them to the evaluator's master JSON, to blinded model
//! bundles and to sandbox initialisation, and runs a reference sandbox over them.
//!
//! The phases, one module each: [`syntax`] (parse) → [`resolve`] (shapes, defaults,
//! names, tools and each case's typed world, into the [`model`]) → [`rules`] (semantic
//! rules) → [`lower`] (outputs), with [`diag`] carrying diagnostics out of every phase.
//! Beside them: [`fmt`] (the formatter), [`import`] (master JSON to sources),
//! [`runtime`] (the reference sandbox), [`judge`] (verdicts on the items a run leaves
//! for review), and the language server ([`lsp`]), which runs the same phases for an
//! editor and re-checks with a [`Recheck`] in the [`Config`] of each [`Compilation`],
//! so that an edit costs the work of the files it changed.
//!
//! # Embedding
//!
//! ```
//! use casec::{Compilation, Sources};
//!
//! // A suite of casec's own shape (`std.casec`): a goal (check G1), further checks.
//! let suite = r#"
//! suite "Demo" {
//!   system_prompt "You are a helpful assistant."
//!   clock "2026-11-09T10:30:00-05:00"
//!   timezone "America/New_York"
//! }
//! tool clock_now { behavior "Return the case time."; service clock }
//! case DEMO-1 "Clock lookup" {
//!   user "What time is it?"
//!   goal "Read the clock rather than guess."
//!   check "Call clock_now"
//!   critical "Invent a time."
//! }
//! "#;
//! let compilation = Compilation::new(Sources::in_memory([("suite.case", suite)]));
//! assert!(!compilation.has_errors(), "{:?}", compilation.diagnostics);
//! let master = compilation.master_json().unwrap();
//! assert!(master.starts_with(r#"{ "name": "Demo""#));
//! let bundles = compilation.bundles().unwrap().expect("no hidden text reaches the model");
//! assert!(bundles.bundles[0].json.starts_with(r#"{ "id": "DEMO-1""#));
//! ```

// Module headers link to the private modules of their phase: they are read by
// contributors, with `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

pub mod driver;

// The compiler's layers are crates of their own (`crates/`), so that the compiler
// enforces their independence; they keep their module names here.
use casec_base::{capped_lines, parallel, temp_files};
pub use casec_base::{diag, source};
pub use casec_compiler::{compilation, import, incremental, resolve, rules};
pub use casec_compiler::{Compilation, Config, Depth, Recheck, Sources};
pub use casec_fmt as fmt;
pub use casec_judge as judge;
pub use casec_leaks as leaks;
pub use casec_load as load;
pub use casec_lower as lower;
pub use casec_lsp as lsp;
pub use casec_model as model;
pub use casec_runtime as runtime;
pub use casec_syntax as syntax;
