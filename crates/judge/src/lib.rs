//! The judge: one verdict per review item of a result record, from a language model
//! over an OpenAI-compatible endpoint, a cache, or a person.
//!
//! A run leaves some items for a reader: checks whose status is `needs_review` and
//! critical failures pending review. For each, [`prompt`] builds one request,
//! deterministically, from the item's text, the case's hidden context (its harness and
//! evaluator texts) and the evidence the shape's `judged_on` gives the item's dimension
//! (reply, trace, final state). [`verdict`] reads the answer and fails closed: a missing, unparsable or
//! contradictory verdict leaves the item for review, with the reason, never a pass.
//! [`overrides`] (a person's verdicts) take precedence over the [`cache`], which takes
//! precedence over the [`endpoint`]. [`record`] writes the verdicts into the record and
//! recomputes its outcome with replay's rule; [`calibrate`] measures a judge against
//! the suite's labelled runs, and its report can gate the judge to the items it agrees
//! on. Nothing here knows a suite's item ids or record keys:
//! they come from the shape.

// Module headers link to the private items of their crate: they are read by
// contributors, with `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

// The layers below, under the names the modules of this crate use for them.
use casec_base::{diag, source, temp_files};
use casec_load as load;
use casec_lower as lower;
use casec_model as model;
use casec_runtime as runtime;

pub mod cache;
pub mod calibrate;
pub mod endpoint;
pub mod overrides;
pub mod prompt;
pub mod record;
pub mod verdict;

use serde_json::{json, Value as Json};
use strum::{EnumString, IntoStaticStr};

use crate::model::shape::{Builtin, Evidence};
use crate::model::{Case, Suite};
use crate::runtime::replay::Status;

/// A check or a critical failure, the two kinds of item a reader decides; named
/// `check` and `critical_failure` in verdict files and caches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, EnumString)]
#[strum(serialize_all = "snake_case")]
pub enum ItemKind {
    Check,
    CriticalFailure,
}

impl ItemKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The kind named `name` (`check`, `critical_failure`).
    pub fn named(name: &str) -> Option<ItemKind> {
        name.parse().ok()
    }
}

/// One item a reader must decide for one run.
#[derive(Clone, Debug)]
pub struct Item<'a> {
    pub kind: ItemKind,
    pub id: String,
    /// The requirement, or what the critical failure forbids.
    pub text: &'a str,
    /// A check's dimension.
    pub dimension: Option<&'a str>,
    /// A check's own evidence note (Tujora's "assistant response and decision path").
    pub note: Option<&'a str>,
    /// What the judge reads: the shape's `judged_on`, else what the result layout holds.
    pub evidence: Vec<Evidence>,
}

/// The items of `record` (a result record of `case`) left for review: its checks whose
/// status is `needs_review`, then the critical failures it lists as pending review, in
/// the case's order.
pub fn review_items<'a>(suite: &'a Suite, case: &'a Case, record: &Json) -> Vec<Item<'a>> {
    let statuses = record.get(key(suite, Builtin::CheckResults));
    let pending = ids(record.get(key(suite, Builtin::PendingReview)));
    let checks = case.checks.iter().filter(|c| {
        statuses
            .and_then(|s| s.get(c.id.as_str()))
            .and_then(Json::as_str)
            == Some(Status::NeedsReview.as_str())
    });
    let mut items: Vec<Item> = checks
        .map(|c| Item {
            kind: ItemKind::Check,
            id: c.id.as_str().to_string(),
            text: c.requirement.as_str(),
            dimension: Some(c.dimension.as_str()),
            note: c.evidence.as_ref().map(|e| e.as_str()),
            evidence: suite.shape.evidence_of(Some(c.dimension.as_str())),
        })
        .collect();
    items.extend(
        suite
            .criticals(case)
            .into_iter()
            .filter(|c| pending.contains(&c.id.as_str()))
            .map(|c| Item {
                kind: ItemKind::CriticalFailure,
                id: c.id,
                text: c.text.as_str(),
                dimension: None,
                note: None,
                evidence: suite.shape.evidence_of(None),
            }),
    );
    items
}

/// The key of a record that holds `builtin`, as the shape's result layout names it.
pub fn key(suite: &Suite, builtin: Builtin) -> &str {
    suite
        .shape
        .result
        .key_of(builtin)
        .unwrap_or(builtin.as_str())
}

/// The strings of a JSON list (none when it is not one).
fn ids(value: Option<&Json>) -> Vec<&str> {
    value
        .and_then(Json::as_array)
        .map(|a| a.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default()
}

/// How a judge is asked: recorded in every judged record and part of every cache key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The judge model, as the endpoint names it.
    pub model: String,
    pub seed: u64,
}

impl Settings {
    pub fn to_json(&self) -> Json {
        json!({
            "model": self.model,
            "prompt_version": prompt::PROMPT_VERSION,
            "temperature": 0,
            "seed": self.seed,
        })
    }
}

