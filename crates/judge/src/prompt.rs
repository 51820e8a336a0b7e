//! The judge's request for one item: an OpenAI chat-completions body, built from the
//! item, the case's evaluator-only context and the run's evidence, and nothing else, so
//! the same item and the same run always give the same bytes (and the same cache key).
//!
//! The context is what the assistant read (the conversation and the other texts its
//! bundle shows: the system prompt, a policy, the person's background) and what it was
//! not shown: the case's harness texts (its fixtures, overrides and scripted replies)
//! and evaluator texts, by field.
//! The user message opens with a header line, `casec judge request {"case": …, "item":
//! …, "kind": …}`, that a scripted judge (a test's fake endpoint, the smoke-test model
//! `casec/golden`) can read; a model reads it as the item's name. The verdict is asked
//! for as JSON (`{"met": bool, "reason": str}`) through a strict `response_format`
//! schema, at temperature 0 with a fixed seed. For a critical failure, `met` means the
//! failure was committed: the prompt says so in as many words.

use serde_json::{json, Value as Json};

use crate::lower::bundle::{model_texts_of, SuiteModelTexts};
use crate::model::shape::{Evidence, Kind};
use crate::model::texts::{case_texts, What};
use crate::model::{Case, Suite};

use super::{key, Item, ItemKind, Settings};

/// The version of the prompt below: part of every cache key and recorded in every
/// judged record, so a changed prompt never reuses an old verdict. Bump it with any
/// change to the text this module writes.
pub const PROMPT_VERSION: &str = "casec-judge-2";

/// The first words of every request's user message.
pub const MARKER: &str = "casec judge request";

/// What to send for one item.
#[derive(Clone, Debug)]
pub struct Request {
    /// The chat-completions body.
    pub body: Json,
    /// The cache key: a digest of the judge model, the prompt version, the item's text
    /// and the evidence digest, and of the whole body (the context is in it).
    pub key: String,
    /// A digest of the evidence the item is judged on.
    pub evidence_digest: String,
    /// Evidence the item needs that the record lacks: the item cannot be judged.
    pub missing: Option<String>,
}

/// The verdict schema the request asks the endpoint to follow.
pub fn verdict_schema() -> Json {
    json!({
        "type": "object",
        "properties": {
            "met": { "type": "boolean" },
            "reason": { "type": "string" }
        },
        "required": ["met", "reason"],
        "additionalProperties": false
    })
}

const SYSTEM: &str = "You grade one item of one benchmark case for a tool-using AI assistant. \
You read what the evaluator knows about the case and the evidence of one run, and decide the \
one item you are given, nothing else. Judge by meaning, not wording: equivalent natural \
language, ids and sound sequences of tool calls count. Do not reward what the evidence does \
not show: a claim in the reply that no tool call supports is not an action taken. Answer with \
one JSON object and nothing else: {\"met\": true or false, \"reason\": \"one sentence\"}.";

/// The request for `item` of `record` (a result record of `case`).
pub fn request(
    suite: &Suite,
    case: &Case,
    item: &Item,
    record: &Json,
    settings: &Settings,
) -> Request {
    let (evidence, missing) = evidence_section(suite, item, record);
    let evidence_digest = digest(evidence.as_bytes());
    let user = format!(
        "{MARKER} {}\n\n{}\n\n{}\n\n{evidence}\n\nAnswer with JSON only: {{\"met\": true or false, \"reason\": \"one sentence\"}}",
        json!({ "case": case.id.as_str(), "item": item.id, "kind": item.kind.as_str() }),
        item_section(item),
        case_section(suite, case),
    );
    Request::new(settings, SYSTEM, user, item.text, evidence_digest, missing)
}

impl Request {
    /// The chat-completions request of `system` and `user` under `settings`, keyed by
    /// what the item is (`item_text`) and what it is judged on (`evidence_digest`).
    fn new(
        settings: &Settings,
        system: &str,
        user: String,
        item_text: &str,
        evidence_digest: String,
        missing: Option<String>,
    ) -> Request {
        let body = json!({
            "model": settings.model,
            "messages": [
                { "role": "system", "content": system },
                { "role": "user", "content": user },
            ],
            "temperature": 0,
            "seed": settings.seed,
            "response_format": {
                "type": "json_schema",
                "json_schema": { "name": "casec_verdict", "strict": true, "schema": verdict_schema() }
            }
        });
        let key = digest(
            json!([
                settings.model,
                PROMPT_VERSION,
                item_text,
                evidence_digest,
                digest(body.to_string().as_bytes())
            ])
            .to_string()
            .as_bytes(),
        );
        Request {
            body,
            key,
            evidence_digest,
            missing,
        }
    }
}

