//! Replaying a trace: run its events in a fresh sandbox, decide the case's checks and
//! critical failures, and build the result record laid out by the shape's `layout
//! result` (in the key order of the suite's result template, when it has one).
//!
//! A check is `pass`/`fail` when assertions decide it, `needs_review` when a reader
//! must (and `fail` when its machine half fails, since no reading can rescue it). A
//! critical failure is triggered when the assertions of its `forbid` blocks all hold.
//! The verdict: failed when a machine check fails or a critical failure is triggered;
//! otherwise undecided while any check or critical failure awaits review; else passed.
//! The record names it as the suite's shape does (`FAIL`, `UNDECIDED`, `PASS`, say).

use serde_json::{json, Map, Value as Json};
use strum::{IntoStaticStr, VariantArray};

use crate::lower::layout::{Cx, Run, View};
use crate::model::expect::Expectation;
use crate::model::expect::{Decided, Sandbox};
use crate::model::shape::Verdict;
use crate::model::{Case, Suite};

use crate::lower::sandbox::assertion_json;

use super::eval::{holds_all, miss};
use super::trace::TraceEvent;
use super::{Event, Runtime};

/// A check's result, named in the result record by its name in snake case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum Status {
    Pass,
    Fail,
    NeedsReview,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// An assertion of a machine check that does not hold after a run: the check, the
/// assertion in its sandbox form and what the run left instead. The form result records
/// and `verify --format json` carry.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Miss {
    /// The check the assertion decides.
    pub check: String,
    /// The assertion as the sandbox file writes it (sandbox.schema.json).
    pub assertion: Json,
    /// What the run left where the assertion expected otherwise, in words.
    pub found: String,
}

impl Miss {
    /// The form `verify` prints: `G1: found`.
    pub fn line(&self) -> String {
        format!("{}: {}", self.check, self.found)
    }
}

/// What a run decided, check by check.
#[derive(Clone, Debug)]
pub struct Findings {
    pub checks: Vec<(String, Status)>,
    /// Why each failed machine check failed, assertion by assertion.
    pub misses: Vec<Miss>,
    /// Critical failures whose predicate fired.
    pub triggered: Vec<String>,
    /// Critical failures a reader must still rule out.
    pub pending: Vec<String>,
}

impl Findings {
    pub fn verdict(&self) -> Verdict {
        if !self.triggered.is_empty() || self.checks.iter().any(|(_, s)| *s == Status::Fail) {
            Verdict::Failed
        } else if !self.pending.is_empty()
            || self.checks.iter().any(|(_, s)| *s == Status::NeedsReview)
        {
            Verdict::Undecided
        } else {
            Verdict::Passed
        }
    }

    /// The verdict as the suite names it.
    pub fn outcome<'s>(&self, suite: &'s Suite) -> &'s str {
        suite.outcome(self.verdict())
    }

    /// Checks whose assertions do not hold.
    pub fn machine_failures(&self) -> Vec<&str> {
        self.checks
            .iter()
            .filter(|(_, s)| *s == Status::Fail)
            .map(|(id, _)| id.as_str())
            .collect()
    }
}

/// Runs `events` in a fresh sandbox of `case`, whose programs do not run (see
/// [`play`] for a sandbox the user trusts).
pub fn run<'a>(
    suite: &'a Suite,
    case: &'a Case,
    sandbox: &'a Sandbox,
    events: &[TraceEvent],
) -> Runtime<'a> {
    play(Runtime::new(suite, case, sandbox), events)
}

/// Runs `events` in `rt` (a fresh sandbox, [`Runtime::trusting`] the user's consent).
pub fn play<'a>(mut rt: Runtime<'a>, events: &[TraceEvent]) -> Runtime<'a> {
    for event in events {
        match event {
            TraceEvent::Call {
                tool, arguments, ..
            } => {
                rt.call(tool, arguments);
            }
            TraceEvent::Asked { question, followup } => {
                rt.ask(question, *followup);
            }
            TraceEvent::Reply(content) => rt.reply(content),
            TraceEvent::User {
                content, thought, ..
            } => rt.user(content, thought.as_deref()),
            TraceEvent::End(ending) => rt.end_conversation(ending.clone()),
            TraceEvent::AgentError(message) => rt.agent_error(message),
            TraceEvent::Episode(_) => {}
        }
    }
    rt
}

fn groups_hold(groups: &[Expectation], id: &str, rt: &Runtime) -> bool {
    naming(groups, id).all(|g| holds_all(&g.assertions, rt))
}

fn naming<'g>(groups: &'g [Expectation], id: &'g str) -> impl Iterator<Item = &'g Expectation> {
    groups
        .iter()
        .filter(move |g| g.ids.iter().any(|i| i.as_str() == id))
}

/// The assertions deciding check `id` that do not hold, each with what the run left.
fn check_misses(groups: &[Expectation], id: &str, rt: &Runtime) -> Vec<Miss> {
    naming(groups, id)
        .flat_map(|g| &g.assertions)
        .filter_map(|a| {
            miss(a, rt).map(|found| Miss {
                check: id.to_string(),
                assertion: assertion_json(a),
                found,
            })
        })
        .collect()
}

