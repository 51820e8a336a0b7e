//! Aggregating result records into the suite's required reporting: outcomes overall
//! and per category with coverage, then each `report` line of the suite with what its
//! aggregation computes (outcomes, outcomes of the cases with a tag, check results of
//! a dimension, critical failures).
//!
//! Records are read by the keys of the shape's `layout result` (the keys that hold the
//! case id, the outcome, the check results and the triggered critical failures), and
//! outcomes are the suite's names for the verdicts. Rates follow Tujora-style scoring:
//! a pass rate is over every case of the suite (or category), so a partial run shows
//! its coverage beside it rather than a rate over what was attempted only.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Map, Value as Json};
use strum::VariantArray;

use crate::diag::{codes, Diagnostic};
use crate::model::shape::{Builtin, Verdict};
use crate::model::{Aggregation, Case, Suite};
use crate::source::{FileId, SourceDb, Span};

use super::replay::Status;

/// One result record, as read.
#[derive(Clone, Debug)]
pub struct ResultRecord {
    pub case_id: String,
    pub verdict: Verdict,
    /// Check id → `pass`, `fail` or `needs_review`.
    pub checks: Vec<(String, String)>,
    pub critical_failures: Vec<String>,
    /// Where the record was read.
    pub span: Span,
}

/// Reads the result records of one file: one JSON object, or several in a row (JSON
/// Lines). Every record must name a case of the suite once, with a known outcome.
pub fn read_records(
    file: FileId,
    text: &str,
    suite: &Suite,
) -> Result<Vec<ResultRecord>, Vec<Diagnostic>> {
    read_record_values(file, text, suite).map(|read| read.into_iter().map(|(r, _)| r).collect())
}

/// [`read_records`], each record with its JSON value (for a reader that rewrites it).
pub fn read_record_values(
    file: FileId,
    text: &str,
    suite: &Suite,
) -> Result<Vec<(ResultRecord, Json)>, Vec<Diagnostic>> {
    let keys = RecordKeys::of(suite);
    let mut records = Vec::new();
    let mut diags = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Json>();
    loop {
        let start = stream.byte_offset();
        let Some(next) = stream.next() else {
            break;
        };
        let span = Span::new(file, skip_space(text, start)..stream.byte_offset());
        let read = next
            .map_err(|e| format!("not JSON: {e}"))
            .and_then(|json| Ok((record(&json, &keys, suite, span)?, json)));
        match read {
            Ok(r) => records.push(r),
            Err(why) => {
                diags.push(bad_record(span, why));
                // After a syntax error the stream cannot resume.
                if stream.byte_offset() == start {
                    break;
                }
            }
        }
    }
    if diags.is_empty() {
        Ok(records)
    } else {
        Err(diags)
    }
}

fn skip_space(text: &str, from: usize) -> usize {
    from + text[from..].len() - text[from..].trim_start().len()
}

fn bad_record(span: Span, why: String) -> Diagnostic {
    Diagnostic::new(codes::RESULT_RECORD, "this is not a result record of the suite")
        .primary(span, why)
        .help("give files written by `casec replay` or `casec serve` (or a harness) in the shape of the suite's result records")
}

/// The keys of a result record that `casec report` reads, from the shape's `layout
/// result` (its reader requires them).
struct RecordKeys<'a> {
    case_id: &'a str,
    outcome: &'a str,
    checks: &'a str,
    triggered: &'a str,
}

