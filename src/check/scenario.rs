//! Scenario coherence: tags that promise a feature of the case, and overrides that
//! need a tool the case offers.
//!
//! Some tags carry meaning for scoring: Tujora reports "Tool failures handled
//! correctly" and "Clarification cases completed correctly" by tag. [`FEATURE_TAGS`]
//! ties each such tag to the case feature it stands for, and both directions are
//! checked: a tagged case must have the feature, and a case with the feature must be
//! tagged — the latter only when the suite's tag vocabulary has the tag at all, since a
//! suite without it cannot write it.
//!
//! An override is meaningless unless its tool is among the case's `tools`: the harness
//! would never see the call it matches.
//!
//! Guarantee: per case, work proportional to its tags and tools.

use crate::diag::{codes, Diagnostic};
use crate::model::{Case, Name, Suite};
use crate::source::Span;

/// A case feature a tag can stand for.
#[derive(Clone, Copy, Debug)]
enum Feature {
    Followup,
    Override,
}

impl Feature {
    fn span(self, case: &Case) -> Option<Span> {
        match self {
            Feature::Followup => case.followups.first().map(|f| f.span),
            Feature::Override => case.overrides.first().map(|o| o.span),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Feature::Followup => "scripted follow-up",
            Feature::Override => "tool override",
        }
    }

    fn example(self) -> &'static str {
        match self {
            Feature::Followup => "followup { asked \"…\"; reply \"…\" }",
            Feature::Override => "override TOOL \"match\" { result \"…\" }",
        }
    }
}

/// Tags whose meaning the language knows, with the feature each one promises.
const FEATURE_TAGS: &[(&str, Feature)] = &[
    ("multi_turn_clarification", Feature::Followup),
    ("tool_failure_or_ambiguous_result", Feature::Override),
];

pub fn check_tags(case: &Case, suite: &Suite, out: &mut Vec<Diagnostic>) {
    for &(tag, feature) in FEATURE_TAGS {
        let written = case.tags.iter().find(|t| t.as_str() == tag);
        match (written, feature.span(case)) {
            (Some(written), None) => out.push(
                Diagnostic::error(
                    codes::TAG_MISMATCH,
                    format!(
                        "case {} is tagged `{tag}` but has no {}",
                        case.id.as_str(),
                        feature.describe()
                    ),
                )
                .primary(
                    written.span,
                    format!("this tag promises a {}", feature.describe()),
                )
                .help(format!(
                    "add `{}` to the case, or remove the tag",
                    feature.example()
                )),
            ),
            (None, Some(at)) if suite.tags.iter().any(|t| t.as_str() == tag) => {
                let d = Diagnostic::error(
                    codes::TAG_MISMATCH,
                    format!(
                        "case {} has a {} but is not tagged `{tag}`",
                        case.id.as_str(),
                        feature.describe()
                    ),
                )
                .primary(
                    at,
                    format!("a {} without the `{tag}` tag", feature.describe()),
                );
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
    let d = Diagnostic::error(
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
