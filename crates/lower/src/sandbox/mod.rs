//! Lowering to sandbox initialisation: one JSON document per modelled case, what a
//! reference sandbox loads to run it — the clock, the offered tools and their contracts,
//! the typed collections with their records, the override as a machine rule, the
//! scripted follow-up, and every check and critical failure with the assertions that
//! decide it. The format is described in docs/outputs.md and
//! schemas/sandbox.schema.json.
//!
//! Only cases with a `world` get a file. Output is pretty-printed JSON with keys in a
//! fixed order, so the same sources give the same bytes.

mod assertions;

pub use assertions::machine_override;

pub use assertions::assertion as assertion_json;
pub(crate) use assertions::behavior as behavior_json;

use serde_json::{json, Map, Value as Json};

use crate::model::expect::Expectation;
use crate::model::expect::Sandbox;
use crate::model::value::FieldValue;
use crate::model::world::Record;
use crate::model::world::{Collection, FieldType};
use crate::model::{Case, Name, Suite};

/// The format version written into every file; bumped when the shape changes.
pub const FORMAT: &str = "casec-sandbox/2";

/// `(file name, text)` for every case that has a world, in case order.
pub fn sandbox_files(suite: &Suite) -> Vec<(String, String)> {
    suite
        .cases
        .iter()
        .filter_map(|case| {
            let sandbox = case.sandbox.as_ref()?;
            let value = sandbox_value(suite, case, sandbox);
            let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
            text.push('\n');
            Some((format!("{}.json", case.id.as_str()), text))
        })
        .collect()
}

pub fn sandbox_value(suite: &Suite, case: &Case, sandbox: &Sandbox) -> Json {
    let mut m = Map::new();
    m.insert("format".into(), json!(FORMAT));
    m.insert("case_id".into(), text(&case.id));
    m.insert("title".into(), text(&case.title));
    m.insert(
        "category".into(),
        case.category.as_ref().map_or(Json::Null, text),
    );
    // A shape without a clock (a workspace task) runs in no particular time.
    let clock = case.clock.as_ref().map_or(
        Json::Null,
        |now| json!({ "now": now.as_str(), "timezone": case.timezone_text() }),
    );
    m.insert("clock".into(), clock);
    m.insert("tools".into(), tools(suite, case, sandbox));
    m.insert("world_schema".into(), text(&sandbox.schema.name));
    m.insert(
        "request_prefix".into(),
        sandbox
            .schema
            .request_prefix
            .as_ref()
            .map_or(Json::Null, text),
    );
    let collections = sandbox
        .schema
        .collections
        .iter()
        .map(|c| (c.name.as_str().to_string(), collection(c, suite, sandbox)))
        .collect();
    m.insert("collections".into(), Json::Object(collections));
    m.insert("overrides".into(), overrides(case, sandbox));
    let followups: Vec<Json> = case
        .followups
        .iter()
        .map(|f| json!({ "asked": f.when_asked.as_str(), "reply": f.reply.as_str() }))
        .collect();
    m.insert("followups".into(), Json::Array(followups));
    m.insert(
        "unscripted_reply".into(),
        json!(case.unscripted_reply_text()),
    );
    // Only a shape that declares a step limit has one: other sandboxes are as before.
    if let Some(limit) = suite.step_limit(case) {
        m.insert("step_limit".into(), json!(limit));
    }
    // Likewise the clock's step: a sandbox that moves no clock is as before.
    let step = suite.clock_step_minutes(case);
    if step > 0 {
        m.insert("clock_step_minutes".into(), json!(step));
    }
    m.insert("checks".into(), checks(case, sandbox));
    m.insert("critical_failures".into(), criticals(suite, case, sandbox));
    Json::Object(m)
}

fn text(t: &impl AsRef<str>) -> Json {
    Json::String(t.as_ref().to_string())
}

fn tools(suite: &Suite, case: &Case, sandbox: &Sandbox) -> Json {
    let offered = case.tools.iter().filter_map(|name| {
        let tool = suite
            .tools
            .iter()
            .find(|t| t.name.as_str() == name.as_str())?;
        Some(super::tools::tool_json(tool, Some(&sandbox.schema)))
    });
    Json::Array(offered.collect())
}

fn collection(c: &Collection, suite: &Suite, sandbox: &Sandbox) -> Json {
    let fields: Vec<Json> = c
        .fields
        .iter()
        .map(|f| {
            json!({
                "name": f.name.as_str(),
                "type": field_type(&f.ty),
                "required": f.required,
                "doc": f.doc.as_ref().map_or(Json::Null, text),
            })
        })
        .collect();
    let records: Vec<Json> = sandbox
        .world
        .records
        .iter()
        .filter(|r| r.collection.as_str() == c.name.as_str())
        .map(record)
        .collect();
    let new_ids: Vec<Json> = sandbox
        .world
        .new_ids
        .iter()
        .filter(|(coll, _)| coll.as_str() == c.name.as_str())
        .map(|(_, id)| text(id))
        .collect();
    json!({
        "doc": c.doc.as_ref().map_or(Json::Null, text),
        "id_prefix": c.id_prefix.as_str(),
        "read_only": c.read_only,
        "managed_by": managers(c, suite),
        "fields": fields,
        "records": records,
        "new_ids": new_ids,
    })
}

