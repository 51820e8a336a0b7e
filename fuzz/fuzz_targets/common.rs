//! What the targets share: the Tujora suite, compiled once, and the contract every
//! diagnostic must meet (located inside its file, on character boundaries, rendering
//! in every format without a panic).

#![allow(dead_code)] // Each target uses part of it.

use std::path::Path;
use std::sync::OnceLock;

use casec::diag::render::{self, HumanStyle};
use casec::diag::Diagnostic;
use casec::source::SourceDb;
use casec::{Compilation, Sources};

/// The Tujora suite, compiled once per process.
pub fn tujora() -> &'static Compilation {
    static TUJORA: OnceLock<Compilation> = OnceLock::new();
    TUJORA.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/tujora");
        let compilation = Compilation::new(Sources::Folder(&root));
        assert!(!compilation.has_errors(), "Tujora compiles clean");
        compilation
    })
}

/// A Tujora case with a world and its sandbox, picked by `pick` among them all.
pub fn tujora_world(
    pick: u8,
) -> (
    &'static casec::model::Case,
    &'static casec::model::expect::Sandbox,
) {
    let suite = tujora().suite.as_ref().expect("Tujora resolves");
    let worlds: Vec<_> = suite
        .cases
        .iter()
        .filter_map(|c| Some((c, c.sandbox.as_ref()?)))
        .collect();
    worlds[usize::from(pick) % worlds.len()]
}

/// An input read as a pick (its first byte, for [`tujora_world`]) and UTF-8 text (the
/// rest); `None` for an empty input or one that is not UTF-8.
pub fn pick_and_text(data: &[u8]) -> Option<(u8, &str)> {
    let (&pick, rest) = data.split_first()?;
    Some((pick, std::str::from_utf8(rest).ok()?))
}

/// The text of Tujora's suite file.
pub fn tujora_suite_file() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases/tujora/suite.case");
        std::fs::read_to_string(path).expect("cases/tujora/suite.case")
    })
}

/// Every diagnostic is located inside its file and renders in every format.
pub fn assert_sound(diagnostics: &[Diagnostic], db: &SourceDb) {
    for d in diagnostics {
        for label in &d.labels {
            let text = &db.file(label.span.file).text;
            let range = label.span.range();
            assert!(
                range.start <= range.end
                    && range.end <= text.len()
                    && text.is_char_boundary(range.start)
                    && text.is_char_boundary(range.end),
                "a label outside its file: {d:?}"
            );
        }
        let human = render::human(d, db, HumanStyle::PLAIN);
        assert!(human.contains(d.code.name), "{human}");
        // Capped: a diagnostic stays small whatever the input.
        assert!(
            human.len() < 64 * 1024,
            "{} bytes of diagnostic",
            human.len()
        );
        let json: serde_json::Value =
            serde_json::from_str(&render::json_line(d, db)).expect("a JSON diagnostic");
        assert_eq!(json["code"], d.code.name);
        let github = render::github(d, db);
        assert!(!github.contains('\n'), "one annotation line: {github}");
    }
}
