//! The JSON of assertions in sandbox files (`docs/outputs.md`): every assertion
//! is an object with a `kind` and the keys of that kind.

use serde_json::{json, Map, Value as Json};

use crate::model::Name;

use super::expect::{Assertion, Count, Step};
use super::filters::{Condition, Operand};

impl Count {
    pub fn to_json(&self, into: &mut Map<String, Json>) {
        let (key, n) = match self {
            Count::Exactly(n) => ("exactly", n),
            Count::AtLeast(n) => ("at_least", n),
            Count::AtMost(n) => ("at_most", n),
        };
        into.insert(key.into(), json!(n));
    }
}

impl Assertion {
    pub fn to_json(&self) -> Json {
        let names = |ns: &[Name]| Json::Array(ns.iter().map(|n| json!(n.as_str())).collect());
        let conds = |cs: &[Condition]| Json::Array(cs.iter().map(Condition::to_json).collect());
        let mut m = Map::new();
        let kind = match self {
            Assertion::Exists(ids) | Assertion::Absent(ids) | Assertion::Retrieved(ids) => {
                m.insert("records".into(), names(ids));
                match self {
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
                count.to_json(&mut m);
                m.insert("where".into(), conds(conditions));
                "count"
            }
            Assertion::Called {
                tool,
                count,
                conditions,
            } => {
                m.insert("tool".into(), json!(tool.as_str()));
                count.to_json(&mut m);
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
                    Json::Array(steps.iter().map(Step::to_json).collect()),
                );
                if matches!(self, Assertion::InOrder(_)) {
                    "in_order"
                } else {
                    "only_after"
                }
            }
            Assertion::Asked => "asked",
            Assertion::Any(inner) | Assertion::Not(inner) => {
                m.insert(
                    "of".into(),
                    Json::Array(inner.iter().map(Assertion::to_json).collect()),
                );
                if matches!(self, Assertion::Any(_)) {
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
}

impl Step {
    fn to_json(&self) -> Json {
        match self {
            Step::Call { tool, conditions } => json!({
                "step": "call",
                "tool": tool.as_str(),
                "where": conditions.iter().map(Condition::to_json).collect::<Vec<_>>(),
            }),
            Step::Asked => json!({ "step": "asked" }),
        }
    }
}

impl Condition {
    pub fn to_json(&self) -> Json {
        match self {
            Condition::Test { path, op, value } => {
                let value = match value {
                    Operand::Typed(v) => v.to_json(),
                    Operand::Plain(s) => Json::String(s.clone()),
                };
                json!({ "path": path, "op": op.as_str(), "value": value })
            }
            Condition::Any(inner) => {
                json!({ "any": inner.iter().map(Condition::to_json).collect::<Vec<_>>() })
            }
        }
    }
}
