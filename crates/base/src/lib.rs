//! casec's foundations: what every layer above uses and nothing of casec's own below.
//!
//! * [`source`]: files, spans (a file id and a byte range), line indexes, roles.
//! * [`diag`]: the one `Diagnostic` model, every code declared with its severity,
//!   allowability and documentation ([`diag::codes`]), and its rendering.
//! * [`unicode`]: invisible and look-alike characters, scripts written without spaces.
//! * [`parallel`]: independent work over all cores, results in input order.
//! * [`temp_files`]: temporary files renamed into place once written.
//! * [`capped_lines`]: a stream's lines, with a cap on their length.
//!
//! **Architecture Invariant:** this crate depends on no other crate of casec, and its
//! modules open no file but the ones their caller names.

// Module headers link to the private items of their crate: they are read by
// contributors, with `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

pub mod capped_lines;
pub mod diag;
pub mod parallel;
pub mod source;
pub mod temp_files;
pub mod unicode;
