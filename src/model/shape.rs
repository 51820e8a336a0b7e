//! The shape of a benchmark, as data: which fields a suite and its cases have, what
//! the model may see of each, how cases are graded, and how the outputs are laid out.
//!
//! A shape is declared in `.case` syntax (`shape NAME { … }`: the stdlib holds Tujora's,
//! DonnaBench's, DuMate's and casec's own default) and a suite names it with `shape
//! NAME`. Everything the compiler does with a field follows from its one declaration
//! ([`FieldDecl`]): the key it is written under, its [`Kind`] (how it is read and what
//! it means to the sandbox), whether cases inherit it, and its [`Visibility`], from
//! which the blinding proof and the leak check take their lists. Layouts ([`Layout`])
//! place fields in the master, the bundles, the result record and export formats.
//! The reader is `resolve::shape`; the layout engine `lower::layout`.

use crate::model::{Name, Text};
use crate::source::Span;

#[derive(Clone, Debug)]
pub struct Shape {
    pub name: Name,
    pub doc: Option<Text>,
    pub suite_fields: Vec<FieldDecl>,
    pub case_fields: Vec<FieldDecl>,
    pub grading: Grading,
    pub master: Layout,
    pub bundle: Layout,
    pub result: Layout,
    pub exports: Vec<Export>,
    /// What `casec import` gives a suite it writes from a master of this shape.
    pub import: ImportDefaults,
}

/// `import { profile NAME; world_schema NAME }`: the stdlib profile an imported suite
/// applies (the importer leaves out what it already says) and the world schema whose
/// tools it names rather than declares.
#[derive(Clone, Debug, Default)]
pub struct ImportDefaults {
    pub profile: Option<Name>,
    pub world_schema: Option<Name>,
}

/// The position of a field among its shape's suite or case fields.
pub type FieldId = usize;

impl Shape {
    /// The case field of `kind`, if the shape declares one (semantic kinds occur once).
    pub fn case_field(&self, kind: Kind) -> Option<FieldId> {
        self.case_fields.iter().position(|f| f.kind == kind)
    }

    pub fn suite_field(&self, kind: Kind) -> Option<FieldId> {
        self.suite_fields.iter().position(|f| f.kind == kind)
    }

    pub fn case_field_named(&self, key: &str) -> Option<FieldId> {
        self.case_fields.iter().position(|f| f.key.as_str() == key)
    }

    pub fn suite_field_named(&self, key: &str) -> Option<FieldId> {
        self.suite_fields.iter().position(|f| f.key.as_str() == key)
    }

    /// The outcome name the grading gives a verdict.
    pub fn outcome(&self, verdict: Verdict) -> &str {
        self.grading
            .outcomes
            .iter()
            .find(|o| o.verdict == verdict)
            .map_or(verdict.as_str(), |o| o.name.as_str())
    }
}

/// One declared field: `field KEY KIND [required] [inherited] [VISIBILITY] { … }`.
#[derive(Clone, Debug)]
pub struct FieldDecl {
    /// The statement key; dots name statements inside blocks (`scoring.human_review`).
    pub key: Name,
    pub kind: Kind,
    pub required: bool,
    /// Cases take it from the suite, their category or a profile when they do not set it.
    pub inherited: bool,
    pub visibility: Visibility,
    /// For repeated kinds: how many statements a case (or suite) may and must have.
    pub at_most: Option<usize>,
    pub at_least: usize,
    /// For text and names fields: the words a value must be one of (`one_of a b c`).
    pub one_of: Vec<Name>,
    pub doc: Option<Text>,
    pub span: Span,
}

impl FieldDecl {
    /// Whether the field's value is read from several statements.
    pub fn repeated(&self) -> bool {
        self.kind.repeated()
    }

    /// How a statement of the field is written, for help messages.
    pub fn example(&self) -> String {
        let key = self.key.as_str().rsplit('.').next().unwrap_or_default();
        match self.kind {
            Kind::Override => format!("{key} TOOL \"match\" {{ result \"…\" }}"),
            Kind::Followup => format!("{key} {{ asked \"…\"; reply \"…\" }}"),
            Kind::Conversation => format!("{key} {{ user \"…\"; assistant \"…\" }}"),
            Kind::Evidence => format!("{key} DIMENSION \"…\""),
            Kind::Revisions => format!("{key} CASE-ID \"…\""),
            Kind::Data | Kind::ResultTemplate => format!("{key} {{ … }}"),
            Kind::Number | Kind::CaseCount => format!("{key} 1"),
            kind if kind.names() && !matches!(kind, Kind::Clock | Kind::Timezone) => {
                format!("{key} NAME")
            }
            _ => format!("{key} \"…\""),
        }
    }

