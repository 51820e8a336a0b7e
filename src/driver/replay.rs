//! `casec replay` (run one trace against a case's sandbox, print the result record) and
//! `casec verify` (replay every golden trace and the do-nothing trace of a suite).

use std::fs;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Serialize;

use crate::diag::{codes, Diagnostic};
use crate::load;
use crate::model::expect::Sandbox;
use crate::model::{Case, Suite};
use crate::runtime::commands::isolation::Isolation;
use crate::runtime::replay::{findings, play, record_text};
use crate::runtime::replay::{Findings, Miss};
use crate::runtime::trace::TraceEvent;
use crate::runtime::trace_files::{
    counter_examples, golden_path, observed, read_counter, read_counter_of, read_trace,
    unknown_cases, Found,
};
use crate::runtime::trust::Trust;
use crate::runtime::{workspace, Runtime};
use crate::source::SourceDb;
use crate::{Compilation, Sources};

use super::{output, suite_folder, trust, write_output, Format, Reporter, EXIT_ERRORS};

/// What `casec replay` was pointed at.
pub struct ReplayArgs<'a> {
    /// A `.case` file, or a case id.
    pub case: &'a str,
    pub trace: &'a Path,
    /// The suite folder; by default the nearest folder above the case file holding
    /// `suite.case`, or the current folder for a case id.
    pub suite: Option<&'a Path>,
    pub output: Option<&'a Path>,
    /// A folder of files a real run left, graded in place of the sandbox's store.
    pub workspace: Option<&'a Path>,
    /// What the user allows the suite's programs (`--trust`).
    pub trust: Trust,
    /// How workspace commands are isolated (`--unisolated-commands`).
    pub isolation: Isolation,
}

/// `casec replay CASE --trace TRACE.jsonl [SUITE] [-o FILE] [--workspace DIR] [--trust [--trust-outside]]`
pub fn replay(args: ReplayArgs, reporter: &Reporter) -> u8 {
    let case_file = Path::new(args.case);
    let is_file = args.case.ends_with(".case") || case_file.is_file();
    let suite = args.suite.map(suite_folder).unwrap_or_else(|| {
        if is_file {
            load::suite_root_of(case_file)
                .unwrap_or_else(|| load::parent_or_dot(case_file).to_path_buf())
        } else {
            PathBuf::from(".")
        }
    });
    let mut compilation = match compiled(&suite, reporter) {
        Ok(compilation) => compilation,
        Err(code) => return code,
    };
    let found = compilation.suite.as_ref().and_then(|model| {
        model
            .cases
            .iter()
            .find(|c| names_case(c, args.case, is_file, &compilation.db))
    });
    let Some(case) = found else {
        let d = Diagnostic::new(codes::IO, format!("no case `{}` in this suite", args.case))
            .at_path(load::display(&suite))
            .help("give a case id of the suite (TUJ-034) or the path of its .case file");
        return reporter.report(&SourceDb::new(), &[d], 0);
    };
    let case_id = case.id.as_str().to_string();
    if let Some(model) = compilation.suite.as_ref() {
        let case = [case];
        let earlier = &compilation.diagnostics;
        if let Err(code) =
            trust::require(&compilation.db, earlier, model, case, args.trust, reporter)
        {
            return code;
        }
    }
    let mut diagnostics = compilation.diagnostics.clone();
    // The reader of counter-examples takes every trace file `casec verify` takes (a
    // run's, a golden trace, a labelled counter-example); the labels are for a judge,
    // the record is the sandbox's.
    let events =
        read_counter(&mut compilation.db, args.trace, Found::Named).map(|(events, _labels)| events);
    if let Err(found) = &events {
        diagnostics.extend(found.iter().cloned());
    }
    let code = reporter.report_compiled(&compilation.db, &diagnostics);
    let (Ok(events), Some(model)) = (events, compilation.suite.as_ref()) else {
        return code.max(EXIT_ERRORS);
    };
    let Some((case, sandbox)) = with_sandbox(model, &case_id) else {
        let d = Diagnostic::new(codes::MISSING_FIELD, format!("case {case_id} has no world"))
            .help("add `world { … }` to the case (docs/worlds.md) so a sandbox can run it");
        return reporter.report(&SourceDb::new(), &[d], 0);
    };
    let replay = Replay {
        suite: model,
        case,
        sandbox,
        trust: args.trust,
        isolation: args.isolation.clone(),
    };
    let mut runtime = replay.run(&events);
    if let Some(root) = args.workspace {
        if let Err(error) = workspace::overlay(&mut runtime, root) {
            let d = Diagnostic::new(codes::IO, format!("cannot grade the workspace: {error}"))
                .at_path(load::display(root))
                .help("give the folder a run left, its paths under it as the checks name them (DIR/outputs/a.csv for /outputs/a.csv)");
            return reporter.report(&SourceDb::new(), &[d], 0).max(code);
        }
    }
    let text = record_text(model, &runtime);
    let inputs = (&compilation.db, &[args.trace][..]);
    write_output(
        args.output,
        inputs,
        |w| w.write_all(text.as_bytes()),
        reporter,
    )
    .max(code)
}

