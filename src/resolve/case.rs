//! One case block: its own statements over the defaults it inherits.
//!
//! Checks come in two modes. Without explicit ids, `need` is R1, each `check` is the
//! next A check, `final` is S1 and the inherited `communication` text is C1. As soon as
//! one `check` carries an id, the case lists every check itself, in order.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use crate::diag::{codes, did_you_mean, suggest, Diagnostic};
use crate::model::{self, Case, Check, Followup, Name, Text, ToolOverride, Turn};
use crate::source::Span;
use crate::syntax::ast::{Statement, ValueKind};

use super::defaults::{read_layer, Defaults, Profiles, TextField};
use super::schema::{self, all, body, first};
use super::values::{self, Kind};

/// What a case is resolved against.
pub struct Context<'a> {
    /// The suite's defaults, for a case whose category is missing or unknown.
    pub suite: &'a Defaults,
    pub categories: &'a [(Name, Defaults)],
    pub tags: &'a [Name],
    pub tools: &'a [Name],
}

pub fn header(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<(Name, Text, Span)> {
    let v = values::args_with_block(
        statement,
        &[Kind::Ident, Kind::Str],
        "case ID \"Title\" { … }",
        diags,
    )?;
    let span = statement.key.span.to(v[1].span);
    Some((values::text_of(&v[0]), values::text_of(&v[1]), span))
}

pub fn case(
    statement: &Statement,
    cx: &Context,
    profiles: &Profiles,
    diags: &mut Vec<Diagnostic>,
) -> Option<Case> {
    let (id, title, span) = header(statement, diags)?;
    let statements = body(statement);
    let context = format!("case {}", id.as_str());
    schema::check_keys(
        statements,
        &[schema::CASE, schema::PROFILE_FIELDS],
        &context,
        span,
        diags,
    );
    let before = diags.len();
    let text = |key: &str, diags: &mut Vec<Diagnostic>| {
        first(statements, key).and_then(|s| values::text(s, diags))
    };

    let category = first(statements, "category").and_then(|s| values::name(s, diags));
    let base = category
        .as_ref()
        .and_then(|c| category_defaults(c, cx, diags));
    // Without a known category, what the case inherits is unknown too: it falls back
    // to the suite's defaults, and fields its category might have set are not reported
    // as missing (they would only repeat the category's error).
    let category_known = base.is_some();
    let mut missing = Vec::new();
    let layer = read_layer(statements, diags);
    let inherited = profiles.apply(base.unwrap_or(cx.suite), &layer, diags);

    let tags = first(statements, "tags")
        .and_then(|s| values::names(s, diags))
        .unwrap_or_default();
    for tag in &tags {
        known(
            tag,
            cx.tags,
            codes::UNKNOWN_TAG,
            "tag",
            "the suite's `tags`",
            diags,
        );
    }
    let user = text("user", diags);
    let conversation = match (first(statements, "conversation"), &user) {
        (Some(s), _) => conversation(s, diags),
        (None, Some(user)) => Some(vec![Turn {
            role: Text::new("user", user.span),
            content: user.clone(),
        }]),
        (None, None) => None,
    };
    let facts = text("facts", diags);
    let tool_override = first(statements, "override").and_then(|s| tool_override(s, diags));
    let followup = first(statements, "followup").and_then(|s| followup(s, diags));
    let need = text("need", diags);
    let final_state = text("final", diags);
    let critical_failures = all(statements, "critical")
        .filter_map(|s| values::text(s, diags))
        .collect();
    let allows = all(statements, "allow")
        .filter_map(|s| values::names(s, diags))
        .flatten()
        .collect();

    let tools = inherited.tools.as_ref().map(|(names, _)| names.clone());
    for tool in tools.iter().flatten() {
        known(
            tool,
            cx.tools,
            codes::UNKNOWN_TOOL,
            "tool",
            "the suite's `tool` declarations",
            diags,
        );
    }
    if let Some(o) = &tool_override {
        known(
            &o.tool,
            cx.tools,
            codes::UNKNOWN_TOOL,
            "tool",
            "the suite's `tool` declarations",
            diags,
        );
    }
    let field =
        |f: TextField, diags: &mut Vec<Diagnostic>| inherited_text(&inherited, f, span, &id, diags);
    let clock = field(TextField::Clock, &mut missing);
    let timezone = field(TextField::Timezone, &mut missing);
    let background = field(TextField::Background, &mut missing);
    let preferences = field(TextField::Preferences, &mut missing);
    let permissions = field(TextField::Permissions, &mut missing);
    let record_access = field(TextField::RecordAccess, &mut missing);
    let tool_behavior = field(TextField::ToolBehavior, &mut missing);
    let unscripted_reply = field(TextField::UnscriptedReply, &mut missing);
    let ground_truth_policy = field(TextField::GroundTruthPolicy, &mut missing);
    let pass_rule = field(TextField::PassRule, &mut missing);
    if tools.is_none() {
        missing.push(missing_default("tools", span, &id));
    }
    let checks = checks(
        statements,
        &need,
        &final_state,
        &inherited,
        Owner { span, id: &id },
        diags,
        &mut missing,
    );
    if category_known {
        diags.append(&mut missing);
    }
    if diags.len() > before {
        return None;
    }
    Some(Case {
        id,
        title,
        category: category?,
        tags,
        clock: clock?,
        timezone: timezone?,
        background: background?,
        preferences: preferences?,
        user: user?,
        conversation: conversation?,
        permissions: permissions?,
        tools: tools?,
        record_access: record_access?,
        facts: facts?,
        tool_override,
        tool_behavior: tool_behavior?,
        followup,
        unscripted_reply: unscripted_reply?,
        ground_truth_policy: ground_truth_policy?,
        need: need?,
        checks: checks?,
        critical_failures,
        pass_rule: pass_rule?,
        final_state: final_state?,
        allows,
        sandbox: None,
        span,
        extent: statement.span,
    })
}

fn category_defaults<'a>(
    category: &Name,
    cx: &'a Context,
    diags: &mut Vec<Diagnostic>,
) -> Option<&'a Defaults> {
    let found = cx
        .categories
        .iter()
        .find(|(n, _)| n.as_str() == category.as_str());
    if found.is_none() {
        let names: Vec<Name> = cx.categories.iter().map(|(n, _)| n.clone()).collect();
        known(
            category,
            &names,
            codes::UNKNOWN_CATEGORY,
            "category",
            "the suite's `category` declarations",
            diags,
        );
    }
    found.map(|(_, d)| d)
}

