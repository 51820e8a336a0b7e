//! The layout engine: a shape's layouts (`model::shape::Layout`) rendered over the
//! model — the master, the bundles, result records and export rows.
//!
//! A layout is a template of keys in order, each holding a source: a declared field, a
//! built-in (the suite's name, its categories, its tools, its cases, a case's id and
//! checks, what a run decided) or, inside an item layout, a part of the item. Rendering
//! is a `Serialize` view over the model, so a master is written straight into its
//! output without a second copy of its text. Absent values render as `null` (a single
//! value) or `[]` (a list); an absent part of an item (an override's `side_effect`) is
//! left out, as masters write them. Layouts are checked when their shape is read, so
//! rendering cannot fail.

use std::io;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value as Json;

use crate::model::expect::MachineOverride;
use crate::model::plain::Form;
use crate::model::shape::{Builtin, FieldDecl, Kind, Layout, LayoutSource, Part, Slot};
use crate::model::tool::Tool;
use crate::model::{
    Case, Category, Check, Followup, RevisionNote, Suite, Text, ToolOverride, Turn, Value,
};

use super::json_style::Rendered;
use super::tools::{argument_list, input_schema};

/// What a run decided, for a result record's layout.
pub struct Run<'a> {
    pub outcome: &'a str,
    pub checks: &'a [(String, &'static str)],
    /// Why each failed machine check failed: `{check, assertion, found}` objects.
    pub failed_assertions: &'a [Json],
    pub triggered: &'a [String],
    pub pending: &'a [String],
    pub trace: &'a [Json],
    pub final_state: &'a Json,
    pub replies: &'a str,
    /// How the conversation ended (`{reason, satisfaction, verdict}`), or null.
    pub ending: &'a Json,
    /// Who ran it: the model and the harness's run id (empty when none says).
    pub label: &'a RunLabel,
}

/// Who made a run, as the harness that drives the sandbox names it: the model under
/// test and the id of the harness's run. Neither is the sandbox's to know, so both are
/// empty unless a harness says (the Python package's Inspect task does).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunLabel {
    pub model: String,
    pub run_id: String,
}

/// Where a layout is rendered: the suite, the case (in a case's layout), what a run
/// decided (in a result record's), and the item (in an item layout).
#[derive(Clone, Copy)]
pub struct Cx<'a> {
    pub suite: &'a Suite,
    pub case: Option<&'a Case>,
    pub run: Option<&'a Run<'a>>,
    item: Option<ItemRef<'a>>,
    /// Whether the suite's cases are rendered ahead, on every core, as master-style
    /// text ([`Cx::master_writer`]).
    cases_ahead: bool,
}

impl<'a> Cx<'a> {
    pub fn suite(suite: &'a Suite) -> Cx<'a> {
        Cx {
            suite,
            case: None,
            run: None,
            item: None,
            cases_ahead: false,
        }
    }

    /// The suite, for a serializer of the master style
    /// ([`super::json_style::write_master`]) and no other: a large suite's cases are
    /// rendered in batches on every core, each case into master-style text the writer
    /// then copies. The bytes are those of rendering them in turn, since a case's text
    /// does not depend on what the writer wrote before it.
    pub fn master_writer(suite: &'a Suite) -> Cx<'a> {
        Cx {
            cases_ahead: true,
            ..Cx::suite(suite)
        }
    }

    pub fn case(suite: &'a Suite, case: &'a Case) -> Cx<'a> {
        Cx {
            case: Some(case),
            ..Cx::suite(suite)
        }
    }

    pub fn run(suite: &'a Suite, case: &'a Case, run: &'a Run<'a>) -> Cx<'a> {
        Cx {
            case: Some(case),
            run: Some(run),
            ..Cx::suite(suite)
        }
    }

