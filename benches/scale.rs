//! Scale benchmark: `check` and `build` of suites of 100, 1,000 and 10,000 cases, next
//! to a serde_json parse and re-serialization of the same master, in the same run; and
//! the peak memory of a build.
//!
//! Run with `cargo bench --bench scale` (add `-- 10000` for one size). Two corpora:
//!
//! * `generated`: masters from the test corpus generator (every overridable field
//!   deviating somewhere, no worlds), imported into a suite folder;
//! * `tujora`: `cases/tujora` copied N/100 times with renamed case ids (worlds,
//!   expectations and all), its master built by casec from that folder.
//!
//! Every measurement reads from disk: the suite folder for casec, the master file for
//! serde_json. Figures are medians over several runs. Peak memory is the `VmHWM` of a
//! child process (this same binary, started with `--peak-build DIR`) that builds one
//! suite and nothing else.
//!
//! Targets (issue 2): a 10k-case build within 2× the serde_json round trip, and peak
//! memory within 3× the master's size.

#[path = "../tests/support/generate.rs"]
mod generate;

use std::any::Any;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use casec::source::{Origin, SourceDb};
use casec::Compilation;

/// Suite sizes and how many timed runs each gets (fewer for the larger ones, so the
/// whole benchmark stays within a couple of minutes on two cores).
const SIZES: &[(usize, usize)] = &[(100, 15), (1_000, 9), (10_000, 7)];
const SEED: u64 = 1;
const PEAK_FLAG: &str = "--peak-build";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == PEAK_FLAG) {
        let dir = args.get(at + 1).expect("--peak-build DIR");
        build_and_report_peak(Path::new(dir));
        return;
    }
    // `cargo bench --bench scale -- 10000` measures only the sizes given.
    let only: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let work = tempfile::tempdir().expect("a temp dir");
    for corpus in [Corpus::Generated, Corpus::Tujora] {
        println!(
            "{:>9} {:>7} {:>10} {:>10} {:>10} {:>10} {:>7} {:>10} {:>7}",
            "corpus",
            "cases",
            "master",
            "serde_json",
            "check",
            "build",
            "build/s",
            "peak",
            "peak/m"
        );
        for &(cases, runs) in SIZES
            .iter()
            .filter(|(n, _)| only.is_empty() || only.contains(n))
        {
            let (suite, master) = corpus.make(work.path(), cases);
            let row = measure(work.path(), &suite, &master, runs);
            println!(
                "{:>9} {:>7} {:>10} {:>10} {:>10} {:>10} {:>6.2}x {:>10} {:>6.2}x",
                corpus.name(),
                cases,
                megabytes(row.master_bytes),
                millis(row.serde),
                millis(row.check),
                millis(row.build),
                row.build.as_secs_f64() / row.serde.as_secs_f64(),
                megabytes(row.peak_bytes),
                row.peak_bytes as f64 / row.master_bytes as f64,
            );
        }
    }
}

#[derive(Clone, Copy)]
enum Corpus {
    Generated,
    Tujora,
}

impl Corpus {
    fn name(self) -> &'static str {
        match self {
            Corpus::Generated => "generated",
            Corpus::Tujora => "tujora",
        }
    }

    /// A suite folder of `cases` cases under `work`, and its master.
    fn make(self, work: &Path, cases: usize) -> (PathBuf, String) {
        let suite = work.join(format!("{}-{cases}", self.name()));
        match self {
            Corpus::Generated => {
                let master = generate::generate_master(cases, SEED);
                import_into(&master, &suite);
                (suite, master)
            }
            Corpus::Tujora => {
                scaled_tujora(cases.div_ceil(100), &suite);
                let compilation = Compilation::from_dir(&suite);
                assert!(!compilation.has_errors(), "the scaled suite checks clean");
                let model = compilation.suite.as_ref().expect("the suite resolves");
                (suite, casec::lower::master::master_json(model))
            }
        }
    }
}

/// `cases/tujora` copied `copies` times into `suite`: case `TUJ-034` becomes
/// `TUJ-034-0`, `TUJ-034-1`, …, and the suite's counts grow to match.
fn scaled_tujora(copies: usize, suite: &Path) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/tujora");
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let suite_text = fs::read_to_string(source.join("suite.case")).expect("cases/tujora");
    let suite_text: Vec<String> = suite_text
        .lines()
        .map(|line| scale_count(line, copies))
        .collect();
    files.push((
        "suite.case".into(),
        (suite_text.join("\n") + "\n").into_bytes(),
    ));
    for category in fs::read_dir(&source).expect("cases/tujora") {
        let category = category.expect("a folder entry").path();
        if !category.is_dir() {
            continue;
        }
        let folder = category
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .to_string();
        for file in fs::read_dir(&category).expect("a category folder") {
            let path = file.expect("a folder entry").path();
            if path.extension().is_none_or(|e| e != "case") {
                continue;
            }
            let text = fs::read_to_string(&path).expect("a case file");
            let stem = path
                .file_stem()
                .expect("a name")
                .to_string_lossy()
                .to_string();
            for copy in 0..copies {
                let renamed =
                    text.replacen(&format!("case {stem} "), &format!("case {stem}-{copy} "), 1);
                files.push((format!("{folder}/{stem}-{copy}.case"), renamed.into_bytes()));
            }
        }
    }
    casec::driver::write_folder_atomically(suite, &files).expect("writable suite folder");
}