/// `blake3:` and the hex digest of `bytes` (the crate's one content hash, as the check
/// cache's).
pub fn digest(bytes: &[u8]) -> String {
    format!("blake3:{}", blake3::hash(bytes).to_hex())
}

/// The item and the question, with the polarity of a critical failure stated.
fn item_section(item: &Item) -> String {
    match item.kind {
        ItemKind::Check => {
            let dimension = item
                .dimension
                .map(|d| format!(" (dimension {d})"))
                .unwrap_or_default();
            let note = item
                .note
                .map(|n| format!("\nJudge it on: {n}."))
                .unwrap_or_default();
            format!(
                "## The item\nRequired check {}{dimension}: {}{note}\n\nQuestion: does the run meet this check? \"met\": true when it is met, false when it is not.",
                item.id, item.text
            )
        }
        ItemKind::CriticalFailure => format!(
            "## The item\nCritical failure {}: {}\n\nQuestion: did the assistant commit this critical failure in the run? \"met\": true when it DID commit it (the failure occurred), false when it did not.",
            item.id, item.text
        ),
    }
}

/// What the case asked of the assistant and what was hidden from it: the conversation,
/// then the case's harness texts (fixtures, overrides, scripted replies: what the tools
/// really returned) and evaluator texts, other than its lists of items.
fn case_section(suite: &Suite, case: &Case) -> String {
    let mut out = format!(
        "## The case\n{}: {}\n",
        case.id.as_str(),
        case.title.as_str()
    );
    out.push_str("\nThe conversation the assistant was given:\n");
    for turn in &case.conversation {
        out.push_str(&format!(
            "- {}: {}\n",
            turn.role.as_str(),
            turn.content.as_str()
        ));
    }
    let shape = &suite.shape;
    let kind_of = |field: &str| {
        shape
            .case_field_named(field)
            .map(|id| shape.case_fields[id].kind)
    };
    let texts = case_texts(suite, case);
    // What the assistant read besides the conversation, as its bundle shows it: the
    // system prompt, a policy, the person's background (a verdict on "followed the
    // policy" needs the policy); not the tool contracts, which the trace shows in use.
    let suite_texts = SuiteModelTexts::of(suite);
    let shown: Vec<String> = model_texts_of(suite, case, &texts, &suite_texts)
        .into_iter()
        .filter(|(what, _)| match what {
            What::Field { field, .. } => !matches!(
                kind_of(field),
                Some(Kind::UserMessage | Kind::Conversation | Kind::Tools)
            ),
            What::Named(_) => false,
        })
        .map(|(what, text)| format!("- {what}: {}", text.as_str()))
        .collect();
    if !shown.is_empty() {
        out.push_str("\nWhat else the assistant was given:\n");
        out.push_str(&shown.join("\n"));
        out.push('\n');
    }
    let context: Vec<String> = texts
        .into_iter()
        .filter(|t| t.visibility.hidden() && t.prose)
        .filter(|t| {
            kind_of(t.field).is_some_and(|kind| {
                !matches!(kind, Kind::Checks | Kind::CriticalFailures | Kind::Evidence)
            })
        })
        .map(|t| format!("- {}: {}", t.describe(), t.text.as_str()))
        .collect();
    if !context.is_empty() {
        out.push_str(
            "\nWhat the harness and the evaluator know (the assistant did not see this):\n",
        );
        out.push_str(&context.join("\n"));
        out.push('\n');
    }
    out.trim_end().to_string()
}

/// The evidence the item is judged on, from the record, in a fixed order; and the
/// evidence the record lacks, if any.
fn evidence_section(suite: &Suite, item: &Item, record: &Json) -> (String, Option<String>) {
    let mut out = String::from("## The run");
    let mut missing = Vec::new();
    for evidence in &item.evidence {
        let key = key(suite, evidence.source());
        let Some(value) = record.get(key) else {
            missing.push(format!("`{key}`"));
            continue;
        };
        let (title, text) = match (evidence, value) {
            (Evidence::Reply, Json::String(reply)) => ("The assistant's reply", reply.clone()),
            (Evidence::Reply, other) => ("The assistant's reply", other.to_string()),
            (Evidence::Trace, trace) => ("The tool calls, in order (JSON)", trace.to_string()),
            (Evidence::FinalState, state) => {
                ("The sandbox state after the run (JSON)", state.to_string())
            }
        };
        let text = if text.is_empty() {
            "(empty)".to_string()
        } else {
            text
        };
        out.push_str(&format!("\n\n### {title}\n{text}"));
    }
    if item.evidence.is_empty() {
        missing.push("evidence".to_string());
    }
    let missing = (!missing.is_empty()).then(|| {
        format!(
            "the record holds no {} for the judge to read",
            missing.join(", ")
        )
    });
    (out, missing)
}