    fn with_item(self, item: ItemRef<'a>) -> Cx<'a> {
        Cx {
            item: Some(item),
            ..self
        }
    }

    fn with_case(self, case: &'a Case) -> Cx<'a> {
        Cx {
            case: Some(case),
            item: None,
            ..self
        }
    }
}

/// One item an item layout lays out.
#[derive(Clone, Copy)]
enum ItemRef<'a> {
    Tool(&'a Tool),
    Category(&'a Category),
    Check(&'a Check),
    Override(&'a ToolOverride),
    Followup(&'a Followup),
    Turn(&'a Turn),
    Revision(&'a RevisionNote),
}

/// A layout rendered in a context, as a JSON object.
pub struct View<'a> {
    pub layout: &'a Layout,
    pub cx: Cx<'a>,
}

impl View<'_> {
    /// The rendered object as a JSON value.
    pub fn to_value(&self) -> Json {
        // Views hold strings, numbers and JSON values only: serializing cannot fail.
        serde_json::to_value(self).unwrap_or_default()
    }
}

impl Serialize for View<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let entries: Vec<(&str, SlotView)> = self
            .layout
            .entries
            .iter()
            .filter_map(|e| {
                let slot = SlotView {
                    slot: &e.value,
                    cx: self.cx,
                };
                slot.present().then_some((e.key.as_str(), slot))
            })
            .collect();
        let mut m = s.serialize_map(Some(entries.len()))?;
        for (key, slot) in entries {
            m.serialize_entry(key, &slot)?;
        }
        m.end()
    }
}

struct SlotView<'a> {
    slot: &'a Slot,
    cx: Cx<'a>,
}

impl SlotView<'_> {
    /// Whether the key is written: an absent part of an item is left out.
    fn present(&self) -> bool {
        match (self.slot, self.cx.item) {
            (
                Slot::Source {
                    source: LayoutSource::Part(part),
                    ..
                },
                Some(item),
            ) => part_value(item, *part, self.cx.case).is_some(),
            _ => true,
        }
    }
}

impl Serialize for SlotView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.slot {
            Slot::Object(layout) => View {
                layout,
                cx: self.cx,
            }
            .serialize(s),
            Slot::Source { source, items } => source_value(source, items.as_ref(), self.cx, s),
        }
    }
}

fn source_value<S: Serializer>(
    source: &LayoutSource,
    items: Option<&Layout>,
    cx: Cx,
    s: S,
) -> Result<S::Ok, S::Error> {
    match source {
        // A field in a suite-level layout is a suite field; in a case's, a case field.
        LayoutSource::Field(id) => match cx.case {
            Some(case) => case_field(&cx.suite.shape.case_fields[*id], *id, case, items, cx, s),
            None => suite_field(&cx.suite.shape.suite_fields[*id], *id, items, cx, s),
        },
        LayoutSource::SuiteField(id) => {
            let decl = &cx.suite.shape.suite_fields[*id];
            suite_field(decl, *id, items, cx, s)
        }
        LayoutSource::Builtin(builtin) => builtin_value(*builtin, items, cx, s),
        LayoutSource::Part(part) => match cx.item.and_then(|item| part_value(item, *part, cx.case))
        {
            Some(value) => value.serialize(s, cx.suite),
            None => s.serialize_none(),
        },
    }
}

fn text_or_null<S: Serializer>(text: Option<&impl AsRef<str>>, s: S) -> Result<S::Ok, S::Error> {
    match text {
        Some(t) => s.serialize_str(t.as_ref()),
        None => s.serialize_none(),
    }
}

fn names<S: Serializer>(names: &[impl AsRef<str>], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(names.iter().map(AsRef::as_ref))
}

/// A field's value; an absent list is empty, any other absent value `null`.
fn plain<S: Serializer>(decl: &FieldDecl, value: Option<&Value>, s: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => value.serialize(s),
        None if decl.kind.form().is_some_and(Form::is_list) => {
            s.collect_seq(std::iter::empty::<&str>())
        }
        None => s.serialize_none(),
    }
}

/// Items, each laid out by `items` (or, without one, shown by their main text).
fn seq<'a, S: Serializer>(
    list: impl ExactSizeIterator<Item = ItemRef<'a>>,
    items: Option<&'a Layout>,
    cx: Cx<'a>,
    s: S,
) -> Result<S::Ok, S::Error> {
    let mut out = s.serialize_seq(Some(list.len()))?;
    for item in list {
        out.serialize_element(&ItemView { item, items, cx })?;
    }
    out.end()
}

/// One item or `null` (a repeated field its shape allows once).
fn single<'a, S: Serializer>(
    item: Option<ItemRef<'a>>,
    items: Option<&'a Layout>,
    cx: Cx<'a>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match item {
        Some(item) => ItemView { item, items, cx }.serialize(s),
        None => s.serialize_none(),
    }
}

