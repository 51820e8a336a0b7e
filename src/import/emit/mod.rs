//! Writing a model as `.case` sources, with shared text factored out.
//!
//! Every defaultable field is placed at the highest level where it is shared: the
//! stdlib profile if it already says the same, else the suite when two or more cases
//! agree, else the category, else the case itself. A case deviates from its inherited
//! value by an explicit statement. Checks are written in the short form (`need`,
//! `check "…"`, `final`) when they follow the R1, A1…An, S1, C1 pattern, and with
//! explicit ids otherwise.

mod plan;
mod writer;

use serde_json::Value;

use crate::lower::tools::argument_list;
use crate::model::tool::Tool;
use crate::model::{self, Case, Check, Suite};
use crate::resolve::defaults::TextField;
use crate::syntax::strings::quote;

use plan::{case_value, plan, short_form, Field, Plan};
pub use writer::is_ident;
use writer::{word, Writer};

/// The stdlib profile an imported suite applies.
pub const STDLIB_PROFILE: &str = "std.everyday_assistance";
/// The stdlib world schema whose tools an imported suite names instead of declaring.
pub const STDLIB_SCHEMA: &str = "std.everyday_world";

/// The `.case` files of a suite: `suite.case` first, then one file per case, as
/// `(relative path, text)`.
pub fn emit(suite: &Suite) -> Vec<(String, String)> {
    let plan = plan(suite);
    let mut files = vec![("suite.case".to_string(), suite_file(suite, &plan))];
    for case in &suite.cases {
        let path = format!("{}/{}.case", case.category.as_str(), case.id.as_str());
        files.push((path, case_file(case, &plan)));
    }
    files
}

