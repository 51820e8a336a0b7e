//! Artifacts read in their formats by `file` expectations, each failure saying what the
//! file held: `xlsx { … }` a workbook (XLSX, XLS, ODS) sheet by sheet, as a table and
//! by cell reference; `document { contains … }` the text of a DOCX, PPTX or ODF file;
//! `image { … }` an image's format and size. Fixtures in `tests/data`: `regions.xlsx`
//! (a sheet `Summary`: region, revenue; North 801.005, South 300; and a sheet `Notes`),
//! `report.docx`, `slides.pptx` (slides 1, 2 and 10), `summary.pdf` (one page: "Q1
//! revenue by region", "North 801.00") and `chart.png` (3×2 pixels).

use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use casec::{Compilation, Sources};

use crate::support::files::Scratch;

const SUITE: &str = r#"suite "Workspace" {
  system_prompt "Work in /workspace; write artifacts under /outputs."
  world_schema std.workspace_world
  tools read_file
}
case W-1 "Regional revenue" {
  user "Does /outputs/regions.xlsx hold the regional revenue?"
  goal "The workbook holds it."
  world {
    files F1 { path "/outputs/regions.xlsx"; content from "seed/regions.xlsx" }
  }
  expect G1 {
    file "/outputs/regions.xlsx" {
      xlsx {
        columns region revenue
        rows 2
        row { region north; revenue 801 within 0.01 }
        cell B3 300
        sheet "Notes" { cell B1 "By the script" }
      }
    }
  }
}
"#;

/// What the case's expectation decides on the fixture, with `from` replaced by `to` in
/// the suite.
fn verdict(from: &str, to: &str) -> Option<String> {
    seeded_verdict("regions.xlsx", &SUITE.replace(from, to))
}

/// What the first assertion of the first expectation of the suite `text` decides, the
/// fixture `seed` in its folder's `seed/`.
fn seeded_verdict(seed: &str, text: &str) -> Option<String> {
    // A folder of its own for each call: the tests run in parallel.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let dir = Scratch::new(
        "workbook",
        &CALLS.fetch_add(1, Ordering::Relaxed).to_string(),
    );
    let suite = dir.0.join("suite");
    fs::create_dir_all(suite.join("seed")).unwrap();
    fs::write(suite.join("suite.case"), text).unwrap();
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(seed),
        suite.join("seed").join(seed),
    )
    .unwrap();
    let compilation = Compilation::new(Sources::Folder(&suite));
    assert!(!compilation.has_errors(), "{:#?}", compilation.diagnostics);
    let suite = compilation.suite.as_ref().unwrap();
    let case = &suite.cases[0];
    let sandbox = case.sandbox.as_ref().unwrap();
    let rt = casec::runtime::Runtime::new(suite, case, sandbox);
    casec::runtime::eval::miss(&sandbox.expectations[0].assertions[0], &rt)
}

#[test]
fn the_sheets_tables_and_cells_decide() {
    assert_eq!(verdict("", ""), None);
}

#[test]
fn each_failure_says_what_the_sheet_held() {
    let cases = [
        (
            "cell B3 300",
            "cell B3 301",
            "sheet `Summary`: cell B3 is \"300\", expected \"301\"",
        ),
        (
            "rows 2",
            "rows 3",
            "sheet `Summary`: 2 data rows, expected exactly 3",
        ),
        (
            "801 within 0.01",
            "801",
            "sheet `Summary`: no row with region \"north\", revenue \"801\"",
        ),
        (
            "sheet \"Notes\"",
            "sheet \"Totals\"",
            "has no sheet `Totals` (its sheets: Summary, Notes)",
        ),
        (
            "columns region revenue",
            "columns region revenue total",
            "sheet `Summary`: its columns are region, revenue",
        ),
    ];
    for (from, to, expected) in cases {
        let found = verdict(from, to).unwrap_or_default();
        assert!(found.contains(expected), "{to}: {found}");
    }
}

#[test]
fn a_file_that_is_no_workbook_says_so() {
    let found = verdict(
        "content from \"seed/regions.xlsx\"",
        "content \"region,revenue\"",
    )
    .unwrap_or_default();
    assert!(
        found.contains("not a workbook (XLSX, XLS or ODS)"),
        "{found}"
    );
}

/// A suite whose file F1 is the fixture `seed`, checked by `check` (a `file` block's body).
fn suite_with(seed: &str, check: &str) -> String {
    format!(
        r#"suite "Workspace" {{
  system_prompt "Work in /workspace; write artifacts under /outputs."
  world_schema std.workspace_world
  tools read_file
}}
case W-1 "The artifact" {{
  user "Is /outputs/{seed} right?"
  goal "It is."
  world {{
    files F1 {{ path "/outputs/{seed}"; content from "seed/{seed}" }}
  }}
  expect G1 {{ file "/outputs/{seed}" {{ {check} }} }}
}}
"#
    )
}

