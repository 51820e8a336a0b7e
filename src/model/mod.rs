//! The resolved model: a suite with every default applied.
//!
//! This is what the resolver produces and the lowering phases consume. Every text keeps
//! the span it was written at (in a case, a profile, the suite or the stdlib), so later
//! phases can point back at the source of any value.

pub mod expect;
pub mod time;
pub mod tool;
pub mod value;
pub mod world;

use std::sync::Arc;

use crate::source::Span;

/// A string value and where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Text {
    pub value: Arc<str>,
    pub span: Span,
}

impl Text {
    pub fn new(value: impl Into<Arc<str>>, span: Span) -> Text {
        Text {
            value: value.into(),
            span,
        }
    }

    pub fn as_str(&self) -> &str {
        &self.value
    }
}

/// A name (case id, category, tag, tool, profile) and where it was written.
pub type Name = Text;

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
    pub name: Text,
    pub version: Text,
    pub created_on: Text,
    pub language: Text,
    pub purpose: Text,
    pub case_count: Number,
    pub categories: Vec<Category>,
    pub data_status: Text,
    pub use_instructions: Vec<Text>,
    pub system_instruction: Text,
    /// Every tool of the suite: its world schema's, then its own, in declaration order.
    pub tools: Vec<tool::Tool>,
    pub global_critical_failures: Vec<Text>,
    pub scoring: Scoring,
    pub design_reference: Data,
    pub revision_notes: Vec<RevisionNote>,
    pub tags: Vec<Name>,
    pub cases: Vec<Case>,
    /// The `suite` statement's header.
    pub span: Span,
    /// The folder the suite was read from, when it was read from disk: what adapter
    /// programs run in.
    pub root: Option<std::path::PathBuf>,
}

#[derive(Clone, Debug)]
pub struct Category {
    pub name: Name,
    pub count: Number,
}

#[derive(Clone, Debug)]
pub struct Scoring {
    pub case_outcomes: Vec<Text>,
    pub official_complete_run: Text,
    pub overall_pass_rate: Text,
    pub incomplete_run_reporting: Text,
    pub category_pass_rate: Text,
    pub required_reporting: Vec<Text>,
    pub human_review: Text,
    pub result_record_template: Data,
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
    pub category: Name,
    pub tags: Vec<Name>,
    pub clock: Text,
    pub timezone: Text,
    pub background: Text,
    pub preferences: Text,
    pub user: Text,
    pub conversation: Vec<Turn>,
    pub permissions: Text,
    pub tools: Vec<Name>,
    pub record_access: Text,
    pub facts: Text,
    /// `override` statements, in the order written.
    pub overrides: Vec<ToolOverride>,
    pub tool_behavior: Text,
    /// Scripted follow-ups (`followup { asked …; reply … }`), in the order written.
    pub followups: Vec<Followup>,
    pub unscripted_reply: Text,
    pub ground_truth_policy: Text,
    pub need: Text,
    pub checks: Vec<Check>,
    pub critical_failures: Vec<Text>,
    pub pass_rule: Text,
    pub final_state: Text,
    /// Warning codes this case allows, with the `allow` statement's span.
    pub allows: Vec<Name>,
    /// What the sandbox loads (world, machine override, expectations), when the case
    /// has a `world`.
    pub sandbox: Option<expect::Sandbox>,
    /// The `case` statement's header (keyword, id and title).
    pub span: Span,
    /// The whole `case` statement, from its keyword to its closing brace: a text whose
    /// span lies inside it was written in this case rather than inherited.
    pub extent: Span,
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
    pub evidence: Text,
    /// The statement the check comes from (`need`, `check`, `final`, or the suite's
    /// `communication` default).
    pub span: Span,
}

/// The four check dimensions the language knows, with the id letter of each.
pub const DIMENSIONS: [(&str, &str); 4] = [
    ("R", "recognition"),
    ("A", "execution_and_evidence"),
    ("S", "final_state"),
    ("C", "communication"),
];

/// The dimension an id like `A2` names by its letters.
pub fn dimension_of_id(id: &str) -> Option<&'static str> {
    let letters = id.trim_end_matches(|c: char| c.is_ascii_digit());
    DIMENSIONS
        .iter()
        .find(|(l, _)| *l == letters)
        .map(|(_, d)| *d)
}
