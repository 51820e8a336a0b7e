//! Lowering to the master JSON: the evaluator's file, every field of every case, in
//! the key order of the Tujora master.
//!
//! Each part of the master is a view over the model that implements `Serialize`, so
//! the master is written straight from the model into the output. Building a
//! `serde_json::Value` first would hold a second copy of every text (and dropping it
//! took a sixth of a 10,000-case build); the views are also the single description of
//! the key order for the functions that do want a `Value`.

use std::io;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use crate::model::{
    Case, Category, Check, Followup, RevisionNote, Scoring, Suite, Text, ToolOverride, Turn,
};

use crate::model::tool::Tool;

use super::json_style::{to_master_string, write_master};

/// The master JSON text of a suite.
pub fn master_json(suite: &Suite) -> String {
    to_master_string(&Master(suite))
}

/// Writes the master JSON of a suite to `writer`, without holding it in memory.
pub fn write_master_json(suite: &Suite, writer: impl io::Write) -> io::Result<()> {
    write_master(&Master(suite), writer)
}

/// The master as a JSON value (key order preserved).
pub fn master_value(suite: &Suite) -> Value {
    to_value(Master(suite))
}

/// The `model_input` object of a case: what the model under test sees.
pub fn model_input(case: &Case) -> Value {
    to_value(ModelInput(case))
}

/// One case of the master as a JSON value.
pub fn case_value(case: &Case) -> Value {
    to_value(CaseView(case))
}

/// Views hold strings, numbers and JSON values only, so serializing them to a value
/// cannot fail.
fn to_value(view: impl Serialize) -> Value {
    serde_json::to_value(view).unwrap_or_default()
}

/// A list, each item serialized through a view.
struct Seq<'a, T, V>(&'a [T], fn(&'a T) -> V);

impl<'a, T, V: Serialize> Serialize for Seq<'a, T, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(self.1))
    }
}

/// An object keyed by name, each value serialized through a view.
struct Named<'a, T, V>(&'a [T], fn(&'a T) -> (&'a str, V));

impl<'a, T, V: Serialize> Serialize for Named<'a, T, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(self.1))
    }
}

fn texts(ts: &[Text]) -> Seq<'_, Text, &str> {
    Seq(ts, Text::as_str)
}

struct Master<'a>(&'a Suite);

impl Serialize for Master<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let suite = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("benchmark_name", suite.name.as_str())?;
        m.serialize_entry("version", suite.version.as_str())?;
        m.serialize_entry("created_on", suite.created_on.as_str())?;
        m.serialize_entry("language", suite.language.as_str())?;
        m.serialize_entry("purpose", suite.purpose.as_str())?;
        m.serialize_entry("case_count", &suite.case_count.value)?;
        m.serialize_entry(
            "coverage",
            &Named(&suite.categories, |c: &Category| {
                (c.name.as_str(), &c.count.value)
            }),
        )?;
        m.serialize_entry("data_status", suite.data_status.as_str())?;
        m.serialize_entry("use_instructions", &texts(&suite.use_instructions))?;
        m.serialize_entry(
            "assistant_system_instruction",
            suite.system_instruction.as_str(),
        )?;
        m.serialize_entry(
            "tool_contracts",
            &Named(&suite.tools, |t: &Tool| (t.name.as_str(), ToolView(t))),
        )?;
        m.serialize_entry(
            "global_critical_failures",
            &texts(&suite.global_critical_failures),
        )?;
        m.serialize_entry("scoring", &ScoringView(&suite.scoring))?;
        m.serialize_entry("design_reference", &suite.design_reference.value)?;
        m.serialize_entry("cases", &Seq(&suite.cases, CaseView))?;
        m.serialize_entry("revision_notes", &Seq(&suite.revision_notes, NoteView))?;
        m.end()
    }
}

struct ToolView<'a>(&'a Tool);

impl Serialize for ToolView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("arguments", &super::tools::argument_list(self.0))?;
        m.serialize_entry("behavior", self.0.behavior.as_str())?;
        m.end()
    }
}

struct ScoringView<'a>(&'a Scoring);

impl Serialize for ScoringView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let scoring = self.0;
        let mut m = s.serialize_map(Some(8))?;
        m.serialize_entry("case_outcomes", &texts(&scoring.case_outcomes))?;
        m.serialize_entry(
            "official_complete_run",
            scoring.official_complete_run.as_str(),
        )?;
        m.serialize_entry("overall_pass_rate", scoring.overall_pass_rate.as_str())?;
        m.serialize_entry(
            "incomplete_run_reporting",
            scoring.incomplete_run_reporting.as_str(),
        )?;
        m.serialize_entry("category_pass_rate", scoring.category_pass_rate.as_str())?;
        m.serialize_entry("required_reporting", &texts(&scoring.required_reporting))?;
        m.serialize_entry("human_review", scoring.human_review.as_str())?;
        m.serialize_entry(
            "result_record_template",
            &scoring.result_record_template.value,
        )?;
        m.end()
    }
}