struct ItemView<'a> {
    item: ItemRef<'a>,
    items: Option<&'a Layout>,
    cx: Cx<'a>,
}

impl Serialize for ItemView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.items {
            Some(layout) => View {
                layout,
                cx: self.cx.with_item(self.item),
            }
            .serialize(s),
            None => main_text(self.item, s),
        }
    }
}

/// What an item shows without an item layout.
fn main_text<S: Serializer>(item: ItemRef, s: S) -> Result<S::Ok, S::Error> {
    match item {
        ItemRef::Tool(t) => s.serialize_str(t.name.as_str()),
        ItemRef::Category(c) => c.count.value.serialize(s),
        ItemRef::Check(c) => s.serialize_str(c.requirement.as_str()),
        ItemRef::Override(o) => s.serialize_str(o.result.as_str()),
        ItemRef::Followup(f) => s.serialize_str(f.reply.as_str()),
        ItemRef::Turn(t) => s.serialize_str(t.content.as_str()),
        ItemRef::Revision(r) => s.serialize_str(r.change.as_str()),
    }
}

fn case_field<'a, S: Serializer>(
    decl: &FieldDecl,
    id: usize,
    case: &'a Case,
    items: Option<&'a Layout>,
    cx: Cx<'a>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match decl.kind {
        crate::model::kinds_with_a_value!() => plain(decl, case.value(id), s),
        Kind::Category => text_or_null(case.category.as_ref(), s),
        Kind::Tags => names(&case.tags, s),
        Kind::Tools => match items {
            Some(_) => offered_tools(cx.suite, case, items, cx, s),
            None => names(&case.tools, s),
        },
        Kind::Clock => text_or_null(case.clock.as_ref(), s),
        Kind::Timezone => text_or_null(case.timezone.as_ref(), s),
        Kind::UserMessage => text_or_null(case.user.as_ref(), s),
        Kind::UnscriptedReply => text_or_null(case.unscripted_reply.as_ref(), s),
        Kind::Conversation => seq(case.conversation.iter().map(ItemRef::Turn), items, cx, s),
        Kind::Override if decl.single() => {
            single(case.overrides.first().map(ItemRef::Override), items, cx, s)
        }
        Kind::Override => seq(case.overrides.iter().map(ItemRef::Override), items, cx, s),
        Kind::Followup if decl.single() => {
            single(case.followups.first().map(ItemRef::Followup), items, cx, s)
        }
        Kind::Followup => seq(case.followups.iter().map(ItemRef::Followup), items, cx, s),
        Kind::Checks => {
            let from: Vec<&Check> = case
                .checks
                .iter()
                .filter(|c| c.source == Some(id))
                .collect();
            seq(from.into_iter().map(ItemRef::Check), items, cx, s)
        }
        Kind::CriticalFailures => names(&case.critical_failures, s),
        Kind::Evidence => {
            let evidence: Vec<(&str, &str)> = case
                .checks
                .iter()
                .filter_map(|c| Some((c.dimension.as_str(), c.evidence.as_ref()?.as_str())))
                .collect();
            s.collect_map(dedup_first(evidence))
        }
        // Suite kinds never reach a case's layout (the shape reader refuses them).
        Kind::SystemPrompt
        | Kind::CaseCount
        | Kind::Revisions
        | Kind::Reports
        | Kind::ResultTemplate
        | Kind::GlobalCriticalFailures
        | Kind::Outcomes => s.serialize_none(),
    }
}

fn dedup_first<'a>(pairs: Vec<(&'a str, &'a str)>) -> Vec<(&'a str, &'a str)> {
    let mut out: Vec<(&str, &str)> = Vec::new();
    for (k, v) in pairs {
        if !out.iter().any(|(o, _)| *o == k) {
            out.push((k, v));
        }
    }
    out
}

fn suite_field<'a, S: Serializer>(
    decl: &FieldDecl,
    id: usize,
    items: Option<&'a Layout>,
    cx: Cx<'a>,
    s: S,
) -> Result<S::Ok, S::Error> {
    let suite = cx.suite;
    match decl.kind {
        Kind::SystemPrompt => text_or_null(suite.system_prompt.as_ref(), s),
        Kind::CaseCount => match &suite.case_count {
            Some(n) => n.value.serialize(s),
            None => s.serialize_none(),
        },
        Kind::Revisions => seq(
            suite.revision_notes.iter().map(ItemRef::Revision),
            items,
            cx,
            s,
        ),
        Kind::Reports => s.collect_seq(suite.reports.iter().map(|r| r.text.as_str())),
        Kind::ResultTemplate => match &suite.result_template {
            Some(d) => d.value.serialize(s),
            None => s.serialize_none(),
        },
        Kind::GlobalCriticalFailures => names(&suite.global_critical_failures, s),
        Kind::Outcomes => s.collect_seq(suite.outcome_names()),
        _ => plain(decl, suite.value(id), s),
    }
}

