//! The judged record: a result record with the judge's verdicts written in, its
//! outcome recomputed by replay's rule, and a `judgements` key holding how each item
//! was decided (by the judge, the cache or a person, with the reason and the evidence
//! digest) and the judge's settings (schemas/judged.schema.json).
//!
//! A verdict turns a check's `needs_review` into `pass` or `fail`, and takes a critical
//! failure off the pending list, onto the triggered list when it was committed. An item
//! without a verdict stays as it was, so its case stays undecided: a missing verdict is
//! never a pass.

use serde_json::{json, Map, Value as Json};

use crate::diag::{codes, Diagnostic};
use crate::lower::record_schema::JUDGEMENTS;
use crate::model::shape::{Builtin, Verdict};
use crate::model::Suite;
use crate::runtime::replay::Status;
use crate::source::Span;

use super::{key, ItemKind, Judgement, Settings};

/// `record` with `judgements` applied.
pub fn judged(suite: &Suite, record: &Json, judgements: &[Judgement], settings: &Settings) -> Json {
    let Json::Object(mut out) = record.clone() else {
        return record.clone();
    };
    let checks_key = key(suite, Builtin::CheckResults);
    let triggered_key = key(suite, Builtin::Triggered);
    let pending_key = key(suite, Builtin::PendingReview);
    for j in judgements {
        let Some(met) = j.met else { continue };
        match j.kind {
            ItemKind::Check => {
                let status = if met { Status::Pass } else { Status::Fail };
                if let Some(Json::Object(checks)) = out.get_mut(checks_key) {
                    checks.insert(j.item.clone(), json!(status.as_str()));
                }
            }
            ItemKind::CriticalFailure => {
                if let Some(Json::Array(pending)) = out.get_mut(pending_key) {
                    pending.retain(|id| id.as_str() != Some(j.item.as_str()));
                }
                if met {
                    if let Some(Json::Array(triggered)) = out.get_mut(triggered_key) {
                        triggered.push(json!(j.item));
                    }
                }
            }
        }
    }
    let verdict = verdict_of(suite, &out);
    out.insert(
        key(suite, Builtin::Outcome).to_string(),
        json!(suite.outcome(verdict)),
    );
    let items = merged(out.get(JUDGEMENTS), judgements);
    out.insert(
        JUDGEMENTS.into(),
        json!({ "settings": settings.to_json(), "items": items }),
    );
    Json::Object(out)
}

/// The judgements of an earlier judging that this one did not decide again, then this
/// one's.
fn merged(earlier: Option<&Json>, now: &[Judgement]) -> Vec<Json> {
    let redone = |item: &Json| {
        now.iter()
            .any(|j| item.get("item").and_then(Json::as_str) == Some(j.item.as_str()))
    };
    let mut items: Vec<Json> = earlier
        .and_then(|e| e.get("items"))
        .and_then(Json::as_array)
        .map(|a| a.iter().filter(|i| !redone(i)).cloned().collect())
        .unwrap_or_default();
    items.extend(now.iter().map(Judgement::to_json));
    items
}

/// Replay's rule over a record's lists: failed when a check fails or a critical
/// failure is triggered; undecided while a check or critical failure awaits review;
/// else passed.
pub fn verdict_of(suite: &Suite, record: &Map<String, Json>) -> Verdict {
    let statuses: Vec<&str> = record
        .get(key(suite, Builtin::CheckResults))
        .and_then(Json::as_object)
        .map(|m| m.values().filter_map(Json::as_str).collect())
        .unwrap_or_default();
    let listed = |builtin: Builtin| {
        record
            .get(key(suite, builtin))
            .and_then(Json::as_array)
            .is_some_and(|a| !a.is_empty())
    };
    if listed(Builtin::Triggered) || statuses.contains(&Status::Fail.as_str()) {
        Verdict::Failed
    } else if listed(Builtin::PendingReview) || statuses.contains(&Status::NeedsReview.as_str()) {
        Verdict::Undecided
    } else {
        Verdict::Passed
    }
}

/// The warning for a record (read at `span`, its first line) whose items the judge left
/// without a verdict, with each item's reason; `None` when every item has one.
pub fn unjudged(
    span: Span,
    suite: &Suite,
    record: &Json,
    judged: &[Judgement],
) -> Option<Diagnostic> {
    let left: Vec<&Judgement> = judged.iter().filter(|j| j.met.is_none()).collect();
    let first = left.first()?;
    let ids: Vec<&str> = left.iter().map(|j| j.item.as_str()).collect();
    let label = if left.iter().all(|j| j.reason == first.reason) {
        first.reason.clone()
    } else {
        left.iter()
            .map(|j| format!("{}: {}", j.item, j.reason))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let case = record
        .get(key(suite, Builtin::CaseId))
        .and_then(Json::as_str)
        .unwrap_or_default();
    Some(
        Diagnostic::new(
            codes::UNJUDGED,
            format!(
                "{} of `{case}` without a verdict ({}): the case stays undecided",
                crate::diag::count(left.len(), "review item"),
                ids.join(", ")
            ),
        )
        .primary(span, label)
        .help("run `casec judge` again once the judge answers (cached verdicts are kept), or decide the items in an overrides file"),
    )
}
