//! The resolved model: a suite with every default applied.
//!
//! This is what the resolver produces and the lowering phases consume. Every text keeps
//! the span it was written at (in a case, a profile, the suite or the stdlib), so later
//! phases can point back at the source of any value.

// Module headers link to the private items of their crate: they are read by
// contributors, with `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

// The layers below, under the names the modules of this crate use for them.
use casec_base::source;

pub mod expect;
pub mod expr;
pub mod plain;
pub mod shape;
pub mod texts;
pub mod time;
pub mod tool;
pub mod value;
pub mod world;

use std::sync::Arc;

use arcstr::ArcStr;

use crate::source::Span;

pub use plain::Value;

/// A string value and where it was written. Cloning shares the string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Text {
    pub value: ArcStr,
    pub span: Span,
}

impl Text {
    pub fn new(value: impl Into<ArcStr>, span: Span) -> Text {
        Text {
            value: value.into(),
            span,
        }
    }

    pub fn as_str(&self) -> &str {
        &self.value
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.value)
    }
}

/// A name (a case id, category, tag, tool, profile, field or record id) and where it
/// was written: an identifier, not prose. A field typed `Name` takes no [`Text`]: a
/// reader makes one with [`Name::new`] or [`Name::from`], saying that it read a name.
/// The other way is open: a name reads as the text it was written as (its span and its
/// words, for a message), by `Deref`, so code that takes any text takes a name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name(Text);

impl Name {
    pub fn new(value: impl Into<ArcStr>, span: Span) -> Name {
        Name(Text::new(value, span))
    }

    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The name as the text it was written as.
    pub fn text(&self) -> &Text {
        &self.0
    }
}

impl From<Text> for Name {
    fn from(text: Text) -> Name {
        Name(text)
    }
}

impl From<Name> for Text {
    fn from(name: Name) -> Text {
        name.0
    }
}

impl std::ops::Deref for Name {
    type Target = Text;