/// Compiles the suite; with errors, reports its diagnostics and gives the exit code
/// they call for (2 for a missing path, as every command gives). Without errors the
/// caller reports its warnings with its own findings.
fn compiled(suite: &Path, reporter: &Reporter) -> Result<Compilation, u8> {
    let compilation = Compilation::new(Sources::Folder(suite));
    if compilation.has_errors() || compilation.suite.is_none() {
        let code = reporter.report_compiled(&compilation.db, &compilation.diagnostics);
        return Err(code.max(EXIT_ERRORS));
    }
    Ok(compilation)
}

fn names_case(case: &Case, wanted: &str, is_file: bool, db: &SourceDb) -> bool {
    if !is_file {
        return case.id.as_str() == wanted;
    }
    let file = Path::new(&db.file(case.span.file).name);
    match (fs::canonicalize(file), fs::canonicalize(wanted)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn with_sandbox<'a>(suite: &'a Suite, id: &str) -> Option<(&'a Case, &'a Sandbox)> {
    let case = suite.cases.iter().find(|c| c.id.as_str() == id)?;
    Some((case, case.sandbox.as_ref()?))
}

/// What `casec verify` found for one case.
struct CaseReport {
    id: String,
    golden: Option<String>,
    /// The golden trace replayed without an error of its own (a counter-example that is
    /// not caught is the case's error, not the golden trace's).
    golden_passed: bool,
    errors: Vec<String>,
    warnings: Vec<String>,
    /// What explains a failing golden trace: the assertions that do not hold, and its
    /// failed calls.
    misses: Vec<Miss>,
    failed_calls: Vec<String>,
    counters: Vec<Counter>,
}

/// A counter-example replayed: what caught it, and the review items it is labelled
/// as violating (neither: an error).
struct Counter {
    label: String,
    fails: Vec<String>,
    triggers: Vec<String>,
    violates: Vec<String>,
}

impl Counter {
    fn caught(&self) -> bool {
        !(self.fails.is_empty() && self.triggers.is_empty())
    }
}

/// `casec verify [SUITE]`: for every case with a world, replays its golden trace (which
/// must pass every machine check and trigger no critical failure), its counter-examples
/// (each must fail a machine check or trigger a critical failure) and the empty trace
/// (a warning when it too passes every machine check). A case without a golden trace
/// is a warning, so verify is useful while traces are being written. The suite's
/// programs run as `trust` allows; a suite whose programs it does not allow is
/// refused before anything is replayed.
pub fn verify(suite: &Path, trust: Trust, isolation: Isolation, reporter: &Reporter) -> u8 {
    let suite = suite_folder(suite);
    let mut compilation = match compiled(&suite, reporter) {
        Ok(compilation) => compilation,
        Err(code) => return code,
    };
    let Some(model) = compilation.suite.take() else {
        return EXIT_ERRORS;
    };
    let earlier = &compilation.diagnostics;
    if let Err(code) = trust::require(
        &compilation.db,
        earlier,
        &model,
        &model.cases,
        trust,
        reporter,
    ) {
        return code;
    }
    let mut trace_diags = compilation.diagnostics.clone();
    let reports: Vec<CaseReport> = model
        .cases
        .iter()
        .filter_map(|case| Some((case, case.sandbox.as_ref()?)))
        .map(|(case, sandbox)| {
            let replay = Replay {
                suite: &model,
                case,
                sandbox,
                trust,
                isolation: isolation.clone(),
            };
            verify_case(&replay, &mut compilation.db, &mut trace_diags)
        })
        .collect();
    // The observed conversations are read as calibration and an export read them: a
    // file that is no trace, or a turn or label naming no case, is an error here too.
    if let Some(root) = &model.root {
        match observed(&mut compilation.db, root) {
            Ok(found) => trace_diags.extend(found.iter().flat_map(|o| unknown_cases(&model, o))),
            Err(found) => trace_diags.extend(found),
        }
    }
    let code = reporter.report_compiled(&compilation.db, &trace_diags);
    let text = match reporter.options.format {
        Format::Json => reports
            .iter()
            .map(|r| serde_json::to_string(&r.record()).unwrap_or_default() + "\n")
            .collect(),
        _ => human(&reports, model.cases.len()),
    };
    if let Err(e) = output::print(text.as_bytes()) {
        return reporter.report(&compilation.db, &[output::write_error(None, &e)], 0);
    }
    let failed = reports.iter().any(|r| !r.errors.is_empty());
    let denied = reporter.options.deny_warnings && reports.iter().any(|r| !r.warnings.is_empty());
    if failed || denied {
        code.max(EXIT_ERRORS)
    } else {
        code
    }
}

/// A case's sandbox to replay traces in, with the user's trust in the suite's programs.
struct Replay<'a> {
    suite: &'a Suite,
    case: &'a Case,
    sandbox: &'a Sandbox,
    trust: Trust,
    isolation: Isolation,
}

