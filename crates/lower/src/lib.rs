//! Lowering: the resolved model to the compiler's outputs.
//!
//! * [`master`]: the evaluator's master JSON, in the style of [`json_style`].
//! * [`bundle`]: blinded model bundles and their index, in the same style, released
//!   only once [`blinding`] has proved that no hidden text reached them.
//! * [`sandbox`]: per-case sandbox initialisation (world, overrides, expectations).
//! * [`export`]: other benchmarks' formats, as the shape's `export`s declare them.
//! * [`record_schema`]: JSON Schemas of the suite's result and judged records.
//! * [`layout`]: the layout engine the master, bundles, result records and exports
//!   are rendered by.
//!
//! Lowering only runs on a model without errors. The master cannot fail; bundles fail
//! with diagnostics when they would leak or could not be written as distinct files.

// Module headers link to the private items of their crate: they are read by
// contributors, with `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

// The layers below, under the names the modules of this crate use for them.
use casec_base::{diag, parallel, source};
use casec_leaks as leaks;
use casec_model as model;

pub mod blinding;
pub mod bundle;
pub mod compose;
pub mod export;
pub mod json_style;
pub mod layout;
pub mod master;
pub mod prompt;
pub mod record_schema;
pub mod sandbox;
pub mod stats;
pub mod tools;