impl<'a> RecordKeys<'a> {
    fn of(suite: &'a Suite) -> RecordKeys<'a> {
        let key = |b: Builtin| suite.shape.result.key_of(b).unwrap_or(b.as_str());
        RecordKeys {
            case_id: key(Builtin::CaseId),
            outcome: key(Builtin::Outcome),
            checks: key(Builtin::CheckResults),
            triggered: key(Builtin::Triggered),
        }
    }
}

fn record(
    json: &Json,
    keys: &RecordKeys,
    suite: &Suite,
    span: Span,
) -> Result<ResultRecord, String> {
    let text = |key: &str| {
        json.get(key)
            .and_then(Json::as_str)
            .ok_or_else(|| format!("no string `{key}`"))
    };
    let case_id = text(keys.case_id)?.to_string();
    if !suite.cases.iter().any(|c| c.id.as_str() == case_id) {
        return Err(format!("`{case_id}` is not a case of this suite"));
    }
    let outcome = text(keys.outcome)?;
    let Some(verdict) = verdict_named(suite, outcome) else {
        return Err(format!(
            "outcome `{outcome}` is not one of {}",
            suite.outcome_names().join(", ")
        ));
    };
    let checks = match json.get(keys.checks) {
        Some(Json::Object(m)) => m
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
            .collect(),
        _ => return Err(format!("no object `{}`", keys.checks)),
    };
    let critical_failures = match json.get(keys.triggered) {
        Some(Json::Array(ids)) => ids
            .iter()
            .filter_map(Json::as_str)
            .map(str::to_string)
            .collect(),
        _ => return Err(format!("no array `{}`", keys.triggered)),
    };
    Ok(ResultRecord {
        case_id,
        verdict,
        checks,
        critical_failures,
        span,
    })
}

/// The verdict the suite calls `name`.
fn verdict_named(suite: &Suite, name: &str) -> Option<Verdict> {
    Verdict::VARIANTS
        .iter()
        .copied()
        .find(|v| suite.outcome(*v) == name)
}

/// Outcome counts over a set of cases.
#[derive(Default)]
struct Tally {
    total: usize,
    counts: [usize; 3],
}

fn slot(verdict: Verdict) -> usize {
    Verdict::VARIANTS
        .iter()
        .position(|v| *v == verdict)
        .unwrap_or(0)
}

impl Tally {
    fn add(&mut self, verdict: Option<Verdict>) {
        self.total += 1;
        if let Some(v) = verdict {
            self.counts[slot(v)] += 1;
        }
    }

    fn record(&self, suite: &Suite) -> TallyRecord {
        let attempted: usize = self.counts.iter().sum();
        let passed = self.counts[slot(Verdict::Passed)];
        let undecided = self.counts[slot(Verdict::Undecided)];
        TallyRecord {
            cases: self.total,
            attempted,
            by_outcome: Verdict::VARIANTS
                .iter()
                .map(|&verdict| {
                    (
                        suite.outcome(verdict).into(),
                        json!(self.counts[slot(verdict)]),
                    )
                })
                .collect(),
            not_run: self.total - attempted,
            coverage: format!("{attempted}/{}", self.total),
            pass_rate: (self.total > 0)
                .then(|| (1000.0 * passed as f64 / self.total as f64).round() / 10.0),
            complete: attempted == self.total && undecided == 0,
        }
    }
}

/// What `casec report` writes (`schemas/report.schema.json`, which the derived schema
/// is held to): the suite's outcomes overall and per category, and its required
/// reporting lines.
#[derive(Serialize, JsonSchema)]
pub struct ReportRecord<'a> {
    /// The suite's name.
    pub suite: &'a str,
    /// The suite's outcome names, in its order; each is a key of every tally.
    pub outcomes: Vec<&'a str>,
    pub overall: TallyRecord,
    /// A tally per category of the suite, by category name, in the suite's order.
    #[schemars(with = "BTreeMap<String, TallyRecord>")]
    pub categories: Map<String, Json>,
    /// One entry per `report` line of the suite, in order.
    pub required_reporting: Vec<ReportLine<'a>>,
}

/// Cases counted by outcome (one key per outcome name), with coverage.
#[derive(Serialize, JsonSchema)]
pub struct TallyRecord {
    pub cases: usize,
    pub attempted: usize,
    /// The count of each outcome, by the suite's name for it.
    #[serde(flatten)]
    #[schemars(with = "BTreeMap<String, usize>")]
    pub by_outcome: Map<String, Json>,
    pub not_run: usize,
    pub coverage: String,
    /// The percentage of the counted cases that passed, to one decimal; null when there
    /// are none.
    pub pass_rate: Option<f64>,
    pub complete: bool,
}

/// A `report` line of the suite: its text, and the figures its aggregation gives.
#[derive(Serialize, JsonSchema)]
pub struct ReportLine<'a> {
    pub line: &'a str,
    // Each of the rest is there for its aggregation only (absent, never null).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "TallyRecord")]
    pub overall: Option<TallyRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "BTreeMap<String, TallyRecord>")]
    pub categories: Option<Map<String, Json>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub tag: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "TallyRecord")]
    pub outcomes: Option<TallyRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub dimension: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "CheckCounts")]
    pub checks: Option<CheckCounts>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Triggered")]
    pub critical_failures: Option<Triggered>,
}

/// How many checks of a dimension passed, failed or await review.
#[derive(Default, Serialize, JsonSchema)]
pub struct CheckCounts {
    pub pass: usize,
    pub fail: usize,
    pub needs_review: usize,
}

