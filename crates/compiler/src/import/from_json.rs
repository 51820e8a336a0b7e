//! Reading a master JSON into the model, guided by the master layout of its shape.
//!
//! The layout says where each field is; the reader walks it beside the JSON: every key
//! the layout writes must be there (an item's absent parts excepted, as the layout
//! leaves them out), no other key may be, and each value is read by the kind of the
//! field the layout puts there. A master that does not follow its shape gets a
//! diagnostic naming the JSON path (`cases[3].harness_only.fixture_facts`) rather than
//! a panic or a silently different suite. Spans of the model all point at the start of
//! the master file.
//!
//! Checks are read as listed, with their ids; [`underive`] then finds whether the
//! shape's derivations give them, which is how the importer writes them (`need`,
//! `check "…"`, `final`) and how it learns the fields a master does not show (Tujora's
//! communication requirement is check C1's).

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::diag::{codes, Diagnostic};
use crate::model::plain::Form;
use crate::model::shape::{Builtin, FieldDecl, Kind, Layout, LayoutSource, Part, Shape, Slot};
use crate::model::tool::{ArgType, Argument, Binding, Tool};
use crate::model::world::FieldType;
use crate::model::*;
use crate::source::{FileId, Span};

/// What reads one source of a layout: the source, its item layout, the value at its key
/// and that key's path.
type ReadSource<'r> = dyn FnMut(&mut Reader, &LayoutSource, Option<&Layout>, &Value, &str) + 'r;

/// Reads JSON by a shape's layouts into the model, collecting located diagnostics.
pub struct Reader {
    shape: Arc<Shape>,
    span: Span,
    pub diags: Vec<Diagnostic>,
}

/// The parts of one item (a check, an override, …) as the master gives them.
type Parts = HashMap<Part, Value>;

impl Reader {
    pub fn new(file: FileId, shape: Arc<Shape>) -> Reader {
        Reader {
            shape,
            span: Span::new(file, 0..0),
            diags: Vec::new(),
        }
    }

    fn error(&mut self, path: &str, message: String) {
        let at = if path.is_empty() { "top level" } else { path };
        self.diags.push(
            Diagnostic::new(codes::MASTER_JSON, format!("{at}: {message}"))
                .primary(self.span, "in this master file")
                .help(format!(
                    "the master must follow the layout of shape `{}` (docs/shapes.md)",
                    self.shape.name.as_str()
                )),
        );
    }

    fn text(&mut self, value: &Value, path: &str) -> Option<Text> {
        match value.as_str() {
            Some(s) => Some(Text::new(s, self.span)),
            None => {
                self.error(path, format!("expected a string, found {}", kind(value)));
                None
            }
        }
    }

    /// A string or `null`.
    fn optional_text(&mut self, value: &Value, path: &str) -> Option<Option<Text>> {
        match value {
            Value::Null => Some(None),
            other => self.text(other, path).map(Some),
        }
    }

    fn texts(&mut self, value: &Value, path: &str) -> Option<Vec<Text>> {
        let items = self.array(value, path)?;
        items
            .iter()
            .enumerate()
            .map(|(i, item)| self.text(item, &format!("{path}[{i}]")))
            .collect()
    }

    /// A string read as a name (an id, a category, a tag).
    fn name(&mut self, value: &Value, path: &str) -> Option<Name> {
        self.text(value, path).map(Name::from)
    }

    fn names(&mut self, value: &Value, path: &str) -> Option<Vec<Name>> {
        self.texts(value, path)
            .map(|texts| texts.into_iter().map(Name::from).collect())
    }