/// The tools that change this collection through a binding of their own.
fn managers<'s>(c: &Collection, suite: &'s Suite) -> Vec<&'s str> {
    suite
        .tools
        .iter()
        .filter(|t| t.managed_collections().contains(&c.name.as_str()))
        .map(|t| t.name.as_str())
        .collect()
}

pub(crate) fn field_type(ty: &FieldType) -> Json {
    match ty {
        FieldType::Enum(values) => json!({ "kind": "enum", "values": values }),
        FieldType::Ref(targets) => json!({ "kind": "ref", "collections": targets }),
        FieldType::List(item) => json!({ "kind": "list", "item": field_type(item) }),
        simple => json!({ "kind": simple.describe() }),
    }
}

fn fields_json(fields: &[(Name, FieldValue)]) -> Json {
    Json::Object(
        fields
            .iter()
            .map(|(name, value)| (name.as_str().to_string(), value.to_json()))
            .collect(),
    )
}

fn record(r: &Record) -> Json {
    let history: Vec<Json> = r
        .history
        .iter()
        .map(|h| {
            json!({
                "changed_at": h.changed_at.render(),
                "reason": h.reason.as_ref().map_or(Json::Null, text),
                "fields": fields_json(&h.fields),
            })
        })
        .collect();
    let mut record =
        json!({ "id": r.id.as_str(), "fields": fields_json(&r.fields), "history": history });
    // A file's size and digest beside its content, so a harness that seeds a workspace
    // can check the bytes it wrote (written only for records with `bytes` fields).
    let bytes: Map<String, Json> = r
        .fields
        .iter()
        .filter_map(|(name, value)| match value {
            FieldValue::Bytes(b) => Some((
                name.as_str().to_string(),
                json!({
                    "size": b.data.len(),
                    "blake3": b.digest(),
                    "from": b.from.as_ref().map(|f| f.as_str()),
                }),
            )),
            _ => None,
        })
        .collect();
    if !bytes.is_empty() {
        record["bytes"] = Json::Object(bytes);
    }
    record
}

/// Each override: its prose, then its machine part (the same position in the case).
fn overrides(case: &Case, sandbox: &Sandbox) -> Json {
    let all = case
        .overrides
        .iter()
        .zip(&sandbox.overrides)
        .map(|(prose, machine)| {
            let mut m = Map::new();
            m.insert("tool".into(), text(&prose.tool));
            m.insert("match".into(), text(&prose.matches));
            m.insert("result".into(), text(&prose.result));
            m.insert(
                "side_effect".into(),
                prose.side_effect.as_ref().map_or(Json::Null, text),
            );
            m.insert(
                "verify".into(),
                prose.verification.as_ref().map_or(Json::Null, text),
            );
            m.extend(assertions::machine_override(machine));
            Json::Object(m)
        });
    Json::Array(all.collect())
}

/// The assertions of every group naming `id`, in the order written.
fn assertions_for(groups: &[Expectation], id: &str) -> Vec<Json> {
    groups
        .iter()
        .filter(|g| g.ids.iter().any(|i| i.as_str() == id))
        .flat_map(|g| g.assertions.iter().map(assertions::assertion))
        .collect()
}

fn review_notes(sandbox: &Sandbox, id: &str) -> Vec<Json> {
    sandbox
        .reviews
        .iter()
        .filter(|r| r.ids.iter().any(|i| i.as_str() == id))
        .filter_map(|r| r.reason.as_ref().map(text))
        .collect()
}

fn checks(case: &Case, sandbox: &Sandbox) -> Json {
    let checks = case.checks.iter().map(|c| {
        let id = c.id.as_str();
        json!({
            "id": id,
            "dimension": c.dimension.as_str(),
            "requirement": c.requirement.as_str(),
            "evidence": c.evidence.as_ref().map_or(Json::Null, text),
            "decided_by": sandbox.decided(id, c.inherited).as_str(),
            "assertions": assertions_for(&sandbox.expectations, id),
            "review_notes": review_notes(sandbox, id),
        })
    });
    Json::Array(checks.collect())
}

/// The case's critical failures, then the suite's (`global`), which it inherits.
fn criticals(suite: &Suite, case: &Case, sandbox: &Sandbox) -> Json {
    let criticals = suite.criticals(case).into_iter().map(|critical| {
        let id = critical.id;
        json!({
            "id": id,
            "text": critical.text.as_str(),
            "global": critical.global,
            "decided_by": sandbox.decided(&id, critical.global).as_str(),
            "predicate": assertions_for(&sandbox.forbidden, &id),
            "review_notes": review_notes(sandbox, &id),
        })
    });
    Json::Array(criticals.collect())
}
