//! Reading a master JSON into the model.
//!
//! Every required key is looked up with its JSON path, so a master that does not follow
//! the schema gets a diagnostic naming the path (`cases[3].harness_only.fixture_facts`)
//! rather than a panic or a silently different suite. Spans of the resulting model all
//! point at the start of the master file.

use serde_json::{Map, Value};

use crate::diag::{codes, Diagnostic};
use crate::model::tool::{ArgType, Argument, Binding, Tool};
use crate::model::world::FieldType;
use crate::model::*;
use crate::source::{FileId, Span};

pub struct Reader {
    span: Span,
    pub diags: Vec<Diagnostic>,
}

impl Reader {
    pub fn new(file: FileId) -> Reader {
        Reader {
            span: Span::new(file, 0..0),
            diags: Vec::new(),
        }
    }

    fn error(&mut self, path: &str, message: String) {
        self.diags.push(
            Diagnostic::error(codes::MASTER_JSON, format!("{path}: {message}"))
                .primary(self.span, "in this master file")
                .help("see schemas/master.schema.json for the expected shape"),
        );
    }

    fn get<'v>(&mut self, obj: &'v Map<String, Value>, path: &str, key: &str) -> Option<&'v Value> {
        let found = obj.get(key);
        if found.is_none() {
            self.error(path, format!("missing key `{key}`"));
        }
        found
    }

    fn object<'v>(&mut self, value: &'v Value, path: &str) -> Option<&'v Map<String, Value>> {
        let found = value.as_object();
        if found.is_none() {
            self.error(path, format!("expected an object, found {}", kind(value)));
        }
        found
    }

    fn text_value(&mut self, value: &Value, path: &str) -> Option<Text> {
        match value.as_str() {
            Some(s) => Some(Text::new(s, self.span)),
            None => {
                self.error(path, format!("expected a string, found {}", kind(value)));
                None
            }
        }
    }

    fn text(&mut self, obj: &Map<String, Value>, path: &str, key: &str) -> Option<Text> {
        let v = self.get(obj, path, key)?;
        self.text_value(v, &format!("{path}.{key}"))
    }

    fn texts(&mut self, obj: &Map<String, Value>, path: &str, key: &str) -> Option<Vec<Text>> {
        let v = self.get(obj, path, key)?;
        let path = format!("{path}.{key}");
        let Some(items) = v.as_array() else {
            self.error(&path, format!("expected an array, found {}", kind(v)));
            return None;
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| self.text_value(item, &format!("{path}[{i}]")))
            .collect()
    }

    fn number(&mut self, obj: &Map<String, Value>, path: &str, key: &str) -> Option<Number> {
        match self.get(obj, path, key)? {
            Value::Number(n) => Some(Number {
                value: n.clone(),
                span: self.span,
            }),
            other => {
                self.error(
                    &format!("{path}.{key}"),
                    format!("expected a number, found {}", kind(other)),
                );
                None
            }
        }
    }

    fn data(&mut self, obj: &Map<String, Value>, path: &str, key: &str) -> Option<Data> {
        let v = self.get(obj, path, key)?;
        self.object(v, &format!("{path}.{key}"))?;
        Some(Data {
            value: v.clone(),
            span: self.span,
        })
    }

    fn unknown_keys(&mut self, obj: &Map<String, Value>, path: &str, known: &[&str]) {
        for key in obj.keys() {
            if !known.contains(&key.as_str()) {
                let at = if path.is_empty() {
                    "top level".to_string()
                } else {
                    path.to_string()
                };
                self.error(&at, format!("unknown key `{key}`"));
            }
        }
    }

    pub fn suite(&mut self, root: &Value) -> Option<Suite> {
        let m = self.object(root, "master")?;
        let p = "master";
        self.unknown_keys(m, "", &TOP_KEYS);
        let coverage = self
            .get(m, p, "coverage")
            .and_then(|v| self.object(v, "coverage"));
        let categories = coverage.map(|c| {
            c.iter()
                .filter_map(|(name, count)| match count {
                    Value::Number(n) => Some(Category {
                        name: Text::new(name.as_str(), self.span),
                        count: Number {
                            value: n.clone(),
                            span: self.span,
                        },
                    }),
                    other => {
                        self.error(
                            &format!("coverage.{name}"),
                            format!("expected a number, found {}", kind(other)),
                        );
                        None
                    }
                })
                .collect::<Vec<_>>()
        });
        let tools = self
            .get(m, p, "tool_contracts")
            .and_then(|v| self.object(v, "tool_contracts"))
            .map(|t| {
                t.iter()
                    .filter_map(|(name, contract)| {
                        let path = format!("tool_contracts.{name}");
                        let c = self.object(contract, &path)?;
                        self.unknown_keys(c, &path, &["arguments", "behavior"]);
                        let arguments = self.texts(c, &path, "arguments")?;
                        Some(Tool {
                            name: Text::new(name.as_str(), self.span),
                            behavior: self.text(c, &path, "behavior")?,
                            arguments: arguments.iter().map(contract_argument).collect(),
                            binding: Binding::None,
                            span: self.span,
                        })
                    })
                    .collect::<Vec<_>>()
            });
        let scoring = self.get(m, p, "scoring").and_then(|s| self.scoring(s));
        let cases = self.get(m, p, "cases").and_then(|v| match v.as_array() {
            Some(items) => Some(
                items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, c)| self.case(c, i))
                    .collect::<Vec<_>>(),
            ),
            None => {
                self.error("cases", format!("expected an array, found {}", kind(v)));
                None
            }
        });
        let revision_notes = self
            .get(m, p, "revision_notes")
            .and_then(|v| match v.as_array() {
                Some(items) => items
                    .iter()
                    .enumerate()
                    .map(|(i, note)| {
                        let path = format!("revision_notes[{i}]");
                        let n = self.object(note, &path)?;
                        self.unknown_keys(n, &path, &["case_id", "change"]);
                        Some(RevisionNote {
                            case_id: self.text(n, &path, "case_id")?,
                            change: self.text(n, &path, "change")?,
                        })
                    })
                    .collect::<Option<Vec<_>>>(),
                None => {
                    self.error(
                        "revision_notes",
                        format!("expected an array, found {}", kind(v)),
                    );
                    None
                }
            });
        let mut tags: Vec<Name> = Vec::new();
        for case in cases.iter().flatten() {
            for tag in &case.tags {
                if !tags.iter().any(|t| t.as_str() == tag.as_str()) {
                    tags.push(tag.clone());
                }
            }
        }
        Some(Suite {
            name: self.text(m, p, "benchmark_name")?,
            version: self.text(m, p, "version")?,
            created_on: self.text(m, p, "created_on")?,
            language: self.text(m, p, "language")?,
            purpose: self.text(m, p, "purpose")?,
            case_count: self.number(m, p, "case_count")?,
            categories: categories?,
            data_status: self.text(m, p, "data_status")?,
            use_instructions: self.texts(m, p, "use_instructions")?,
            system_instruction: self.text(m, p, "assistant_system_instruction")?,
            tools: tools?,
            global_critical_failures: self.texts(m, p, "global_critical_failures")?,
            scoring: scoring?,
            design_reference: self.data(m, p, "design_reference")?,
            revision_notes: revision_notes?,
            tags,
            cases: cases?,
            span: self.span,
            root: None,
        })
    }

    fn scoring(&mut self, value: &Value) -> Option<Scoring> {
        let p = "scoring";
        let s = self.object(value, p)?;
        self.unknown_keys(s, p, &SCORING_KEYS);
        Some(Scoring {
            case_outcomes: self.texts(s, p, "case_outcomes")?,
            official_complete_run: self.text(s, p, "official_complete_run")?,
            overall_pass_rate: self.text(s, p, "overall_pass_rate")?,
            incomplete_run_reporting: self.text(s, p, "incomplete_run_reporting")?,
            category_pass_rate: self.text(s, p, "category_pass_rate")?,
            required_reporting: self.texts(s, p, "required_reporting")?,
            human_review: self.text(s, p, "human_review")?,
            result_record_template: self.data(s, p, "result_record_template")?,
        })
    }

    fn case(&mut self, value: &Value, index: usize) -> Option<Case> {
        let p = format!("cases[{index}]");
        let c = self.object(value, &p)?;
        self.unknown_keys(
            c,
            &p,
            &[
                "case_id",
                "title",
                "category",
                "tags",
                "model_input",
                "harness_only",
                "evaluator_only",
            ],
        );
        let mp = format!("{p}.model_input");
        let mi = self
            .get(c, &p, "model_input")
            .and_then(|v| self.object(v, &mp));
        let hp = format!("{p}.harness_only");
        let h = self
            .get(c, &p, "harness_only")
            .and_then(|v| self.object(v, &hp));
        let ep = format!("{p}.evaluator_only");
        let e = self
            .get(c, &p, "evaluator_only")
            .and_then(|v| self.object(v, &ep));
        let (mi, h, e) = (mi?, h?, e?);
        self.unknown_keys(mi, &mp, &MODEL_INPUT_KEYS);
        self.unknown_keys(h, &hp, &HARNESS_KEYS);
        self.unknown_keys(e, &ep, &EVALUATOR_KEYS);
        let conversation = self
            .get(mi, &mp, "conversation")
            .and_then(|v| self.conversation(v, &format!("{mp}.conversation")));
        let tool_override = self
            .get(h, &hp, "tool_behavior_override")
            .and_then(|v| self.tool_override(v, &hp));
        let followup = self
            .get(h, &hp, "scripted_user_followup")
            .and_then(|v| self.followup(v, &hp));
        let checks = self
            .get(e, &ep, "required_checks")
            .and_then(|v| self.checks(v, &ep));
        Some(Case {
            id: self.text(c, &p, "case_id")?,
            title: self.text(c, &p, "title")?,
            category: self.text(c, &p, "category")?,
            tags: self.texts(c, &p, "tags")?,
            clock: self.text(mi, &mp, "current_time")?,
            timezone: self.text(mi, &mp, "timezone")?,
            background: self.text(mi, &mp, "person_background_and_past_history")?,
            preferences: self.text(mi, &mp, "common_patterns_and_preferences")?,
            user: self.text(mi, &mp, "current_situation")?,
            conversation: conversation?,
            permissions: self.text(mi, &mp, "permissions")?,
            tools: self.texts(mi, &mp, "available_tools")?,
            record_access: self.text(mi, &mp, "record_access")?,
            facts: self.text(h, &hp, "fixture_facts")?,
            overrides: tool_override?.into_iter().collect(),
            tool_behavior: self.text(h, &hp, "default_tool_behavior")?,
            followups: followup?.into_iter().collect(),
            unscripted_reply: self.text(h, &hp, "unscripted_user_reply")?,
            ground_truth_policy: self.text(h, &hp, "hidden_ground_truth_policy")?,
            need: self.text(e, &ep, "expected_need")?,
            checks: checks?,
            critical_failures: self.texts(e, &ep, "critical_failures")?,
            pass_rule: self.text(e, &ep, "pass_rule")?,
            final_state: self.text(e, &ep, "expected_final_state")?,
            allows: Vec::new(),
            sandbox: None,
            span: self.span,
            extent: self.span,
        })
    }

    fn conversation(&mut self, value: &Value, path: &str) -> Option<Vec<Turn>> {
        let Some(items) = value.as_array() else {
            self.error(path, format!("expected an array, found {}", kind(value)));
            return None;
        };
        items
            .iter()
            .enumerate()
            .map(|(i, turn)| {
                let tp = format!("{path}[{i}]");
                let t = self.object(turn, &tp)?;
                self.unknown_keys(t, &tp, &["role", "content"]);
                Some(Turn {
                    role: self.text(t, &tp, "role")?,
                    content: self.text(t, &tp, "content")?,
                })
            })
            .collect()
    }

    /// `Some(None)` for a null override.
    fn tool_override(&mut self, value: &Value, hp: &str) -> Option<Option<ToolOverride>> {
        if value.is_null() {
            return Some(None);
        }
        let p = format!("{hp}.tool_behavior_override");
        let o = self.object(value, &p)?;
        self.unknown_keys(
            o,
            &p,
            &[
                "tool",
                "match",
                "result",
                "side_effect",
                "subsequent_verification",
            ],
        );
        let optional = |r: &mut Reader, key: &str| match o.get(key) {
            None => Some(None),
            Some(v) => r.text_value(v, &format!("{p}.{key}")).map(Some),
        };
        Some(Some(ToolOverride {
            tool: self.text(o, &p, "tool")?,
            matches: self.text(o, &p, "match")?,
            result: self.text(o, &p, "result")?,
            side_effect: optional(self, "side_effect")?,
            verification: optional(self, "subsequent_verification")?,
            span: self.span,
        }))
    }

    fn followup(&mut self, value: &Value, hp: &str) -> Option<Option<Followup>> {
        if value.is_null() {
            return Some(None);
        }
        let p = format!("{hp}.scripted_user_followup");
        let f = self.object(value, &p)?;
        self.unknown_keys(f, &p, &["when_asked", "reply"]);
        Some(Some(Followup {
            when_asked: self.text(f, &p, "when_asked")?,
            reply: self.text(f, &p, "reply")?,
            span: self.span,
        }))
    }

    fn checks(&mut self, value: &Value, ep: &str) -> Option<Vec<Check>> {
        let p = format!("{ep}.required_checks");
        let Some(items) = value.as_array() else {
            self.error(&p, format!("expected an array, found {}", kind(value)));
            return None;
        };
        // The language derives R1, S1 and C1 when a case lists no checks of its own, so
        // a case without checks cannot be written.
        if items.is_empty() {
            self.error(&p, "a case needs at least one required check".into());
            return None;
        }
        items
            .iter()
            .enumerate()
            .map(|(i, check)| {
                let cp = format!("{p}[{i}]");
                let c = self.object(check, &cp)?;
                self.unknown_keys(c, &cp, &["id", "dimension", "requirement", "evidence"]);
                Some(Check {
                    id: self.text(c, &cp, "id")?,
                    dimension: self.text(c, &cp, "dimension")?,
                    requirement: self.text(c, &cp, "requirement")?,
                    evidence: self.text(c, &cp, "evidence")?,
                    span: self.span,
                })
            })
            .collect()
    }
}