/// The critical failures triggered: their number and their ids (`CASE:F1`).
#[derive(Serialize, JsonSchema)]
pub struct Triggered {
    pub count: usize,
    pub ids: Vec<String>,
}

/// The records of each case given more than one (a run reports each case once), in
/// the order the cases were first read.
fn repeated(records: &[ResultRecord]) -> Vec<(&str, Vec<&ResultRecord>)> {
    let mut seen: Vec<(&str, Vec<&ResultRecord>)> = Vec::new();
    for r in records {
        match seen.iter_mut().find(|(id, _)| *id == r.case_id) {
            Some((_, copies)) => copies.push(r),
            None => seen.push((r.case_id.as_str(), vec![r])),
        }
    }
    seen.retain(|(_, copies)| copies.len() > 1);
    seen
}

fn repeated_help(id: &str) -> String {
    format!("each case is reported once, and a second record of {id} would count it twice: keep one record per case (report another run of it separately)")
}

/// Cases given more than one record, for a reader without the records' sources at
/// hand: one error per case, at the start of its last record (no record is quoted).
/// [`duplicates_in`] names the files.
pub fn duplicates(records: &[ResultRecord]) -> Vec<Diagnostic> {
    repeated(records)
        .into_iter()
        .map(|(id, copies)| {
            let last = copies[copies.len() - 1].span;
            let at = Span::new(last.file, last.start as usize..last.start as usize);
            Diagnostic::new(
                codes::RESULT_RECORD,
                format!("{} result records for case {id}", count_word(copies.len())),
            )
            .primary(at, format!("another record of {id}"))
            .help(repeated_help(id))
        })
        .collect()
}

/// Cases given more than one record (a run reports each case once): one error per
/// case, naming the files (and lines) its records were read from in `db`. No record
/// is quoted: a record is long, and where the copies are is what needs fixing.
pub fn duplicates_in(records: &[ResultRecord], db: &SourceDb) -> Vec<Diagnostic> {
    repeated(records)
        .into_iter()
        .map(|(id, copies)| {
            let name = |r: &ResultRecord| db.file(r.span.file).name.as_str();
            let line = |r: &ResultRecord| db.line_col(r.span.file, r.span.start as usize).line;
            // The files in the order their first copy was read, each with its lines.
            let mut files: Vec<(&str, Vec<usize>)> = Vec::new();
            for r in &copies {
                match files.iter_mut().find(|(f, _)| *f == name(r)) {
                    Some((_, lines)) => lines.push(line(r)),
                    None => files.push((name(r), vec![line(r)])),
                }
            }
            let place = match files.as_slice() {
                [(file, at)] => format!("file {file}, lines {}", line_list(at)),
                _ if files.iter().all(|(_, at)| at.len() == 1) => {
                    let names: Vec<String> = files.iter().map(|(f, _)| f.to_string()).collect();
                    format!("files {}", and_list(&names))
                }
                _ => {
                    let each: Vec<String> = files
                        .iter()
                        .map(|(file, at)| match at.as_slice() {
                            [line] => format!("{file}, line {line}"),
                            _ => format!("{file}, lines {}", line_list(at)),
                        })
                        .collect();
                    format!("files {}", each.join("; "))
                }
            };
            let last = copies.last().map_or("", |r| name(r));
            Diagnostic::new(
                codes::RESULT_RECORD,
                format!(
                    "{} result records for case {id} ({place})",
                    count_word(copies.len())
                ),
            )
            .at_path(last)
            .help(repeated_help(id))
        })
        .collect()
}

/// Line numbers in order, runs of three or more as a range: `1 and 4`, `2–9 and 12`.
fn line_list(lines: &[usize]) -> String {
    let mut sorted = lines.to_vec();
    sorted.sort_unstable();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for line in sorted {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == line => *end = line,
            _ => runs.push((line, line)),
        }
    }
    let parts: Vec<String> = runs
        .into_iter()
        .flat_map(|(start, end)| match end - start {
            0 => vec![start.to_string()],
            1 => vec![start.to_string(), end.to_string()],
            _ => vec![format!("{start}–{end}")],
        })
        .collect();
    and_list(&parts)
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn count_word(n: usize) -> String {
    match n {
        2 => "two".into(),
        3 => "three".into(),
        4 => "four".into(),
        n => n.to_string(),
    }
}