    /// Whether the field's value is one item (an object or null in a layout) although
    /// its kind repeats: `at_most 1`.
    pub fn single(&self) -> bool {
        self.repeated() && self.at_most == Some(1)
    }
}

/// Who may read a field's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    /// The model under test: the only texts a bundle may hold.
    Model,
    /// Anyone (metadata): neither shown to the model nor secret.
    Public,
    /// The harness: fixtures, overrides, scripted replies. Hidden from the model.
    Harness,
    /// The evaluator: the answer key. Hidden from the model.
    Evaluator,
}

impl Visibility {
    pub const ALL: [(&'static str, Visibility); 4] = [
        ("model", Visibility::Model),
        ("public", Visibility::Public),
        ("harness", Visibility::Harness),
        ("evaluator", Visibility::Evaluator),
    ];

    pub fn as_str(self) -> &'static str {
        Visibility::ALL
            .iter()
            .find(|(_, v)| *v == self)
            .map_or("evaluator", |(n, _)| n)
    }

    /// Hidden from the model: what the blinding proof keeps out of bundles.
    pub fn hidden(self) -> bool {
        matches!(self, Visibility::Harness | Visibility::Evaluator)
    }
}

/// What a field holds and, for the kinds the sandbox and the checks understand, what
/// it means. Plain kinds (`text` … `data`) mean nothing to casec beyond their values;
/// each semantic kind occurs at most once in a shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    // Plain values.
    Text,
    /// Several statements, one text each, in order.
    Texts,
    Names,
    Number,
    Data,
    // Case semantics.
    Category,
    Tags,
    /// The tools a case offers.
    Tools,
    Clock,
    Timezone,
    /// The user's message; the conversation's one user turn when there is no other.
    UserMessage,
    Conversation,
    Override,
    Followup,
    UnscriptedReply,
    Checks,
    CriticalFailures,
    /// `evidence DIMENSION "…"`: the evidence of checks of a dimension.
    Evidence,
    // Suite semantics.
    SystemPrompt,
    CaseCount,
    Revisions,
    Reports,
    ResultTemplate,
    GlobalCriticalFailures,
    /// The suite's names for the verdicts, in the order the grading declares them.
    Outcomes,
}

/// Where a kind may be declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Suite,
    Case,
    Both,
}

impl Kind {
    /// Every kind with its name in a shape declaration and where it may be declared.
    pub const ALL: [(&'static str, Kind, Level); 25] = [
        ("text", Kind::Text, Level::Both),
        ("texts", Kind::Texts, Level::Both),
        ("names", Kind::Names, Level::Both),
        ("number", Kind::Number, Level::Both),
        ("data", Kind::Data, Level::Both),
        ("category", Kind::Category, Level::Case),
        ("tags", Kind::Tags, Level::Case),
        ("tools", Kind::Tools, Level::Case),
        ("clock", Kind::Clock, Level::Case),
        ("timezone", Kind::Timezone, Level::Case),
        ("user_message", Kind::UserMessage, Level::Case),
        ("conversation", Kind::Conversation, Level::Case),
        ("override", Kind::Override, Level::Case),
        ("followup", Kind::Followup, Level::Case),
        ("unscripted_reply", Kind::UnscriptedReply, Level::Case),
        ("checks", Kind::Checks, Level::Case),
        ("critical_failures", Kind::CriticalFailures, Level::Case),
        ("evidence", Kind::Evidence, Level::Case),
        ("system_prompt", Kind::SystemPrompt, Level::Suite),
        ("case_count", Kind::CaseCount, Level::Suite),
        ("revisions", Kind::Revisions, Level::Suite),
        ("reports", Kind::Reports, Level::Suite),
        ("result_template", Kind::ResultTemplate, Level::Suite),
        (
            "global_critical_failures",
            Kind::GlobalCriticalFailures,
            Level::Suite,
        ),
        ("outcomes", Kind::Outcomes, Level::Suite),
    ];

    pub fn as_str(self) -> &'static str {
        Kind::ALL
            .iter()
            .find(|(_, k, _)| *k == self)
            .map_or("text", |(n, _, _)| n)
    }