fn suite_file(suite: &Suite, plan: &Plan) -> String {
    let mut w = Writer::new();
    w.open(&format!("suite {}", quote(suite.name.as_str())));
    w.text("version", suite.version.as_str());
    w.text("created_on", suite.created_on.as_str());
    w.text("language", suite.language.as_str());
    w.text("purpose", suite.purpose.as_str());
    w.line(&format!("case_count {}", suite.case_count.value));
    w.text("data_status", suite.data_status.as_str());
    w.blank();
    for instruction in &suite.use_instructions {
        w.text("instruction", instruction.as_str());
    }
    w.blank();
    w.text("system_instruction", suite.system_instruction.as_str());
    w.blank();
    for critical in &suite.global_critical_failures {
        w.text("critical", critical.as_str());
    }
    w.blank();
    let s = &suite.scoring;
    w.open("scoring");
    let outcomes: Vec<String> = s.case_outcomes.iter().map(|o| word(o.as_str())).collect();
    w.line(format!("outcomes {}", outcomes.join(" ")).trim_end());
    w.text("official_complete_run", s.official_complete_run.as_str());
    w.text("overall_pass_rate", s.overall_pass_rate.as_str());
    w.text(
        "incomplete_run_reporting",
        s.incomplete_run_reporting.as_str(),
    );
    w.text("category_pass_rate", s.category_pass_rate.as_str());
    for report in &s.required_reporting {
        w.text("report", report.as_str());
    }
    w.text("human_review", s.human_review.as_str());
    data_block(&mut w, "result_template", &s.result_record_template.value);
    w.close();
    w.blank();
    data_block(&mut w, "design_reference", &suite.design_reference.value);
    if !suite.revision_notes.is_empty() {
        w.blank();
        for note in &suite.revision_notes {
            w.text(
                &format!("revision {}", note.case_id.as_str()),
                note.change.as_str(),
            );
        }
    }
    w.blank();
    w.line("# Vocabulary and defaults every case starts from.");
    let mut tags: Vec<&str> = suite.tags.iter().map(|t| t.as_str()).collect();
    tags.sort_unstable();
    w.line(format!("tags {}", tags.join(" ")).trim_end());
    if !is_natural_order(suite) {
        let ids: Vec<&str> = suite.cases.iter().map(|c| c.id.as_str()).collect();
        w.line(&format!("order {}", ids.join(" ")));
    }
    w.line(&format!("profile {STDLIB_PROFILE}"));
    for (field, value) in plan.fields.iter().zip(&plan.suite) {
        if let Some(value) = value {
            w.field(field, value);
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
    for category in &suite.categories {
        w.blank();
        let header = format!(
            "category {} {}",
            category.name.as_str(),
            category.count.value
        );
        let own = plan.categories.get(category.name.as_str());
        let own: Vec<(&Field, &String)> = own
            .map(|v| {
                plan.fields
                    .iter()
                    .zip(v)
                    .filter_map(|(f, v)| v.as_ref().map(|v| (f, v)))
                    .collect()
            })
            .unwrap_or_default();
        if own.is_empty() {
            w.line(&format!("{header} {{}}"));
            continue;
        }
        w.open(&header);
        for (field, value) in own {
            w.field(field, value);
        }
        w.close();
    }
    w.out
}

/// The stdlib world schema whose tools the master's tools begin with (same names,
/// arguments and contracts, in order), so the suite can name it instead of declaring
/// them again.
fn stdlib_tools_prefix(suite: &Suite) -> Option<crate::model::world::WorldSchema> {
    let schema = crate::resolve::stdlib_schema(STDLIB_SCHEMA)?;
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

fn case_file(case: &Case, plan: &Plan) -> String {
    let inherited = plan.inherited.get(case.category.as_str());
    let own = |field: &Field| -> Option<String> {
        let i = plan.fields.iter().position(|f| f == field)?;
        let value = case_value(case, field)?;
        let from = inherited.and_then(|v| v[i].as_ref());
        (Some(&value) != from).then_some(value)
    };
    let effective_evidence = |dimension: &str| -> Option<String> {
        let field = Field::Evidence(dimension.to_string());
        let i = plan.fields.iter().position(|f| *f == field)?;
        case_value(case, &field).or_else(|| inherited.and_then(|v| v[i].clone()))
    };
    let mut w = Writer::new();
    w.open(&format!(
        "case {} {}",
        case.id.as_str(),
        quote(case.title.as_str())
    ));
    w.line(&format!("category {}", case.category.as_str()));
    if !case.tags.is_empty() {
        let tags: Vec<&str> = case.tags.iter().map(|t| t.as_str()).collect();
        w.line(&format!("tags {}", tags.join(" ")));
    }
    let write_own = |w: &mut Writer, fields: &[TextField]| {
        for f in fields {
            let field = Field::Text(*f);
            if let Some(value) = own(&field) {
                w.field(&field, &value);
            }
        }
    };
    write_own(
        &mut w,
        &[
            TextField::Clock,
            TextField::Timezone,
            TextField::Background,
            TextField::Preferences,
            TextField::Permissions,
        ],
    );
    if let Some(tools) = own(&Field::Tools) {
        w.field(&Field::Tools, &tools);
    }
    write_own(&mut w, &[TextField::RecordAccess]);
    w.text("user", case.user.as_str());
    let default_conversation = matches!(case.conversation.as_slice(), [t] if t.role.as_str() == "user" && t.content == case.user);
    if !default_conversation {
        if case.conversation.is_empty() {
            w.line("conversation {}");
        } else {
            w.open("conversation");
            for turn in &case.conversation {
                w.text(&word(turn.role.as_str()), turn.content.as_str());
            }
            w.close();
        }
    }
    w.text("facts", case.facts.as_str());
    for o in &case.overrides {
        w.open(&format!(
            "override {} {}",
            o.tool.as_str(),
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
    for f in &case.followups {
        w.open("followup");
        w.text("asked", f.when_asked.as_str());
        w.text("reply", f.reply.as_str());
        w.close();
    }
    write_own(
        &mut w,
        &[
            TextField::ToolBehavior,
            TextField::UnscriptedReply,
            TextField::GroundTruthPolicy,
        ],
    );
    w.text("need", case.need.as_str());
    if short_form(case) {
        for check in &case.checks[1..case.checks.len() - 2] {
            let evidence = effective_evidence(check.dimension.as_str());
            check_statement(&mut w, "check", check, false, evidence.as_deref());
        }
    } else {
        for check in &case.checks {
            let evidence = effective_evidence(check.dimension.as_str());
            let derived = model::dimension_of_id(check.id.as_str());
            let header = format!("check {}", check.id.as_str());
            let dimension_differs = derived != Some(check.dimension.as_str());
            check_statement(
                &mut w,
                &header,
                check,
                dimension_differs,
                evidence.as_deref(),
            );
        }
    }
    w.text("final", case.final_state.as_str());
    for critical in &case.critical_failures {
        w.text("critical", critical.as_str());
    }
    write_own(&mut w, &[TextField::PassRule, TextField::Communication]);
    for field in plan
        .fields
        .iter()
        .filter(|f| matches!(f, Field::Evidence(_)))
    {
        if let Some(value) = own(field) {
            w.field(field, &value);
        }
    }
    w.close();
    w.out
}

/// `check … "text"`, with a block for a dimension or evidence that differs from what
/// the check would otherwise get.
fn check_statement(
    w: &mut Writer,
    header: &str,
    check: &Check,
    dimension_differs: bool,
    evidence: Option<&str>,
) {
    let evidence_differs = evidence != Some(check.evidence.as_str());
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
    if evidence_differs {
        w.text("evidence", check.evidence.as_str());
    }
    w.close();
}