pub fn findings(rt: &Runtime) -> Findings {
    let sandbox = rt.sandbox;
    let mut misses = Vec::new();
    let checks = rt
        .case
        .checks
        .iter()
        .map(|c| {
            let id = c.id.as_str();
            let decided = sandbox.decided(id, c.inherited);
            let status = match decided {
                Decided::Review | Decided::Unclassified => Status::NeedsReview,
                Decided::Machine | Decided::Both => {
                    let missed = check_misses(&sandbox.expectations, id, rt);
                    let status = match (missed.is_empty(), decided) {
                        (false, _) => Status::Fail,
                        (true, Decided::Machine) => Status::Pass,
                        (true, _) => Status::NeedsReview,
                    };
                    misses.extend(missed);
                    status
                }
            };
            (id.to_string(), status)
        })
        .collect();
    let (mut triggered, mut pending) = (Vec::new(), Vec::new());
    for critical in rt.suite.criticals(rt.case) {
        let id = critical.id;
        let decided = sandbox.decided(&id, critical.global);
        let machine = matches!(decided, Decided::Machine | Decided::Both);
        if machine && groups_hold(&sandbox.forbidden, &id, rt) {
            triggered.push(id);
        } else if decided != Decided::Machine {
            pending.push(id);
        }
    }
    Findings {
        checks,
        misses,
        triggered,
        pending,
    }
}

/// The result record: the shape's `layout result` over the run, its keys in the order
/// of the suite's result template (whose other keys keep their template values), then
/// the layout's keys the template lacks.
pub fn result_record(suite: &Suite, rt: &Runtime, findings: &Findings) -> Json {
    let checks: Vec<(String, &'static str)> = findings
        .checks
        .iter()
        .map(|(id, s)| (id.clone(), s.as_str()))
        .collect();
    let trace: Vec<Json> = rt.events.iter().map(event_json).collect();
    let replies: Vec<&str> = rt
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Reply(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let misses: Vec<Json> = findings
        .misses
        .iter()
        .map(|miss| serde_json::to_value(miss).unwrap_or_default())
        .collect();
    let run = Run {
        outcome: findings.outcome(suite),
        checks: &checks,
        failed_assertions: &misses,
        triggered: &findings.triggered,
        pending: &findings.pending,
        trace: &trace,
        final_state: &rt.state.to_json(&rt.sandbox.schema),
        replies: &replies.join("\n\n"),
        ending: &rt
            .ending()
            .map_or(Json::Null, super::person::Ending::to_json),
        label: &rt.label,
    };
    let view = View {
        layout: &suite.shape.result,
        cx: Cx::run(suite, rt.case, &run),
    };
    let Json::Object(mut filled) = view.to_value() else {
        return Json::Object(Map::new());
    };
    let template = match suite.result_template.as_ref().map(|t| &t.value) {
        Some(Json::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    let mut record = Map::new();
    for (key, default) in template {
        let value = filled.remove(&key).unwrap_or(default);
        record.insert(key, value);
    }
    record.extend(filled);
    Json::Object(record)
}

fn event_json(event: &Event) -> Json {
    match event {
        Event::Call(call) => {
            let mut json = json!({
                "type": "call",
                "tool": call.tool,
                "arguments": call.arguments,
                "failed": call.failed,
                "error": call.error,
                "intercepted": call.intercepted,
                "returned": call.returned,
                "changed": call.changed,
            });
            if let Some(command) = &call.by_command {
                json["by_command"] = json!(command);
            }
            if let Some(output) = &call.output {
                json["output"] = (**output).clone();
            }
            json
        }
        Event::Asked {
            question,
            reply,
            followup: Some(n),
        } => json!({ "type": "asked", "content": question, "followup": n, "reply": reply }),
        Event::Asked {
            question,
            reply,
            followup: None,
        } => json!({ "type": "question", "content": question, "reply": reply }),
        Event::Reply(content) => json!({ "type": "reply", "content": content }),
        Event::User {
            content,
            thought: None,
        } => json!({ "type": "user", "content": content }),
        Event::User {
            content,
            thought: Some(thought),
        } => json!({ "type": "user", "content": content, "thought": thought }),
        Event::AgentError(message) => json!({ "type": "error", "message": message }),
        Event::End(ending) => {
            let mut json = json!({ "type": "end" });
            if let (Json::Object(line), Json::Object(ending)) = (&mut json, ending.to_json()) {
                line.extend(ending);
            }
            json
        }
    }
}

/// Replays `events` for `case` and returns its result record as pretty JSON text.
pub fn replay_text(suite: &Suite, case: &Case, sandbox: &Sandbox, events: &[TraceEvent]) -> String {
    record_text(suite, &run(suite, case, sandbox, events))
}

/// The result record of a run, as pretty JSON text.
pub fn record_text(suite: &Suite, rt: &Runtime) -> String {
    let record = result_record(suite, rt, &findings(rt));
    let mut text = serde_json::to_string_pretty(&record).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use strum::VariantArray;

    use super::Status;

    /// The words are the result record's: renaming a variant must not change one.
    #[test]
    fn statuses_keep_their_record_words() {
        let words: Vec<&str> = Status::VARIANTS.iter().map(|s| s.as_str()).collect();
        assert_eq!(words, ["pass", "fail", "needs_review"]);
    }
}
