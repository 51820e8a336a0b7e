//! Bad input never panics, and every broken input is explained.
//!
//! Real sources are truncated at every prefix and edited at random; master JSON is
//! mutated and invented. Each outcome must be one of two things: a clean compilation
//! that lowers to a master, or errors that are all located (a label inside a file of
//! the compilation, on character boundaries, rendering without a panic) and that point
//! into the file that was broken — the rest of the suite is unchanged and valid.
//!
//! The member file is compiled against the Tujora suite file and the stdlib, parsed
//! once, so thousands of inputs go through parse, resolve and lower in a few seconds.

use casec_corpus as generate;

use std::path::Path;
use std::sync::Arc;

use casec::diag::render::{self, HumanStyle};
use casec::diag::{codes, Diagnostic};
use casec::resolve;
use casec::source::Role;
use casec::source::{FileId, Origin, SourceDb};
use casec::syntax::{self, Parsed};
use casec::{Compilation, Config, Depth, Sources};
use generate::Rng;

const SUITE: &str = include_str!("../cases/tujora/suite.case");
const CASE: &str = include_str!("../cases/tujora/appointments/TUJ-034.case");
const CASE_NAME: &str = "appointments/TUJ-034.case";

/// The stdlib and a suite file, parsed once, against which member files compile.
struct Context {
    sources: Vec<(String, Arc<str>, Origin, Role)>,
    files: Vec<Arc<Parsed>>,
}

impl Context {
    fn new(suite: &str) -> Context {
        let mut sources: Vec<(String, Arc<str>, Origin, Role)> = casec::load::STDLIB
            .iter()
            .map(|(name, text)| {
                (
                    name.to_string(),
                    Arc::from(*text),
                    Origin::Stdlib,
                    Role::Stdlib,
                )
            })
            .collect();
        sources.push((
            "suite.case".into(),
            Arc::from(suite),
            Origin::User,
            Role::SuiteFile,
        ));
        let files = sources
            .iter()
            .enumerate()
            .map(|(i, (_, text, _, _))| {
                let parsed = syntax::parse(FileId(i as u32), text);
                assert!(parsed.file.is_some(), "the context files parse");
                Arc::new(parsed)
            })
            .collect();
        Context { sources, files }
    }

    fn member_id(&self) -> FileId {
        FileId(self.sources.len() as u32)
    }

    /// Parses, resolves and sorts diagnostics exactly as a compilation of the suite
    /// folder with `text` as its member file would.
    fn compile(&self, text: &str) -> Compilation {
        let mut db = SourceDb::new();
        for (name, text, origin, _) in &self.sources {
            db.add(name.clone(), text.clone(), *origin);
        }
        let member = db.add(CASE_NAME, text, Origin::User);
        let parsed = syntax::parse(member, text);
        let mut diagnostics = parsed.diagnostics.clone();
        let mut inputs: Vec<resolve::Input> = self
            .files
            .iter()
            .zip(&self.sources)
            .map(|(tree, (_, _, _, role))| resolve::Input {
                tree: Arc::clone(tree),
                role: *role,
            })
            .collect();
        if parsed.file.is_some() {
            inputs.push(resolve::Input {
                tree: Arc::new(parsed),
                role: Role::Member,
            });
        }
        let (suite, more) = resolve::resolve(inputs);
        diagnostics.extend(more);
        casec::diag::sort(&mut diagnostics, &db);
        Compilation {
            db,
            suite,
            diagnostics,
        }
    }
}

/// A label's span lies in a file of the compilation, within its text, on character
/// boundaries.
fn assert_located(d: &Diagnostic, db: &SourceDb, input: &str) {
    assert!(
        !d.labels.is_empty(),
        "{input:?}: diagnostic without a location: {d:?}"
    );
    for label in &d.labels {
        let text = &db.file(label.span.file).text;
        let range = label.span.range();
        assert!(
            range.start <= range.end
                && range.end <= text.len()
                && text.is_char_boundary(range.start)
                && text.is_char_boundary(range.end),
            "{input:?}: label outside its file: {d:?}"
        );
    }
}