fn known(
    name: &Name,
    candidates: &[Name],
    code: &'static str,
    what: &str,
    source: &str,
    diags: &mut Vec<Diagnostic>,
) {
    if candidates.iter().any(|c| c.as_str() == name.as_str()) {
        return;
    }
    let d = Diagnostic::error(code, format!("unknown {what} `{}`", name.as_str()))
        .primary(name.span, format!("not declared in {source}"));
    let d = match suggest(name.as_str(), candidates.iter().map(|c| c.as_str())) {
        Some(near) => did_you_mean(d, name.span, near),
        None => {
            let list: Vec<&str> = candidates.iter().map(|c| c.as_str()).collect();
            d.help(format!(
                "declared: {}",
                if list.is_empty() {
                    "none".to_string()
                } else {
                    list.join(", ")
                }
            ))
        }
    };
    diags.push(d);
}

fn inherited_text(
    defaults: &Defaults,
    field: TextField,
    span: Span,
    id: &Name,
    diags: &mut Vec<Diagnostic>,
) -> Option<Text> {
    let found = defaults.get(field).cloned();
    if found.is_none() {
        diags.push(missing_default(field.key(), span, id));
    }
    found
}

fn missing_default(key: &str, span: Span, id: &Name) -> Diagnostic {
    Diagnostic::error(
        codes::MISSING_FIELD,
        format!("case {} has no `{key}`", id.as_str()),
    )
    .primary(
        span,
        format!("no `{key}` here or in what this case inherits"),
    )
    .help(format!(
        "set `{key}` in the case, its category, a profile it applies, or the suite"
    ))
}

