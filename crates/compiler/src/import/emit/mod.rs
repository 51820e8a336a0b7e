//! Writing a model as `.case` sources, with shared text factored out.
//!
//! The suite block gets the shape's suite fields in declaration order (dotted keys
//! grouped into their blocks), then the vocabulary and the defaults every case starts
//! from. Every value cases inherit is placed at the highest level where it is shared
//! ([`plan()`]); a case deviates from its inherited value by an explicit statement.
//! Checks are written in the short form the shape's derivations give (`need`, `check
//! "…"`, `final`) when they follow it (`underive`), and with explicit ids otherwise.

mod plan;
mod writer;

use serde_json::Value;

use crate::lower::tools::argument_list;
use crate::model::plain::{Form, Piece};
use crate::model::shape::{FieldDecl, Kind, Shape};
use crate::model::tool::Tool;
use crate::model::{Case, Check, Suite, Text};
use crate::syntax::strings::quote;

use plan::{case_value, plan, Plan, Slot};
pub use writer::is_ident;
use writer::{word, Writer};

/// The `.case` files of a suite: `suite.case` first, then one file per case (in a
/// folder per category), as `(relative path, text)`. `known[f]` says whether the input
/// gave case field `f` (a field its layout does not hold is left to its default).
pub fn emit(suite: &Suite, known: &[bool]) -> Vec<(String, String)> {
    let shape = &suite.shape;
    let profile = shape
        .import
        .profile
        .as_ref()
        .and_then(|p| crate::resolve::stdlib_defaults(p.as_str(), &suite.shape));
    let plan = plan(suite, profile.as_ref(), known);
    let mut files = vec![("suite.case".to_string(), suite_file(suite, &plan))];
    for case in &suite.cases {
        let path = match &case.category {
            Some(category) => format!("{}/{}.case", category.as_str(), case.id.as_str()),
            None => format!("{}.case", case.id.as_str()),
        };
        files.push((path, case_file(case, shape, &plan, known)));
    }
    files
}

fn suite_file(suite: &Suite, plan: &Plan) -> String {
    let shape = &suite.shape;
    let mut w = Writer::new();
    w.open(&format!("suite {}", quote(suite.name.as_str())));
    if shape.name.as_str() != crate::resolve::DEFAULT_SHAPE {
        w.line(&format!("shape {}", shape.name.as_str()));
    }
    let mut open: Vec<String> = Vec::new();
    let mut previous_one_line = true;
    for (id, field) in shape.suite_fields.iter().enumerate() {
        let (prefix, key) = split_key(field.key.as_str());
        reopen(&mut w, &mut open, &prefix);
        // At the top of the block, one-line fields (the metadata) are written together
        // and every other field is set apart by a blank line; inside a nested block,
        // fields follow each other.
        let one_line = match field.kind.form() {
            Some(form) => matches!(form, Form::Text | Form::Number | Form::Names),
            None => matches!(field.kind, Kind::CaseCount | Kind::Outcomes),
        };
        let mark = w.out.len();
        if open.is_empty() && !(one_line && previous_one_line) {
            w.blank();
        }
        let written = w.out.len();
        suite_field(&mut w, suite, id, field, key);
        if w.out.len() == written {
            w.out.truncate(mark);
        } else if open.is_empty() {
            previous_one_line = one_line;
        } else {
            previous_one_line = false;
        }
    }
    reopen(&mut w, &mut open, &[]);
    w.blank();
    w.line("# Vocabulary and defaults every case starts from.");
    let mut tags: Vec<&str> = suite.tags.iter().map(|t| t.as_str()).collect();
    tags.sort_unstable();
    if !tags.is_empty() {
        w.line(&format!("tags {}", tags.join(" ")));
    }
    if !is_natural_order(suite) {
        let ids: Vec<&str> = suite.cases.iter().map(|c| c.id.as_str()).collect();
        w.line(&format!("order {}", ids.join(" ")));
    }
    if let Some(profile) = &shape.import.profile {
        w.line(&format!("profile {}", profile.as_str()));
    }
    for (slot, value) in plan.slots.iter().zip(&plan.suite) {
        if let Some(value) = value {
            slot_statement(&mut w, shape, slot, value);
        }
    }
    let own_tools = match stdlib_tools_prefix(suite) {
        Some(schema) => {
            w.line(&format!("world_schema {}", schema.name.as_str()));
            &suite.tools[schema.tools.len()..]
        }
        None => &suite.tools[..],
    };
    w.close();
    for tool in own_tools {
        w.blank();
        tool_block(&mut w, tool);
    }
    for category in &suite.categories {
        w.blank();
        category_block(&mut w, shape, plan, category);
    }
    w.out
}

