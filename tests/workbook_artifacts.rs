//! `file "PATH" { xlsx { … } }`: a workbook artifact (XLSX, XLS, ODS) read by calamine,
//! sheet by sheet, as a table (a header row, data rows) and by cell reference; every
//! failure says what the sheet held. The fixture `tests/data/regions.xlsx` has a sheet
//! `Summary` (region, revenue; North 801.005, South 300) and a sheet `Notes`.

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
    // A folder of its own for each call: the tests run in parallel.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let dir = Scratch::new(
        "workbook",
        &CALLS.fetch_add(1, Ordering::Relaxed).to_string(),
    );
    let suite = dir.0.join("suite");
    fs::create_dir_all(suite.join("seed")).unwrap();
    fs::write(suite.join("suite.case"), SUITE.replace(from, to)).unwrap();
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/regions.xlsx"),
        suite.join("seed/regions.xlsx"),
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