/// Where a verdict came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerdictSource {
    /// The endpoint answered it in this run.
    Judge,
    /// The cache held the endpoint's earlier answer to the same request.
    Cache,
    /// A person's override.
    Human { author: String },
}

/// What was decided for one item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judgement {
    pub kind: ItemKind,
    pub item: String,
    /// `Some(true)`: the check is met, or the critical failure was committed. `None`:
    /// no verdict (the item stays for review).
    pub met: Option<bool>,
    /// The verdict's reason, or why there is none.
    pub reason: String,
    /// `None` when there is no verdict.
    pub source: Option<VerdictSource>,
    /// The digest of the evidence the item was judged on.
    pub evidence_digest: String,
}

impl Judgement {
    pub fn to_json(&self) -> Json {
        let mut out = json!({
            "kind": self.kind.as_str(),
            "item": self.item,
            "met": self.met,
            "reason": self.reason,
            "source": match &self.source {
                None => Json::Null,
                Some(VerdictSource::Judge) => json!("judge"),
                Some(VerdictSource::Cache) => json!("cache"),
                Some(VerdictSource::Human { .. }) => json!("human"),
            },
            "evidence_digest": self.evidence_digest,
        });
        if let (Some(VerdictSource::Human { author }), Json::Object(map)) = (&self.source, &mut out)
        {
            map.insert("author".into(), json!(author));
        }
        out
    }
}

/// Everything that answers review items, in order of precedence: a person's
/// overrides, then the cache, then the endpoint.
pub struct Judge<'a> {
    pub settings: Settings,
    pub endpoint: &'a dyn endpoint::Complete,
    pub cache: Option<&'a cache::Cache>,
    pub overrides: &'a overrides::Overrides,
}

/// How much of why an item has no verdict is kept, in characters.
const MAX_FAILURE_CHARS: usize = 500;

/// What answering one item cost: whether a request went to the endpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub requests: usize,
    pub cached: usize,
    pub human: usize,
    pub unjudged: usize,
}

impl Tally {
    pub fn add(&mut self, other: Tally) {
        self.requests += other.requests;
        self.cached += other.cached;
        self.human += other.human;
        self.unjudged += other.unjudged;
    }
}

impl Judge<'_> {
    /// The judgement of one item of `record`, and what it cost.
    pub fn judge(
        &self,
        suite: &Suite,
        case: &Case,
        item: &Item,
        record: &Json,
    ) -> (Judgement, Tally) {
        let request = prompt::request(suite, case, item, record, &self.settings);
        let mut tally = Tally::default();
        let mut judgement = Judgement {
            kind: item.kind,
            item: item.id.clone(),
            met: None,
            reason: String::new(),
            source: None,
            evidence_digest: request.evidence_digest.clone(),
        };
        if let Some(human) =
            self.overrides
                .find(case.id.as_str(), &item.id, &request.evidence_digest)
        {
            judgement.met = Some(human.met);
            judgement.reason = human.reason.clone();
            judgement.source = Some(VerdictSource::Human {
                author: human.author.clone(),
            });
            tally.human = 1;
            return (judgement, tally);
        }
        if let Some(missing) = &request.missing {
            judgement.reason = missing.clone();
            tally.unjudged = 1;
            return (judgement, tally);
        }
        if let Some(found) = self.cache.and_then(|c| c.get(&request)) {
            judgement.met = Some(found.met);
            judgement.reason = found.reason;
            judgement.source = Some(VerdictSource::Cache);
            tally.cached = 1;
            return (judgement, tally);
        }
        tally.requests = 1;
        let answer = self
            .endpoint
            .complete(&request.body)
            .and_then(|body| verdict::from_response(&body));
        match answer {
            Ok(found) => {
                if let Some(cache) = self.cache {
                    // A cache that cannot be written costs a request next time, no more.
                    let _ = cache.put(&request, &found);
                }
                judgement.met = Some(found.met);
                judgement.reason = found.reason;
                judgement.source = Some(VerdictSource::Judge);
            }
            Err(why) => {
                // An unreadable answer's reason may quote it (a parser's error does).
                judgement.reason = endpoint::one_line(&why, MAX_FAILURE_CHARS);
                tally.unjudged = 1;
            }
        }
        (judgement, tally)
    }
}

#[cfg(test)]
mod tests {
    use super::ItemKind;

    /// The words are those of verdict files and caches: renaming a variant must not
    /// change one.
    #[test]
    fn item_kinds_keep_their_words() {
        let kinds = [ItemKind::Check, ItemKind::CriticalFailure];
        let words: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
        assert_eq!(words, ["check", "critical_failure"]);
        assert!(words
            .iter()
            .all(|w| ItemKind::named(w).map(ItemKind::as_str) == Some(*w)));
        assert_eq!(ItemKind::named("Check"), None);
    }
}