/// `scoring.human_review` is `human_review` inside the `scoring` block.
fn split_key(key: &str) -> (Vec<&str>, &str) {
    let mut segments: Vec<&str> = key.split('.').collect();
    let last = segments.pop().unwrap_or_default();
    (segments, last)
}

/// Closes the blocks of `open` that `prefix` leaves and opens the ones it enters.
fn reopen(w: &mut Writer, open: &mut Vec<String>, prefix: &[&str]) {
    let common = open
        .iter()
        .zip(prefix)
        .take_while(|(a, b)| a.as_str() == **b)
        .count();
    while open.len() > common {
        open.pop();
        w.close();
    }
    for segment in &prefix[common..] {
        w.blank();
        w.open(segment);
        open.push(segment.to_string());
    }
}

/// One suite field as statements (nothing when the suite does not set it).
fn suite_field(w: &mut Writer, suite: &Suite, id: usize, field: &FieldDecl, key: &str) {
    let texts = |w: &mut Writer, texts: &[Text]| {
        for t in texts {
            w.text(key, t.as_str());
        }
    };
    match field.kind {
        Kind::SystemPrompt => {
            if let Some(t) = &suite.system_prompt {
                w.text(key, t.as_str());
            }
        }
        Kind::CaseCount => {
            if let Some(n) = &suite.case_count {
                w.line(&format!("{key} {}", n.value));
            }
        }
        Kind::GlobalCriticalFailures => texts(w, &suite.global_critical_failures),
        Kind::Reports => {
            for line in &suite.reports {
                w.text(key, line.text.as_str());
            }
        }
        Kind::ResultTemplate => {
            if let Some(d) = &suite.result_template {
                data_block(w, key, &d.value);
            }
        }
        Kind::Outcomes => {
            if let Some(names) = &suite.outcome_names {
                let names: Vec<String> = names.iter().map(|n| word(n.as_str())).collect();
                w.line(&format!("{key} {}", names.join(" ")));
            }
        }
        Kind::Revisions => {
            for note in &suite.revision_notes {
                w.text(
                    &format!("{key} {}", note.case_id.as_str()),
                    note.change.as_str(),
                );
            }
        }
        _ => {
            if let Some(value) = suite.value(id) {
                plain(w, key, value);
            }
        }
    }
}

/// A field's value as statements.
fn plain(w: &mut Writer, key: &str, value: &crate::model::Value) {
    for piece in value.pieces() {
        match piece {
            Piece::Text(t) => w.text(key, t.as_str()),
            Piece::Names(ns) => names_line(w, key, ns.iter().map(|t| t.as_str())),
            Piece::Number(n) => w.line(&format!("{key} {}", n.value)),
            Piece::Data(d) => data_block(w, key, &d.value),
        }
    }
}

fn names_line<'a>(w: &mut Writer, key: &str, names: impl Iterator<Item = &'a str>) {
    let names: Vec<String> = names.map(word).collect();
    w.line(format!("{key} {}", names.join(" ")).trim_end());
}

/// An inherited value as the statement that sets it.
fn slot_statement(w: &mut Writer, shape: &Shape, slot: &Slot, value: &str) {
    let field = &shape.case_fields[slot.field];
    let key = field.key.as_str();
    match (&slot.dimension, field.kind) {
        (Some(dimension), _) => w.text(&format!("{key} {dimension}"), value),
        (None, kind) if kind.holds_words() && kind != Kind::Clock && kind != Kind::Timezone => {
            names_line(w, key, value.split(' ').filter(|n| !n.is_empty()))
        }
        (None, _) => w.text(key, value),
    }
}

fn tool_block(w: &mut Writer, tool: &Tool) {
    w.open(&format!("tool {}", tool.name.as_str()));
    w.text("behavior", tool.behavior.as_str());
    for argument in &tool.arguments {
        w.line(&format!(
            "argument {} {}",
            argument.name.as_str(),
            argument.ty.describe()
        ));
    }
    w.close();
}

