//! The suite block and the categories of `suite.case`, read against the suite's shape.
//!
//! The suite block holds the shape's suite fields, the defaults of the cases' inherited
//! fields, and the language's own statements: `shape`, `world_schema`, `tags` (the tag
//! vocabulary), `order` (an explicit case order) and `profile`.

use crate::diag::codes::{self, Code};
use crate::diag::Diagnostic;
use crate::model::shape::{Kind, Shape};
use crate::model::{
    Aggregation, Category, Data, Name, Number, ReportLine, RevisionNote, Text, Value,
};
use crate::source::Span;
use crate::syntax::ast::Statement;

use super::defaults::{self, Layer};
use super::fields::{self, Given};
use super::keys::{self, body, first, KeySpec};
use super::values::{self, ValueType};

/// The suite block's own statements, beside the shape's fields.
pub const SUITE_KEYS: &[KeySpec<'static>] = &[
    KeySpec {
        key: "shape",
        required: false,
        repeated: false,
        doc: "The shape the suite follows: a stdlib shape (`std.NAME`) or one the suite declares (default: std.casec).",
    },
    KeySpec {
        key: "world_schema",
        required: false,
        repeated: false,
        doc: "The world schema case worlds follow (a `schema` of the stdlib or the suite).",
    },
    KeySpec {
        key: "tags",
        required: false,
        repeated: false,
        doc: "The tag vocabulary cases may use.",
    },
    KeySpec {
        key: "order",
        required: false,
        repeated: false,
        doc: "Explicit case order (default: case ids in natural order).",
    },
];

/// The suite block's own metadata, before cases are attached.
pub struct SuiteHeader {
    pub name: Text,
    pub values: Vec<Option<Value>>,
    pub system_prompt: Option<Text>,
    pub case_count: Option<Number>,
    pub global_critical_failures: Vec<Text>,
    pub revision_notes: Vec<RevisionNote>,
    pub reports: Vec<ReportLine>,
    pub result_template: Option<Data>,
    pub outcome_names: Option<Vec<Name>>,
    pub tags: Vec<Name>,
    pub order: Option<Vec<Name>>,
    pub layer: Layer,
    pub span: Span,
}