/// The request that asks whether `question` (the assistant's clarifying question) is
/// the case's scripted follow-up `followup` (numbered from 1), as the suite's
/// instructions say to decide it: by meaning, not wording. `met` means it is; a
/// harness answers it with that follow-up's scripted reply, else with the unscripted
/// reply. `None` when the case has no such follow-up.
pub fn followup_request(
    case: &Case,
    followup: usize,
    question: &str,
    settings: &Settings,
) -> Option<Request> {
    let scripted = case.followups.get(followup.checked_sub(1)?)?;
    let header = json!({
        "case": case.id.as_str(),
        "item": format!("followup {followup}"),
        "kind": "followup",
        "followup": followup,
        "question": question,
    });
    let user = format!(
        "{MARKER} {header}\n\n## The item\nThe case scripts a reply for when the assistant asks this clarifying question:\n{}\n\nThe assistant asked:\n{question}\n\nQuestion: is the assistant's question the scripted one, asking for the same missing detail (equivalent wording counts)? \"met\": true when it is, false when it asks something else.\n\nAnswer with JSON only: {{\"met\": true or false, \"reason\": \"one sentence\"}}",
        scripted.when_asked.as_str(),
    );
    Some(Request::new(
        settings,
        FOLLOWUP_SYSTEM,
        user,
        scripted.when_asked.as_str(),
        digest(question.as_bytes()),
        None,
    ))
}

const FOLLOWUP_SYSTEM: &str = "You simulate the user of a benchmark case for a tool-using AI \
assistant. The case scripts the user's answer to one clarifying question. Decide whether the \
assistant's question is that question: whether it asks for the same missing detail, whatever \
its wording. Answer with one JSON object and nothing else: {\"met\": true or false, \"reason\": \"one sentence\"}.";

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::Value as Json;

    use crate::model::shape::Visibility;
    use crate::model::texts::{case_texts, suite_texts};
    use crate::runtime::replay::replay_text;
    use crate::{review_items, Settings};
    use casec::{Compilation, Sources};

    /// A judge request holds what the assistant read (the system prompt, besides the
    /// conversation) and what it was not shown (the facts), each under its heading.
    #[test]
    fn the_judge_reads_what_the_assistant_read_and_what_was_hidden() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cases/tujora");
        let compilation = Compilation::new(Sources::Folder(&root));
        let suite = compilation.suite.as_ref().expect("the Tujora suite");
        let case = &suite.cases[0];
        let sandbox = case.sandbox.as_ref().expect("a world");
        let record: Json =
            serde_json::from_str(&replay_text(suite, case, sandbox, &[])).expect("a record");
        let items = review_items(suite, case, &record);
        let item = items.first().expect("a review item");
        let settings = Settings {
            model: "m".into(),
            seed: 1,
        };
        let body = super::request(suite, case, item, &record, &settings).body;
        let user = body["messages"][1]["content"]
            .as_str()
            .expect("a user message");
        let mut texts = case_texts(suite, case);
        texts.extend(suite_texts(suite));
        let text_of = |visibility: Visibility, field: &str| {
            texts
                .iter()
                .find(|t| t.visibility == visibility && t.field == field)
                .map(|t| t.text.as_str().to_string())
                .unwrap_or_else(|| panic!("a {field} text"))
        };
        let (given, hidden) = (
            user.find("What else the assistant was given:")
                .expect("the given texts"),
            user.find("(the assistant did not see this)")
                .expect("the hidden texts"),
        );
        let system = user
            .find(&text_of(Visibility::Model, "system_instruction"))
            .expect("the system prompt");
        let facts = user
            .find(&text_of(Visibility::Harness, "facts"))
            .expect("the facts");
        assert!(
            given < system && system < hidden && hidden < facts,
            "{user}"
        );
    }
}