fn conversation(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Vec<Turn>> {
    let block = values::block_only(statement, diags)?;
    let turns: Vec<Turn> = block
        .statements
        .iter()
        .filter_map(|s| {
            values::text(s, diags).map(|content| Turn {
                role: Text::new(s.name(), s.key.span),
                content,
            })
        })
        .collect();
    (turns.len() == block.statements.len()).then_some(turns)
}

fn tool_override(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<ToolOverride> {
    let usage = "override TOOL \"match\" { result \"…\" }";
    let v = values::args_with_block(statement, &[Kind::Ident, Kind::Str], usage, diags)?;
    let span = statement.key.span.to(v[1].span);
    let statements = body(statement);
    schema::check_keys(
        statements,
        &[schema::OVERRIDE],
        "the override block",
        span,
        diags,
    );
    let text = |key: &str, diags: &mut Vec<Diagnostic>| {
        first(statements, key).and_then(|s| values::text(s, diags))
    };
    let result = text("result", diags);
    Some(ToolOverride {
        tool: values::text_of(&v[0]),
        matches: values::text_of(&v[1]),
        result: result?,
        side_effect: text("side_effect", diags),
        verification: text("verify", diags),
        span,
    })
}

fn followup(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Followup> {
    let block = values::block_only(statement, diags)?;
    let statements = &block.statements;
    schema::check_keys(
        statements,
        &[schema::FOLLOWUP],
        "the followup block",
        statement.key.span,
        diags,
    );
    let text = |key: &str, diags: &mut Vec<Diagnostic>| {
        first(statements, key).and_then(|s| values::text(s, diags))
    };
    let when_asked = text("asked", diags);
    let reply = text("reply", diags);
    Some(Followup {
        when_asked: when_asked?,
        reply: reply?,
        span: statement.key.span,
    })
}

/// One `check` statement as written: an optional id, the text, optional overrides.
struct WrittenCheck<'a> {
    id: Option<Name>,
    requirement: Text,
    dimension: Option<Name>,
    evidence: Option<Text>,
    statement: &'a Statement,
}

fn written_check<'a>(
    statement: &'a Statement,
    diags: &mut Vec<Diagnostic>,
) -> Option<WrittenCheck<'a>> {
    let usage =
        "check \"requirement\"` or `check ID \"requirement\" { dimension NAME; evidence \"…\" }";
    let (id, requirement) = match statement.values.as_slice() {
        [v] if matches!(v.kind, ValueKind::Str { .. }) => (None, values::text_of(v)),
        _ => {
            let v = values::args_with_block(statement, &[Kind::Ident, Kind::Str], usage, diags)?;
            (Some(values::text_of(&v[0])), values::text_of(&v[1]))
        }
    };
    let statements = body(statement);
    schema::check_keys(
        statements,
        &[schema::CHECK],
        "a check block",
        statement.key.span,
        diags,
    );
    Some(WrittenCheck {
        id,
        requirement,
        dimension: first(statements, "dimension").and_then(|s| values::name(s, diags)),
        evidence: first(statements, "evidence").and_then(|s| values::text(s, diags)),
        statement,
    })
}

/// The case a set of checks belongs to: its header span and id.
struct Owner<'a> {
    span: Span,
    id: &'a Name,
}