/// The required reporting over `records` (at most one per case).
pub fn report(suite: &Suite, records: &[ResultRecord]) -> Json {
    serde_json::to_value(report_record(suite, records)).unwrap_or_default()
}

/// [`report`] as its record.
pub fn report_record<'a>(suite: &'a Suite, records: &[ResultRecord]) -> ReportRecord<'a> {
    let verdicts: BTreeMap<&str, Verdict> = records
        .iter()
        .map(|r| (r.case_id.as_str(), r.verdict))
        .collect();
    let tally = |cases: &mut dyn Iterator<Item = &Case>| {
        let mut t = Tally::default();
        for case in cases {
            t.add(verdicts.get(case.id.as_str()).copied());
        }
        t.record(suite)
    };
    let categories: Map<String, Json> = suite
        .categories
        .iter()
        .map(|c| {
            let of = |k: &&Case| {
                k.category
                    .as_ref()
                    .is_some_and(|n| n.as_str() == c.name.as_str())
            };
            let tally = tally(&mut suite.cases.iter().filter(of));
            (
                c.name.as_str().to_string(),
                serde_json::to_value(tally).unwrap_or_default(),
            )
        })
        .collect();
    let required_reporting = suite
        .reports
        .iter()
        .map(|line| {
            let mut out = ReportLine {
                line: line.text.as_str(),
                overall: None,
                categories: None,
                tag: None,
                outcomes: None,
                dimension: None,
                checks: None,
                critical_failures: None,
            };
            match &line.aggregation {
                Some(Aggregation::Outcomes) => {
                    out.overall = Some(tally(&mut suite.cases.iter()));
                    out.categories = Some(categories.clone());
                }
                Some(Aggregation::OutcomesTagged(tag)) => {
                    let tagged = |c: &&Case| c.tags.iter().any(|t| t.as_str() == tag.as_str());
                    out.tag = Some(tag.as_str());
                    out.outcomes = Some(tally(&mut suite.cases.iter().filter(tagged)));
                }
                Some(Aggregation::Checks(dimension)) => {
                    out.dimension = Some(dimension.as_str());
                    out.checks = Some(check_results(suite, records, dimension.as_str()));
                }
                Some(Aggregation::CriticalFailures) => {
                    out.critical_failures = Some(triggered(records));
                }
                None => {}
            }
            out
        })
        .collect();
    ReportRecord {
        suite: suite.name.as_str(),
        outcomes: suite.outcome_names(),
        overall: tally(&mut suite.cases.iter()),
        categories,
        required_reporting,
    }
}

/// The critical failures triggered: `count` and `ids` (`CASE:F1`).
fn triggered(records: &[ResultRecord]) -> Triggered {
    let ids: Vec<String> = triggered_failures(records)
        .map(|(case, f)| format!("{case}:{f}"))
        .collect();
    Triggered {
        count: ids.len(),
        ids,
    }
}

/// Each critical failure triggered, as (case id, failure id), in record order: what
/// the report's `critical_failures` lists.
pub fn triggered_failures(records: &[ResultRecord]) -> impl Iterator<Item = (&str, &str)> {
    records.iter().flat_map(|r| {
        r.critical_failures
            .iter()
            .map(move |f| (r.case_id.as_str(), f.as_str()))
    })
}

/// Every dimension of the suite's grading, in its order, with what `checks DIMENSION`
/// computes for it (`pass`, `fail`, `needs_review` over the records' checks).
pub fn dimensions(suite: &Suite, records: &[ResultRecord]) -> Vec<(String, CheckCounts)> {
    suite
        .shape
        .grading
        .dimensions
        .iter()
        .map(|d| {
            let name = d.name.as_str();
            (name.to_string(), check_results(suite, records, name))
        })
        .collect()
}

/// How many checks of a dimension passed, failed or await review.
fn check_results(suite: &Suite, records: &[ResultRecord], dimension: &str) -> CheckCounts {
    let grading = &suite.shape.grading;
    let mut counts = CheckCounts::default();
    let statuses = records
        .iter()
        .flat_map(|r| r.checks.iter())
        .filter(|(id, _)| {
            grading
                .dimension_of_id(id)
                .is_some_and(|d| d.name.as_str() == dimension)
        })
        .filter_map(|(_, s)| Status::VARIANTS.iter().find(|v| v.as_str() == s));
    for status in statuses {
        match status {
            Status::Pass => counts.pass += 1,
            Status::Fail => counts.fail += 1,
            Status::NeedsReview => counts.needs_review += 1,
        }
    }
    counts
}
