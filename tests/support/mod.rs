//! Helpers shared by integration tests.

pub mod case_gen;
pub mod cli;
pub mod files;
pub mod isolation;
pub mod machine_parts;
pub mod suite;
pub mod tree;