fn category_block(w: &mut Writer, shape: &Shape, plan: &Plan, category: &crate::model::Category) {
    let header = format!(
        "category {} {}",
        category.name.as_str(),
        category.count.value
    );
    let own: Vec<(&Slot, &String)> = plan
        .categories
        .get(category.name.as_str())
        .map(|values| {
            plan.slots
                .iter()
                .zip(values)
                .filter_map(|(s, v)| v.as_ref().map(|v| (s, v)))
                .collect()
        })
        .unwrap_or_default();
    if own.is_empty() {
        w.line(&format!("{header} {{}}"));
        return;
    }
    w.open(&header);
    for (slot, value) in own {
        slot_statement(w, shape, slot, value);
    }
    w.close();
}

/// The stdlib world schema the shape's import names, when the master's tools begin
/// with its tools (same names, arguments and contracts, in order): the suite names it
/// instead of declaring them again.
fn stdlib_tools_prefix(suite: &Suite) -> Option<crate::model::world::WorldSchema> {
    let name = suite.shape.import.world_schema.as_ref()?;
    let schema = crate::resolve::stdlib_schema(name.as_str())?;
    let same = |a: &Tool, b: &Tool| {
        a.name.as_str() == b.name.as_str()
            && a.behavior.as_str() == b.behavior.as_str()
            && argument_list(a) == argument_list(b)
    };
    let prefix = schema.tools.len() <= suite.tools.len()
        && schema
            .tools
            .iter()
            .zip(&suite.tools)
            .all(|(a, b)| same(a, b));
    prefix.then_some(schema)
}

fn is_natural_order(suite: &Suite) -> bool {
    suite
        .cases
        .windows(2)
        .all(|w| crate::resolve::natural_cmp(w[0].id.as_str(), w[1].id.as_str()).is_lt())
}

fn data_block(w: &mut Writer, key: &str, value: &Value) {
    match value {
        Value::Object(map) if map.is_empty() => w.line(&format!("{key} {{}}")),
        Value::Object(map) => {
            w.open(key);
            for (k, v) in map {
                data_block(w, &word(k), v);
            }
            w.close();
        }
        Value::String(s) => w.text(key, s),
        other => w.line(&format!("{key} {}", inline(other))),
    }
}

/// A data value on one line: objects as `{ key value; … }`, lists as `[a, b]`.
fn inline(value: &Value) -> String {
    match value {
        Value::String(s) => quote(s),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(inline).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) if map.is_empty() => "{}".to_string(),
        Value::Object(map) => {
            let fields: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{} {}", word(k), inline(v)))
                .collect();
            format!("{{ {} }}", fields.join("; "))
        }
        other => other.to_string(),
    }
}

fn case_file(case: &Case, shape: &Shape, plan: &Plan, known: &[bool]) -> String {
    let mut w = Writer::new();
    w.open(&format!(
        "case {} {}",
        case.id.as_str(),
        quote(case.title.as_str())
    ));
    let derived = case.checks.iter().all(|c| c.source.is_some());
    for (id, field) in shape.case_fields.iter().enumerate() {
        if !known.get(id).copied().unwrap_or(false) {
            continue;
        }
        if field.inherited {
            inherited_field(&mut w, case, shape, plan, id);
            continue;
        }
        let key = field.key.as_str();
        match field.kind {
            Kind::Category => {
                if let Some(c) = &case.category {
                    w.line(&format!("{key} {}", word(c.as_str())));
                }
            }
            Kind::Tags if !case.tags.is_empty() => {
                names_line(&mut w, key, case.tags.iter().map(|t| t.as_str()))
            }
            Kind::Tools => names_line(&mut w, key, case.tools.iter().map(|t| t.as_str())),
            Kind::Clock | Kind::Timezone | Kind::UserMessage | Kind::UnscriptedReply => {
                let text = match field.kind {
                    Kind::Clock => &case.clock,
                    Kind::Timezone => &case.timezone,
                    Kind::UserMessage => &case.user,
                    _ => &case.unscripted_reply,
                };
                if let Some(t) = text {
                    w.text(key, t.as_str());
                }
            }
            Kind::Conversation => conversation(&mut w, key, case),
            Kind::Override => {
                for o in &case.overrides {
                    w.open(&format!(
                        "{key} {} {}",
                        word(o.tool.as_str()),
                        quote(o.matches.as_str())
                    ));
                    w.text("result", o.result.as_str());
                    if let Some(side_effect) = &o.side_effect {
                        w.text("side_effect", side_effect.as_str());
                    }
                    if let Some(verification) = &o.verification {
                        w.text("verify", verification.as_str());
                    }
                    w.close();
                }
            }
            Kind::Followup => {
                for f in &case.followups {
                    w.open(key);
                    w.text("asked", f.when_asked.as_str());
                    w.text("reply", f.reply.as_str());
                    w.close();
                }
            }
            Kind::Checks => checks(&mut w, key, id, derived, case, shape, plan),
            Kind::CriticalFailures => {
                for critical in &case.critical_failures {
                    w.text(key, critical.as_str());
                }
            }
            _ => match case.value(id) {
                // A word of the field's vocabulary is written bare (`check_on state`).
                Some(crate::model::Value::Text(t)) if !field.one_of.is_empty() => {
                    w.line(&format!("{key} {}", word(t.as_str())));
                }
                Some(value) => plain(&mut w, key, value),
                None => {}
            },
        }
    }
    w.close();
    w.out
}

