//! Scenario coherence: tags that promise a field of the case, and overrides that need
//! a tool the case offers.
//!
//! A shape's grading may give a tag meaning (`tag multi_turn_clarification followup`:
//! Tujora reports clarification cases by it). Both directions are checked: a tagged
//! case must have the field, and a case with the field must be tagged — the latter
//! only when the suite's tag vocabulary has the tag at all, since a suite without it
//! cannot write it.
//!
//! An override is meaningless unless its tool is among the case's `tools`: the harness
//! would never see the call it matches.
//!
//! Guarantee: per case, work proportional to its tags and tools.

use crate::diag::{codes, Diagnostic};
use crate::model::shape::{FieldDecl, Kind};
use crate::model::{Case, Name, Suite};
use crate::source::Span;

/// Where the case sets a field, when it does.
fn field_span(case: &Case, id: usize, field: &FieldDecl) -> Option<Span> {
    match field.kind {
        Kind::Override => case.overrides.first().map(|o| o.span),
        Kind::Followup => case.followups.first().map(|f| f.span),
        Kind::CriticalFailures => case.critical_failures.first().map(|t| t.span),
        Kind::Checks => case
            .checks
            .iter()
            .find(|c| c.source == Some(id))
            .map(|c| c.span),
        Kind::UserMessage => case.user.as_ref().map(|t| t.span),
        _ => case
            .value(id)
            .and_then(|v| v.texts().first().map(|t| t.span)),
    }
}

pub fn check_tags(case: &Case, suite: &Suite, out: &mut Vec<Diagnostic>) {
    for feature in &suite.shape.grading.feature_tags {
        let tag = feature.tag.as_str();
        let field = &suite.shape.case_fields[feature.field];
        let key = field.key.as_str();
        let written = case.tags.iter().find(|t| t.as_str() == tag);
        match (written, field_span(case, feature.field, field)) {
            (Some(written), None) => out.push(
                Diagnostic::new(
                    codes::TAG_MISMATCH,
                    format!(
                        "case {} is tagged `{tag}` but sets no `{key}`",
                        case.id.as_str()
                    ),
                )
                .primary(written.span, format!("this tag promises `{key}`"))
                .help(format!(
                    "add `{}` to the case, or remove the tag",
                    field.example()
                )),
            ),
            (None, Some(at)) if suite.tags.iter().any(|t| t.as_str() == tag) => {
                let d = Diagnostic::new(
                    codes::TAG_MISMATCH,
                    format!(
                        "case {} sets `{key}` but is not tagged `{tag}`",
                        case.id.as_str()
                    ),
                )
                .primary(at, format!("`{key}` without the `{tag}` tag"));
                out.push(match case.tags.last() {
                    Some(last) => d
                        .secondary(last.span, "the case's tags")
                        .help(format!("add `{tag}` to the case's `tags`")),
                    None => d.help(format!("add `tags {tag}` to the case")),
                });
            }
            _ => {}
        }
    }
}

pub fn check_override_tool(case: &Case, out: &mut Vec<Diagnostic>) {
    for o in &case.overrides {
        check_one_override(case, o, out);
    }
}

fn check_one_override(case: &Case, o: &crate::model::ToolOverride, out: &mut Vec<Diagnostic>) {
    if case.tools.iter().any(|t| t.as_str() == o.tool.as_str()) {
        return;
    }
    let offered: Vec<&str> = case.tools.iter().map(Name::as_str).collect();
    let d = Diagnostic::new(
        codes::OVERRIDE_TOOL_UNAVAILABLE,
        format!(
            "case {} overrides `{}`, which it does not make available",
            case.id.as_str(),
            o.tool.as_str()
        ),
    )
    .primary(o.tool.span, "not among the case's tools");
    let d = match tools_span(&case.tools) {
        Some(span) => d.secondary(span, "the tools this case makes available"),
        None => d,
    };
    out.push(d.help(format!(
        "add `{}` to the case's `tools` ({}), or override one of them",
        o.tool.as_str(),
        if offered.is_empty() {
            "now empty".to_string()
        } else {
            format!("now: {}", offered.join(" "))
        }
    )));
}

/// The span from the first to the last tool name, when they were written together.
fn tools_span(tools: &[Name]) -> Option<Span> {
    let (first, last) = (tools.first()?, tools.last()?);
    (first.span.file == last.span.file).then(|| first.span.to(last.span))
}
