//! Every text of a suite or a case, with the field it belongs to and who may read it.
//!
//! This is the one list behind every rule about texts: the blinding proof keeps the
//! hidden ones out of bundles, the leak check compares a case's model-facing texts with
//! its hidden ones, prose hygiene checks them all, record-id rules read the fixtures
//! and the answer key. It follows from the shape's field declarations, so a new field
//! is covered by all of them the moment it is declared.

use std::borrow::Cow;

use super::plain::Piece;
use super::shape::{FieldDecl, Kind, Visibility};
use super::{Case, Data, Suite, Text, Value};

/// One text, where it belongs and who may read it.
#[derive(Clone, Debug)]
pub struct Labelled<'a> {
    /// The field's key (`facts`, `scoring.human_review`), or `title`.
    pub field: &'a str,
    /// What part of the field it is, for messages: `requirement`, `asked`, `result`, …
    pub part: Option<&'static str>,
    pub text: Cow<'a, Text>,
    pub visibility: Visibility,
    /// Prose, which the leak rule compares; else an identifier or a vocabulary's word (a
    /// tag, a clock), checked for hygiene only.
    pub prose: bool,
}

impl<'a> Labelled<'a> {
    /// "`facts`", "`override` result", "`check` requirement", …
    pub fn describe(&self) -> String {
        self.what().to_string()
    }

    /// What the text is, written out only when a message needs it.
    pub fn what(&self) -> What<'a> {
        What::Field {
            field: self.field,
            part: self.part,
        }
    }
}

/// What a text is, for messages: a field (and part of it) or a fixed description
/// ("tool behavior"). Cheap to copy; displayed as "`facts`", "`override` result", ….
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What<'a> {
    Field {
        field: &'a str,
        part: Option<&'static str>,
    },
    Named(&'static str),
}

impl std::fmt::Display for What<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            What::Field {
                field,
                part: Some(part),
            } => write!(f, "`{field}` {part}"),
            What::Field { field, part: None } => write!(f, "`{field}`"),
            What::Named(name) => f.write_str(name),
        }
    }
}

struct Collect<'a> {
    out: Vec<Labelled<'a>>,
}

impl<'a> Collect<'a> {
    fn push(&mut self, field: &'a FieldDecl, part: Option<&'static str>, text: &'a Text) {
        self.out.push(Labelled {
            field: field.key.as_str(),
            part,
            text: Cow::Borrowed(text),
            visibility: field.visibility,
            prose: !field.kind.holds_words(),
        });
    }

    fn value(&mut self, field: &'a FieldDecl, value: &'a Value) {
        for piece in value.pieces() {
            match piece {
                Piece::Text(text) => self.push(field, None, text),
                Piece::Names(names) => names.iter().for_each(|n| self.push(field, None, n)),
                Piece::Number(_) => {}
                Piece::Data(data) => self.data(field, data),
            }
        }
    }

    /// The strings of a data block, keys included, each at the block's span.
    fn data(&mut self, field: &'a FieldDecl, data: &Data) {
        let mut strings = Vec::new();
        strings_of(&data.value, &mut strings);
        for s in strings {
            self.out.push(Labelled {
                field: field.key.as_str(),
                part: None,
                text: Cow::Owned(Text::new(s, data.span)),
                visibility: field.visibility,
                prose: true,
            });
        }
    }
}