impl<'a> Replay<'a> {
    /// `events` replayed in a fresh sandbox of the case, whose programs run as `trust`
    /// allows and whose commands are isolated as `isolation` says.
    fn run(&self, events: &[TraceEvent]) -> Runtime<'a> {
        let runtime = Runtime::new(self.suite, self.case, self.sandbox)
            .trusting(self.trust)
            .isolating(self.isolation.clone());
        play(runtime, events)
    }
}

fn verify_case(replay: &Replay, db: &mut SourceDb, diags: &mut Vec<Diagnostic>) -> CaseReport {
    let case = replay.case;
    let mut out = CaseReport {
        id: case.id.as_str().to_string(),
        golden: None,
        golden_passed: false,
        errors: Vec::new(),
        warnings: Vec::new(),
        misses: Vec::new(),
        failed_calls: Vec::new(),
        counters: Vec::new(),
    };
    let empty = replay.run(&[]);
    if findings(&empty).machine_failures().is_empty() {
        out.warnings.push("the do-nothing trace already passes every machine check: the case does not discriminate by state".into());
    }
    let case_file = PathBuf::from(&db.file(case.span.file).name);
    let path = golden_path(&case_file, case.id.as_str());
    if path.is_file() {
        verify_golden(replay, (&path, &case_file), db, diags, &mut out);
    } else {
        out.warnings
            .push(format!("no golden trace ({})", load::display(&path)));
    }
    verify_counters(replay, &case_file, db, diags, &mut out);
    out
}

/// Replays the golden trace at `path`, beside `case_file`: it must fail no machine
/// check and trigger no critical failure.
fn verify_golden(
    replay: &Replay,
    (path, case_file): (&Path, &Path),
    db: &mut SourceDb,
    diags: &mut Vec<Diagnostic>,
    out: &mut CaseReport,
) {
    let events = match read_trace(db, path, Found::BesideCase(case_file)) {
        Ok(events) => events,
        Err(found) => {
            diags.extend(found);
            out.errors.push("the golden trace does not parse".into());
            return;
        }
    };
    let rt = replay.run(&events);
    let decided = findings(&rt);
    out.golden = Some(decided.outcome(replay.suite).to_string());
    let failures = decided.machine_failures();
    if !failures.is_empty() {
        out.errors.push(format!(
            "the golden trace fails machine checks: {}",
            failures.join(", ")
        ));
        out.misses.extend(decided.misses.iter().cloned());
        out.failed_calls.extend(failed_calls(&rt));
    }
    if !decided.triggered.is_empty() {
        out.errors.push(format!(
            "the golden trace triggers critical failures: {}",
            decided.triggered.join(", ")
        ));
    }
    // What a competent assistant does never calls a tool the case does not offer or
    // with arguments its contract refuses, whatever the checks say.
    let refused: Vec<String> = rt
        .events
        .iter()
        .filter_map(|event| match event {
            crate::runtime::Event::Call(call)
                if REFUSED_CALLS.contains(&call.error.as_deref().unwrap_or_default()) =>
            {
                Some(format!(
                    "`{}` ({})",
                    call.tool,
                    call.error.as_deref().unwrap_or_default()
                ))
            }
            _ => None,
        })
        .collect();
    if !refused.is_empty() {
        out.errors.push(format!(
            "the golden trace makes calls the case refuses: {}",
            refused.join(", ")
        ));
        if out.failed_calls.is_empty() {
            out.failed_calls.extend(failed_calls(&rt));
        }
    }
    out.golden_passed = failures.is_empty() && decided.triggered.is_empty() && refused.is_empty();
}

