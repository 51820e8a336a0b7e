//! Lowering: the resolved model to the compiler's outputs.
//!
//! * [`master`]: the evaluator's master JSON, in the style of [`json_style`].
//! * [`sandbox`]: per-case sandbox initialisation (world, overrides, expectations).
//!
//! Lowering only runs on a model without errors and cannot fail.

pub mod json_style;
pub mod master;
pub mod sandbox;
