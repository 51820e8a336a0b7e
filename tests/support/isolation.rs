//! Whether workspace commands can run isolated here (bubblewrap, docs/security.md):
//! tests that run them, or that verify a suite whose golden traces do (cases/dumate),
//! skip what needs it on a machine without, saying so, so that `cargo test` passes on a
//! fresh machine with only the Rust toolchain. CI installs bubblewrap and sets
//! `CASEC_REQUIRE_ISOLATION`, under which a missing isolation fails instead.

use std::sync::OnceLock;

/// Whether bubblewrap can make an isolation; without it, says which test skips `what`
/// (and fails when `CASEC_REQUIRE_ISOLATION` is set).
pub fn available(what: &str) -> bool {
    static WORKS: OnceLock<bool> = OnceLock::new();
    let works = *WORKS.get_or_init(|| {
        std::process::Command::new("bwrap")
            .args(["--unshare-all", "--ro-bind", "/", "/", "true"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !works {
        assert!(
            std::env::var_os("CASEC_REQUIRE_ISOLATION").is_none(),
            "CASEC_REQUIRE_ISOLATION is set but bubblewrap cannot isolate here ({what})"
        );
        eprintln!("bubblewrap cannot isolate workspace commands here: skipped {what}");
    }
    works
}