struct NoteView<'a>(&'a RevisionNote);

impl Serialize for NoteView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("case_id", self.0.case_id.as_str())?;
        m.serialize_entry("change", self.0.change.as_str())?;
        m.end()
    }
}

struct CaseView<'a>(&'a Case);

impl Serialize for CaseView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let case = self.0;
        let mut m = s.serialize_map(Some(7))?;
        m.serialize_entry("case_id", case.id.as_str())?;
        m.serialize_entry("title", case.title.as_str())?;
        m.serialize_entry("category", case.category.as_str())?;
        m.serialize_entry("tags", &texts(&case.tags))?;
        m.serialize_entry("model_input", &ModelInput(case))?;
        m.serialize_entry("harness_only", &HarnessOnly(case))?;
        m.serialize_entry("evaluator_only", &EvaluatorOnly(case))?;
        m.end()
    }
}

struct ModelInput<'a>(&'a Case);

impl Serialize for ModelInput<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let case = self.0;
        let mut m = s.serialize_map(Some(9))?;
        m.serialize_entry("current_time", case.clock.as_str())?;
        m.serialize_entry("timezone", case.timezone.as_str())?;
        m.serialize_entry(
            "person_background_and_past_history",
            case.background.as_str(),
        )?;
        m.serialize_entry("common_patterns_and_preferences", case.preferences.as_str())?;
        m.serialize_entry("current_situation", case.user.as_str())?;
        m.serialize_entry("conversation", &Seq(&case.conversation, TurnView))?;
        m.serialize_entry("permissions", case.permissions.as_str())?;
        m.serialize_entry("available_tools", &texts(&case.tools))?;
        m.serialize_entry("record_access", case.record_access.as_str())?;
        m.end()
    }
}

struct TurnView<'a>(&'a Turn);

impl Serialize for TurnView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("role", self.0.role.as_str())?;
        m.serialize_entry("content", self.0.content.as_str())?;
        m.end()
    }
}

struct HarnessOnly<'a>(&'a Case);

impl Serialize for HarnessOnly<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let case = self.0;
        let mut m = s.serialize_map(Some(6))?;
        m.serialize_entry("fixture_facts", case.facts.as_str())?;
        m.serialize_entry(
            "tool_behavior_override",
            &case.overrides.first().map(OverrideView),
        )?;
        m.serialize_entry("default_tool_behavior", case.tool_behavior.as_str())?;
        m.serialize_entry(
            "scripted_user_followup",
            &case.followups.first().map(FollowupView),
        )?;
        m.serialize_entry("unscripted_user_reply", case.unscripted_reply.as_str())?;
        m.serialize_entry(
            "hidden_ground_truth_policy",
            case.ground_truth_policy.as_str(),
        )?;
        m.end()
    }
}

struct OverrideView<'a>(&'a ToolOverride);

impl Serialize for OverrideView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let o = self.0;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("tool", o.tool.as_str())?;
        m.serialize_entry("match", o.matches.as_str())?;
        m.serialize_entry("result", o.result.as_str())?;
        if let Some(side_effect) = &o.side_effect {
            m.serialize_entry("side_effect", side_effect.as_str())?;
        }
        if let Some(verification) = &o.verification {
            m.serialize_entry("subsequent_verification", verification.as_str())?;
        }
        m.end()
    }
}

struct FollowupView<'a>(&'a Followup);

impl Serialize for FollowupView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("when_asked", self.0.when_asked.as_str())?;
        m.serialize_entry("reply", self.0.reply.as_str())?;
        m.end()
    }
}

struct EvaluatorOnly<'a>(&'a Case);

impl Serialize for EvaluatorOnly<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let case = self.0;
        let mut m = s.serialize_map(Some(5))?;
        m.serialize_entry("expected_need", case.need.as_str())?;
        m.serialize_entry("required_checks", &Seq(&case.checks, CheckView))?;
        m.serialize_entry("critical_failures", &texts(&case.critical_failures))?;
        m.serialize_entry("pass_rule", case.pass_rule.as_str())?;
        m.serialize_entry("expected_final_state", case.final_state.as_str())?;
        m.end()
    }
}

struct CheckView<'a>(&'a Check);

impl Serialize for CheckView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let check = self.0;
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("id", check.id.as_str())?;
        m.serialize_entry("dimension", check.dimension.as_str())?;
        m.serialize_entry("requirement", check.requirement.as_str())?;
        m.serialize_entry("evidence", check.evidence.as_str())?;
        m.end()
    }
}