    fn deref(&self) -> &Text {
        &self.0
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

/// Free-form JSON written as a data block (design reference, result template).
#[derive(Clone, Debug, PartialEq)]
pub struct Data {
    pub value: serde_json::Value,
    pub span: Span,
}

/// A number as written, emitted verbatim into JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct Number {
    pub value: serde_json::Number,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Suite {
    /// The shape the suite follows: its fields, grading and layouts.
    pub shape: Arc<shape::Shape>,
    /// The `suite "NAME"` header.
    pub name: Text,
    /// The suite's plain fields, by field id (`None`: not set, or not a plain kind).
    pub values: Vec<Option<Value>>,
    pub system_prompt: Option<Text>,
    pub case_count: Option<Number>,
    pub categories: Vec<Category>,
    pub global_critical_failures: Vec<Text>,
    pub revision_notes: Vec<RevisionNote>,
    pub reports: Vec<ReportLine>,
    pub result_template: Option<Data>,
    /// The suite's own names for the verdicts, in the grading's order, when it gives them.
    pub outcome_names: Option<Vec<Name>>,
    /// Every tool of the suite: its world schema's, then its own, in declaration order.
    pub tools: Vec<tool::Tool>,
    /// The world schema the suite names, which case worlds follow.
    pub world_schema: Option<Arc<world::WorldSchema>>,
    /// The tag vocabulary cases may use.
    pub tags: Vec<Name>,
    pub cases: Vec<Case>,
    /// The `suite` statement's header.
    pub span: Span,
    /// The folder the suite was read from, when it was read from disk: what adapter
    /// programs run in.
    pub root: Option<std::path::PathBuf>,
}

impl Suite {
    /// Whether one of the tools `case` offers runs workspace commands (`commands.run`).
    pub fn runs_commands(&self, case: &Case) -> bool {
        case.tools.iter().any(|offered| {
            self.tools
                .iter()
                .any(|tool| tool.name.as_str() == offered.as_str() && tool.commands().is_some())
        })
    }

    /// What this suite calls a verdict: its own name, else its shape's.
    pub fn outcome(&self, verdict: shape::Verdict) -> &str {
        let position = self
            .shape
            .grading
            .outcomes
            .iter()
            .position(|o| o.verdict == verdict);
        match (&self.outcome_names, position) {
            (Some(names), Some(i)) if i < names.len() => names[i].as_str(),
            _ => self.shape.outcome(verdict),
        }
    }

    /// The outcome names, in the grading's order.
    pub fn outcome_names(&self) -> Vec<&str> {
        self.shape
            .grading
            .outcomes
            .iter()
            .map(|o| self.outcome(o.verdict))
            .collect()
    }

    /// The value of the plain suite field `id`.
    pub fn value(&self, id: shape::FieldId) -> Option<&Value> {
        self.values.get(id)?.as_ref()
    }

    /// How many minutes the clock moves at each of the person's messages after the
    /// opening one: the value of the case's `clock_step` field (0 without one).
    pub fn clock_step_minutes(&self, case: &Case) -> u64 {
        let fields = &self.shape.case_fields;
        let step = fields
            .iter()
            .position(|f| f.kind == shape::Kind::ClockStep)
            .and_then(|id| case.value(id));
        match step {
            Some(Value::Text(t)) => time::parse_duration(t.as_str()).unwrap_or(0),
            _ => 0,
        }
    }

    /// The most tool calls a run of `case` may make: the value of the case's
    /// `step_limit` field, when the shape declares one and the case has it.
    pub fn step_limit(&self, case: &Case) -> Option<u64> {
        let fields = &self.shape.case_fields;
        let id = fields
            .iter()
            .position(|f| f.kind == shape::Kind::StepLimit)?;
        match case.value(id)? {
            Value::Number(n) => n.value.as_u64(),
            _ => None,
        }
    }

    /// Every critical failure that applies to `case`: its own (F1, F2, …), then the
    /// suite's (GF1, GF2, …), which a case inherits.
    pub fn criticals<'a>(&'a self, case: &'a Case) -> Vec<Critical<'a>> {
        let own = case
            .critical_failures
            .iter()
            .enumerate()
            .map(|(i, text)| Critical {
                id: expect::critical_id(i),
                text,
                global: false,
            });
        let global = self
            .global_critical_failures
            .iter()
            .enumerate()
            .map(|(i, text)| Critical {
                id: expect::global_critical_id(i),
                text,
                global: true,
            });
        own.chain(global).collect()
    }
}

/// A critical failure that applies to a case.
#[derive(Clone, Debug)]
pub struct Critical<'a> {
    pub id: String,
    pub text: &'a Text,
    /// The suite's, inherited: judged by a reader unless the case's `forbid` decides it.
    pub global: bool,
}

#[derive(Clone, Debug)]
pub struct Category {
    pub name: Name,
    pub count: Number,
}

/// `report "prose" { aggregation }`: a required report line and what computes it.
#[derive(Clone, Debug)]
pub struct ReportLine {
    pub text: Text,
    pub aggregation: Option<Aggregation>,
}

/// What `casec report` computes for a report line.
#[derive(Clone, Debug)]
pub enum Aggregation {
    /// Outcome tallies of every case, and per category.
    Outcomes,
    /// Outcome tallies of the cases that have a tag.
    OutcomesTagged(Name),
    /// Check results of one dimension.
    Checks(Name),
    /// Critical failures triggered, with their case.
    CriticalFailures,
}

#[derive(Clone, Debug)]
pub struct RevisionNote {
    pub case_id: Name,
    pub change: Text,
}

#[derive(Clone, Debug)]
pub struct Case {
    pub id: Name,
    pub title: Text,
    pub category: Option<Name>,
    pub tags: Vec<Name>,
    pub clock: Option<Text>,
    pub timezone: Option<Text>,
    /// The user's message, when the shape has one.
    pub user: Option<Text>,
    /// The conversation: its explicit turns, or the user's message as its one turn.
    pub conversation: Vec<Turn>,
    /// The tools the case offers.
    pub tools: Vec<Name>,
    /// `override` statements, in the order written.
    pub overrides: Vec<ToolOverride>,
    /// Scripted follow-ups (`followup { asked …; reply … }`), in the order written.
    pub followups: Vec<Followup>,
    pub unscripted_reply: Option<Text>,
    /// Every check: derived (from `need`, say) and written, in the grading's order.
    pub checks: Vec<Check>,
    pub critical_failures: Vec<Text>,
    /// The case's plain fields that are set, by field id, in the order of their ids:
    /// only those set, since a shape has many fields and a case sets a few (read and
    /// written through [`Case::value`] and [`Case::set_value`]).
    values: Vec<(shape::FieldId, Value)>,
    /// Warning codes this case allows, with the `allow` statement's span.
    pub allows: Vec<Name>,
    /// What the sandbox loads (world, machine overrides, expectations), when the case
    /// has a `world`.
    pub sandbox: Option<expect::Sandbox>,
    /// Whether the case writes a `world` (which, when `sandbox` is `None`, did not
    /// resolve: its own diagnostics say why).
    pub writes_world: bool,
    /// The `case` statement's header (keyword, id and title).
    pub span: Span,
    /// The whole `case` statement, from its keyword to its closing brace: a text whose
    /// span lies inside it was written in this case rather than inherited.
    pub extent: Span,
}

impl Case {
    /// A case with its id, title and place, and nothing else yet: no category, tags,
    /// conversation, tools, checks or values, for a reader to fill in.
    pub fn empty(id: Name, title: Text, span: Span, extent: Span) -> Case {
        Case {
            id,
            title,
            category: None,
            tags: Vec::new(),
            clock: None,
            timezone: None,
            user: None,
            conversation: Vec::new(),
            tools: Vec::new(),
            overrides: Vec::new(),
            followups: Vec::new(),
            unscripted_reply: None,
            checks: Vec::new(),
            critical_failures: Vec::new(),
            values: Vec::new(),
            allows: Vec::new(),
            sandbox: None,
            writes_world: false,
            span,
            extent,
        }
    }
}

impl Case {
    /// The value of the plain case field `id`.
    pub fn value(&self, id: shape::FieldId) -> Option<&Value> {
        let at = self.values.binary_search_by_key(&id, |(f, _)| *f).ok()?;
        Some(&self.values[at].1)
    }