/// The outcome contract for a compilation whose only changed file is `member`:
/// clean and lowered, or errors that are located, render, and each point into it.
fn assert_explained(compilation: &Compilation, member: FileId, input: &str) {
    if !compilation.has_errors() {
        assert!(
            compilation.master_json().is_some(),
            "{input:?}: clean but not lowered"
        );
        return;
    }
    for d in &compilation.diagnostics {
        assert_located(d, &compilation.db, input);
        assert!(
            d.labels.iter().any(|l| l.span.file == member),
            "{input:?}: an error that does not point into the edited file: {d:?}"
        );
        assert!(!render::json_line(d, &compilation.db).is_empty());
    }
    let first = &compilation.diagnostics[0];
    assert!(render::human(first, &compilation.db, HumanStyle::PLAIN).contains(first.code.name));
    let syntax_errors = compilation
        .diagnostics
        .iter()
        .filter(|d| d.code == codes::SYNTAX)
        .count();
    assert!(
        syntax_errors <= 1,
        "{input:?}: parsing goes on after a syntax error"
    );
}

#[test]
fn the_case_file_compiles_in_its_context() {
    let cx = Context::new(SUITE);
    let compilation = cx.compile(CASE);
    assert!(
        compilation.diagnostics.is_empty(),
        "{:?}",
        compilation.diagnostics
    );
    assert_eq!(compilation.suite.map(|s| s.cases.len()), Some(1));
}

/// A prefix is clean exactly when it holds nothing or the whole case; every other
/// prefix is an error pointing into the case file.
#[test]
fn every_prefix_of_a_case_file_is_an_error_unless_empty_or_whole() {
    let cx = Context::new(SUITE);
    for end in 0..=CASE.len() {
        let Some(prefix) = CASE.get(..end) else {
            continue;
        };
        let compilation = cx.compile(prefix);
        let whole_or_nothing = prefix.trim().is_empty() || prefix.trim_end() == CASE.trim_end();
        assert_eq!(
            compilation.has_errors(),
            !whole_or_nothing,
            "prefix of {end} bytes: {:?}",
            compilation.diagnostics
        );
        assert_explained(&compilation, cx.member_id(), prefix);
    }
}

/// Prefixes of the suite file, compiled with the case file beside it: every cut next
/// to a delimiter (quote, brace, line end, comment) and every sixteenth byte. The case
/// file above gets every byte; the suite file is ten times larger, and a parse per byte
/// would take half a minute in a debug build for the same shapes of cut. A cut inside
/// the suite block is always an error; a later cut may leave a valid, smaller suite.
#[test]
fn prefixes_of_the_suite_file_are_explained() {
    let suite_block_end = SUITE.find("\n}\n").expect("the suite block closes") + 2;
    let delimiter = |c: Option<char>| matches!(c, Some('"' | '{' | '}' | '\n' | '#'));
    let mut tested = 0;
    for end in (0..=SUITE.len()).filter(|&end| SUITE.is_char_boundary(end)) {
        let (before, after) = SUITE.split_at(end);
        if end % 16 != 0 && !delimiter(before.chars().last()) && !delimiter(after.chars().next()) {
            continue;
        }
        tested += 1;
        let compilation = Compilation::new(Sources::in_memory([
            ("suite.case", before),
            (CASE_NAME, CASE),
        ]));
        if end < suite_block_end {
            assert!(compilation.has_errors(), "prefix of {end} bytes is clean");
        }
        if compilation.has_errors() {
            for d in &compilation.diagnostics {
                assert_located(d, &compilation.db, before);
            }
        } else {
            assert!(compilation.master_json().is_some());
        }
    }
    assert!(tested > 1000, "only {tested} prefixes");
}

/// Removing any one brace or quote outside a comment always breaks the file.
#[test]
fn deleting_any_delimiter_is_a_syntax_error() {
    let cx = Context::new(SUITE);
    let mut tested = 0;
    for (at, c) in CASE.char_indices() {
        if !matches!(c, '{' | '}' | '"') {
            continue;
        }
        let mut broken = CASE.to_string();
        broken.remove(at);
        let compilation = cx.compile(&broken);
        assert!(
            compilation
                .diagnostics
                .iter()
                .any(|d| d.code == codes::SYNTAX),
            "deleting {c:?} at {at}: {:?}",
            compilation.diagnostics
        );
        assert_explained(&compilation, cx.member_id(), &broken);
        tested += 1;
    }
    assert!(tested > 30, "only {tested} delimiters");
}