/// The slots of an inherited field whose value the case does not inherit.
fn inherited_field(w: &mut Writer, case: &Case, shape: &Shape, plan: &Plan, field: usize) {
    for (i, slot) in plan
        .slots
        .iter()
        .enumerate()
        .filter(|(_, s)| s.field == field)
    {
        let Some(value) = case_value(case, shape, slot) else {
            continue;
        };
        if plan.inherited(case.category.as_ref(), i) != Some(&value) {
            slot_statement(w, shape, slot, &value);
        }
    }
}

/// The conversation, unless it is the user message as its one turn (the default).
fn conversation(w: &mut Writer, key: &str, case: &Case) {
    let default = match (case.conversation.as_slice(), &case.user) {
        ([turn], Some(user)) => {
            turn.role.as_str() == "user" && turn.content.as_str() == user.as_str()
        }
        ([], None) => true,
        _ => false,
    };
    if default {
        return;
    }
    if case.conversation.is_empty() {
        w.line(&format!("{key} {{}}"));
        return;
    }
    w.open(key);
    for turn in &case.conversation {
        w.text(&word(turn.role.as_str()), turn.content.as_str());
    }
    w.close();
}

/// The checks of the checks field `field`: the ones derived from it in the short form,
/// every check with its id otherwise.
fn checks(
    w: &mut Writer,
    key: &str,
    field: usize,
    derived: bool,
    case: &Case,
    shape: &Shape,
    plan: &Plan,
) {
    let evidence = |dimension: &str| -> Option<String> {
        let i = plan
            .slots
            .iter()
            .position(|s| s.dimension.as_deref() == Some(dimension))?;
        case_value(case, shape, &plan.slots[i])
            .or_else(|| plan.inherited(case.category.as_ref(), i).cloned())
    };
    let grading = &shape.grading;
    if derived {
        let dimension = grading
            .derivations
            .iter()
            .find(|d| d.field == field)
            .map(|d| d.dimension.as_str());
        for check in case.checks.iter().filter(|c| c.source == Some(field)) {
            let differs = dimension != Some(check.dimension.as_str());
            check_statement(
                w,
                key,
                check,
                differs,
                evidence(check.dimension.as_str()).as_deref(),
            );
        }
        return;
    }
    // Each check goes under the checks field it came from, else the one its dimension
    // is derived from, else the first.
    let home = |check: &Check| {
        check.source.or_else(|| {
            let derived = grading.derivations.iter().find(|d| {
                d.dimension.as_str() == check.dimension.as_str()
                    && shape.case_fields[d.field].kind == Kind::Checks
            });
            derived
                .map(|d| d.field)
                .or_else(|| shape.case_field(Kind::Checks))
        })
    };
    for check in case.checks.iter().filter(|c| home(c) == Some(field)) {
        let from_id = grading
            .dimension_of_id(check.id.as_str())
            .map(|d| d.name.as_str());
        let header = format!("{key} {}", check.id.as_str());
        let differs = from_id != Some(check.dimension.as_str());
        check_statement(
            w,
            &header,
            check,
            differs,
            evidence(check.dimension.as_str()).as_deref(),
        );
    }
}

fn check_statement(
    w: &mut Writer,
    header: &str,
    check: &Check,
    dimension_differs: bool,
    evidence: Option<&str>,
) {
    let evidence_differs = evidence != check.evidence.as_ref().map(|t| t.as_str());
    if !dimension_differs && !evidence_differs {
        w.text(header, check.requirement.as_str());
        return;
    }
    w.line(&format!(
        "{header} {} {{",
        quote(check.requirement.as_str())
    ));
    w.indent += 1;
    if dimension_differs {
        w.line(&format!("dimension {}", check.dimension.as_str()));
    }
    if let (true, Some(evidence)) = (evidence_differs, &check.evidence) {
        w.text("evidence", evidence.as_str());
    }
    w.close();
}