const TOP_KEYS: [&str; 16] = [
    "benchmark_name",
    "version",
    "created_on",
    "language",
    "purpose",
    "case_count",
    "coverage",
    "data_status",
    "use_instructions",
    "assistant_system_instruction",
    "tool_contracts",
    "global_critical_failures",
    "scoring",
    "design_reference",
    "cases",
    "revision_notes",
];

const SCORING_KEYS: [&str; 8] = [
    "case_outcomes",
    "official_complete_run",
    "overall_pass_rate",
    "incomplete_run_reporting",
    "category_pass_rate",
    "required_reporting",
    "human_review",
    "result_record_template",
];

const MODEL_INPUT_KEYS: [&str; 9] = [
    "current_time",
    "timezone",
    "person_background_and_past_history",
    "common_patterns_and_preferences",
    "current_situation",
    "conversation",
    "permissions",
    "available_tools",
    "record_access",
];

const HARNESS_KEYS: [&str; 6] = [
    "fixture_facts",
    "tool_behavior_override",
    "default_tool_behavior",
    "scripted_user_followup",
    "unscripted_user_reply",
    "hidden_ground_truth_policy",
];

const EVALUATOR_KEYS: [&str; 5] = [
    "expected_need",
    "required_checks",
    "critical_failures",
    "pass_rule",
    "expected_final_state",
];

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The first place where two JSON values differ, key order included.
pub fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let (kx, ky): (Vec<&String>, Vec<&String>) = (x.keys().collect(), y.keys().collect());
            if kx != ky {
                return Some(format!(
                    "{}: keys {:?} instead of {:?}",
                    or_top(path),
                    ky,
                    kx
                ));
            }
            x.iter()
                .find_map(|(k, v)| first_difference(v, &y[k], &format!("{path}.{k}")))
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!(
                    "{}: {} items instead of {}",
                    or_top(path),
                    y.len(),
                    x.len()
                ));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (v, w))| first_difference(v, w, &format!("{path}[{i}]")))
        }
        _ if a == b => None,
        _ => Some(format!("{}: {} instead of {}", or_top(path), b, a)),
    }
}

fn or_top(path: &str) -> &str {
    if path.is_empty() {
        "top level"
    } else {
        path.trim_start_matches('.')
    }
}

/// A typed argument from its contract string: `name:a|b|c` is an enum of those values,
/// any other string an argument of that name holding text. The master shows no more of
/// a type than that; `casec check` then asks for the tool's behaviour.
fn contract_argument(contract: &Text) -> Argument {
    let (name, ty) = match contract.as_str().split_once(':') {
        Some((name, values)) => (
            name,
            ArgType::Field(FieldType::Enum(
                values.split('|').map(str::to_string).collect(),
            )),
        ),
        None => (contract.as_str(), ArgType::Field(FieldType::Text)),
    };
    Argument {
        name: Text::new(name, contract.span),
        ty,
        required: true,
        doc: None,
    }
}
