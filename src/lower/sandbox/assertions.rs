//! The JSON of assertions and conditions in sandbox files (`docs/outputs.md`): every
//! assertion is an object with a `kind` and the keys of that kind.

use serde_json::{json, Map, Value as Json};

use crate::model::Name;

use crate::model::expect::{Assertion, Condition, Count, MachineOverride, Operand, Step};

fn count(count: &Count, into: &mut Map<String, Json>) {
    let (key, n) = match count {
        Count::Exactly(n) => ("exactly", n),
        Count::AtLeast(n) => ("at_least", n),
        Count::AtMost(n) => ("at_most", n),
    };
    into.insert(key.into(), json!(n));
}

pub fn assertion(a: &Assertion) -> Json {
    let names = |ns: &[Name]| Json::Array(ns.iter().map(|n| json!(n.as_str())).collect());
    let conds = |cs: &[Condition]| Json::Array(cs.iter().map(condition).collect());
    let mut m = Map::new();
    let kind = match a {
        Assertion::Exists(ids) | Assertion::Absent(ids) | Assertion::Retrieved(ids) => {
            m.insert("records".into(), names(ids));
            match a {
                Assertion::Exists(_) => "exists",
                Assertion::Absent(_) => "absent",
                _ => "retrieved",
            }
        }
        Assertion::Unchanged {
            collections,
            records,
            except,
        } => {
            m.insert("collections".into(), names(collections));
            m.insert("records".into(), names(records));
            m.insert("except".into(), names(except));
            "unchanged"
        }
        Assertion::Changed {
            collections,
            records,
        } => {
            m.insert("collections".into(), names(collections));
            m.insert("records".into(), names(records));
            "changed"
        }
        Assertion::Record { id, conditions } => {
            m.insert("record".into(), json!(id.as_str()));
            m.insert("where".into(), conds(conditions));
            "record"
        }
        Assertion::Count {
            collection,
            count,
            conditions,
        } => {
            m.insert("collection".into(), json!(collection.as_str()));
            self::count(count, &mut m);
            m.insert("where".into(), conds(conditions));
            "count"
        }
        Assertion::Called {
            tool,
            count,
            conditions,
        } => {
            m.insert("tool".into(), json!(tool.as_str()));
            self::count(count, &mut m);
            m.insert("where".into(), conds(conditions));
            "called"
        }
        Assertion::VerifiedRecord(id) => {
            m.insert("record".into(), json!(id.as_str()));
            "verified"
        }
        Assertion::VerifiedMatch {
            collection,
            conditions,
        } => {
            m.insert("collection".into(), json!(collection.as_str()));
            m.insert("where".into(), conds(conditions));
            "verified"
        }
        Assertion::InOrder(steps) | Assertion::OnlyAfter(steps) => {
            m.insert(
                "steps".into(),
                Json::Array(steps.iter().map(step).collect()),
            );
            if matches!(a, Assertion::InOrder(_)) {
                "in_order"
            } else {
                "only_after"
            }
        }
        Assertion::Asked => "asked",
        Assertion::Any(inner) | Assertion::Not(inner) => {
            m.insert(
                "of".into(),
                Json::Array(inner.iter().map(assertion).collect()),
            );
            if matches!(a, Assertion::Any(_)) {
                "any"
            } else {
                "not"
            }
        }
    };
    let mut out = Map::new();
    out.insert("kind".into(), json!(kind));
    out.extend(m);
    Json::Object(out)
}

fn step(s: &Step) -> Json {
    match s {
        Step::Call { tool, conditions } => json!({
            "step": "call",
            "tool": tool.as_str(),
            "where": conditions.iter().map(condition).collect::<Vec<_>>(),
        }),
        Step::Asked => json!({ "step": "asked" }),
    }
}

pub fn condition(c: &Condition) -> Json {
    match c {
        Condition::Test { path, op, value } => {
            let value = match value {
                Operand::Typed(v) => v.to_json(),
                Operand::Plain(s) => Json::String(s.clone()),
            };
            json!({ "path": path, "op": op.as_str(), "value": value })
        }
        Condition::Any(inner) => {
            json!({ "any": inner.iter().map(condition).collect::<Vec<_>>() })
        }
    }
}

/// The machine part of an override, as the sandbox file writes it.
pub fn machine_override(o: &MachineOverride) -> Map<String, Json> {
    let mut m = Map::new();
    m.insert(
        "when".into(),
        Json::Array(o.when.iter().map(condition).collect()),
    );
    m.insert("times".into(), o.times.map_or(Json::Null, |t| json!(t)));
    m.insert("error".into(), json!(o.error.as_str()));
    m.insert(
        "details".into(),
        o.details.clone().unwrap_or_else(|| json!({})),
    );
    m.insert(
        "request_id".into(),
        o.request.as_ref().map_or(Json::Null, |r| json!(r.as_str())),
    );
    m.insert("commits".into(), json!(o.commits));
    m
}