fn builtin_value<'a, S: Serializer>(
    builtin: Builtin,
    items: Option<&'a Layout>,
    cx: Cx<'a>,
    s: S,
) -> Result<S::Ok, S::Error> {
    let suite = cx.suite;
    match builtin {
        Builtin::SuiteName => s.serialize_str(suite.name.as_str()),
        Builtin::Categories => s.collect_map(suite.categories.iter().map(|c| {
            (
                c.name.as_str(),
                ItemView {
                    item: ItemRef::Category(c),
                    items,
                    cx,
                },
            )
        })),
        Builtin::Tools => match cx.case {
            Some(case) => offered_tools(suite, case, items, cx, s),
            None => s.collect_map(suite.tools.iter().map(|t| {
                (
                    t.name.as_str(),
                    ItemView {
                        item: ItemRef::Tool(t),
                        items,
                        cx,
                    },
                )
            })),
        },
        Builtin::Cases => {
            let mut out = s.serialize_seq(Some(suite.cases.len()))?;
            match items {
                Some(layout) if cx.cases_ahead && suite.cases.len() >= AHEAD_FROM_CASES => {
                    let one = Cx {
                        cases_ahead: false,
                        ..cx
                    };
                    crate::parallel::map_streamed(
                        &suite.cases,
                        AHEAD_BATCH,
                        |case| render_case(layout, one.with_case(case)),
                        |text| out.serialize_element(&text.map_err(serde::ser::Error::custom)?),
                    )?;
                }
                Some(layout) => {
                    for case in &suite.cases {
                        out.serialize_element(&View {
                            layout,
                            cx: cx.with_case(case),
                        })?;
                    }
                }
                None => {
                    for case in &suite.cases {
                        out.serialize_element(case.id.as_str())?;
                    }
                }
            }
            out.end()
        }
        Builtin::Outcomes => s.collect_seq(suite.outcome_names()),
        Builtin::CaseId => text_or_null(cx.case.map(|c| &c.id), s),
        Builtin::CaseTitle => text_or_null(cx.case.map(|c| &c.title), s),
        Builtin::AllChecks => match cx.case {
            Some(case) => seq(case.checks.iter().map(ItemRef::Check), items, cx, s),
            None => s.serialize_none(),
        },
        Builtin::WebFaults => match cx.case {
            Some(case) => s.collect_seq(super::export::web_faults(suite, case)),
            None => s.serialize_none(),
        },
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
        | Builtin::RunId => match cx.run {
            Some(run) => run_value(builtin, run, s),
            None => s.serialize_none(),
        },
    }
}

/// Suites from this many cases have their cases rendered ahead of the master writer.
const AHEAD_FROM_CASES: usize = 256;

/// How many cases a worker renders ahead at a time: enough that handing them over
/// costs little, few enough that what waits for the writer stays small.
const AHEAD_BATCH: usize = 64;

/// A case laid out by `layout`, rendered into master-style JSON for the writer to copy.
fn render_case(layout: &Layout, cx: Cx) -> io::Result<Rendered> {
    let mut text = Vec::with_capacity(4096);
    super::json_style::write_master(&View { layout, cx }, &mut text)?;
    Ok(Rendered(text))
}

/// The tools a case offers, by name, each laid out by `items`, in the suite's order.
fn offered_tools<'a, S: Serializer>(
    suite: &'a Suite,
    case: &'a Case,
    items: Option<&'a Layout>,
    cx: Cx<'a>,
    s: S,
) -> Result<S::Ok, S::Error> {
    let offered = suite
        .tools
        .iter()
        .filter(|t| case.tools.iter().any(|n| n.as_str() == t.name.as_str()));
    s.collect_map(offered.map(|t| {
        (
            t.name.as_str(),
            ItemView {
                item: ItemRef::Tool(t),
                items,
                cx,
            },
        )
    }))
}