/// Bytes an edit inserts: syntax characters, escapes, line ends, control characters,
/// multi-byte characters, and bytes that are never valid UTF-8 on their own.
const INSERTS: &[&[u8]] = &[
    b"\"",
    b"{",
    b"}",
    b"\\",
    b"#",
    b"\n",
    b"\r",
    b"\r\n",
    b";",
    b"[",
    b"]",
    b",",
    b" ",
    b"\t",
    b"\"\"\"",
    b"\\u{",
    b"\\u{110000}",
    b"0",
    b"-",
    b"x",
    b"case",
    b"\0",
    "é".as_bytes(),
    "😀".as_bytes(),
    "\u{2028}".as_bytes(),
    b"\xff",
    b"\xc3",
    b"\xe2\x82",
];

fn random_edit(rng: &mut Rng, text: &[u8]) -> Vec<u8> {
    let mut out = text.to_vec();
    for _ in 0..1 + rng.below(3) {
        let at = rng.below(out.len() + 1);
        match rng.below(4) {
            0 => {
                let end = (at + 1 + rng.below(4)).min(out.len());
                out.drain(at.min(end)..end);
            }
            1 if at < out.len() => out[at] = rng.next_u64() as u8,
            _ => {
                let insert = rng.pick(INSERTS);
                out.splice(at..at, insert.iter().copied());
            }
        }
    }
    out
}

/// Thousands of random byte edits: valid UTF-8 goes through parse, resolve and lower;
/// invalid UTF-8 is refused when the file is read, naming the first bad byte.
#[test]
fn random_edits_never_panic_and_every_error_is_explained() {
    let cx = Context::new(SUITE);
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("edited.case");
    let mut rng = Rng::new(34);
    let (mut clean, mut broken, mut not_utf8) = (0, 0, 0);
    for _ in 0..3000 {
        let bytes = random_edit(&mut rng, CASE.as_bytes());
        match std::str::from_utf8(&bytes) {
            Ok(text) => {
                let compilation = cx.compile(text);
                if compilation.has_errors() {
                    broken += 1;
                } else {
                    clean += 1;
                }
                assert_explained(&compilation, cx.member_id(), text);
            }
            Err(e) => {
                not_utf8 += 1;
                assert_refused_as_not_utf8(&path, &bytes, e.valid_up_to());
            }
        }
    }
    // The edits exercise every outcome.
    assert!(
        clean > 100 && broken > 1000 && not_utf8 > 100,
        "{clean} {broken} {not_utf8}"
    );
}

fn assert_refused_as_not_utf8(path: &Path, bytes: &[u8], valid_up_to: usize) {
    std::fs::write(path, bytes).expect("writable temp file");
    let compilation = Compilation::new(Sources::Files(&[path]));
    let [d] = compilation.diagnostics.as_slice() else {
        panic!("expected one diagnostic, got {:?}", compilation.diagnostics);
    };
    assert_eq!(d.code, codes::IO);
    assert!(
        d.message.contains(&format!("byte {valid_up_to}")),
        "{}",
        d.message
    );
    assert!(d.path.is_some());
}

/// Nesting deeper than the limit is a located error, however deep (not a crash);
/// nesting up to it goes through resolve and lower.
#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let limit = casec::syntax::nesting::MAX_DEPTH;
    for depth in [10, limit - 2, limit - 1, 3_000, 100_000] {
        for (open, close) in [("[", "]"), ("{ a ", " }")] {
            let nested = format!("{}1{}", open.repeat(depth), close.repeat(depth));
            let deep = format!("design_reference {{\n    deep {nested}\n");
            let suite = SUITE.replacen("design_reference {", &deep, 1);
            let compilation = Compilation::new(Config {
                sources: Sources::in_memory([("suite.case", suite.as_str()), (CASE_NAME, CASE)]),
                depth: Depth::Resolve,
                recheck: None,
            });
            // The suite block and the design reference are two levels of their own.
            if depth + 2 > limit {
                assert!(
                    compilation
                        .diagnostics
                        .iter()
                        .any(|d| d.message.contains("nest more than")),
                    "{depth} {open}: {:?}",
                    compilation.diagnostics
                );
            } else {
                assert!(
                    !compilation.has_errors(),
                    "{depth} {open}: {:?}",
                    compilation.diagnostics
                );
                assert!(compilation.master_json().is_some());
            }
        }
    }
    let deep_json = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let diags = import(&deep_json).expect_err("too deep to import");
    assert_eq!(diags[0].code, codes::MASTER_JSON);
}