    /// Read from every statement with the key, in order, rather than from one.
    pub fn repeated(self) -> bool {
        matches!(
            self,
            Kind::Texts
                | Kind::Override
                | Kind::Followup
                | Kind::Checks
                | Kind::CriticalFailures
                | Kind::Evidence
                | Kind::Revisions
                | Kind::Reports
                | Kind::GlobalCriticalFailures
        )
    }

    /// Plain kinds carry values only; a shape may declare any number of them.
    pub fn plain(self) -> bool {
        matches!(
            self,
            Kind::Text | Kind::Texts | Kind::Names | Kind::Number | Kind::Data
        )
    }

    /// Kinds whose values are identifiers, never compared as prose by the blinding
    /// proof (a tag is not a secret sentence).
    pub fn names(self) -> bool {
        matches!(
            self,
            Kind::Names
                | Kind::Category
                | Kind::Tags
                | Kind::Tools
                | Kind::Clock
                | Kind::Timezone
                | Kind::Outcomes
        )
    }
}

/// How cases are graded: dimensions, how checks are derived, outcomes, feature tags.
#[derive(Clone, Debug, Default)]
pub struct Grading {
    pub dimensions: Vec<Dimension>,
    /// In the order the checks of a case are listed.
    pub derivations: Vec<Derivation>,
    /// In the order the suite's `outcomes` (when the shape has such a field) names them.
    pub outcomes: Vec<Outcome>,
    pub feature_tags: Vec<FeatureTag>,
    /// `judged_on`: what a judge reads for review items, by dimension (or for critical
    /// failures); where none is given, every kind of [`Evidence`] the result layout
    /// holds.
    pub judged_on: Vec<JudgedOn>,
}

impl Grading {
    /// What the grading's `judged_on` says a judge reads for a check of `dimension`
    /// (`None`: a critical failure), when it says.
    pub fn judged_on(&self, dimension: Option<&str>) -> Option<&[Evidence]> {
        self.judged_on
            .iter()
            .find(|j| j.dimension.as_ref().map(Name::as_str) == dimension)
            .map(|j| j.evidence.as_slice())
    }

    pub fn dimension(&self, name: &str) -> Option<&Dimension> {
        self.dimensions.iter().find(|d| d.name.as_str() == name)
    }

    /// The dimension whose letter starts a check id like `A2`.
    pub fn dimension_of_id(&self, id: &str) -> Option<&Dimension> {
        let letters = id.trim_end_matches(|c: char| c.is_ascii_digit());
        self.dimensions
            .iter()
            .find(|d| d.letter.as_str() == letters)
    }
}

/// `judged_on DIMENSION|critical EVIDENCE…`: what a judge reads for the review items of
/// a dimension, or for critical failures.
#[derive(Clone, Debug)]
pub struct JudgedOn {
    /// `None`: critical failures.
    pub dimension: Option<Name>,
    pub evidence: Vec<Evidence>,
}

/// A part of a run a judge can read: each is a built-in of the result record's layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Evidence {
    /// The assistant's replies.
    Reply,
    /// The tool calls, with what each returned and changed.
    Trace,
    /// The sandbox state after the run.
    FinalState,
}

impl Evidence {
    pub const ALL: [Evidence; 3] = [Evidence::Reply, Evidence::Trace, Evidence::FinalState];

    /// Its name in `judged_on`.
    pub fn as_str(self) -> &'static str {
        match self {
            Evidence::Reply => "reply",
            Evidence::Trace => "trace",
            Evidence::FinalState => "final_state",
        }
    }

    /// The result-layout source that holds it.
    pub fn source(self) -> Builtin {
        match self {
            Evidence::Reply => Builtin::Replies,
            Evidence::Trace => Builtin::Trace,
            Evidence::FinalState => Builtin::FinalState,
        }
    }
}

impl Shape {
    /// What a judge reads for a review item of `dimension` (`None`: a critical
    /// failure): the grading's `judged_on`, else every evidence the result layout holds.
    pub fn evidence_of(&self, dimension: Option<&str>) -> Vec<Evidence> {
        match self.grading.judged_on(dimension) {
            Some(declared) => declared.to_vec(),
            None => Evidence::ALL
                .into_iter()
                .filter(|e| self.result.key_of(e.source()).is_some())
                .collect(),
        }
    }
}