    fn array<'v>(&mut self, value: &'v Value, path: &str) -> Option<&'v Vec<Value>> {
        let found = value.as_array();
        if found.is_none() {
            self.error(path, format!("expected an array, found {}", kind(value)));
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

    fn number(&mut self, value: &Value, path: &str) -> Option<Number> {
        match value {
            Value::Number(n) => Some(Number {
                value: n.clone(),
                span: self.span,
            }),
            other => {
                self.error(path, format!("expected a number, found {}", kind(other)));
                None
            }
        }
    }

    /// A list of objects (null is none).
    fn objects(&mut self, value: &Value, path: &str) -> Option<Vec<Data>> {
        match value {
            Value::Null => Some(Vec::new()),
            Value::Array(items) => {
                let before = self.diags.len();
                let blocks: Vec<Data> = items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, item)| self.data(item, &format!("{path}[{i}]")))
                    .collect();
                (self.diags.len() == before).then_some(blocks)
            }
            _ => {
                self.error(
                    path,
                    format!("expected a list of objects, found {}", kind(value)),
                );
                None
            }
        }
    }

    fn data(&mut self, value: &Value, path: &str) -> Option<Data> {
        self.object(value, path)?;
        Some(Data {
            value: value.clone(),
            span: self.span,
        })
    }

    /// The object at `path`, with every key of `layout` and no other; `present` says
    /// whether a missing key may be left out (an item's absent part).
    fn entries<'v, 'l>(
        &mut self,
        layout: &'l Layout,
        value: &'v Value,
        path: &str,
        optional: bool,
    ) -> Vec<(&'l Slot, &'v Value, String)> {
        let Some(object) = self.object(value, path) else {
            return Vec::new();
        };
        let known: Vec<&str> = layout.entries.iter().map(|e| e.key.as_str()).collect();
        for key in object.keys().filter(|k| !known.contains(&k.as_str())) {
            self.error(path, format!("unknown key `{key}`"));
        }
        let mut out = Vec::new();
        for entry in &layout.entries {
            let key = entry.key.as_str();
            let at = if path.is_empty() {
                key.to_string()
            } else {
                format!("{path}.{key}")
            };
            match object.get(key) {
                Some(v) => out.push((&entry.value, v, at)),
                None if optional => {}
                None => self.error(path, format!("missing key `{key}`")),
            }
        }
        out
    }

    /// A suite of the reader's shape with nothing set.
    pub fn empty_suite(&self, name: &str) -> Suite {
        let shape = self.shape.clone();
        Suite {
            shape: shape.clone(),
            name: Text::new(name, self.span),
            values: vec![None; shape.suite_fields.len()],
            system_prompt: None,
            case_count: None,
            categories: Vec::new(),
            global_critical_failures: Vec::new(),
            revision_notes: Vec::new(),
            reports: Vec::new(),
            result_template: None,
            outcome_names: None,
            tools: Vec::new(),
            world_schema: None,
            tags: Vec::new(),
            cases: Vec::new(),
            span: self.span,
            root: None,
        }
    }

    pub fn suite(&mut self, root: &Value) -> Option<Suite> {
        let shape = self.shape.clone();
        let mut suite = Suite {
            shape: shape.clone(),
            name: Text::new("", self.span),
            values: vec![None; shape.suite_fields.len()],
            system_prompt: None,
            case_count: None,
            categories: Vec::new(),
            global_critical_failures: Vec::new(),
            revision_notes: Vec::new(),
            reports: Vec::new(),
            result_template: None,
            outcome_names: None,
            tools: Vec::new(),
            world_schema: None,
            tags: Vec::new(),
            cases: Vec::new(),
            span: self.span,
            root: None,
        };
        let before = self.diags.len();
        self.walk_layout(
            &shape.master,
            root,
            "",
            &mut |me, source, items, value, at| {
                me.suite_source(source, items, value, at, &mut suite)
            },
        );
        suite.tags = case_tags(&suite.cases);
        (self.diags.len() == before).then_some(suite)
    }

    /// Walks `layout` over `value`: nested objects in, and `read` called for each source
    /// with the value at its key and that key's path.
    fn walk_layout(&mut self, layout: &Layout, value: &Value, path: &str, read: &mut ReadSource) {
        for (slot, value, at) in self.entries(layout, value, path, false) {
            match slot {
                Slot::Object(inner) => self.walk_layout(inner, value, &at, read),
                Slot::Source { source, items } => read(self, source, items.as_ref(), value, &at),
            }
        }
    }

    fn suite_source(
        &mut self,
        source: &LayoutSource,
        items: Option<&Layout>,
        value: &Value,
        path: &str,
        suite: &mut Suite,
    ) {
        let shape = self.shape.clone();
        match source {
            LayoutSource::Field(id) => {
                self.suite_field(&shape.suite_fields[*id], *id, items, value, path, suite)
            }
            LayoutSource::Builtin(Builtin::SuiteName) => {
                if let Some(t) = self.text(value, path) {
                    suite.name = t;
                }
            }
            LayoutSource::Builtin(Builtin::Outcomes) => {
                suite.outcome_names = self.outcome_names(value, path);
            }
            LayoutSource::Builtin(Builtin::Categories) => {
                let Some(map) = self.object(value, path) else {
                    return;
                };
                for (name, item) in map {
                    let at = format!("{path}.{name}");
                    let Some(parts) = self.item(items, item, &at, Part::Count) else {
                        continue;
                    };
                    let count = parts
                        .get(&Part::Count)
                        .and_then(|v| self.number(v, &format!("{at}.count")));
                    if let Some(count) = count {
                        suite.categories.push(Category {
                            name: Name::new(name.as_str(), self.span),
                            count,
                        });
                    }
                }
            }
            LayoutSource::Builtin(Builtin::Tools) => {
                let Some(map) = self.object(value, path) else {
                    return;
                };
                for (name, item) in map {
                    let at = format!("{path}.{name}");
                    if let Some(tool) = self.tool(name, items, item, &at) {
                        suite.tools.push(tool);
                    }
                }
            }
            LayoutSource::Builtin(Builtin::Cases) => {
                let Some(list) = self.array(value, path) else {
                    return;
                };
                let Some(layout) = items else { return };
                for (i, item) in list.iter().enumerate() {
                    if let Some(case) = self.case(layout, item, &format!("{path}[{i}]")) {
                        suite.cases.push(case);
                    }
                }
            }
            // Other built-ins are a case's or a run's; a shape's master does not hold
            // them at the suite level (its reader refuses them there).
            LayoutSource::Builtin(_) | LayoutSource::SuiteField(_) | LayoutSource::Part(_) => {}
        }
    }

    fn suite_field(
        &mut self,
        field: &FieldDecl,
        id: usize,
        items: Option<&Layout>,
        value: &Value,
        path: &str,
        suite: &mut Suite,
    ) {
        match field.kind {
            Kind::SystemPrompt if field.required => suite.system_prompt = self.text(value, path),
            Kind::SystemPrompt => suite.system_prompt = self.optional_text(value, path).flatten(),
            Kind::CaseCount => suite.case_count = self.number(value, path),
            Kind::GlobalCriticalFailures => {
                suite.global_critical_failures = self.texts(value, path).unwrap_or_default()
            }
            Kind::Reports => {
                let texts = self.texts(value, path).unwrap_or_default();
                suite.reports = texts
                    .into_iter()
                    .map(|text| ReportLine {
                        text,
                        aggregation: None,
                    })
                    .collect();
            }
            Kind::ResultTemplate => suite.result_template = self.data(value, path),
            Kind::Outcomes => suite.outcome_names = self.outcome_names(value, path),
            Kind::Revisions => {
                let Some(list) = self.array(value, path) else {
                    return;
                };
                for (i, item) in list.iter().enumerate() {
                    let at = format!("{path}[{i}]");
                    let Some(parts) = self.item(items, item, &at, Part::Change) else {
                        continue;
                    };
                    let case_id = self.part_name(&parts, Part::Case, &at);
                    let change = self.part_text(&parts, Part::Change, &at);
                    if let (Some(case_id), Some(change)) = (case_id, change) {
                        suite.revision_notes.push(RevisionNote { case_id, change });
                    }
                }
            }
            _ => suite.values[id] = self.plain(field, value, path),
        }
    }

    /// A field of a plain kind. Lists are never null (an absent one is empty), and a
    /// required field never is.
    fn plain(
        &mut self,
        field: &FieldDecl,
        value: &Value,
        path: &str,
    ) -> Option<crate::model::Value> {
        use crate::model::Value as V;
        // Only the kinds with a value come here; were another to, it reads as a text.
        let form = field.kind.form().unwrap_or(Form::Text);
        if value.is_null() && !form.is_list() && !field.required {
            return None;
        }
        match form {
            Form::Text => self.text(value, path).map(V::Text),
            Form::Texts => self.texts(value, path).map(V::Texts),
            Form::Names => self.names(value, path).map(V::Names),
            Form::Number => self.number(value, path).map(V::Number),
            Form::Data => self.data(value, path).map(|d| V::Data(Box::new(d))),
            Form::Objects => self.objects(value, path).map(V::Objects),
        }
    }

    /// The suite's names for the verdicts: one each, all different.
    fn outcome_names(&mut self, value: &Value, path: &str) -> Option<Vec<Name>> {
        let names = self.names(value, path)?;
        let verdicts = self.shape.grading.outcomes.len();
        let distinct = names
            .iter()
            .enumerate()
            .all(|(i, n)| !names[..i].iter().any(|m| m.as_str() == n.as_str()));
        if names.len() != verdicts || !distinct {
            self.error(
                path,
                format!("expected {verdicts} different outcome names, one per verdict (passed, failed, undecided)"),
            );
            return None;
        }
        Some(names)
    }

    fn tool(
        &mut self,
        name: &str,
        items: Option<&Layout>,
        value: &Value,
        path: &str,
    ) -> Option<Tool> {
        let parts = self.item(items, value, path, Part::Name)?;
        let behavior = self.part_text(&parts, Part::Behavior, path)?;
        let arguments = match parts.get(&Part::ArgumentList) {
            Some(list) => self.texts(list, &format!("{path}.arguments"))?,
            None => Vec::new(),
        };
        Some(Tool {
            name: Name::new(name, self.span),
            behavior,
            arguments: arguments.iter().map(contract_argument).collect(),
            binding: Binding::None,
            span: self.span,
        })
    }

    /// The parts of an item: by its item layout, or (without one) its one value as
    /// the part an item shows by default (`main`).
    fn item(
        &mut self,
        items: Option<&Layout>,
        value: &Value,
        path: &str,
        main: Part,
    ) -> Option<Parts> {
        let Some(layout) = items else {
            return Some(HashMap::from([(main, value.clone())]));
        };
        let before = self.diags.len();
        let mut parts = Parts::new();
        self.parts(layout, value, path, &mut parts);
        (self.diags.len() == before).then_some(parts)
    }

    fn parts(&mut self, layout: &Layout, value: &Value, path: &str, out: &mut Parts) {
        for (slot, value, at) in self.entries(layout, value, path, true) {
            match slot {
                Slot::Object(inner) => self.parts(inner, value, &at, out),
                Slot::Source {
                    source: LayoutSource::Part(part),
                    ..
                } => {
                    out.insert(*part, value.clone());
                }
                Slot::Source { .. } => {}
            }
        }
    }

    fn part_text(&mut self, parts: &Parts, part: Part, path: &str) -> Option<Text> {
        match parts.get(&part) {
            Some(v) => self.text(v, &format!("{path}.{}", part.as_str())),
            None => {
                self.error(path, format!("missing the item's `{}`", part.as_str()));
                None
            }
        }
    }

    fn part_name(&mut self, parts: &Parts, part: Part, path: &str) -> Option<Name> {
        self.part_text(parts, part, path).map(Name::from)
    }

    fn optional_part(&mut self, parts: &Parts, part: Part, path: &str) -> Option<Option<Text>> {
        match parts.get(&part) {
            Some(v) => self.optional_text(v, &format!("{path}.{}", part.as_str())),
            None => Some(None),
        }
    }

    /// One case laid out by `layout` (a master's case layout, an export's line).
    pub fn case(&mut self, layout: &Layout, value: &Value, path: &str) -> Option<Case> {
        let mut case = Case::empty(
            Name::new("", self.span),
            Text::new("", self.span),
            self.span,
            self.span,
        );
        let before = self.diags.len();
        self.walk_layout(layout, value, path, &mut |me, source, items, value, at| {
            me.case_source(source, items, value, at, &mut case)
        });
        (self.diags.len() == before).then_some(case)
    }

    fn case_source(
        &mut self,
        source: &LayoutSource,
        items: Option<&Layout>,
        value: &Value,
        path: &str,
        case: &mut Case,
    ) {
        let shape = self.shape.clone();
        match source {
            LayoutSource::Field(id) => {
                self.case_field(&shape.case_fields[*id], *id, items, value, path, case)
            }
            LayoutSource::Builtin(Builtin::CaseId) => {
                if let Some(t) = self.name(value, path) {
                    case.id = t;
                }
            }
            LayoutSource::Builtin(Builtin::CaseTitle) => {
                if let Some(t) = self.text(value, path) {
                    case.title = t;
                }
            }
            LayoutSource::Builtin(Builtin::AllChecks) => {
                case.checks = self.checks(items, value, path, None)
            }
            // A case's tools are read from its tools field; the suite's fields are the
            // suite's.
            LayoutSource::Builtin(_) | LayoutSource::SuiteField(_) | LayoutSource::Part(_) => {}
        }
    }

    fn case_field(
        &mut self,
        field: &FieldDecl,
        id: usize,
        items: Option<&Layout>,
        value: &Value,
        path: &str,
        case: &mut Case,
    ) {
        // A required field cannot be null: the sources could not leave it out.
        let text = |r: &mut Reader| match field.required {
            true => r.text(value, path),
            false => r.optional_text(value, path).flatten(),
        };
        match field.kind {
            Kind::Category => case.category = text(self).map(Name::from),
            Kind::Tags => case.tags = self.names(value, path).unwrap_or_default(),
            Kind::Tools => {
                case.tools = match value {
                    // Laid out as contracts: the names are the keys.
                    Value::Object(map) => map
                        .keys()
                        .map(|k| Name::new(k.as_str(), self.span))
                        .collect(),
                    other => self.names(other, path).unwrap_or_default(),
                }
            }
            Kind::Clock => case.clock = text(self),
            Kind::Timezone => case.timezone = text(self),
            Kind::UserMessage => case.user = text(self),
            Kind::UnscriptedReply => case.unscripted_reply = text(self),
            Kind::CriticalFailures => {
                case.critical_failures = self.texts(value, path).unwrap_or_default()
            }
            Kind::Conversation => {
                let Some(list) = self.array(value, path) else {
                    return;
                };
                for (i, item) in list.iter().enumerate() {
                    let at = format!("{path}[{i}]");
                    let Some(parts) = self.item(items, item, &at, Part::Content) else {
                        continue;
                    };
                    let role = match parts.get(&Part::Role) {
                        Some(_) => self.part_name(&parts, Part::Role, &at),
                        None => Some(Name::new("user", self.span)),
                    };
                    let content = self.part_text(&parts, Part::Content, &at);
                    if let (Some(role), Some(content)) = (role, content) {
                        case.conversation.push(Turn { role, content });
                    }
                }
            }
            Kind::Override => {
                for (item, at) in self.repeated(field, value, path) {
                    let Some(parts) = self.item(items, &item, &at, Part::Result) else {
                        continue;
                    };
                    if let Some(o) = self.tool_override(&parts, &at) {
                        case.overrides.push(o);
                    }
                }
            }
            Kind::Followup => {
                for (item, at) in self.repeated(field, value, path) {
                    let Some(parts) = self.item(items, &item, &at, Part::Reply) else {
                        continue;
                    };
                    let asked = self.part_text(&parts, Part::Asked, &at);
                    let reply = self.part_text(&parts, Part::Reply, &at);
                    if let (Some(when_asked), Some(reply)) = (asked, reply) {
                        case.followups.push(Followup {
                            when_asked,
                            reply,
                            span: self.span,
                        });
                    }
                }
            }
            Kind::Checks => {
                let checks = self.checks(items, value, path, Some(id));
                case.checks.extend(checks);
            }
            Kind::Evidence => {
                let Some(map) = self.object(value, path) else {
                    return;
                };
                // Evidence by dimension is what the checks already carry.
                for (dimension, text) in map {
                    self.text(text, &format!("{path}.{dimension}"));
                }
            }
            _ => case.set_value(id, self.plain(field, value, path)),
        }
    }

    /// The items of a repeated field: one object or `null` when the shape allows one,
    /// else an array.
    fn repeated(&mut self, field: &FieldDecl, value: &Value, path: &str) -> Vec<(Value, String)> {
        if field.single() {
            return match value {
                Value::Null => Vec::new(),
                other => vec![(other.clone(), path.to_string())],
            };
        }
        let Some(list) = self.array(value, path) else {
            return Vec::new();
        };
        list.iter()
            .enumerate()
            .map(|(i, v)| (v.clone(), format!("{path}[{i}]")))
            .collect()
    }

    fn tool_override(&mut self, parts: &Parts, path: &str) -> Option<ToolOverride> {
        let tool = self.part_name(parts, Part::Tool, path);
        let matches = self.part_text(parts, Part::Match, path);
        let result = self.part_text(parts, Part::Result, path);
        let side_effect = self.optional_part(parts, Part::SideEffect, path);
        let verification = self.optional_part(parts, Part::Verify, path);
        Some(ToolOverride {
            tool: tool?,
            matches: matches?,
            result: result?,
            side_effect: side_effect?,
            verification: verification?,
            span: self.span,
        })
    }

    /// Checks as listed. Items without an id (a checks field laid out as its texts) are
    /// the checks the field derives: its dimension's letter, numbered in order.
    fn checks(
        &mut self,
        items: Option<&Layout>,
        value: &Value,
        path: &str,
        field: Option<usize>,
    ) -> Vec<Check> {
        let Some(list) = self.array(value, path) else {
            return Vec::new();
        };
        let shape = self.shape.clone();
        let derived = field.and_then(|f| shape.grading.derivations.iter().find(|d| d.field == f));
        let dimension = derived.and_then(|d| shape.grading.dimension(d.dimension.as_str()));
        let mut out = Vec::with_capacity(list.len());
        for (i, item) in list.iter().enumerate() {
            let at = format!("{path}[{i}]");
            let Some(parts) = self.item(items, item, &at, Part::Requirement) else {
                continue;
            };
            let id = match (parts.contains_key(&Part::Id), dimension) {
                (false, Some(d)) => Some(Name::new(
                    format!("{}{}", d.letter.as_str(), i + 1),
                    self.span,
                )),
                _ => self.part_name(&parts, Part::Id, &at),
            };
            let requirement = self.part_text(&parts, Part::Requirement, &at);
            let dimension = match parts.get(&Part::Dimension) {
                Some(_) => self.part_name(&parts, Part::Dimension, &at),
                None => id.as_ref().and_then(|id| {
                    let d = self.shape.grading.dimension_of_id(id.as_str())?;
                    Some(Name::new(d.name.value.clone(), self.span))
                }),
            };
            let evidence = self.optional_part(&parts, Part::Evidence, &at);
            if let (Some(id), Some(dimension), Some(requirement), Some(evidence)) =
                (id, dimension, requirement, evidence)
            {
                out.push(Check {
                    id,
                    dimension,
                    requirement,
                    evidence,
                    span: self.span,
                    source: None,
                    inherited: false,
                });
            }
        }
        out
    }
}

