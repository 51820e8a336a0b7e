//! The JSON of assertions and conditions in sandbox files (`docs/outputs.md`): every
//! assertion is an object with a `kind` and the keys of that kind.

use serde_json::{json, Map, Value as Json};

use crate::model::Name;

use crate::model::expect::{
    AggregateValue, Assertion, CellExpectation, Condition, Count, CsvExpectation, FileExpectation,
    JsonExpected, MachineOverride, OverrideAnswer, ReplyTest, Step,
};
use crate::model::expr::Aggregate;
use crate::model::tool::{Answer, Behavior, Effect, Filter, RecordRef, Set, SetValue};

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
        Assertion::Aggregate(aggregate) => {
            m.insert("collection".into(), json!(aggregate.collection.as_str()));
            m.insert("field".into(), json!(aggregate.field.as_str()));
            match &aggregate.expected {
                // `sum` writes its number as the total it is.
                AggregateValue::Number { value, within } if aggregate.of == Aggregate::Sum => {
                    m.insert("total".into(), json!(value));
                    m.insert("within".into(), json!(within));
                }
                AggregateValue::Number { value, within } => {
                    m.insert("value".into(), json!(value));
                    m.insert("within".into(), json!(within));
                }
                AggregateValue::Record(id) => {
                    m.insert("record".into(), json!(id.as_str()));
                }
            }
            m.insert("where".into(), conds(&aggregate.conditions));
            aggregate.of.as_str()
        }
        Assertion::Called {
            tool,
            outcome,
            count,
            conditions,
        } => {
            m.insert("tool".into(), json!(tool.as_str()));
            m.insert("calls".into(), json!(outcome.as_str()));
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
        Assertion::Asked(which) => {
            // Any follow-up writes nothing more: sandboxes before `asked N` are as they were.
            if let Some(n) = which {
                m.insert("followup".into(), json!(n));
            }
            "asked"
        }
        Assertion::Reply(ReplyTest::Text { op, text }) => {
            m.insert("op".into(), json!(op.as_str()));
            m.insert("text".into(), json!(text.as_str()));
            "reply"
        }
        Assertion::Reply(ReplyTest::Number { value, within }) => {
            m.insert("number".into(), json!(value));
            m.insert("within".into(), json!(within));
            "reply"
        }
        Assertion::File(file) => {
            file_json(file, &mut m);
            "file"
        }
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

/// A file expectation: where the file is kept, its path, what it contains.
fn file_json(file: &FileExpectation, m: &mut Map<String, Json>) {
    let store = &file.store;
    m.insert("collection".into(), json!(store.collection.as_str()));
    m.insert("path_field".into(), json!(store.path_field.as_str()));
    m.insert("content_field".into(), json!(store.content_field.as_str()));
    m.insert("path".into(), json!(file.path.as_str()));
    let contains: Vec<&str> = file.contains.iter().map(|t| t.as_str()).collect();
    m.insert("contains".into(), json!(contains));
    // Written only when declared: file expectations before `json` are as they were.
    if let Some(points) = &file.json {
        let points: Vec<Json> = points
            .iter()
            .map(|p| match &p.expected {
                JsonExpected::Count(n) => json!({ "pointer": p.pointer.as_str(), "count": n }),
                JsonExpected::Value { value, within } => {
                    json!({ "pointer": p.pointer.as_str(), "value": value, "within": within })
                }
            })
            .collect();
        m.insert("json".into(), Json::Array(points));
    }
    m.insert(
        "csv".into(),
        file.csv.as_ref().map_or(Json::Null, table_json),
    );
    // Each written only when declared: file expectations before them are as they were.
    if !file.document.is_empty() || file.document_type.is_some() {
        let texts: Vec<&str> = file.document.iter().map(|t| t.as_str()).collect();
        let mut document = json!({ "contains": texts });
        // Written only when declared: documents checked before it are as they were.
        if let Some(kind) = &file.document_type {
            document["type"] = json!(kind.as_str());
        }
        m.insert("document".into(), document);
    }
    if let Some(image) = &file.image {
        m.insert(
            "image".into(),
            json!({
                "type": image.kind.as_ref().map(|k| k.as_str()),
                "width": image.width,
                "height": image.height,
            }),
        );
    }
    if !file.sheets.is_empty() {
        let sheets: Vec<Json> = file
            .sheets
            .iter()
            .map(|sheet| {
                let mut m = match table_json(&sheet.table) {
                    Json::Object(m) => m,
                    _ => Map::new(),
                };
                m.insert(
                    "sheet".into(),
                    sheet
                        .name
                        .as_ref()
                        .map_or(Json::Null, |n| json!(n.as_str())),
                );
                m.insert(
                    "cells".into(),
                    Json::Array(sheet.cells.iter().map(cell_json).collect()),
                );
                Json::Object(m)
            })
            .collect();
        m.insert("xlsx".into(), Json::Array(sheets));
    }
}

fn cell_json(cell: &CellExpectation) -> Json {
    json!({
        "column": cell.column.as_str(),
        "value": cell.value.as_str(),
        "within": cell.within,
    })
}

/// A table expectation (`csv`, or a sheet of `xlsx`): `columns`, `rows`, `rows_with`.
fn table_json(csv: &CsvExpectation) -> Json {
    let mut c = Map::new();
    let columns: Vec<&str> = csv.columns.iter().map(|t| t.as_str()).collect();
    c.insert("columns".into(), json!(columns));
    c.insert(
        "rows".into(),
        csv.rows.as_ref().map_or(Json::Null, |n| {
            let mut r = Map::new();
            count(n, &mut r);
            Json::Object(r)
        }),
    );
    let rows: Vec<Json> = csv
        .rows_with
        .iter()
        .map(|cells| Json::Array(cells.iter().map(cell_json).collect()))
        .collect();
    c.insert("rows_with".into(), Json::Array(rows));
    Json::Object(c)
}

fn step(s: &Step) -> Json {
    match s {
        Step::Call {
            tool,
            outcome,
            conditions,
        } => json!({
            "step": "call",
            "tool": tool.as_str(),
            "calls": outcome.as_str(),
            "where": conditions.iter().map(condition).collect::<Vec<_>>(),
        }),
        Step::Asked(None) => json!({ "step": "asked" }),
        Step::Asked(Some(n)) => json!({ "step": "asked", "followup": n }),
    }
}

/// The argument naming the record an update or delete changes; `null` for a fixed
/// record, which the effect's `record` key names (written only then, so effects over
/// an argument are as they were).
fn record_argument(record: &RecordRef) -> Json {
    match record {
        RecordRef::Argument(argument) => json!(argument.as_str()),
        RecordRef::Fixed(_) => Json::Null,
    }
}

pub fn condition(c: &Condition) -> Json {
    match c {
        Condition::Test { path, op, value } => {
            json!({ "path": path, "op": op.as_str(), "value": value.to_json() })
        }
        Condition::Compare { left, op, value } => {
            json!({ "computed": left.to_json(), "op": op.as_str(), "value": value.to_json() })
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
    m.insert("after".into(), o.after.map_or(Json::Null, |t| json!(t)));
    m.insert("times".into(), o.times.map_or(Json::Null, |t| json!(t)));
    match &o.answer {
        OverrideAnswer::Error { code, details } => {
            m.insert("error".into(), json!(code.as_str()));
            m.insert(
                "details".into(),
                details.clone().unwrap_or_else(|| json!({})),
            );
        }
        OverrideAnswer::Returns(data) => {
            m.insert("returns".into(), data.clone());
        }
    }
    m.insert(
        "request_id".into(),
        o.request.as_ref().map_or(Json::Null, |r| json!(r.as_str())),
    );
    m.insert("commits".into(), json!(o.commits));
    m
}

/// A tool's declared behaviour: refusals, effects, responses, idempotency.
pub fn behavior(b: &Behavior) -> Json {
    let name = |n: &Name| json!(n.as_str());
    let filters = |fs: &[Filter]| {
        Json::Array(
            fs.iter()
                .map(|f| json!({ "field": f.field.as_str(), "op": f.op.as_str(), "argument": f.argument.as_str() }))
                .collect(),
        )
    };
    let sets = |ss: &[Set]| {
        Json::Array(
            ss.iter()
                .map(|s| {
                    let value = match &s.value {
                        SetValue::Argument {
                            name,
                            unless_empty: false,
                        } => json!({ "argument": name.as_str() }),
                        SetValue::Argument {
                            name,
                            unless_empty: true,
                        } => json!({ "argument": name.as_str(), "unless_empty": true }),
                        SetValue::Value(v) => json!({ "value": v.to_json() }),
                        SetValue::Now => json!({ "now": true }),
                        SetValue::Computed(expr) => json!({ "computed": expr.to_json() }),
                    };
                    json!({ "field": s.field.as_str(), "from": value })
                })
                .collect(),
        )
    };
    let effects: Vec<Json> = b
        .effects
        .iter()
        .map(|e| match e {
            Effect::Read(r) => {
                let mut read = json!({
                    "effect": "read",
                    "collection": name(&r.collection),
                    "match_argument": r.query.as_ref().map(|q| q.as_str()),
                    "where": filters(&r.filters),
                    "show": r.show.as_ref().map(|s| s.iter().map(|f| f.as_str()).collect::<Vec<_>>()),
                });
                // Written only when declared: reads before ordering are as they were.
                if let Some((field, descending)) = &r.order_by {
                    read["order_by"] = json!({ "field": field.as_str(), "descending": descending });
                }
                if let Some(limit) = r.limit {
                    read["limit"] = json!(limit);
                }
                read
            }
            Effect::Create(c) => {
                let mut create = json!({ "effect": "create", "collection": name(&c.collection), "set": sets(&c.sets) });
                // Written only when declared: results before `show` are as they were.
                if let Some(show) = &c.show {
                    create["show"] = json!(show.iter().map(|f| f.as_str()).collect::<Vec<_>>());
                }
                create
            }
            Effect::Update(u) => {
                let mut update = json!({
                    "effect": "update",
                    "collection": name(&u.collection),
                    "record_argument": record_argument(&u.record),
                    "set": sets(&u.sets),
                    "reason": u.reason.as_ref().map(|r| r.as_str()),
                });
                if let RecordRef::Fixed(id) = &u.record {
                    update["record"] = json!(id.as_str());
                }
                if let Some(show) = &u.show {
                    update["show"] = json!(show.iter().map(|f| f.as_str()).collect::<Vec<_>>());
                }
                update
            }
            Effect::Delete(d) => {
                let mut delete = json!({ "effect": "delete", "collection": name(&d.collection), "record_argument": record_argument(&d.record) });
                if let RecordRef::Fixed(id) = &d.record {
                    delete["record"] = json!(id.as_str());
                }
                delete
            }
        })
        .collect();
    let responses: Vec<Json> = b
        .responses
        .iter()
        .map(|r| {
            let answer = match &r.answer {
                Answer::Data(data) => json!({ "data": data }),
                Answer::Record {
                    collection,
                    filters: fs,
                } => {
                    json!({ "record": { "collection": collection.as_str(), "where": filters(fs) } })
                }
            };
            json!({
                "when": r.when.iter().map(condition).collect::<Vec<_>>(),
                "after": r.after,
                "answer": answer,
            })
        })
        .collect();
    json!({
        "refusals": b.refusals.iter().map(|r| json!({
            "error": r.code.as_str(),
            "message": r.message.as_str(),
            "when": r.conditions.iter().map(condition).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "effects": effects,
        "responses": responses,
        "idempotent_argument": b.idempotent.as_ref().map(|a| a.as_str()),
    })
}