/// The errors of a call the tool's contract refuses before anything runs.
const REFUSED_CALLS: &[&str] = &[
    "UNKNOWN_TOOL",
    "UNKNOWN_ARGUMENT",
    "MISSING_ARGUMENT",
    "INVALID_ARGUMENT",
];

/// Replays each counter-example trace beside the case file: each must be caught (fail
/// a machine check or trigger a critical failure) or labelled with the review items it
/// violates, golden trace or not; a label must name items of the case, and a machine
/// decides must agree with it.
fn verify_counters(
    replay: &Replay,
    case_file: &Path,
    db: &mut SourceDb,
    diags: &mut Vec<Diagnostic>,
    out: &mut CaseReport,
) {
    let (suite, case) = (replay.suite, replay.case);
    for (label, path) in counter_examples(case_file, case.id.as_str()) {
        let (events, labels) = match read_counter_of(db, &path, case_file, case.id.as_str()) {
            Ok(read) => read,
            Err(found) => {
                diags.extend(found);
                out.errors
                    .push(format!("the counter-example `{label}` does not parse"));
                continue;
            }
        };
        let decided = findings(&replay.run(&events));
        let counter = Counter {
            label,
            fails: decided
                .machine_failures()
                .into_iter()
                .map(str::to_string)
                .collect(),
            triggers: decided.triggered.clone(),
            violates: labels.iter().flat_map(|l| l.items.clone()).collect(),
        };
        out.errors
            .extend(label_errors(suite, case, &decided, &counter));
        if !counter.caught() && counter.violates.is_empty() {
            out.errors.push(format!(
                "the counter-example `{}` is not caught: it passes every machine check and triggers no critical failure (label the review items it violates with a `violates` line if a reader must catch it)",
                counter.label
            ));
        }
        out.counters.push(counter);
    }
}

/// What is wrong with a counter-example's labels: an id that is no check or critical
/// failure of the case, or one a machine decides otherwise (a labelled check that its
/// assertions pass, a labelled critical failure its `forbid` does not trigger).
fn label_errors(suite: &Suite, case: &Case, decided: &Findings, counter: &Counter) -> Vec<String> {
    let mut errors = Vec::new();
    let criticals = suite.criticals(case);
    for id in &counter.violates {
        let check = decided.checks.iter().find(|(c, _)| c == id);
        let critical = criticals.iter().find(|c| &c.id == id);
        let disagrees = match (check, critical) {
            (Some((_, status)), _) => *status == crate::runtime::replay::Status::Pass,
            (None, Some(c)) => {
                let machine = case.sandbox.as_ref().is_some_and(|s| {
                    s.decided(&c.id, c.global) == crate::model::expect::Decided::Machine
                });
                machine && !decided.triggered.contains(id)
            }
            (None, None) => {
                errors.push(format!(
                    "the counter-example `{}` is labelled as violating `{id}`, which is no check or critical failure of the case",
                    counter.label
                ));
                continue;
            }
        };
        if disagrees {
            errors.push(format!(
                "the counter-example `{}` is labelled as violating `{id}`, but the machine decides it is not violated",
                counter.label
            ));
        }
    }
    errors
}

/// The calls of a run that failed, each with its event number (its line in the trace,
/// blank lines aside) and error: what most often explains a check that does not hold
/// (a check counting calls counts the ones that succeeded unless it says `any`). A
/// failed command says its exit code and the last line of its error output; a request
/// a command's program made is told as the command's, not as a line of the trace.
fn failed_calls(rt: &crate::runtime::Runtime) -> Vec<String> {
    let mut line = 0;
    let mut notes = Vec::new();
    for event in &rt.events {
        let crate::runtime::Event::Call(call) = event else {
            line += 1;
            continue;
        };
        if call.by_command.is_none() {
            line += 1;
        }
        if !call.failed {
            continue;
        }
        let error = call.error.as_deref().unwrap_or("an error");
        let by = if call.intercepted {
            " (the case's override)"
        } else {
            ""
        };
        let what = match &call.by_command {
            Some(_) => format!(
                "event {line}: a request of the command, `{}`, failed with {error}",
                call.arguments
                    .as_object()
                    .and_then(|a| a.values().next())
                    .and_then(|u| u.as_str())
                    .unwrap_or_default()
            ),
            None => format!("event {line}: `{}` failed with {error}{by}", call.tool),
        };
        let output = call.output.as_deref().map(|output| {
            let stderr = output["stderr"].as_str().unwrap_or_default();
            let last = stderr
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or_default();
            match (&output["exit_code"], last) {
                (code, "") => format!(" (exit code {code})"),
                (code, last) => format!(" (exit code {code}: {last})"),
            }
        });
        notes.push(what + &output.unwrap_or_default());
    }
    notes
}

