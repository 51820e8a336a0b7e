//! Aggregating result records into the suite's required reporting: outcomes overall
//! and per category with coverage, check success per dimension, critical failures,
//! tool-failure cases (cases with an override) and clarification cases (cases with a
//! scripted follow-up).
//!
//! Rates follow the suite's scoring rules: a pass rate is over every case of the suite
//! (or category), so a partial run shows its coverage beside it rather than a rate over
//! what was attempted only.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value as Json};

use crate::diag::{codes, Diagnostic};
use crate::model::{dimension_of_id, Case, Suite, DIMENSIONS};
use crate::source::{FileId, Span};

const OUTCOMES: [&str; 3] = ["PASS", "FAIL", "NOT_TESTED"];

/// One result record, as read.
#[derive(Clone, Debug)]
pub struct ResultRecord {
    pub case_id: String,
    pub outcome: String,
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
            .and_then(|json| record(&json, suite, span));
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
    Diagnostic::error(codes::RESULT_RECORD, "this is not a result record of the suite")
        .primary(span, why)
        .help("give files written by `casec replay` (or a harness) in the shape of the suite's result_record_template: case_id, outcome, checks, critical_failures_triggered")
}

fn record(json: &Json, suite: &Suite, span: Span) -> Result<ResultRecord, String> {
    let text = |key: &str| {
        json.get(key)
            .and_then(Json::as_str)
            .ok_or_else(|| format!("no string `{key}`"))
    };
    let case_id = text("case_id")?.to_string();
    if !suite.cases.iter().any(|c| c.id.as_str() == case_id) {
        return Err(format!("`{case_id}` is not a case of this suite"));
    }
    let outcome = text("outcome")?.to_string();
    if !OUTCOMES.contains(&outcome.as_str()) {
        return Err(format!(
            "outcome `{outcome}` is not one of {}",
            OUTCOMES.join(", ")
        ));
    }
    let checks = match json.get("checks") {
        Some(Json::Object(m)) => m
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
            .collect(),
        _ => return Err("no object `checks`".into()),
    };
    let critical_failures = match json.get("critical_failures_triggered") {
        Some(Json::Array(ids)) => ids
            .iter()
            .filter_map(Json::as_str)
            .map(str::to_string)
            .collect(),
        _ => return Err("no array `critical_failures_triggered`".into()),
    };
    Ok(ResultRecord {
        case_id,
        outcome,
        checks,
        critical_failures,
        span,
    })
}

/// Outcome counts over a set of cases.
#[derive(Default)]
struct Tally {
    total: usize,
    counts: BTreeMap<&'static str, usize>,
}

impl Tally {
    fn add(&mut self, outcome: Option<&str>) {
        self.total += 1;
        if let Some(o) = outcome.and_then(|o| OUTCOMES.iter().find(|k| **k == o)) {
            *self.counts.entry(o).or_default() += 1;
        }
    }

    fn to_json(&self) -> Json {
        let attempted: usize = self.counts.values().sum();
        let pass = self.counts.get("PASS").copied().unwrap_or(0);
        let rate = |n: usize, d: usize| {
            if d == 0 {
                Json::Null
            } else {
                json!((1000.0 * n as f64 / d as f64).round() / 10.0)
            }
        };
        let mut m = Map::new();
        m.insert("cases".into(), json!(self.total));
        m.insert("attempted".into(), json!(attempted));
        for outcome in OUTCOMES {
            m.insert(
                outcome.into(),
                json!(self.counts.get(outcome).copied().unwrap_or(0)),
            );
        }
        m.insert("not_run".into(), json!(self.total - attempted));
        m.insert(
            "coverage".into(),
            json!(format!("{attempted}/{}", self.total)),
        );
        m.insert("pass_rate".into(), rate(pass, self.total));
        m.insert(
            "complete".into(),
            json!(attempted == self.total && !self.counts.contains_key("NOT_TESTED")),
        );
        Json::Object(m)
    }
}

/// A second record of a case already reported (a run reports each case once).
pub fn duplicates(records: &[ResultRecord]) -> Vec<Diagnostic> {
    records
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let first = records[..i].iter().find(|e| e.case_id == r.case_id)?;
            Some(
                bad_record(r.span, format!("a second record of {}", r.case_id))
                    .secondary(first.span, "the first one"),
            )
        })
        .collect()
}

/// The required reporting over `records` (at most one per case).
pub fn report(suite: &Suite, records: &[ResultRecord]) -> Json {
    let outcome_of = |case: &Case| {
        records
            .iter()
            .find(|r| r.case_id == case.id.as_str())
            .map(|r| r.outcome.as_str())
    };
    let tally = |cases: &mut dyn Iterator<Item = &Case>| {
        let mut t = Tally::default();
        for case in cases {
            t.add(outcome_of(case));
        }
        t.to_json()
    };
    let categories: Map<String, Json> = suite
        .categories
        .iter()
        .map(|c| {
            (
                c.name.as_str().to_string(),
                tally(
                    &mut suite
                        .cases
                        .iter()
                        .filter(|k| k.category.as_str() == c.name.as_str()),
                ),
            )
        })
        .collect();
    let triggered: Vec<String> = records
        .iter()
        .flat_map(|r| {
            r.critical_failures
                .iter()
                .map(move |f| format!("{}:{f}", r.case_id))
        })
        .collect();
    json!({
        "suite": suite.name.as_str(),
        "overall": tally(&mut suite.cases.iter()),
        "categories": categories,
        "check_success": dimensions(records),
        "critical_failures": { "count": triggered.len(), "ids": triggered },
        "tool_failure_cases": tally(&mut suite.cases.iter().filter(|c| !c.overrides.is_empty())),
        "clarification_cases": tally(&mut suite.cases.iter().filter(|c| !c.followups.is_empty())),
    })
}

/// Per check dimension: how many checks passed, failed or await review.
fn dimensions(records: &[ResultRecord]) -> Json {
    let mut out = Map::new();
    for (_, dimension) in DIMENSIONS {
        let statuses = records
            .iter()
            .flat_map(|r| r.checks.iter())
            .filter(|(id, _)| dimension_of_id(id) == Some(dimension))
            .map(|(_, s)| s.as_str());
        let mut counts: BTreeMap<&str, usize> = ["pass", "fail", "needs_review"]
            .into_iter()
            .map(|s| (s, 0))
            .collect();
        for status in statuses {
            if let Some(n) = counts.get_mut(status) {
                *n += 1;
            }
        }
        out.insert(dimension.to_string(), json!(counts));
    }
    Json::Object(out)
}