/// Every tag the cases use, in order of first use: the suite's vocabulary.
pub fn case_tags(cases: &[Case]) -> Vec<Name> {
    let mut tags: Vec<Name> = Vec::new();
    for tag in cases.iter().flat_map(|c| &c.tags) {
        if !tags.iter().any(|t| t.as_str() == tag.as_str()) {
            tags.push(tag.clone());
        }
    }
    tags
}

/// Whether the shape's derivations give exactly the checks `case` lists (ids,
/// dimensions and requirements, in order: a derivation's checks are of its dimension), filling the text fields a derivation reads
/// that the master did not show (the check's requirement is their value) and marking
/// each check with the field it derives from. Without that, the case is written with
/// explicit check ids and nothing is filled.
pub fn underive(case: &mut Case, shape: &Shape) -> bool {
    let mut at = 0;
    let mut sources: Vec<usize> = Vec::with_capacity(case.checks.len());
    let mut fills: Vec<(usize, Text)> = Vec::new();
    for derivation in &shape.grading.derivations {
        let Some(dimension) = shape.grading.dimension(derivation.dimension.as_str()) else {
            continue;
        };
        let letter = dimension.letter.as_str();
        let field = &shape.case_fields[derivation.field];
        match field.kind {
            Kind::Text => {
                let Some(check) = case.checks.get(at) else {
                    return false;
                };
                if check.id.as_str() != format!("{letter}1")
                    || check.dimension.as_str() != dimension.name.as_str()
                {
                    return false;
                }
                match case.value(derivation.field) {
                    Some(crate::model::Value::Text(t))
                        if t.as_str() == check.requirement.as_str() => {}
                    Some(_) => return false,
                    None => fills.push((derivation.field, check.requirement.clone())),
                }
                sources.push(derivation.field);
                at += 1;
            }
            Kind::Checks => {
                let mut n = 1;
                while let Some(check) = case.checks.get(at) {
                    // A check of another dimension is written with its id, so that its
                    // evidence can be its own.
                    if check.id.as_str() != format!("{letter}{n}")
                        || check.dimension.as_str() != dimension.name.as_str()
                    {
                        break;
                    }
                    sources.push(derivation.field);
                    at += 1;
                    n += 1;
                }
            }
            _ => return false,
        }
    }
    if at != case.checks.len() {
        return false;
    }
    for (field, text) in fills {
        case.set_value(field, Some(crate::model::Value::Text(text)));
    }
    for (check, source) in case.checks.iter_mut().zip(sources) {
        check.source = Some(source);
    }
    true
}

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
        name: Name::new(name, contract.span),
        ty,
        required: true,
        doc: None,
        default: None,
    }
}