fn run_value<S: Serializer>(builtin: Builtin, run: &Run, s: S) -> Result<S::Ok, S::Error> {
    match builtin {
        Builtin::Outcome => s.serialize_str(run.outcome),
        Builtin::CheckResults => {
            s.collect_map(run.checks.iter().map(|(id, status)| (id.as_str(), *status)))
        }
        Builtin::FailedAssertions => run.failed_assertions.serialize(s),
        Builtin::Triggered => run.triggered.serialize(s),
        Builtin::PendingReview => run.pending.serialize(s),
        Builtin::Trace => run.trace.serialize(s),
        Builtin::FinalState => run.final_state.serialize(s),
        Builtin::Replies => s.serialize_str(run.replies),
        Builtin::Ending => run.ending.serialize(s),
        Builtin::Model => s.serialize_str(&run.label.model),
        Builtin::RunId => s.serialize_str(&run.label.run_id),
        _ => s.serialize_none(),
    }
}

/// The value of one part of an item: its text, borrowed, or what a tool's declaration
/// gives, made only when written (whether a part is present is asked first).
enum PartValue<'a> {
    Text(&'a str),
    Number(&'a serde_json::Number),
    ArgumentList(&'a Tool),
    InputSchema(&'a Tool),
    Machine(&'a MachineOverride),
}

impl PartValue<'_> {
    fn serialize<S: Serializer>(&self, s: S, suite: &Suite) -> Result<S::Ok, S::Error> {
        match self {
            PartValue::Text(text) => s.serialize_str(text),
            PartValue::Number(n) => n.serialize(s),
            PartValue::ArgumentList(t) => argument_list(t).serialize(s),
            PartValue::InputSchema(t) => {
                input_schema(t, suite.world_schema.as_deref()).serialize(s)
            }
            PartValue::Machine(m) => super::sandbox::machine_override(m).serialize(s),
        }
    }
}

/// The value of one part of an item of `case`, `None` when the item does not have it.
fn part_value<'a>(item: ItemRef<'a>, part: Part, case: Option<&'a Case>) -> Option<PartValue<'a>> {
    fn text(t: &Text) -> Option<PartValue<'_>> {
        Some(PartValue::Text(t.as_str()))
    }
    match (item, part) {
        (ItemRef::Tool(t), Part::Name) => text(&t.name),
        (ItemRef::Tool(t), Part::Behavior) => text(&t.behavior),
        (ItemRef::Tool(t), Part::ArgumentList) => Some(PartValue::ArgumentList(t)),
        (ItemRef::Tool(t), Part::InputSchema) => Some(PartValue::InputSchema(t)),
        (ItemRef::Category(c), Part::Name) => text(&c.name),
        (ItemRef::Category(c), Part::Count) => Some(PartValue::Number(&c.count.value)),
        (ItemRef::Check(c), Part::Id) => text(&c.id),
        (ItemRef::Check(c), Part::Dimension) => text(&c.dimension),
        (ItemRef::Check(c), Part::Requirement) => text(&c.requirement),
        (ItemRef::Check(c), Part::Evidence) => c.evidence.as_ref().and_then(text),
        (ItemRef::Override(o), Part::Tool) => text(&o.tool),
        (ItemRef::Override(o), Part::Match) => text(&o.matches),
        (ItemRef::Override(o), Part::Result) => text(&o.result),
        (ItemRef::Override(o), Part::SideEffect) => o.side_effect.as_ref().and_then(text),
        (ItemRef::Override(o), Part::Verify) => o.verification.as_ref().and_then(text),
        // The machine part the same `override` statement wrote, if it has one.
        (ItemRef::Override(o), Part::Machine) => case?
            .sandbox
            .as_ref()?
            .overrides
            .iter()
            .find(|m| m.at.file == o.span.file && m.at.start == o.span.start)
            .map(PartValue::Machine),
        (ItemRef::Followup(f), Part::Asked) => text(&f.when_asked),
        (ItemRef::Followup(f), Part::Reply) => text(&f.reply),
        (ItemRef::Turn(t), Part::Role) => text(&t.role),
        (ItemRef::Turn(t), Part::Content) => text(&t.content),
        (ItemRef::Revision(r), Part::Case) => text(&r.case_id),
        (ItemRef::Revision(r), Part::Change) => text(&r.change),
        _ => None,
    }
}