    /// Makes room for exactly `additional` more plain fields.
    pub fn reserve_values(&mut self, additional: usize) {
        self.values.reserve_exact(additional);
    }

    /// Sets the plain case field `id` to `value`, or unsets it (`None`).
    pub fn set_value(&mut self, id: shape::FieldId, value: Option<Value>) {
        match (self.values.binary_search_by_key(&id, |(f, _)| *f), value) {
            (Ok(at), Some(value)) => self.values[at].1 = value,
            (Ok(at), None) => {
                self.values.remove(at);
            }
            (Err(at), Some(value)) => self.values.insert(at, (id, value)),
            (Err(_), None) => {}
        }
    }

    /// The case clock as written (empty when the shape has none).
    pub fn clock_text(&self) -> &str {
        self.clock.as_ref().map_or("", Text::as_str)
    }

    /// The case zone as written (empty when the shape has none).
    pub fn timezone_text(&self) -> &str {
        self.timezone.as_ref().map_or("", Text::as_str)
    }

    /// The reply to an unscripted question (empty when the shape has none).
    pub fn unscripted_reply_text(&self) -> &str {
        self.unscripted_reply.as_ref().map_or("", Text::as_str)
    }
}

#[derive(Clone, Debug)]
pub struct Turn {
    pub role: Name,
    pub content: Text,
}

#[derive(Clone, Debug)]
pub struct ToolOverride {
    pub tool: Name,
    pub matches: Text,
    pub result: Text,
    pub side_effect: Option<Text>,
    pub verification: Option<Text>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Followup {
    pub when_asked: Text,
    pub reply: Text,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Check {
    pub id: Name,
    pub dimension: Name,
    pub requirement: Text,
    /// What the check is judged on, when the shape gives checks evidence.
    pub evidence: Option<Text>,
    /// The statement the check comes from (a derivation's field, or `check`).
    pub span: Span,
    /// The field it comes from (a derivation's, or the checks field).
    pub source: Option<shape::FieldId>,
    /// Derived from a field the case inherits rather than writes (the suite's
    /// communication requirement, say): judged by a reader unless an expectation
    /// decides it.
    pub inherited: bool,
}

#[cfg(test)]
mod tests {
    use super::expect::{Assertion, Condition};
    use super::*;

    /// A case keeps texts, the values of its fields and lists of assertions and
    /// conditions: their sizes are most of a suite's model (docs/performance.md,
    /// "seventh pass" and "eighth pass"). A variant that grows them should be boxed,
    /// as `Data` and `File` are; a text's string is one pointer.
    #[test]
    fn the_model_items_a_case_holds_many_of_stay_small() {
        assert!(std::mem::size_of::<Text>() <= 24);
        assert!(std::mem::size_of::<Option<Value>>() <= 32);
        assert!(std::mem::size_of::<Assertion>() <= 80);
        assert!(std::mem::size_of::<Condition>() <= 80);
    }
}
