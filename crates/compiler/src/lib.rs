//! The compiler: a suite's sources through resolution and the semantic rules into the
//! model, from scratch or re-checked through the incremental engine; and the importer,
//! which writes sources back from a master or a `turns` export.
//!
//! * [`compilation`]: `Compilation`, made from a `Config`, runs the phases.
//! * [`incremental`]: the one rule of what a change invalidates, and its tables.
//! * [`resolve`]: trees to the model.
//! * [`rules`]: the semantic rules on the model.
//! * [`import`]: master JSON (or a `turns` export) to `.case` sources.
//!
//! **Architecture Invariant:** the compiler neither prints nor renders: diagnostics
//! leave as data, and only the front ends (the command line, the language server, the
//! Python binding) show them.

// Module headers link to the private items of their crate: they are read by
// contributors, with `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

pub mod compilation;
pub mod import;
pub mod incremental;
pub mod resolve;
pub mod rules;

pub use compilation::{Compilation, Config, Depth, Recheck, Sources};

// The layers below, under the names the modules of this crate use for them.
use casec_base::{diag, parallel, source};
use casec_leaks as leaks;
use casec_load as load;
use casec_lower as lower;
use casec_model as model;
use casec_runtime as runtime;
use casec_syntax as syntax;
