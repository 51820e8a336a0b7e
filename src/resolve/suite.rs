//! The suite block and the suite-level declarations of `suite.case` (tools,
//! categories).

use crate::diag::{codes, Diagnostic};
use crate::model::{Category, Data, Name, Number, RevisionNote, Scoring, Text};
use crate::source::Span;
use crate::syntax::ast::Statement;

use super::defaults::{self, Layer};
use super::keys::{self, all, body, first};
use super::values::{self, Kind};

/// The suite block's own metadata, before cases are attached.
pub struct SuiteHeader {
    pub name: Text,
    pub version: Text,
    pub created_on: Text,
    pub language: Text,
    pub purpose: Text,
    pub case_count: Number,
    pub data_status: Text,
    pub use_instructions: Vec<Text>,
    pub system_instruction: Text,
    pub global_critical_failures: Vec<Text>,
    pub scoring: Scoring,
    pub design_reference: Data,
    pub revision_notes: Vec<RevisionNote>,
    pub tags: Vec<Name>,
    pub order: Option<Vec<Name>>,
    pub layer: Layer,
    pub span: Span,
}

pub fn suite(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<SuiteHeader> {
    let header = values::args_with_block(
        statement,
        &[Kind::Str],
        "suite \"Benchmark name\" { … }",
        diags,
    );
    let statements = body(statement);
    let span = statement.key.span.to(statement
        .values
        .last()
        .map_or(statement.key.span, |v| v.span));
    keys::check_keys(
        statements,
        &[keys::SUITE, keys::PROFILE_FIELDS],
        "the suite block",
        span,
        diags,
    );
    let before = diags.len();
    let text = |key: &str, diags: &mut Vec<Diagnostic>| {
        first(statements, key).and_then(|s| values::text(s, diags))
    };
    let texts = |key: &'static str, diags: &mut Vec<Diagnostic>| -> Vec<Text> {
        all(statements, key)
            .filter_map(|s| values::text(s, diags))
            .collect()
    };
    let name = header.map(|v| values::text_of(&v[0]));
    let version = text("version", diags);
    let created_on = text("created_on", diags);
    let language = text("language", diags);
    let purpose = text("purpose", diags);
    let case_count = first(statements, "case_count").and_then(|s| values::number(s, diags));
    let data_status = text("data_status", diags);
    let use_instructions = texts("instruction", diags);
    let system_instruction = text("system_instruction", diags);
    let global_critical_failures = texts("critical", diags);
    let scoring = first(statements, "scoring").and_then(|s| scoring(s, diags));
    let design_reference =
        first(statements, "design_reference").and_then(|s| values::data(s, diags));
    let revision_notes = all(statements, "revision")
        .filter_map(|s| {
            values::args(
                s,
                &[Kind::Ident, Kind::Str],
                "revision CASE-ID \"change\"",
                diags,
            )
            .map(|v| RevisionNote {
                case_id: values::text_of(&v[0]),
                change: values::text_of(&v[1]),
            })
        })
        .collect();
    let tags = first(statements, "tags")
        .and_then(|s| values::names(s, diags))
        .unwrap_or_default();
    let order = first(statements, "order").and_then(|s| values::names(s, diags));
    let layer = defaults::read_layer(statements, diags);
    if diags.len() > before {
        return None;
    }
    Some(SuiteHeader {
        name: name?,
        version: version?,
        created_on: created_on?,
        language: language?,
        purpose: purpose?,
        case_count: case_count?,
        data_status: data_status?,
        use_instructions,
        system_instruction: system_instruction?,
        global_critical_failures,
        scoring: scoring?,
        design_reference: design_reference?,
        revision_notes,
        tags,
        order,
        layer,
        span,
    })
}

fn scoring(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Scoring> {
    let block = values::block_only(statement, diags)?;
    let statements = &block.statements;
    keys::check_keys(
        statements,
        &[keys::SCORING],
        "the scoring block",
        statement.key.span,
        diags,
    );
    let text = |key: &str, diags: &mut Vec<Diagnostic>| {
        first(statements, key).and_then(|s| values::text(s, diags))
    };
    let case_outcomes = first(statements, "outcomes").and_then(|s| values::words(s, diags));
    let official_complete_run = text("official_complete_run", diags);
    let overall_pass_rate = text("overall_pass_rate", diags);
    let incomplete_run_reporting = text("incomplete_run_reporting", diags);
    let category_pass_rate = text("category_pass_rate", diags);
    let required_reporting = all(statements, "report")
        .filter_map(|s| values::text(s, diags))
        .collect();
    let human_review = text("human_review", diags);
    let result_record_template =
        first(statements, "result_template").and_then(|s| values::data(s, diags));
    Some(Scoring {
        case_outcomes: case_outcomes?,
        official_complete_run: official_complete_run?,
        overall_pass_rate: overall_pass_rate?,
        incomplete_run_reporting: incomplete_run_reporting?,
        category_pass_rate: category_pass_rate?,
        required_reporting,
        human_review: human_review?,
        result_record_template: result_record_template?,
    })
}

pub fn category(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<(Category, Layer)> {
    let usage = "category NAME COUNT { background \"…\" … }";
    let header = values::args_with_block(statement, &[Kind::Ident, Kind::Number], usage, diags)?;
    let name = values::text_of(&header[0]);
    let count = values::parse_number(&header[1], statement, usage, diags)?;
    let statements = body(statement);
    keys::check_keys(
        statements,
        &[keys::PROFILE_FIELDS],
        &format!("category `{}`", name.as_str()),
        name.span,
        diags,
    );
    let layer = defaults::read_layer(statements, diags);
    Some((Category { name, count }, layer))
}

/// `profile NAME { … }` at the top of a file.
pub fn profile(
    statement: &Statement,
    stdlib: bool,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Name, Layer)> {
    let header = values::args_with_block(statement, &[Kind::Ident], "profile NAME { … }", diags)?;
    let mut name = values::text_of(&header[0]);
    if stdlib {
        name.value = format!("std.{}", name.as_str()).into();
    } else if name.as_str().starts_with("std.") {
        diags.push(
            Diagnostic::error(
                codes::DUPLICATE_DEFINITION,
                "the `std.` prefix is reserved for the stdlib",
            )
            .primary(name.span, "a suite profile cannot use this name")
            .help("choose a name without the `std.` prefix"),
        );
        return None;
    }
    let statements = body(statement);
    keys::check_keys(
        statements,
        &[keys::PROFILE_FIELDS],
        &format!("profile `{}`", name.as_str()),
        name.span,
        diags,
    );
    Some((name, defaults::read_layer(statements, diags)))
}