/// `dimension NAME LETTER exactly N` / `at_least N` / `any`.
#[derive(Clone, Debug)]
pub struct Dimension {
    pub name: Name,
    /// The letters of its check ids (`A` for A1, A2, …).
    pub letter: Name,
    pub count: CheckCount,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckCount {
    Exactly(usize),
    AtLeast(usize),
}

/// `derive DIMENSION FIELD`: a field of the case that makes checks of a dimension. A
/// text field makes one check (`R1`), a `checks` field one per id-less statement
/// (`A1`, `A2`, …). A check derived from a field the case inherits rather than writes
/// is judged by a reader unless an expectation decides it.
#[derive(Clone, Debug)]
pub struct Derivation {
    pub dimension: Name,
    pub field: FieldId,
}

/// The three verdicts a run can reach, whatever a suite calls its outcomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every check passed and no critical failure occurred, all decided.
    Passed,
    /// A check failed or a critical failure was triggered.
    Failed,
    /// Nothing failed, but something still awaits a reader.
    Undecided,
}

impl Verdict {
    pub const ALL: [(&'static str, Verdict); 3] = [
        ("passed", Verdict::Passed),
        ("failed", Verdict::Failed),
        ("undecided", Verdict::Undecided),
    ];

    pub fn as_str(self) -> &'static str {
        Verdict::ALL
            .iter()
            .find(|(_, v)| *v == self)
            .map_or("undecided", |(n, _)| n)
    }
}

/// `outcome VERDICT NAME`: what the suite calls a verdict.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub verdict: Verdict,
    pub name: Name,
}

/// `tag TAG FIELD`: a tag that promises the case has the field (a follow-up, say).
#[derive(Clone, Debug)]
pub struct FeatureTag {
    pub tag: Name,
    pub field: FieldId,
}

/// A template for a JSON object: its keys in order, each with what it holds.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    pub entries: Vec<Entry>,
    /// The `layout` statement, for diagnostics.
    pub span: Option<Span>,
}

impl Layout {
    /// The top-level key that holds `builtin`, if any: how a reader finds the case id
    /// or the outcome in a record the layout wrote.
    pub fn key_of(&self, builtin: Builtin) -> Option<&str> {
        self.entries.iter().find_map(|e| match &e.value {
            Slot::Source {
                source: Source::Builtin(b),
                ..
            } if *b == builtin => Some(e.key.as_str()),
            _ => None,
        })
    }
}

#[derive(Clone, Debug)]
pub struct Entry {
    pub key: Name,
    pub value: Slot,
}

#[derive(Clone, Debug)]
pub enum Slot {
    /// A nested object.
    Object(Layout),
    /// A source, and the layout of each of its items when it holds several.
    Source {
        source: Source,
        items: Option<Layout>,
    },
}

/// What a layout key holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A declared field of the context's level.
    Field(FieldId),
    /// A suite field, from inside a case's layout (`suite.KEY`).
    SuiteField(FieldId),
    /// One of the things every suite and case has.
    Builtin(Builtin),
    /// A part of the item an item layout lays out (a check's `requirement`).
    Part(Part),
}

/// Sources every shape can use, by level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    // Suite level.
    SuiteName,
    /// Each category's declared case count, by name.
    Categories,
    /// The suite's tools; in a case's layout, the tools the case offers.
    Tools,
    Cases,
    /// The outcome names, in the grading's order.
    Outcomes,
    // Case level.
    CaseId,
    CaseTitle,
    /// Every check of the case, derived and written.
    AllChecks,
    // What a run decided (the result record's layout).
    Outcome,
    /// Each check's result (`pass`, `fail`, `needs_review`), by id.
    CheckResults,
    Triggered,
    PendingReview,
    Trace,
    FinalState,
    Replies,
    /// The model that made the run, as the harness names it (empty when none says).
    Model,
    /// The id of the harness's run (empty when none says).
    RunId,
}

impl Builtin {
    /// Every built-in source with its name in a layout, and where it may be used.
    pub const ALL: [(&'static str, Builtin, Level); 17] = [
        ("name", Builtin::SuiteName, Level::Suite),
        ("categories", Builtin::Categories, Level::Suite),
        ("tools", Builtin::Tools, Level::Both),
        ("cases", Builtin::Cases, Level::Suite),
        ("outcomes", Builtin::Outcomes, Level::Suite),
        ("id", Builtin::CaseId, Level::Case),
        ("title", Builtin::CaseTitle, Level::Case),
        ("checks", Builtin::AllChecks, Level::Case),
        ("outcome", Builtin::Outcome, Level::Case),
        ("check_results", Builtin::CheckResults, Level::Case),
        ("triggered", Builtin::Triggered, Level::Case),
        ("pending_review", Builtin::PendingReview, Level::Case),
        ("trace", Builtin::Trace, Level::Case),
        ("final_state", Builtin::FinalState, Level::Case),
        ("replies", Builtin::Replies, Level::Case),
        ("model", Builtin::Model, Level::Case),
        ("run_id", Builtin::RunId, Level::Case),
    ];

    pub fn as_str(self) -> &'static str {
        Builtin::ALL
            .iter()
            .find(|(_, b, _)| *b == self)
            .map_or("?", |(n, _, _)| n)
    }

