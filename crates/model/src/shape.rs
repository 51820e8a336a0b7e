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

use strum::{EnumString, IntoStaticStr, VariantArray};

use crate::plain::Form;
use crate::source::Span;
use crate::{Name, Text};

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

impl Shape {
    /// Whether the texts of the field `key` (a suite or a case field) are quotable: the
    /// leak rule does not read them as what the model sees.
    pub fn quotable(&self, key: &str) -> bool {
        let fields = self.suite_fields.iter().chain(&self.case_fields);
        fields.filter(|f| f.key.as_str() == key).any(|f| f.quotable)
    }
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
    /// Shown to the model on purpose, to be quoted (a policy): the leak rule lets hidden
    /// texts repeat its words. Only a `model` field is quotable.
    pub quotable: bool,
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
            Kind::Data | Kind::Objects | Kind::ResultTemplate => format!("{key} {{ … }}"),
            Kind::Number | Kind::CaseCount => format!("{key} 1"),
            Kind::StepLimit => format!("{key} 30"),
            Kind::ClockStep => format!("{key} \"5m\""),
            kind if kind.holds_words() && !matches!(kind, Kind::Clock | Kind::Timezone) => {
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum Visibility {
    /// The model under test: the only texts a bundle may hold.
    Model,
    /// Anyone (metadata): neither shown to the model nor secret.
    Public,
    /// The simulated person (and the harness that plays them): who they are, what they
    /// want, know and keep to themselves, how they talk. Hidden from the model, and
    /// never an evaluator's text (docs/people.md).
    Person,
    /// The harness: fixtures, overrides, scripted replies. Hidden from the model.
    Harness,
    /// The evaluator: the answer key. Hidden from the model.
    Evaluator,
}

impl Visibility {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Hidden from the model: what the blinding proof keeps out of bundles.
    pub fn hidden(self) -> bool {
        matches!(
            self,
            Visibility::Person | Visibility::Harness | Visibility::Evaluator
        )
    }
}

/// What a field holds and, for the kinds the sandbox and the checks understand, what
/// it means. Plain kinds (`text` … `data`) mean nothing to casec beyond their values;
/// each semantic kind occurs at most once in a shape. Its word in a shape declaration
/// is its name in snake case; the kinds are listed in messages in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum Kind {
    // Plain values.
    Text,
    /// Several statements, one text each, in order.
    Texts,
    Names,
    Number,
    Data,
    /// Several statements, one data block each, in order: a list of JSON objects.
    Objects,
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
    /// The most tool calls a run may make: the sandbox refuses every call past it.
    StepLimit,
    /// How far the clock moves at each of the person's messages after the opening one
    /// (a duration: `5m`, `1h30m`): a conversation takes time.
    ClockStep,
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

/// The plain kinds, as a pattern (`match kind { plain_kinds!() => … }`), so that a
/// match over every kind lists them in one place.
#[macro_export]
macro_rules! plain_kinds {
    () => {
        $crate::shape::Kind::Text
            | $crate::shape::Kind::Texts
            | $crate::shape::Kind::Names
            | $crate::shape::Kind::Number
            | $crate::shape::Kind::Data
            | $crate::shape::Kind::Objects
    };
}

/// The kinds whose field holds a [`crate::Value`] ([`crate::Case::value`]), as a
/// pattern: the plain kinds, and the semantic kinds whose meaning is a value's
/// (`step_limit`, `clock_step`). Each has a [`Kind::form`].
#[macro_export]
macro_rules! kinds_with_a_value {
    () => {
        $crate::plain_kinds!() | $crate::shape::Kind::StepLimit | $crate::shape::Kind::ClockStep
    };
}

/// Where a kind may be declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Suite,
    Case,
    Both,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Where the kind may be declared.
    pub fn level(self) -> Level {
        match self {
            crate::plain_kinds!() => Level::Both,
            Kind::SystemPrompt
            | Kind::CaseCount
            | Kind::Revisions
            | Kind::Reports
            | Kind::ResultTemplate
            | Kind::GlobalCriticalFailures
            | Kind::Outcomes => Level::Suite,
            Kind::Category
            | Kind::Tags
            | Kind::Tools
            | Kind::Clock
            | Kind::Timezone
            | Kind::UserMessage
            | Kind::Conversation
            | Kind::Override
            | Kind::Followup
            | Kind::UnscriptedReply
            | Kind::Checks
            | Kind::CriticalFailures
            | Kind::Evidence
            | Kind::StepLimit
            | Kind::ClockStep => Level::Case,
        }
    }

    /// Read from every statement with the key, in order, rather than from one.
    pub fn repeated(self) -> bool {
        matches!(
            self,
            Kind::Texts
                | Kind::Objects
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
        matches!(self, crate::plain_kinds!())
    }

    /// The form of the [`crate::Value`] a field of this kind holds: every kind of
    /// [`crate::kinds_with_a_value`], none other.
    pub fn form(self) -> Option<Form> {
        Some(match self {
            Kind::Text | Kind::ClockStep => Form::Text,
            Kind::Texts => Form::Texts,
            Kind::Names => Form::Names,
            Kind::Number | Kind::StepLimit => Form::Number,
            Kind::Data => Form::Data,
            Kind::Objects => Form::Objects,
            _ => return None,
        })
    }

    /// Kinds whose values are words, not prose: identifiers or a vocabulary's (a tag, a
    /// tool, a clock or a time zone), never compared as prose by the leak rule and the
    /// blinding proof (a tag is not a secret sentence).
    pub fn holds_words(self) -> bool {
        matches!(
            self,
            Kind::Names
                | Kind::Category
                | Kind::Tags
                | Kind::Tools
                | Kind::Clock
                | Kind::Timezone
                | Kind::ClockStep
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
/// Its word in `judged_on` is its name in snake case.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, IntoStaticStr, EnumString, VariantArray,
)]
#[strum(serialize_all = "snake_case")]
pub enum Evidence {
    /// The assistant's replies.
    Reply,
    /// The tool calls, with what each returned and changed.
    Trace,
    /// The sandbox state after the run.
    FinalState,
}

impl Evidence {
    /// Its name in `judged_on`.
    pub fn as_str(self) -> &'static str {
        self.into()
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
            None => Evidence::VARIANTS
                .iter()
                .copied()
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum Verdict {
    /// Every check passed and no critical failure occurred, all decided.
    Passed,
    /// A check failed or a critical failure was triggered.
    Failed,
    /// Nothing failed, but something still awaits a reader.
    Undecided,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        self.into()
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
                source: LayoutSource::Builtin(b),
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
        source: LayoutSource,
        items: Option<Layout>,
    },
}

/// What a layout key holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutSource {
    /// A declared field of the context's level.
    Field(FieldId),
    /// A suite field, from inside a case's layout (`suite.KEY`).
    SuiteField(FieldId),
    /// One of the things every suite and case has.
    Builtin(Builtin),
    /// A part of the item an item layout lays out (a check's `requirement`).
    Part(Part),
}

/// Sources every shape can use, by level. Its word in a layout is its name in snake
/// case unless said otherwise; the sources are listed in messages in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum Builtin {
    // Suite level.
    #[strum(serialize = "name")]
    SuiteName,
    /// Each category's declared case count, by name.
    Categories,
    /// The suite's tools; in a case's layout, the tools the case offers.
    Tools,
    Cases,
    /// The outcome names, in the grading's order.
    Outcomes,
    // Case level.
    #[strum(serialize = "id")]
    CaseId,
    #[strum(serialize = "title")]
    CaseTitle,
    /// Every check of the case, derived and written.
    #[strum(serialize = "checks")]
    AllChecks,
    /// The endpoints of the case's world that declare a fault or a latency (`url`,
    /// `method`, `status`, `failures`, `failure`, `failure_status`, `latency_ms`): what
    /// a harness serving the web references must inject.
    WebFaults,
    // What a run decided (the result record's layout).
    Outcome,
    /// Each check's result (`pass`, `fail`, `needs_review`), by id.
    CheckResults,
    /// Why each failed machine check failed: the check, the assertion (as the sandbox
    /// file writes it) and what the run left instead.
    FailedAssertions,
    Triggered,
    PendingReview,
    Trace,
    FinalState,
    Replies,
    /// How the conversation ended (`{reason, satisfaction, verdict}`), or null: a
    /// simulated person's ending (docs/people.md).
    Ending,
    /// The model that made the run, as the harness names it (empty when none says).
    Model,
    /// The id of the harness's run (empty when none says).
    RunId,
}

/// Why a conversation ends (the `ending` of a result record, a trace's `end` event):
/// the simulated person's reasons, then the harness's (docs/people.md).
pub const END_REASONS: &[&str] = &[
    "goal_met",
    "refused",
    "transferred",
    "out_of_scope",
    "gave_up",
    "turn_limit",
];

/// The reasons a simulated person may give (the harness alone ends at its turn limit).
pub const PERSON_END_REASONS: &[&str] = END_REASONS.split_at(5).0;

impl Builtin {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Where the source may be used.
    pub fn level(self) -> Level {
        match self {
            Builtin::Tools => Level::Both,
            Builtin::SuiteName | Builtin::Categories | Builtin::Cases | Builtin::Outcomes => {
                Level::Suite
            }
            Builtin::CaseId
            | Builtin::CaseTitle
            | Builtin::AllChecks
            | Builtin::WebFaults
            | Builtin::Outcome
            | Builtin::CheckResults
            | Builtin::FailedAssertions
            | Builtin::Triggered
            | Builtin::PendingReview
            | Builtin::Trace
            | Builtin::FinalState
            | Builtin::Replies
            | Builtin::Ending
            | Builtin::Model
            | Builtin::RunId => Level::Case,
        }
    }

