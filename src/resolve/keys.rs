//! Which statements each kind of block accepts.
//!
//! The tables here are the single description of the language's keys: the resolver
//! validates blocks against them (unknown, duplicate and missing keys), and the
//! language server and docs can list them.

use crate::diag::{codes, did_you_mean, suggest, Diagnostic};
use crate::source::Span;
use crate::syntax::ast::{Block, Statement};

#[derive(Clone, Copy, Debug)]
pub struct KeySpec {
    pub key: &'static str,
    pub required: bool,
    pub repeated: bool,
    pub doc: &'static str,
}

const fn one(key: &'static str, doc: &'static str) -> KeySpec {
    KeySpec {
        key,
        required: true,
        repeated: false,
        doc,
    }
}

const fn optional(key: &'static str, doc: &'static str) -> KeySpec {
    KeySpec {
        key,
        required: false,
        repeated: false,
        doc,
    }
}

const fn many(key: &'static str, doc: &'static str) -> KeySpec {
    KeySpec {
        key,
        required: false,
        repeated: true,
        doc,
    }
}

/// Statements allowed at the top of a file.
pub const TOP_LEVEL: &[KeySpec] = &[
    many(
        "suite",
        "The suite: benchmark metadata and suite-wide defaults (suite.case only).",
    ),
    many(
        "tool",
        "A tool contract offered to the model (suite.case only).",
    ),
    many(
        "category",
        "A case category with its declared case count and defaults (suite.case only).",
    ),
    many("profile", "A named set of case defaults."),
    many("case", "One benchmark case."),
    many(
        "schema",
        "`schema NAME { collection … }`: a world schema (typed sandbox collections).",
    ),
];

/// Defaults any profile, category, suite or case may set.
pub const PROFILE_FIELDS: &[KeySpec] = &[
    optional(
        "clock",
        "Case current time, RFC 3339 with offset (model_input.current_time).",
    ),
    optional(
        "timezone",
        "IANA timezone of the case clock (model_input.timezone).",
    ),
    optional(
        "background",
        "Person background and past history (model_input).",
    ),
    optional(
        "preferences",
        "Common patterns and preferences (model_input).",
    ),
    optional(
        "permissions",
        "What the assistant may do (model_input.permissions).",
    ),
    optional(
        "tools",
        "Tools the case makes available, in order (model_input.available_tools).",
    ),
    optional(
        "record_access",
        "How records can be reached (model_input.record_access).",
    ),
    optional(
        "tool_behavior",
        "Default tool behaviour for the harness (harness_only.default_tool_behavior).",
    ),
    optional(
        "unscripted_reply",
        "The user's reply to unscripted questions (harness_only.unscripted_user_reply).",
    ),
    optional(
        "ground_truth_policy",
        "Hidden ground truth policy (harness_only.hidden_ground_truth_policy).",
    ),
    optional(
        "pass_rule",
        "The case pass rule (evaluator_only.pass_rule).",
    ),
    optional(
        "communication",
        "Requirement of the default communication check C1.",
    ),
    many(
        "evidence",
        "`evidence DIMENSION \"text\"`: default evidence for checks of a dimension.",
    ),
    many(
        "profile",
        "Apply a named profile (later statements and the block's own fields win).",
    ),
];

pub const SUITE: &[KeySpec] = &[
    one("version", "Benchmark version."),
    one("created_on", "Creation date."),
    one("language", "Language tag of the cases."),
    one("purpose", "What the benchmark evaluates."),
    one("case_count", "Declared number of cases."),
    one("data_status", "Provenance of the data."),
    many(
        "instruction",
        "One use instruction (use_instructions), in order.",
    ),
    one(
        "system_instruction",
        "The assistant system instruction given to the model.",
    ),
    many("critical", "One global critical failure, in order."),
    one("scoring", "Scoring rules block."),
    one("design_reference", "Free-form design reference data block."),
    many(
        "revision",
        "`revision CASE-ID \"change\"`: one revision note, in order.",
    ),
    optional("tags", "The tag vocabulary cases may use."),
    optional(
        "order",
        "Explicit case order (default: case ids in natural order).",
    ),
    optional(
        "world_schema",
        "The world schema case worlds follow, e.g. std.everyday_world.",
    ),
];

