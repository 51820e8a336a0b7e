//! Running the `casec` binary from a test: from the repository root, without colour and
//! without the judge's key, so that what a test sees does not depend on its caller.

use std::path::Path;
use std::process::{Command, Output};

/// `casec ARGS…`, run from the repository root.
pub fn casec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env_remove("OPENAI_API_KEY")
        .output()
        .expect("casec runs")
}

/// Asserts that a command exited 0, showing its standard error otherwise.
pub fn ok(output: &Output) {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A path as a command-line argument.
pub fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}