    /// Sources of what a run decided: only the result record's layout has them.
    pub fn of_run(self) -> bool {
        matches!(
            self,
            Builtin::Outcome
                | Builtin::CheckResults
                | Builtin::Triggered
                | Builtin::PendingReview
                | Builtin::Trace
                | Builtin::FinalState
                | Builtin::Replies
                | Builtin::Model
                | Builtin::RunId
        )
    }
}

/// The items a layout can lay out one by one, and their parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    Tool,
    Category,
    Check,
    Override,
    Followup,
    Turn,
    Revision,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    Name,
    Count,
    Behavior,
    ArgumentList,
    InputSchema,
    Id,
    Dimension,
    Requirement,
    Evidence,
    Tool,
    Match,
    Result,
    SideEffect,
    Verify,
    Asked,
    Reply,
    Role,
    Content,
    Case,
    Change,
}

impl Part {
    /// Every part with its name and the item it belongs to.
    pub const ALL: [(&'static str, Part, Item); 21] = [
        ("name", Part::Name, Item::Tool),
        ("behavior", Part::Behavior, Item::Tool),
        ("argument_list", Part::ArgumentList, Item::Tool),
        ("input_schema", Part::InputSchema, Item::Tool),
        ("name", Part::Name, Item::Category),
        ("count", Part::Count, Item::Category),
        ("id", Part::Id, Item::Check),
        ("dimension", Part::Dimension, Item::Check),
        ("requirement", Part::Requirement, Item::Check),
        ("evidence", Part::Evidence, Item::Check),
        ("tool", Part::Tool, Item::Override),
        ("match", Part::Match, Item::Override),
        ("result", Part::Result, Item::Override),
        ("side_effect", Part::SideEffect, Item::Override),
        ("verify", Part::Verify, Item::Override),
        ("asked", Part::Asked, Item::Followup),
        ("reply", Part::Reply, Item::Followup),
        ("role", Part::Role, Item::Turn),
        ("content", Part::Content, Item::Turn),
        ("case", Part::Case, Item::Revision),
        ("change", Part::Change, Item::Revision),
    ];

    /// The part of `item` named `name`.
    pub fn named(item: Item, name: &str) -> Option<Part> {
        Part::ALL
            .iter()
            .find(|(n, _, i)| *i == item && *n == name)
            .map(|(_, p, _)| *p)
    }

    /// The names of the parts of `item`.
    pub fn names(item: Item) -> Vec<&'static str> {
        Part::ALL
            .iter()
            .filter(|(_, _, i)| *i == item)
            .map(|(n, _, _)| *n)
            .collect()
    }
}

/// `export NAME FORMAT { … }`: another benchmark's format, written by `casec export`.
#[derive(Clone, Debug)]
pub struct Export {
    pub name: Name,
    pub format: ExportFormat,
}

#[derive(Clone, Debug)]
pub enum ExportFormat {
    /// One JSON object per case per line.
    JsonLines(Layout),
    /// One folder per case, named by its id, holding these files.
    Folders(Vec<ExportFile>),
}

#[derive(Clone, Debug)]
pub struct ExportFile {
    /// The path inside the case's folder (a folder for `seed`).
    pub path: Text,
    pub content: FileContent,
}

#[derive(Clone, Debug)]
pub enum FileContent {
    /// A text field's value, as is.
    Text(Source),
    Json(Layout),
    Yaml(Layout),
    /// The files of the case's world in the suite's file store (the collection its
    /// `files.*` tools work on), each written at its path under this folder; with
    /// `from "/workspace"`, only the files under that folder, at their path inside it.
    Seed {
        from: Option<Text>,
    },
    /// The case's expectations over the files a run leaves (`file` assertions), and a
    /// program that checks a produced workspace against them.
    Evaluator,
}