fn import(text: &str) -> Result<casec::import::SuiteFiles, Vec<Diagnostic>> {
    let mut db = SourceDb::new();
    let file = db.add("master.json", text, Origin::User);
    let result = casec::import::import(&db, file);
    if let Err(diags) = &result {
        assert!(!diags.is_empty(), "a refusal without a diagnostic");
        for d in diags {
            assert_located(d, &db, "master");
        }
    }
    result
}

/// The importer's contract: it either writes sources that rebuild the canonical
/// master, or says how the master breaks the schema. It never fails its own round trip
/// (that diagnostic means a casec bug). Rebuilding resolves without the semantic checks:
/// a mutated master may well break a rule (coverage, say) and still round-trip.
fn assert_imports_or_explains(text: &str) {
    match import(text) {
        Ok(files) => {
            let canonical = casec::lower::json_style::to_master_string(
                &serde_json::from_str::<serde_json::Value>(text).expect("imported JSON parses"),
            );
            let rebuilt = Compilation::new(Config {
                sources: Sources::in_memory(files.iter().map(|(p, t)| (p.as_str(), t.as_str()))),
                depth: Depth::Resolve,
                recheck: None,
            });
            assert_eq!(rebuilt.master_json().as_deref(), Some(canonical.as_str()));
        }
        Err(diags) => {
            for d in &diags {
                assert_eq!(
                    d.code,
                    codes::MASTER_JSON,
                    "the importer failed its own round trip: {}\n{}",
                    d.message,
                    std::env::var("SHOW").map(|_| text).unwrap_or_default()
                );
            }
        }
    }
}

/// Every place of a JSON value, as a path of keys and indexes.
fn paths(value: &serde_json::Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(at.clone());
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                at.push(Step::Key(k.clone()));
                paths(v, at, out);
                at.pop();
            }
        }
        serde_json::Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                at.push(Step::Index(i));
                paths(v, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn at_path<'v>(value: &'v mut serde_json::Value, path: &[Step]) -> &'v mut serde_json::Value {
    path.iter().fold(value, |v, step| match step {
        Step::Key(k) => &mut v[k.as_str()],
        Step::Index(i) => &mut v[*i],
    })
}

fn random_json(rng: &mut Rng, depth: usize) -> serde_json::Value {
    use serde_json::json;
    match rng.below(if depth == 0 { 5 } else { 7 }) {
        0 => serde_json::Value::Null,
        1 => json!(rng.percent(50)),
        2 => match rng.below(3) {
            0 => json!(rng.next_u64() >> rng.below(64)),
            1 => json!(-(rng.below(1000) as i64)),
            _ => json!(f64::from_bits(rng.next_u64() >> 2)),
        },
        3 | 4 => json!(rng.pick(generate::AWKWARD)),
        5 => serde_json::Value::Array(
            (0..rng.below(4))
                .map(|_| random_json(rng, depth - 1))
                .collect(),
        ),
        _ => serde_json::Value::Object(
            (0..rng.below(4))
                .map(|_| {
                    (
                        rng.pick(generate::AWKWARD).to_string(),
                        random_json(rng, depth - 1),
                    )
                })
                .collect(),
        ),
    }
}

/// One structural change at a random place of a master: a value replaced, a key
/// removed, renamed or added, keys swapped, an item removed or duplicated.
fn mutate(rng: &mut Rng, master: &mut serde_json::Value) {
    let mut all = Vec::new();
    paths(master, &mut Vec::new(), &mut all);
    let path = rng.pick(&all).clone();
    let names = [
        "medication",
        "TUJ-001",
        "get_clock",
        "not a name",
        "1abc",
        "",
        "suite.case",
    ];
    let target = at_path(master, &path);
    match rng.below(6) {
        0 => *target = random_json(rng, 2),
        1 => *target = serde_json::json!(rng.pick(&names)),
        2 => {
            if let Some(map) = target.as_object_mut() {
                let keys: Vec<String> = map.keys().cloned().collect();
                if !keys.is_empty() {
                    let key = rng.pick(&keys).clone();
                    let value = map.shift_remove(&key).unwrap_or_default();
                    if rng.percent(50) {
                        map.insert(format!("{key}_renamed"), value);
                    } else if rng.percent(50) {
                        map.insert(key, value);
                    }
                }
            }
        }
        3 => {
            if let Some(map) = target.as_object_mut() {
                let mut entries: Vec<(String, serde_json::Value)> =
                    std::mem::take(map).into_iter().collect();
                if entries.len() >= 2 {
                    let (a, b) = (rng.below(entries.len()), rng.below(entries.len()));
                    entries.swap(a, b);
                }
                map.extend(entries);
            }
        }
        4 => {
            if let Some(items) = target.as_array_mut() {
                if !items.is_empty() {
                    let i = rng.below(items.len());
                    if rng.percent(50) {
                        items.remove(i);
                    } else {
                        let copy = items[i].clone();
                        items.push(copy);
                    }
                }
            }
        }
        _ => *target = serde_json::json!(rng.pick(generate::AWKWARD)),
    }
}