/// Every text of a case: its title, then each field's in declaration order.
pub fn case_texts<'a>(suite: &'a Suite, case: &'a Case) -> Vec<Labelled<'a>> {
    let shape = &suite.shape;
    // Room for a few texts a field, as real cases have: every case's list is built
    // for every run, and growing it from nothing reallocates it five times.
    let mut c = Collect {
        out: Vec::with_capacity(2 * shape.case_fields.len() + 8),
    };
    c.out.push(Labelled {
        field: "title",
        part: None,
        text: Cow::Borrowed(&case.title),
        visibility: Visibility::Evaluator,
        prose: true,
    });
    for (id, field) in shape.case_fields.iter().enumerate() {
        match field.kind {
            crate::kinds_with_a_value!() => {
                if let Some(value) = case.value(id) {
                    c.value(field, value);
                }
            }
            Kind::Category => c.out.extend(case.category.iter().map(|t| name(field, t))),
            Kind::Tags => c.out.extend(case.tags.iter().map(|t| name(field, t))),
            Kind::Tools => c.out.extend(case.tools.iter().map(|t| name(field, t))),
            Kind::Clock => c.out.extend(case.clock.iter().map(|t| name(field, t))),
            Kind::Timezone => c.out.extend(case.timezone.iter().map(|t| name(field, t))),
            Kind::UserMessage => case.user.iter().for_each(|t| c.push(field, None, t)),
            Kind::UnscriptedReply => case
                .unscripted_reply
                .iter()
                .for_each(|t| c.push(field, None, t)),
            Kind::Conversation => {
                // The default turn is the user message itself, listed there.
                let user = case.user.as_ref().map(|u| u.span);
                for turn in case
                    .conversation
                    .iter()
                    .filter(|t| Some(t.content.span) != user)
                {
                    c.push(field, Some("turn"), &turn.content);
                }
            }
            Kind::Override => {
                for o in &case.overrides {
                    c.push(field, Some("match"), &o.matches);
                    c.push(field, Some("result"), &o.result);
                    o.side_effect
                        .iter()
                        .for_each(|t| c.push(field, Some("side effect"), t));
                    o.verification
                        .iter()
                        .for_each(|t| c.push(field, Some("verification"), t));
                }
            }
            Kind::Followup => {
                for f in &case.followups {
                    c.push(field, Some("question"), &f.when_asked);
                    c.push(field, Some("reply"), &f.reply);
                }
            }
            Kind::Checks => {
                for check in case.checks.iter().filter(|ch| ch.source == Some(id)) {
                    c.push(field, Some("requirement"), &check.requirement);
                }
            }
            Kind::CriticalFailures => case
                .critical_failures
                .iter()
                .for_each(|t| c.push(field, None, t)),
            Kind::Evidence => {
                let mut seen = Vec::new();
                for evidence in case.checks.iter().filter_map(|ch| ch.evidence.as_ref()) {
                    if !seen.contains(&evidence.span) {
                        seen.push(evidence.span);
                        c.push(field, None, evidence);
                    }
                }
            }
            Kind::SystemPrompt
            | Kind::CaseCount
            | Kind::Revisions
            | Kind::Reports
            | Kind::ResultTemplate
            | Kind::GlobalCriticalFailures
            | Kind::Outcomes => {}
        }
    }
    c.out
}

fn name<'a>(field: &'a FieldDecl, text: &'a Text) -> Labelled<'a> {
    Labelled {
        field: field.key.as_str(),
        part: None,
        text: Cow::Borrowed(text),
        visibility: field.visibility,
        prose: false,
    }
}

/// Every text of the suite block, each field's in declaration order (the name first).
pub fn suite_texts(suite: &Suite) -> Vec<Labelled<'_>> {
    let mut c = Collect { out: Vec::new() };
    c.out.push(Labelled {
        field: "name",
        part: None,
        text: Cow::Borrowed(&suite.name),
        visibility: Visibility::Public,
        prose: true,
    });
    for (id, field) in suite.shape.suite_fields.iter().enumerate() {
        match field.kind {
            Kind::SystemPrompt => suite
                .system_prompt
                .iter()
                .for_each(|t| c.push(field, None, t)),
            Kind::GlobalCriticalFailures => suite
                .global_critical_failures
                .iter()
                .for_each(|t| c.push(field, None, t)),
            Kind::Revisions => suite
                .revision_notes
                .iter()
                .for_each(|r| c.push(field, None, &r.change)),
            Kind::Reports => suite
                .reports
                .iter()
                .for_each(|r| c.push(field, None, &r.text)),
            Kind::ResultTemplate => {
                if let Some(data) = &suite.result_template {
                    c.data(field, data);
                }
            }
            Kind::Outcomes => {
                for n in suite.outcome_names.iter().flatten() {
                    c.out.push(name(field, n));
                }
            }
            _ => {
                if let Some(value) = suite.value(id) {
                    c.value(field, value);
                }
            }
        }
    }
    for tool in &suite.tools {
        c.out.push(Labelled {
            field: "tool",
            part: Some("behavior"),
            text: Cow::Borrowed(&tool.behavior),
            visibility: Visibility::Model,
            prose: true,
        });
        for doc in tool.arguments.iter().filter_map(|a| a.doc.as_ref()) {
            c.out.push(Labelled {
                field: "tool",
                part: Some("argument"),
                text: Cow::Borrowed(doc),
                visibility: Visibility::Model,
                prose: true,
            });
        }
    }
    c.out
}

/// Every string in a JSON value, keys included.
fn strings_of(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|v| strings_of(v, out)),
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                strings_of(v, out);
            }
        }
        serde_json::Value::Null | serde_json::Value::Bool(_) | serde_json::Value::Number(_) => {}
    }
}