pub const SCORING: &[KeySpec] = &[
    one("outcomes", "Possible case outcomes (case_outcomes)."),
    one("official_complete_run", "When a run counts as complete."),
    one(
        "overall_pass_rate",
        "How the overall pass rate is computed.",
    ),
    one(
        "incomplete_run_reporting",
        "How incomplete runs are reported.",
    ),
    one(
        "category_pass_rate",
        "How category pass rates are computed.",
    ),
    many("report", "One required reporting item, in order."),
    one("human_review", "Where human review applies."),
    one(
        "result_template",
        "Free-form result record template data block.",
    ),
];

pub const CASE: &[KeySpec] = &[
    one("category", "The case category."),
    optional("tags", "Tags from the suite's vocabulary."),
    one(
        "user",
        "The user's message (model_input.current_situation).",
    ),
    optional(
        "conversation",
        "Explicit conversation turns (default: the user message).",
    ),
    one(
        "facts",
        "Fixture facts, the readable world of the case (harness_only).",
    ),
    many(
        "override",
        "`override TOOL \"match\" { … }`: a tool behaviour override.",
    ),
    many("followup", "Scripted follow-up: `asked` and `reply`."),
    one(
        "need",
        "Expected need; also check R1 unless checks have explicit ids.",
    ),
    many(
        "check",
        "A required check: `check \"text\"` (A1, A2, …) or `check ID \"text\"`.",
    ),
    one(
        "final",
        "Expected final state; also check S1 unless checks have explicit ids.",
    ),
    many("critical", "A case critical failure, in order."),
    many("allow", "Allow a warning code for this case."),
    optional(
        "world",
        "`world { COLLECTION ID { field value } }`: the records the sandbox loads.",
    ),
    many(
        "expect",
        "`expect CHECK… { assertion… }`: assertions that decide these checks.",
    ),
    many(
        "forbid",
        "`forbid F1… { assertion… }`: when a critical failure is committed.",
    ),
    many(
        "review",
        "`review ID… [\"why\"]`: checks or critical failures a reader judges.",
    ),
];

pub const OVERRIDE: &[KeySpec] = &[
    one("result", "What the matched call returns."),
    optional("side_effect", "What the matched call writes."),
    optional("verify", "What a later verification or lookup returns."),
    optional(
        "when",
        "Machine part: `when { argument value }`, the calls it intercepts.",
    ),
    optional(
        "after",
        "Machine part: how many matching calls pass before it intercepts (default: none).",
    ),
    optional(
        "times",
        "Machine part: how many matching calls it intercepts (default: all).",
    ),
    optional(
        "error",
        "Machine part: `error CODE { field value }`, what the call returns.",
    ),
    optional(
        "returns",
        "Machine part: `returns { field value }`, success data the call returns instead.",
    ),
    optional(
        "request",
        "Machine part: the request id the intercepted call reports.",
    ),
    optional(
        "commits",
        "Machine part: the intercepted write is applied anyway.",
    ),
];

pub const FOLLOWUP: &[KeySpec] = &[
    one(
        "asked",
        "The clarification that triggers the scripted reply.",
    ),
    one("reply", "The scripted reply, returned verbatim."),
];

pub const CHECK: &[KeySpec] = &[
    optional(
        "dimension",
        "The check's dimension (default: from its id letter).",
    ),
    optional(
        "evidence",
        "The check's evidence (default: the dimension's evidence).",
    ),
];