/// One line of `casec verify --format json`, one per case in case order: what replaying
/// its golden trace, its counter-examples and the do-nothing trace showed. Its contract
/// is `schemas/verify.schema.json`, which the derived schema is held to
/// (`tests/record_schemas.rs`).
#[derive(Serialize, JsonSchema)]
pub struct VerifyRecord<'a> {
    pub case_id: &'a str,
    /// The outcome the golden trace reaches, or null (no golden trace, or it does not
    /// parse).
    pub golden_outcome: Option<&'a str>,
    /// Why the case does not verify; empty when it verifies.
    pub errors: &'a [String],
    /// What verifies but deserves a look.
    pub warnings: &'a [String],
    /// When the golden trace fails: the assertions of its failed machine checks that
    /// do not hold.
    pub failed_assertions: &'a [Miss],
    /// When the golden trace fails: its calls that failed.
    pub failed_calls: &'a [String],
    /// Each counter-example beside the case, in label order.
    pub counter_examples: Vec<CounterExampleRecord<'a>>,
}

/// A counter-example replayed.
#[derive(Serialize, JsonSchema)]
pub struct CounterExampleRecord<'a> {
    pub label: &'a str,
    /// It fails a machine check or triggers a critical failure.
    pub caught: bool,
    pub fails: &'a [String],
    pub triggers: &'a [String],
    /// The review items its `violates` labels name.
    pub violates: &'a [String],
}

impl CaseReport {
    fn record(&self) -> VerifyRecord<'_> {
        VerifyRecord {
            case_id: &self.id,
            golden_outcome: self.golden.as_deref(),
            errors: &self.errors,
            warnings: &self.warnings,
            failed_assertions: &self.misses,
            failed_calls: &self.failed_calls,
            counter_examples: self
                .counters
                .iter()
                .map(|c| CounterExampleRecord {
                    label: &c.label,
                    caught: c.caught(),
                    fails: &c.fails,
                    triggers: &c.triggers,
                    violates: &c.violates,
                })
                .collect(),
        }
    }
}

fn human(reports: &[CaseReport], cases: usize) -> String {
    let mut out = String::new();
    for r in reports {
        let golden = r.golden.as_deref().unwrap_or("-");
        let verdict = if r.errors.is_empty() { "ok" } else { "ERROR" };
        out.push_str(&format!("{:<10} golden {:<10} {verdict}\n", r.id, golden));
        for e in &r.errors {
            out.push_str(&format!("  error: {e}\n"));
        }
        for m in &r.misses {
            out.push_str(&format!("  note: {}\n", m.line()));
        }
        for n in &r.failed_calls {
            out.push_str(&format!("  note: {n}\n"));
        }
        for c in &r.counters {
            let mut by = Vec::new();
            if !c.fails.is_empty() {
                by.push(format!("fails {}", c.fails.join(", ")));
            }
            if !c.triggers.is_empty() {
                by.push(format!("triggers {}", c.triggers.join(", ")));
            }
            let caught = match (c.caught(), c.violates.is_empty()) {
                (true, _) => format!("caught ({})", by.join("; ")),
                (false, false) => "left to the judge".to_string(),
                (false, true) => continue,
            };
            let labelled = if c.violates.is_empty() {
                String::new()
            } else {
                format!(", labelled violating {}", c.violates.join(", "))
            };
            out.push_str(&format!(
                "  counter-example {}: {caught}{labelled}\n",
                c.label
            ));
        }
        for w in &r.warnings {
            out.push_str(&format!("  warning: {w}\n"));
        }
    }
    let count = |f: &dyn Fn(&CaseReport) -> bool| reports.iter().filter(|r| f(r)).count();
    out.push_str(&format!(
        "casec verify: {} of {cases} case(s) have a world; {} golden trace(s) pass, {} counter-example(s) caught, {} case(s) with errors, {} without a golden trace, {} not discriminating by state\n",
        reports.len(),
        count(&|r| r.golden_passed),
        reports
            .iter()
            .flat_map(|r| &r.counters)
            .filter(|c| c.caught())
            .count(),
        count(&|r| !r.errors.is_empty()),
        count(&|r| r.golden.is_none() && r.errors.is_empty()),
        count(&|r| r.warnings.iter().any(|w| w.starts_with("the do-nothing"))),
    ));
    out
}