/// A line of suite.case with its case counts multiplied by `copies`.
fn scale_count(line: &str, copies: usize) -> String {
    let words: Vec<&str> = line.split(' ').collect();
    match words.as_slice() {
        ["", "", "case_count", n] => {
            format!("  case_count {}", n.parse::<usize>().unwrap_or(0) * copies)
        }
        ["category", name, n, "{"] => {
            format!(
                "category {name} {} {{",
                n.parse::<usize>().unwrap_or(0) * copies
            )
        }
        _ => line.to_string(),
    }
}

struct Row {
    master_bytes: u64,
    serde: Duration,
    check: Duration,
    build: Duration,
    peak_bytes: u64,
}

fn measure(work: &Path, suite: &Path, master: &str, runs: usize) -> Row {
    let master_path = work.join("master.json");
    fs::write(&master_path, master).expect("writable master");

    let compact_len = master.len() - spaces_of_master_style(master);
    // Each task returns what it built, dropped after its time is taken: `casec`
    // leaves its model to the process exit, and freeing serde_json's value is no part
    // of a parse and re-serialization either.
    let serde = || -> Box<dyn Any> {
        let text = fs::read_to_string(&master_path).expect("readable master");
        let value: serde_json::Value = serde_json::from_str(&text).expect("the master parses");
        let out = serde_json::to_string(&value).expect("serializable");
        assert_eq!(out.len(), compact_len);
        Box::new((text, value, out))
    };
    // The generated corpus deviates from the shared defaults in every field, and so
    // breaks semantic rules on purpose (check lists, tags, coverage): `check` reports
    // them, and `build` is timed doing all its work (parse, resolve, every check,
    // lower) and lowering the model whatever the checks said. The Tujora corpus is
    // clean, and carries worlds the master never shows.
    let check = || -> Box<dyn Any> {
        let compilation = Compilation::from_dir(suite);
        assert!(compilation.suite.is_some(), "the suite resolves");
        Box::new(compilation)
    };
    let build = || -> Box<dyn Any> {
        let compilation = Compilation::from_dir(suite);
        let model = compilation.suite.as_ref().expect("the suite resolves");
        let built = casec::lower::master::master_json(model);
        assert!(built == master, "the build differs from the corpus master");
        Box::new((compilation, built))
    };
    let [serde, check, build] = medians(runs, [&serde, &check, &build]);
    Row {
        master_bytes: master.len() as u64,
        serde,
        check,
        build,
        peak_bytes: peak_of_build_in_child(suite),
    }
}

/// The master style adds one space inside each non-empty container and after each `:`
/// and `,`; serde_json's compact output has none. Used only to check that the serde_json
/// round trip wrote the whole master.
fn spaces_of_master_style(master: &str) -> usize {
    let value: serde_json::Value = serde_json::from_str(master).expect("the master parses");
    fn count(v: &serde_json::Value) -> usize {
        match v {
            serde_json::Value::Array(items) if !items.is_empty() => {
                2 + items.len() - 1 + items.iter().map(count).sum::<usize>()
            }
            serde_json::Value::Object(map) if !map.is_empty() => {
                2 + (map.len() - 1) + map.len() + map.values().map(count).sum::<usize>()
            }
            _ => 0,
        }
    }
    count(&value)
}

fn import_into(master: &str, suite: &Path) {
    let mut db = SourceDb::new();
    let file = db.add("master.json", master, Origin::User);
    let files = casec::import::import(&db, file).unwrap_or_else(|d| panic!("{d:?}"));
    let files: Vec<(String, Vec<u8>)> = files
        .into_iter()
        .map(|(p, t)| (p, t.into_bytes()))
        .collect();
    casec::driver::write_folder_atomically(suite, &files).expect("writable suite folder");
}

/// The median time of each task over `runs` rounds. A round runs every task once, in
/// turn, so that a slow moment of a shared machine slows all of them alike and their
/// ratios stay meaningful. What a task returns is dropped after its time is taken.
fn medians<const N: usize>(runs: usize, tasks: [&dyn Fn() -> Box<dyn Any>; N]) -> [Duration; N] {
    for task in &tasks {
        drop(task()); // Warm the page cache and the allocator.
    }
    let mut times = [(); N].map(|_| Vec::with_capacity(runs));
    for _ in 0..runs {
        for (task, times) in tasks.iter().zip(&mut times) {
            let start = Instant::now();
            let built = task();
            times.push(start.elapsed());
            drop(built);
        }
    }
    times.map(|mut times| {
        times.sort();
        times[runs / 2]
    })
}

fn peak_of_build_in_child(suite: &Path) -> u64 {
    let output = Command::new(std::env::current_exe().expect("the bench binary"))
        .arg(PEAK_FLAG)
        .arg(suite)
        .output()
        .expect("the child runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .expect("the child prints its peak in bytes")
}

/// In the child: build the suite as `casec build SUITE -o FILE` does (every check run,
/// the master streamed to the file), print `VmHWM`.
fn build_and_report_peak(suite: &Path) {
    let out = suite.with_extension("built.json");
    let compilation = Compilation::from_dir(suite);
    let model = compilation.suite.as_ref().expect("the suite resolves");
    let mut file = std::io::BufWriter::new(fs::File::create(&out).expect("writable output"));
    casec::lower::master::write_master_json(model, &mut file).expect("the master is written");
    std::io::Write::flush(&mut file).expect("the master is written");
    let status = fs::read_to_string("/proc/self/status").expect("Linux /proc");
    let kilobytes: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/self/status");
    println!("{}", kilobytes * 1024);
}

fn millis(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_000_000.0)
}