/// The key tables of the block opened by the statements `path` (their keys, outermost
/// first; empty for the top of a file): what the resolver checks that block against.
/// `None` for a free-form data block, or a block the language does not have. Tools
/// that follow the cursor (the language server's completion and hover) read it here.
pub fn block_specs(path: &[&str]) -> Option<&'static [&'static [KeySpec]]> {
    match path {
        [] => Some(&[TOP_LEVEL]),
        ["suite"] => Some(&[SUITE, PROFILE_FIELDS]),
        ["suite", "scoring"] => Some(&[SCORING]),
        ["tool"] | ["schema", "tool"] => Some(&[super::tools::TOOL_KEYS]),
        ["category"] | ["profile"] => Some(&[PROFILE_FIELDS]),
        ["case"] => Some(&[CASE, PROFILE_FIELDS]),
        ["case", "override"] => Some(&[OVERRIDE]),
        ["case", "followup"] => Some(&[FOLLOWUP]),
        ["case", "check"] => Some(&[CHECK]),
        _ => None,
    }
}

/// Validates the statements of a block against `specs`: reports unknown keys (with the
/// nearest known key), repeated keys that may appear once, and missing required keys
/// (at `owner`, the statement that opened the block).
pub fn check_keys(
    statements: &[Statement],
    specs: &[&[KeySpec]],
    context: &str,
    owner: Span,
    diags: &mut Vec<Diagnostic>,
) {
    let find = |key: &str| specs.iter().flat_map(|s| s.iter()).find(|s| s.key == key);
    let mut seen: Vec<(&str, Span)> = Vec::new();
    // A misspelt required key is reported once, as unknown with its correction, not
    // again as missing.
    let mut corrected: Vec<&str> = Vec::new();
    for statement in statements {
        let key = statement.name();
        match find(key) {
            None => {
                let (d, near) = unknown_key(statement, specs, context);
                corrected.extend(near);
                diags.push(d);
            }
            Some(spec) if !spec.repeated => {
                if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
                    diags.push(
                        Diagnostic::error(
                            codes::DUPLICATE_FIELD,
                            format!("`{key}` is given twice in {context}"),
                        )
                        .primary(statement.key.span, "given again here")
                        .secondary(*first, "first given here")
                        .help(format!("keep one `{key}` statement")),
                    );
                } else {
                    seen.push((key, statement.key.span));
                }
            }
            Some(_) => {}
        }
    }
    for spec in specs.iter().flat_map(|s| s.iter()).filter(|s| s.required) {
        if !statements.iter().any(|s| s.name() == spec.key) && !corrected.contains(&spec.key) {
            diags.push(
                Diagnostic::error(
                    codes::MISSING_FIELD,
                    format!("{context} has no `{}`", spec.key),
                )
                .primary(owner, format!("`{}` is required here", spec.key))
                .help(format!("add `{}`: {}", spec.key, spec.doc)),
            );
        }
    }
}

/// The diagnostic of an unknown key, and the known key it is probably a misspelling of.
fn unknown_key(
    statement: &Statement,
    specs: &[&[KeySpec]],
    context: &str,
) -> (Diagnostic, Option<&'static str>) {
    let key = statement.name();
    let known = specs.iter().flat_map(|s| s.iter()).map(|s| s.key);
    let d = Diagnostic::error(
        codes::UNKNOWN_FIELD,
        format!("unknown statement `{key}` in {context}"),
    )
    .primary(statement.key.span, "not known here");
    match suggest(key, known) {
        Some(near) => (did_you_mean(d, statement.key.span, near), Some(near)),
        None => {
            let all: Vec<&str> = specs.iter().flat_map(|s| s.iter()).map(|s| s.key).collect();
            (
                d.help(format!("{context} accepts: {}", all.join(", "))),
                None,
            )
        }
    }
}

/// The first statement with `key`.
pub fn first<'a>(block: &'a [Statement], key: &str) -> Option<&'a Statement> {
    block.iter().find(|s| s.name() == key)
}

/// Every statement with `key`, in order.
pub fn all<'a>(block: &'a [Statement], key: &'a str) -> impl Iterator<Item = &'a Statement> + 'a {
    block.iter().filter(move |s| s.name() == key)
}

/// The statements of a statement's block (empty when it has none).
pub fn body(statement: &Statement) -> &[Statement] {
    statement
        .block
        .as_ref()
        .map_or(&[], |b: &Block| &b.statements)
}