/// The shape a suite block names (`shape NAME`), or `None` for the default.
pub fn shape_name(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Name> {
    first(body(statement), "shape").and_then(|s| values::name(s, diags))
}

pub fn suite(
    statement: &Statement,
    shape: &Shape,
    diags: &mut Vec<Diagnostic>,
) -> Option<SuiteHeader> {
    let header = values::args_with_block(
        statement,
        &[ValueType::Str],
        "suite \"Benchmark name\" { … }",
        diags,
    );
    let statements = body(statement);
    let keyed = fields::Keyed::new(statements);
    let span = statement.key.span.to(statement
        .values
        .last()
        .map_or(statement.key.span, |v| v.span));
    let mut extra: Vec<KeySpec> = SUITE_KEYS.to_vec();
    extra.extend(defaults::layer_keys(shape));
    fields::check_block_keys(
        statements,
        &shape.suite_fields,
        &extra,
        "the suite block",
        span,
        diags,
    );
    let before = diags.len();
    let mut out = SuiteHeader {
        name: header.map(|v| values::text_of(&v[0]))?,
        values: vec![None; shape.suite_fields.len()],
        system_prompt: None,
        case_count: None,
        global_critical_failures: Vec::new(),
        revision_notes: Vec::new(),
        reports: Vec::new(),
        result_template: None,
        outcome_names: None,
        tags: first(statements, "tags")
            .and_then(|s| values::names(s, diags))
            .unwrap_or_default(),
        order: first(statements, "order").and_then(|s| values::names(s, diags)),
        layer: defaults::read_layer(&keyed, shape, diags),
        span,
    };
    for (id, field) in shape.suite_fields.iter().enumerate() {
        let Some(given) = fields::read(field, &keyed, diags) else {
            continue;
        };
        match (field.kind, given) {
            (_, Given::Plain(value)) => out.values[id] = Some(value),
            (Kind::SystemPrompt, Given::Text(t)) => out.system_prompt = Some(t),
            (Kind::CaseCount, Given::Number(n)) => out.case_count = Some(n),
            (Kind::GlobalCriticalFailures, Given::Texts(ts)) => out.global_critical_failures = ts,
            (Kind::Revisions, Given::Revisions(rs)) => out.revision_notes = rs,
            (Kind::Reports, Given::Reports(rs)) => out.reports = rs,
            (Kind::ResultTemplate, Given::Data(d)) => out.result_template = Some(d),
            (Kind::Outcomes, Given::Names(ns)) => out.outcome_names = Some(ns),
            _ => {}
        }
    }
    check_outcome_names(&out, shape, diags);
    check_reports(&out, shape, diags);
    (diags.len() == before).then_some(out)
}

/// The suite's outcome names rename the grading's verdicts one for one.
fn check_outcome_names(header: &SuiteHeader, shape: &Shape, diags: &mut Vec<Diagnostic>) {
    let Some(names) = &header.outcome_names else {
        return;
    };
    let verdicts: Vec<&str> = shape
        .grading
        .outcomes
        .iter()
        .map(|o| o.verdict.as_str())
        .collect();
    let repeated = names
        .iter()
        .enumerate()
        .find(|(i, n)| names[..*i].iter().any(|m| m.as_str() == n.as_str()));
    if names.len() != verdicts.len() {
        let at = names
            .first()
            .map_or(header.span, |n| n.span)
            .to(names.last().map_or(header.span, |n| n.span));
        diags.push(
            Diagnostic::new(
                codes::BAD_ARGUMENTS,
                format!(
                    "the suite names {} outcomes; its shape has {}",
                    names.len(),
                    verdicts.len()
                ),
            )
            .primary(
                at,
                format!("expected one name for each of: {}", verdicts.join(", ")),
            )
            .help(format!(
                "write one outcome name per verdict, in this order: {}",
                verdicts.join(", ")
            )),
        );
    } else if let Some((_, name)) = repeated {
        diags.push(
            Diagnostic::new(
                codes::BAD_ARGUMENTS,
                format!("outcome `{}` is named twice", name.as_str()),
            )
            .primary(name.span, "a verdict needs a name of its own")
            .help("give each verdict a different name"),
        );
    }
}

/// Report lines name dimensions of the grading and tags of the vocabulary.
fn check_reports(header: &SuiteHeader, shape: &Shape, diags: &mut Vec<Diagnostic>) {
    for line in &header.reports {
        match &line.aggregation {
            Some(Aggregation::Checks(d)) if shape.grading.dimension(d.as_str()).is_none() => {
                let names = shape.grading.dimensions.iter().map(|d| d.name.as_str());
                diags.push(unknown_name(
                    d,
                    codes::UNKNOWN_DIMENSION,
                    "dimension",
                    names,
                ));
            }
            Some(Aggregation::OutcomesTagged(t))
                if !header.tags.iter().any(|v| v.as_str() == t.as_str()) =>
            {
                diags.push(unknown_name(
                    t,
                    codes::UNKNOWN_TAG,
                    "tag",
                    header.tags.iter().map(|t| t.as_str()),
                ));
            }
            _ => {}
        }
    }
}

fn unknown_name<'a>(
    name: &Name,
    code: &'static Code,
    what: &str,
    known: impl Iterator<Item = &'a str> + Clone,
) -> Diagnostic {
    let d = Diagnostic::new(code, format!("unknown {what} `{}`", name.as_str()))
        .primary(name.span, format!("not a {what} of this suite"));
    match crate::diag::suggest(name.as_str(), known.clone()) {
        Some(near) => crate::diag::did_you_mean(d, name.span, near),
        None => d.help(format!(
            "declared: {}",
            known.collect::<Vec<_>>().join(", ")
        )),
    }
}

pub fn category(
    statement: &Statement,
    shape: &Shape,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Category, Layer)> {
    let usage = "category NAME COUNT { background \"…\" … }";
    let header = values::args_with_block(
        statement,
        &[ValueType::Ident, ValueType::Number],
        usage,
        diags,
    )?;
    let name = values::name_of(&header[0]);
    let count = values::parse_number(&header[1], statement, usage, diags)?;
    let statements = body(statement);
    let specs = defaults::layer_keys(shape);
    keys::check_keys(
        statements,
        &[&specs],
        &format!("category `{}`", name.as_str()),
        name.span,
        diags,
    );
    let layer = defaults::read_layer(&fields::Keyed::new(statements), shape, diags);
    Some((Category { name, count }, layer))
}
