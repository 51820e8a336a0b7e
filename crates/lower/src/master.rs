//! Lowering to the master JSON: the evaluator's file, laid out by the suite's shape
//! (`layout master`), written straight from the model into the output.
//!
//! The layout engine renders a `Serialize` view over the model, so a master is never
//! built as a `serde_json::Value` first: that would hold a second copy of every text
//! (and dropping it took a sixth of a 10,000-case build).

use std::io;

use serde_json::Value;

use crate::model::Suite;

use super::json_style::{to_master_string, write_master};
use super::layout::{Cx, View};

fn view(suite: &Suite) -> View<'_> {
    View {
        layout: &suite.shape.master,
        cx: Cx::suite(suite),
    }
}

/// The master JSON text of a suite.
pub fn master_json(suite: &Suite) -> String {
    to_master_string(&view(suite))
}

/// Writes the master JSON of a suite to `writer`, without holding it in memory.
pub fn write_master_json(suite: &Suite, writer: impl io::Write) -> io::Result<()> {
    let view = View {
        layout: &suite.shape.master,
        cx: Cx::master_writer(suite),
    };
    write_master(&view, writer)
}

/// The master as a JSON value (key order preserved).
pub fn master_value(suite: &Suite) -> Value {
    view(suite).to_value()
}
