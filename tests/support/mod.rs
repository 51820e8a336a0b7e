//! Helpers shared by the formatter's integration tests.

pub mod case_gen;
pub mod tree;
