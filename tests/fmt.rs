//! The formatter's guarantees, over every `.case` file in the repository and over
//! generated sources: formatting is idempotent, keeps the syntax tree (ignoring spans
//! and trivia), keeps every comment in its place, and leaves the Tujora suite, the
//! stdlib and the importer's output exactly as they are.

use crate::support;

use std::fs;
use std::path::{Path, PathBuf};

use casec::source::{FileId, Origin, SourceDb};
use casec::{Compilation, Sources};
use proptest::prelude::*;
use support::case_gen;
use support::tree::{shape, tokens};

const TUJORA_MASTER: &str = "tests/data/tujora-benchmark-1.0.1.json";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn fmt(text: &str) -> Option<String> {
    casec::fmt::format_source(FileId(0), text).ok()
}

/// Every `.case` file below `dir`, skipping hidden folders, build output and npm
/// packages.
fn case_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "target" || name == "node_modules" {
            continue;
        }
        if path.is_dir() {
            case_files(&path, out);
        } else if name.ends_with(".case") {
            out.push(path);
        }
    }
}

/// The guarantees for one text that formats; `None` if the formatter refuses it.
fn check_guarantees(text: &str) -> Result<Option<String>, TestCaseError> {
    let Some(once) = fmt(text) else {
        return Ok(None);
    };
    let twice = fmt(&once);
    prop_assert_eq!(twice.as_deref(), Some(once.as_str()), "not idempotent");
    prop_assert_eq!(shape(text), shape(&once), "the syntax tree changed");
    prop_assert_eq!(tokens(text), tokens(&once), "a token or comment moved");
    Ok(Some(once))
}

#[test]
fn every_case_file_in_the_repository_keeps_its_guarantees() {
    let mut files = Vec::new();
    case_files(root(), &mut files);
    files.sort();
    let mut formatted = 0;
    for path in &files {
        let bytes = fs::read(path).expect("readable");
        // tests/ui/io_not_utf8 holds a file that is not UTF-8 on purpose; casec reads
        // files as UTF-8 or reports `io`, so there is nothing to format.
        let Ok(text) = String::from_utf8(bytes) else {
            assert!(
                path.starts_with(root().join("tests/ui")),
                "{} is not UTF-8",
                path.display()
            );
            continue;
        };
        match check_guarantees(&text) {
            Ok(Some(_)) => formatted += 1,
            Ok(None) => {
                let parsed = casec::syntax::parse(FileId(0), &text);
                assert!(
                    parsed.diagnostics.iter().any(|d| d.is_error()),
                    "{} was refused but parses cleanly",
                    path.display()
                );
            }
            Err(e) => panic!("{}: {e}", path.display()),
        }
    }
    // The suite alone has 101 files: an empty walk must not pass.
    assert!(formatted > 101, "only {formatted} files were formatted");
}

#[test]
fn tujora_and_the_stdlib_are_fixed_points() {
    let mut files = Vec::new();
    case_files(&root().join("cases/tujora"), &mut files);
    case_files(&root().join("stdlib"), &mut files);
    assert!(files.len() > 101);
    for path in files {
        let text = fs::read_to_string(&path).expect("readable");
        assert_eq!(
            fmt(&text).as_deref(),
            Some(text.as_str()),
            "{}",
            path.display()
        );
    }
}

/// The text without its own-line comments: authors annotate the imported suite, which
/// the importer cannot know.
fn without_comment_lines(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn the_importer_writes_canonical_text_and_reproduces_the_suite() {
    let master = fs::read_to_string(root().join(TUJORA_MASTER)).expect("master");
    let mut db = SourceDb::new();
    let id = db.add("master.json", master, Origin::User);
    let files = casec::import::import(&db, id).expect("import succeeds");
    for (path, text) in &files {
        assert_eq!(fmt(text).as_deref(), Some(text.as_str()), "{path}");
        let committed = fs::read_to_string(root().join("cases/tujora").join(path));
        let committed = committed
            .ok()
            .map(|c| without_comment_lines(&support::machine_parts::without_machine_parts(&c)));
        let imported = without_comment_lines(text);
        assert_eq!(committed.as_deref(), Some(imported.as_str()), "{path}");
    }
}

#[test]
fn tujora_builds_the_master_byte_for_byte() {
    let expected = fs::read_to_string(root().join(TUJORA_MASTER)).expect("master");
    let compilation = Compilation::new(Sources::Folder(&root().join("cases/tujora")));
    assert_eq!(
        compilation.master_json().as_deref(),
        Some(expected.as_str())
    );
}

/// `docs/formatting.md` shows examples as "Written as" and "it is formatted as" code
/// blocks; each must be what the formatter does.
#[test]
fn the_examples_in_the_style_guide_are_what_the_formatter_does() {
    let guide = fs::read_to_string(root().join("docs/formatting.md")).expect("guide");
    let mut examples = 0;
    for part in guide.split("Written as\n\n```\n").skip(1) {
        let (before, rest) = part.split_once("```\n").expect("closed input block");
        let rest = rest
            .strip_prefix("\nit is formatted as\n\n```\n")
            .expect("an output block follows");
        let (after, _) = rest.split_once("```\n").expect("closed output block");
        assert_eq!(fmt(before).as_deref(), Some(after), "example:\n{before}");
        examples += 1;
    }
    assert!(examples >= 4, "only {examples} examples found");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn generated_sources_keep_their_guarantees(
        statements in case_gen::statements(),
        noise in prop::collection::vec(any::<u8>(), 1..64),
    ) {
        let text = case_gen::render(&statements, case_gen::Noise::new(noise));
        let formatted = check_guarantees(&text)?;
        prop_assert!(formatted.is_some(), "a valid source was refused:\n{}", text);
    }
}

/// Inputs the fuzzer found (docs/reliability.md): a comment after only a separator,
/// or after the byte order mark that opens a file, is on a line of its own, and the
/// formatter keeps it so.
#[test]
fn fuzzer_findings_keep_their_guarantees() {
    for text in [";#", ";# c\na 1", "\u{FEFF}#Q\u{1}# A Acaf\n"] {
        if let Err(e) = check_guarantees(text) {
            panic!("{text:?}: {e}");
        }
    }
}