    /// Sources of what a run decided: only the result record's layout has them.
    pub fn of_run(self) -> bool {
        matches!(
            self,
            Builtin::Outcome
                | Builtin::CheckResults
                | Builtin::FailedAssertions
                | Builtin::Triggered
                | Builtin::PendingReview
                | Builtin::Trace
                | Builtin::FinalState
                | Builtin::Replies
                | Builtin::Ending
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

/// A part of an item; its word in a layout is its name in snake case. The parts of each
/// item are listed in messages in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "snake_case")]
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
    /// An override's machine part (the injected failure as the sandbox applies it);
    /// written, never imported.
    Machine,
    Asked,
    Reply,
    Role,
    Content,
    Case,
    Change,
}

impl Part {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether `item` has this part.
    pub fn of(self, item: Item) -> bool {
        match self {
            Part::Name => matches!(item, Item::Tool | Item::Category),
            Part::Count => item == Item::Category,
            Part::Behavior | Part::ArgumentList | Part::InputSchema => item == Item::Tool,
            Part::Id | Part::Dimension | Part::Requirement | Part::Evidence => item == Item::Check,
            Part::Tool
            | Part::Match
            | Part::Result
            | Part::SideEffect
            | Part::Verify
            | Part::Machine => item == Item::Override,
            Part::Asked | Part::Reply => item == Item::Followup,
            Part::Role | Part::Content => item == Item::Turn,
            Part::Case | Part::Change => item == Item::Revision,
        }
    }

    /// The part of `item` named `name`.
    pub fn named(item: Item, name: &str) -> Option<Part> {
        name.parse().ok().filter(|part: &Part| part.of(item))
    }

    /// The names of the parts of `item`.
    pub fn names(item: Item) -> impl Iterator<Item = &'static str> + Clone {
        Part::VARIANTS
            .iter()
            .filter(move |part| part.of(item))
            .map(|part| part.as_str())
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
    /// One JSON object per turn of each of the suite's observed conversations (the
    /// trace files of its `observed/` folder), keyed as declared.
    Turns(Vec<TurnEntry>),
}

/// `KEY SOURCE [json_text] [{ KEY PART … }]`: a key of a turn's row and what it holds.
#[derive(Clone, Debug)]
pub struct TurnEntry {
    pub key: Name,
    pub source: TurnSource,
    /// The value written as a JSON text (a string holding JSON), as a dataset keeps a
    /// list whose items differ in shape.
    pub json_text: bool,
    /// For `calls`: each call's keys and what they hold, in order.
    pub call_parts: Vec<(Name, CallPart)>,
}

/// What a key of a turn's row holds. A turn begins at a `user` event of the trace and
/// runs to the next one (docs/people.md#observed-conversations).
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum TurnSource {
    /// The conversation's id (the trace's `episode` event).
    Episode,
    /// The turn's number, from 1.
    Turn,
    /// The person's name, persona and goals, as the `episode` event keeps them.
    Person,
    Persona,
    Goals,
    /// What the person said, and privately thought.
    Message,
    Thought,
    /// The assistant's tool calls in the turn, in order.
    Calls,
    /// The assistant's messages in the turn (replies and questions), a blank line apart.
    Reply,
    /// Why the assistant's turn failed (the `error` events), or null.
    AgentError,
    /// How the conversation ended, on the turn it ended in (null on the others).
    EndReason,
    Satisfaction,
    Verdict,
    /// The cases whose evidence is this turn.
    CitedBy,
}

impl TurnSource {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// What a key of a call in a turn's row holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum CallPart {
    Tool,
    Arguments,
    /// The result the call got when it was observed (null when not kept).
    Result,
    /// Whether that result was an error (null when not kept).
    Failed,
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
    Text(LayoutSource),
    Json(Layout),
    Yaml(Layout),
    /// The files of the case's world in the suite's file store (the collection its
    /// `files.*` tools work on), each written at its path under this folder; with
    /// `from "/workspace"`, only the files under that folder, at their path inside it.
    Seed {
        from: Option<Text>,
    },
    /// The world's web references: every record of the collection the suite's `http`
    /// tools answer from, as `endpoints.json` (url, method, status, body) in this folder.
    Web,
    /// A program that grades a run (its log and the workspace it left) with casec's own
    /// checks, through the Python package, over a copy of the suite; and the reward
    /// file it writes.
    Evaluator {
        rewards: Vec<Reward>,
    },
}

/// `reward KEY VALUE [if FIELD WORD]`: a key of the reward file an exported evaluator
/// writes, computed from the run's result record.
#[derive(Clone, Debug)]
pub struct Reward {
    pub key: Name,
    pub value: RewardValue,
    /// Only for a case whose `names` (or text) field FIELD holds WORD; `null` otherwise.
    pub only_if: Option<(Name, Name)>,
}

#[derive(Clone, Debug)]
pub enum RewardValue {
    /// 1 when the run passed: every check passed by machine, nothing left for review,
    /// no critical failure; else 0.
    Passed,
    /// The share of the case's checks that passed (a check left for review has not).
    Share,
    /// 1 when every check of the dimension passed, else 0; `null` for a case without one.
    Dimension(Name),
}

#[cfg(test)]
mod tests {
    use strum::VariantArray;

    use super::*;

    /// The pattern of the kinds that hold a value and [`Kind::form`] name the same kinds.
    #[test]
    fn kinds_with_a_value_have_a_form() {
        for &kind in Kind::VARIANTS {
            let with_a_value = matches!(kind, crate::kinds_with_a_value!());
            assert_eq!(with_a_value, kind.form().is_some(), "{kind:?}");
        }
    }

    /// The variants' words in their order (the order of the lists in messages), each
    /// read back as its variant.
    fn words<T>(all: &[T]) -> String
    where
        T: Copy + PartialEq + std::fmt::Debug + Into<&'static str> + std::str::FromStr,
    {
        for &variant in all {
            let word: &str = variant.into();
            assert!(word.parse::<T>().ok() == Some(variant), "{word} reads back");
        }
        let words: Vec<&str> = all.iter().map(|&v| v.into()).collect();
        words.join(" ")
    }

    /// The words are the language: renaming a variant must not change one.
    #[test]
    fn the_words_of_the_shape_vocabularies_stay_the_languages() {
        assert_eq!(
            words(Visibility::VARIANTS),
            "model public person harness evaluator"
        );
        assert_eq!(words(Verdict::VARIANTS), "passed failed undecided");
        assert_eq!(words(Evidence::VARIANTS), "reply trace final_state");
        assert_eq!(
            words(Kind::VARIANTS),
            "text texts names number data objects category tags tools clock timezone \
             user_message conversation override followup unscripted_reply checks \
             critical_failures evidence step_limit clock_step system_prompt case_count \
             revisions reports result_template global_critical_failures outcomes"
        );
        assert_eq!(
            words(TurnSource::VARIANTS),
            "episode turn person persona goals message thought calls reply agent_error \
             end_reason satisfaction verdict cited_by"
        );
        assert_eq!(words(CallPart::VARIANTS), "tool arguments result failed");
        assert_eq!(
            words(Builtin::VARIANTS),
            "name categories tools cases outcomes id title checks web_faults outcome check_results \
             failed_assertions triggered pending_review trace final_state replies ending model run_id"
        );
        for refused in ["suite_name", "case_id", "case_title", "all_checks"] {
            assert!(refused.parse::<Builtin>().is_err(), "{refused}");
        }
    }

    #[test]
    fn kinds_and_sources_are_declared_where_they_were() {
        let kinds_at = |level| {
            let at = Kind::VARIANTS.iter().filter(|k| k.level() == level);
            at.map(|k| k.as_str()).collect::<Vec<_>>().join(" ")
        };
        assert_eq!(
            kinds_at(Level::Both),
            "text texts names number data objects"
        );
        assert_eq!(
            kinds_at(Level::Suite),
            "system_prompt case_count revisions reports result_template \
             global_critical_failures outcomes"
        );
        let sources_at = |level| {
            let at = Builtin::VARIANTS.iter().filter(|b| b.level() == level);
            at.map(|b| b.as_str()).collect::<Vec<_>>().join(" ")
        };
        assert_eq!(sources_at(Level::Both), "tools");
        assert_eq!(sources_at(Level::Suite), "name categories cases outcomes");
    }

    #[test]
    fn each_item_has_its_parts_in_order() {
        let parts = |item| Part::names(item).collect::<Vec<_>>().join(" ");
        assert_eq!(
            parts(Item::Tool),
            "name behavior argument_list input_schema"
        );
        assert_eq!(parts(Item::Category), "name count");
        assert_eq!(parts(Item::Check), "id dimension requirement evidence");
        assert_eq!(
            parts(Item::Override),
            "tool match result side_effect verify machine"
        );
        assert_eq!(parts(Item::Followup), "asked reply");
        assert_eq!(parts(Item::Turn), "role content");
        assert_eq!(parts(Item::Revision), "case change");
        assert_eq!(Part::named(Item::Category, "name"), Some(Part::Name));
        assert_eq!(Part::named(Item::Category, "behavior"), None);
    }
}
