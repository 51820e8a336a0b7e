//! Lowering to the master JSON: the evaluator's file, every field of every case, in
//! the key order of the Tujora master.

use serde_json::{Map, Value};

use crate::model::{Case, Check, Suite, Text};

use super::json_style::to_master_string;

/// The master JSON text of a suite.
pub fn master_json(suite: &Suite) -> String {
    to_master_string(&master_value(suite))
}

pub fn master_value(suite: &Suite) -> Value {
    let mut m = Map::new();
    m.insert("benchmark_name".into(), text(&suite.name));
    m.insert("version".into(), text(&suite.version));
    m.insert("created_on".into(), text(&suite.created_on));
    m.insert("language".into(), text(&suite.language));
    m.insert("purpose".into(), text(&suite.purpose));
    m.insert(
        "case_count".into(),
        Value::Number(suite.case_count.value.clone()),
    );
    let coverage = suite
        .categories
        .iter()
        .map(|c| {
            (
                c.name.as_str().to_string(),
                Value::Number(c.count.value.clone()),
            )
        })
        .collect();
    m.insert("coverage".into(), Value::Object(coverage));
    m.insert("data_status".into(), text(&suite.data_status));
    m.insert("use_instructions".into(), texts(&suite.use_instructions));
    m.insert(
        "assistant_system_instruction".into(),
        text(&suite.system_instruction),
    );
    let tools = suite
        .tools
        .iter()
        .map(|t| {
            let mut contract = Map::new();
            contract.insert("arguments".into(), texts(&t.arguments));
            contract.insert("behavior".into(), text(&t.behavior));
            (t.name.as_str().to_string(), Value::Object(contract))
        })
        .collect();
    m.insert("tool_contracts".into(), Value::Object(tools));
    m.insert(
        "global_critical_failures".into(),
        texts(&suite.global_critical_failures),
    );
    let s = &suite.scoring;
    let mut scoring = Map::new();
    scoring.insert("case_outcomes".into(), texts(&s.case_outcomes));
    scoring.insert(
        "official_complete_run".into(),
        text(&s.official_complete_run),
    );
    scoring.insert("overall_pass_rate".into(), text(&s.overall_pass_rate));
    scoring.insert(
        "incomplete_run_reporting".into(),
        text(&s.incomplete_run_reporting),
    );
    scoring.insert("category_pass_rate".into(), text(&s.category_pass_rate));
    scoring.insert("required_reporting".into(), texts(&s.required_reporting));
    scoring.insert("human_review".into(), text(&s.human_review));
    scoring.insert(
        "result_record_template".into(),
        s.result_record_template.value.clone(),
    );
    m.insert("scoring".into(), Value::Object(scoring));
    m.insert(
        "design_reference".into(),
        suite.design_reference.value.clone(),
    );
    m.insert(
        "cases".into(),
        Value::Array(suite.cases.iter().map(case_value).collect()),
    );
    let notes = suite
        .revision_notes
        .iter()
        .map(|n| {
            let mut note = Map::new();
            note.insert("case_id".into(), text(&n.case_id));
            note.insert("change".into(), text(&n.change));
            Value::Object(note)
        })
        .collect();
    m.insert("revision_notes".into(), Value::Array(notes));
    Value::Object(m)
}

fn text(t: &Text) -> Value {
    Value::String(t.as_str().to_string())
}

fn texts(ts: &[Text]) -> Value {
    Value::Array(ts.iter().map(text).collect())
}

/// The `model_input` object of a case: what the model under test sees.
pub fn model_input(case: &Case) -> Value {
    let mut mi = Map::new();
    mi.insert("current_time".into(), text(&case.clock));
    mi.insert("timezone".into(), text(&case.timezone));
    mi.insert(
        "person_background_and_past_history".into(),
        text(&case.background),
    );
    mi.insert(
        "common_patterns_and_preferences".into(),
        text(&case.preferences),
    );
    mi.insert("current_situation".into(), text(&case.user));
    let conversation = case
        .conversation
        .iter()
        .map(|turn| {
            let mut t = Map::new();
            t.insert("role".into(), text(&turn.role));
            t.insert("content".into(), text(&turn.content));
            Value::Object(t)
        })
        .collect();
    mi.insert("conversation".into(), Value::Array(conversation));
    mi.insert("permissions".into(), text(&case.permissions));
    mi.insert("available_tools".into(), texts(&case.tools));
    mi.insert("record_access".into(), text(&case.record_access));
    Value::Object(mi)
}

pub fn case_value(case: &Case) -> Value {
    let mut c = Map::new();
    c.insert("case_id".into(), text(&case.id));
    c.insert("title".into(), text(&case.title));
    c.insert("category".into(), text(&case.category));
    c.insert("tags".into(), texts(&case.tags));
    c.insert("model_input".into(), model_input(case));

    let mut h = Map::new();
    h.insert("fixture_facts".into(), text(&case.facts));
    let tool_override = case.tool_override.as_ref().map_or(Value::Null, |o| {
        let mut v = Map::new();
        v.insert("tool".into(), text(&o.tool));
        v.insert("match".into(), text(&o.matches));
        v.insert("result".into(), text(&o.result));
        if let Some(side_effect) = &o.side_effect {
            v.insert("side_effect".into(), text(side_effect));
        }
        if let Some(verification) = &o.verification {
            v.insert("subsequent_verification".into(), text(verification));
        }
        Value::Object(v)
    });
    h.insert("tool_behavior_override".into(), tool_override);
    h.insert("default_tool_behavior".into(), text(&case.tool_behavior));
    let followup = case.followup.as_ref().map_or(Value::Null, |f| {
        let mut v = Map::new();
        v.insert("when_asked".into(), text(&f.when_asked));
        v.insert("reply".into(), text(&f.reply));
        Value::Object(v)
    });
    h.insert("scripted_user_followup".into(), followup);
    h.insert("unscripted_user_reply".into(), text(&case.unscripted_reply));
    h.insert(
        "hidden_ground_truth_policy".into(),
        text(&case.ground_truth_policy),
    );
    c.insert("harness_only".into(), Value::Object(h));

    let mut e = Map::new();
    e.insert("expected_need".into(), text(&case.need));
    e.insert(
        "required_checks".into(),
        Value::Array(case.checks.iter().map(check_value).collect()),
    );
    e.insert("critical_failures".into(), texts(&case.critical_failures));
    e.insert("pass_rule".into(), text(&case.pass_rule));
    e.insert("expected_final_state".into(), text(&case.final_state));
    c.insert("evaluator_only".into(), Value::Object(e));
    Value::Object(c)
}

fn check_value(check: &Check) -> Value {
    let mut v = Map::new();
    v.insert("id".into(), text(&check.id));
    v.insert("dimension".into(), text(&check.dimension));
    v.insert("requirement".into(), text(&check.requirement));
    v.insert("evidence".into(), text(&check.evidence));
    Value::Object(v)
}