/// The case's checks. Checks that lack an inherited value (evidence, the
/// communication text) are reported into `missing`, everything else into `diags`.
fn checks(
    statements: &[Statement],
    need: &Option<Text>,
    final_state: &Option<Text>,
    inherited: &Defaults,
    owner: Owner,
    diags: &mut Vec<Diagnostic>,
    missing: &mut Vec<Diagnostic>,
) -> Option<Vec<Check>> {
    let Owner { span, id } = owner;
    let before = (diags.len(), missing.len());
    let written: Vec<WrittenCheck> = all(statements, "check")
        .filter_map(|s| written_check(s, diags))
        .collect();
    let explicit = written.iter().any(|c| c.id.is_some());
    // At most R1, the written checks, S1 and C1.
    let mut out = Vec::with_capacity(written.len() + 3);
    let mut failed = false;
    let mut push = |id: Name,
                    dimension: Name,
                    requirement: Text,
                    evidence: Option<Text>,
                    at: Span,
                    diags: &mut Vec<Diagnostic>| {
        match evidence.or_else(|| inherited.evidence(dimension.as_str()).cloned()) {
            Some(evidence) => out.push(Check {
                id,
                dimension,
                requirement,
                evidence,
                span: at,
            }),
            None => diags.push(
                Diagnostic::error(codes::MISSING_FIELD, format!("check {} has no evidence", id.as_str()))
                    .primary(at, format!("no evidence for dimension `{}`", dimension.as_str()))
                    .help(format!(
                        "add `evidence {} \"…\"` to the suite, a profile or the case, or `{{ evidence \"…\" }}` to the check",
                        dimension.as_str()
                    )),
            ),
        }
    };
    if explicit {
        for check in written {
            let at = check.statement.span;
            let Some(cid) = check.id else {
                failed = true;
                diags.push(
                    Diagnostic::error(codes::BAD_ARGUMENTS, "this check has no id while others in the case do")
                        .primary(check.requirement.span, "give this check an id")
                        .help("once one check has an explicit id, every check of the case needs one (e.g. `check A2 \"…\"`)"),
                );
                continue;
            };
            let dimension = match check.dimension {
                Some(d) => d,
                None => match model::dimension_of_id(cid.as_str()) {
                    Some(d) => Text {
                        value: shared_name(d),
                        span: cid.span,
                    },
                    None => {
                        failed = true;
                        diags.push(
                            Diagnostic::error(codes::UNKNOWN_DIMENSION, format!("no dimension for check id `{}`", cid.as_str()))
                                .primary(cid.span, "this id's letter names no dimension")
                                .help("a check id starts with its dimension's letter: R recognition, A execution_and_evidence, S final_state, C communication (e.g. `check A2 \"…\"`)"),
                        );
                        continue;
                    }
                },
            };
            push(
                cid,
                dimension,
                check.requirement,
                check.evidence,
                at,
                missing,
            );
        }
    } else {
        let derived = |letter: &str, n: usize, at: Span| Text {
            value: shared_name(&format!("{letter}{n}")),
            span: at,
        };
        let dim = |i: usize, at: Span| Text {
            value: shared_name(model::DIMENSIONS[i].1),
            span: at,
        };
        let need_statement = first(statements, "need").map_or(span, |s| s.span);
        if let Some(need) = need {
            push(
                derived("R", 1, need_statement),
                dim(0, need_statement),
                need.clone(),
                None,
                need_statement,
                missing,
            );
        }
        for (n, check) in written.into_iter().enumerate() {
            let at = check.statement.span;
            let dimension = check.dimension.unwrap_or_else(|| dim(1, at));
            push(
                derived("A", n + 1, at),
                dimension,
                check.requirement,
                check.evidence,
                at,
                missing,
            );
        }
        let final_statement = first(statements, "final").map_or(span, |s| s.span);
        if let Some(final_state) = final_state {
            push(
                derived("S", 1, final_statement),
                dim(2, final_statement),
                final_state.clone(),
                None,
                final_statement,
                missing,
            );
        }
        match inherited.get(TextField::Communication) {
            Some(text) => push(
                derived("C", 1, text.span),
                dim(3, text.span),
                text.clone(),
                None,
                text.span,
                missing,
            ),
            None => {
                failed = true;
                missing.push(missing_default("communication", span, id));
            }
        }
    }
    (!failed && (diags.len(), missing.len()) == before).then_some(out)
}

/// Check ids and dimension names that cases derive (`R1`, `A3`, `final_state`, …),
/// allocated once: a large suite would otherwise hold a copy of each in every check.
static DERIVED_NAMES: LazyLock<HashMap<String, Arc<str>>> = LazyLock::new(|| {
    let ids = ["R1".to_string(), "S1".to_string(), "C1".to_string()]
        .into_iter()
        .chain((1..=32).map(|n| format!("A{n}")));
    let dimensions = model::DIMENSIONS.iter().map(|(_, d)| d.to_string());
    ids.chain(dimensions)
        .map(|name| {
            let shared = Arc::from(name.as_str());
            (name, shared)
        })
        .collect()
});

fn shared_name(name: &str) -> Arc<str> {
    DERIVED_NAMES
        .get(name)
        .cloned()
        .unwrap_or_else(|| Arc::from(name))
}
