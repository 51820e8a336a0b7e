//! The Docker Compose file of a suite whose tools run workspace commands
//! (`commands.run`), for Inspect's `docker` sandbox (docs/python.md).
//!
//! One service, `default`, from the image the binding names, idle until the harness
//! runs commands in it, with no network at all: a command's endpoints are served on
//! the container's own loopback by casec's job program, which the Python package copies
//! in (the same isolated side `casec verify` runs under bubblewrap). Its memory limit
//! is the binding's. The file is written as YAML by the export writer (every string
//! quoted), from the JSON value [`compose`] gives, which the tests check against the
//! Compose specification's schema.

use serde_json::{json, Value as Json};

use crate::model::tool::Commands;
use crate::model::Suite;

/// The compose file's value, when one of the suite's tools runs commands (the first
/// such tool's image; the largest memory limit of them).
pub fn compose(suite: &Suite) -> Option<Json> {
    let commands: Vec<&Commands> = suite.tools.iter().filter_map(|t| t.commands()).collect();
    let first = commands.first()?;
    let memory = commands.iter().map(|c| c.limits.memory_mib).max()?;
    Some(json!({
        "services": {
            "default": {
                "image": first.image,
                "init": true,
                "command": ["tail", "-f", "/dev/null"],
                "working_dir": "/",
                "network_mode": "none",
                "mem_limit": format!("{memory}m"),
            }
        }
    }))
}

/// The compose file as YAML (see [`compose`]).
pub fn compose_yaml(suite: &Suite) -> Option<String> {
    compose(suite).map(|value| super::export::yaml::to_yaml(&value))
}