#[test]
fn a_documents_text_is_read_from_docx_and_pptx() {
    let docx = |check: &str| seeded_verdict("report.docx", &suite_with("report.docx", check));
    assert_eq!(docx("document { contains \"q1 revenue\"; contains \"North: 801.00 & South\"; contains \"Café\" }"), None);
    assert_eq!(
        docx("document { contains \"East\" }").as_deref(),
        Some("the text of `/outputs/report.docx` does not contain \"East\"")
    );
    let pptx = |check: &str| seeded_verdict("slides.pptx", &suite_with("slides.pptx", check));
    // Slides in their numbers' order, each paragraph on a line.
    assert_eq!(
        pptx("document { contains \"First slide Second slide Tenth slide\" }"),
        None
    );
    let png = seeded_verdict(
        "chart.png",
        &suite_with("chart.png", "document { contains \"x\" }"),
    );
    assert_eq!(
        png.as_deref(),
        Some("`/outputs/chart.png` is not a document (DOCX, PPTX, ODF, PDF) nor text")
    );
}

#[test]
fn a_pdfs_text_is_read_from_its_pages() {
    let pdf = |check: &str| seeded_verdict("summary.pdf", &suite_with("summary.pdf", check));
    assert_eq!(
        pdf("document { contains \"Q1 revenue\"; contains \"north 801.00\" }"),
        None
    );
    assert_eq!(
        pdf("document { contains \"South\" }").as_deref(),
        Some("the text of `/outputs/summary.pdf` does not contain \"South\"")
    );
}

/// `document { type … }` reads the format from the bytes, whatever the name says.
#[test]
fn a_documents_format_is_read_from_its_bytes() {
    for (seed, kind) in [
        ("summary.pdf", "pdf"),
        ("report.docx", "docx"),
        ("slides.pptx", "pptx"),
    ] {
        let check = format!("document {{ type {kind} }}");
        assert_eq!(
            seeded_verdict(seed, &suite_with(seed, &check)),
            None,
            "{seed}"
        );
    }
    let as_pdf = seeded_verdict(
        "report.docx",
        &suite_with("report.docx", "document { type pdf }"),
    );
    assert_eq!(
        as_pdf.as_deref(),
        Some("`/outputs/report.docx` is docx, expected a pdf document")
    );
    let png = seeded_verdict(
        "chart.png",
        &suite_with("chart.png", "document { type text }"),
    );
    assert_eq!(
        png.as_deref(),
        Some("`/outputs/chart.png` is no document format, expected a text document")
    );
    crate::support::suite::assert_reported(
        &suite_with("summary.pdf", "document { type rtf }"),
        "`rtf` is no document format",
        "an unknown format",
    );
}

#[test]
fn a_file_that_trips_a_reader_fails_its_check() {
    // A PDF header over garbage: refused by the reader, never a crash of the grading.
    let broken = artifacts_verdict(b"%PDF-1.4\n1 0 obj << /Type /Catalog");
    assert!(
        broken.starts_with("`/outputs/x.pdf` is not a readable PDF"),
        "{broken}"
    );
}

/// What `document { contains "x" }` decides on a file of these bytes.
fn artifacts_verdict(bytes: &[u8]) -> String {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let dir = Scratch::new(
        "artifact",
        &CALLS.fetch_add(1, Ordering::Relaxed).to_string(),
    );
    let suite = dir.0.join("suite");
    fs::create_dir_all(suite.join("seed")).unwrap();
    fs::write(suite.join("seed/x.pdf"), bytes).unwrap();
    fs::write(
        suite.join("suite.case"),
        suite_with("x.pdf", "document { contains \"x\" }"),
    )
    .unwrap();
    let compilation = Compilation::new(Sources::Folder(&suite));
    let suite = compilation.suite.as_ref().unwrap();
    let case = &suite.cases[0];
    let sandbox = case.sandbox.as_ref().unwrap();
    let rt = casec::runtime::Runtime::new(suite, case, sandbox);
    casec::runtime::eval::miss(&sandbox.expectations[0].assertions[0], &rt).unwrap_or_default()
}

#[test]
fn an_images_format_and_size_are_read_from_its_header() {
    let png = |check: &str| seeded_verdict("chart.png", &suite_with("chart.png", check));
    assert_eq!(png("image { type png; width 3; height 2 }"), None);
    assert_eq!(
        png("image { type jpeg; width 3 }").as_deref(),
        Some("`/outputs/chart.png` is an image png of 3×2 pixels, expected jpeg of 3×any pixels")
    );
    let docx = seeded_verdict(
        "report.docx",
        &suite_with("report.docx", "image { width 3 }"),
    );
    assert_eq!(
        docx.as_deref(),
        Some("`/outputs/report.docx` is not an image (PNG, JPEG, GIF, WebP, …), expected an image of 3×any pixels")
    );
}

#[test]
fn the_language_server_offers_the_keys_of_file_expectations_by_format() {
    let keys = |place: &[&str]| -> Vec<&'static str> {
        let specs = casec::resolve::blocks::block_specs(place, None).expect("a block");
        specs.iter().map(|s| s.key).collect()
    };
    let file = keys(&["case", "expect", "file"]);
    for format in ["contains", "csv", "xlsx", "document", "image", "json"] {
        assert!(file.contains(&format), "{file:?}");
    }
    assert_eq!(
        keys(&["case", "forbid", "any", "file", "image"]),
        ["type", "width", "height"]
    );
    assert_eq!(
        keys(&["case", "expect", "file", "xlsx", "sheet"]),
        ["columns", "rows", "row", "cell"]
    );
    assert!(keys(&["case", "expect", "not"]).contains(&"last"));
}