#[test]
fn the_importer_imports_or_explains_mutated_masters() {
    let master = generate::generate(3, 11);
    let mut rng = Rng::new(4);
    for _ in 0..400 {
        let mut mutated = master.clone();
        for _ in 0..1 + rng.below(2) {
            mutate(&mut rng, &mut mutated);
        }
        assert_imports_or_explains(&casec::lower::json_style::to_master_string(&mutated));
    }
}

#[test]
fn the_importer_explains_broken_json_text() {
    let master = generate::generate_master(2, 5);
    let mut rng = Rng::new(5);
    for _ in 0..300 {
        let bytes = random_edit(&mut rng, master.as_bytes());
        if let Ok(text) = String::from_utf8(bytes) {
            assert_imports_or_explains(&text);
        }
    }
}

#[test]
fn the_importer_explains_random_json() {
    let mut rng = Rng::new(6);
    for _ in 0..2000 {
        let value = random_json(&mut rng, 4);
        assert_imports_or_explains(&serde_json::to_string(&value).expect("serializable"));
    }
}

/// The seed master with one change.
fn seed_with(change: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut master: serde_json::Value =
        serde_json::from_str(generate::SEED_MASTER).expect("the seed parses");
    change(&mut master);
    casec::lower::json_style::to_master_string(&master)
}

/// A change to a master.
type Change = Box<dyn FnOnce(&mut serde_json::Value)>;

/// Masters the fuzzing above found the importer failing its own round trip on.
#[test]
fn the_importer_explains_what_the_language_cannot_hold() {
    use serde_json::json;
    let cases: [(&str, Change); 4] = [
        (
            "tool `send_fax` of TUJ-001 (not among the suite's tools)",
            Box::new(|m| m["cases"][0]["model_input"]["available_tools"][0] = json!("send_fax")),
        ),
        (
            "tool `pager` of TUJ-034 (not among the suite's tools)",
            Box::new(|m| {
                m["cases"][33]["harness_only"]["tool_behavior_override"]["tool"] = json!("pager")
            }),
        ),
        (
            "cases[0]: a case needs at least one required check",
            Box::new(|m| m["cases"][0]["evaluator_only"]["required_checks"] = json!([])),
        ),
        (
            "category `Suite.case` (its folder would clash with suite.case)",
            Box::new(|m| {
                m["coverage"]["Suite.case"] = json!(0);
            }),
        ),
    ];
    for (expected, change) in cases {
        let diags = import(&seed_with(change)).expect_err(expected);
        assert!(
            diags
                .iter()
                .any(|d| d.code == codes::MASTER_JSON && d.message.contains(expected)),
            "{expected}: {diags:?}"
        );
    }
}

/// JSON writes very large and very small numbers with an exponent; they import, and
/// every digit survives (serde_json's default float parsing is not exact: a master
/// holding this value once rebuilt as 3.6204013748739577e-41).
#[test]
fn numbers_round_trip_exactly() {
    let master = seed_with(|m| {
        m["design_reference"]["tiny"] = serde_json::json!(3.184155934835927e-139);
        m["design_reference"]["huge"] = serde_json::json!(1e300);
        m["design_reference"]["inexact"] = serde_json::json!(3.6204013748739587e-41);
    });
    assert!(master.contains("\"huge\": 1e+300"));
    assert!(master.contains("\"inexact\": 3.6204013748739587e-41"));
    assert_imports_or_explains(&master);
    assert!(import(&master).is_ok());
}
