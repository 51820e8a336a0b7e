//! Checks between a case's world and the rest of the case, run once the suite has
//! resolved (they need every check, the prose and its source text):
//!
//! * every check and critical failure of a modelled case is decided by an assertion,
//!   marked for review, or both (`unclassified_check`);
//! * every record id the prose names is in the world (`unmodelled_record`);
//! * a tool the case itself chooses to offer has something to work on
//!   (`tool_without_records`, a warning a case may allow).
//!
//! They run per case from the check phase, so a case's `allow` applies to them as to
//! every other warning of the case.

use crate::diag::{codes, Diagnostic};
use crate::model::{Case, Suite, Text};
use crate::source::{SourceDb, Span};

use crate::model::expect::{critical_id, Decided, Sandbox};
use crate::model::texts::Labelled;
use crate::resolve::world::id_mentions;

/// The world consistency diagnostics of one case (none without a world).
pub fn check_case(
    case: &Case,
    suite: &Suite,
    texts: &[Labelled],
    db: &SourceDb,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(sandbox) = &case.sandbox else {
        return;
    };
    unclassified(case, sandbox, diags);
    unmodelled_records(texts, sandbox, db, diags);
    tools_without_records(case, suite, sandbox, diags);
}

fn unclassified(case: &Case, sandbox: &Sandbox, diags: &mut Vec<Diagnostic>) {
    let checks = case
        .checks
        .iter()
        .filter(|c| sandbox.decided(c.id.as_str(), c.inherited) == Decided::Unclassified)
        .map(|c| (c.id.as_str().to_string(), c.span));
    let criticals = case
        .critical_failures
        .iter()
        .enumerate()
        .map(|(i, text)| (critical_id(i), text.span))
        .filter(|(id, _)| sandbox.decided(id, false) == Decided::Unclassified);
    let open: Vec<(String, Span)> = checks.chain(criticals).collect();
    let Some((first, rest)) = open.split_first() else {
        return;
    };
    let ids: Vec<&str> = open.iter().map(|(id, _)| id.as_str()).collect();
    let mut d = Diagnostic::new(
        codes::UNCLASSIFIED_CHECK,
        format!(
            "case {} leaves {} undecided",
            case.id.as_str(),
            ids.join(", ")
        ),
    )
    .primary(
        first.1,
        format!("{}: no `expect`/`forbid` and no `review`", first.0),
    );
    for (id, span) in rest {
        d = d.secondary(*span, id.clone());
    }
    diags.push(d.help(
        "decide each with `expect ID { … }` (a check) or `forbid ID { … }` (a critical failure) when the state or trace can, with `review ID` when only a reader can, or with both",
    ));
}

/// Record ids the hidden prose the case writes (its facts, checks, override, …) names.
fn unmodelled_records(
    texts: &[Labelled],
    sandbox: &Sandbox,
    db: &SourceDb,
    diags: &mut Vec<Diagnostic>,
) {
    let known = sandbox.world.all_ids();
    let requests: Vec<&str> = sandbox
        .overrides
        .iter()
        .filter_map(|o| o.request.as_ref().map(|r| r.as_str()))
        .collect();
    let mut reported: Vec<&str> = Vec::new();
    let prose = texts
        .iter()
        .filter(|t| t.visibility.hidden() && t.prose && sandbox.is_own(t.text.span));
    for text in prose.map(|t| t.text.as_ref()) {
        for (_, word) in id_mentions(text.as_str(), &sandbox.schema) {
            if known.contains_key(word) || requests.contains(&word) || reported.contains(&word) {
                continue;
            }
            reported.push(word);
            diags.push(unmodelled(word, text, sandbox, db));
        }
    }
}

fn unmodelled(word: &str, text: &Text, sandbox: &Sandbox, db: &SourceDb) -> Diagnostic {
    let letters = crate::model::world::id_letters(word).unwrap_or_default();
    let help = if sandbox.schema.is_request_prefix(letters) {
        format!("a request id: give the override that issues it `request {word}`")
    } else {
        let collections: Vec<&str> = sandbox
            .schema
            .collections_with_prefix(letters)
            .map(|c| c.name.as_str())
            .collect();
        format!(
            "add `{0} {word} {{ … }}` to the world, or `new {0} {word}` if the run creates it",
            collections.join("|")
        )
    };
    Diagnostic::new(
        codes::UNMODELLED_RECORD,
        format!("the prose names `{word}`, which the world does not hold"),
    )
    .primary(word_span(word, text, db), "named here")
    .help(help)
}

/// The span of `word` as a whole word inside the written text, or the whole text when
/// escapes or folding hide it.
fn word_span(word: &str, text: &Text, db: &SourceDb) -> Span {
    let source = db.slice(text.span);
    let is_word_char = |c: char| c.is_ascii_alphanumeric();
    let found = source.match_indices(word).find(|(i, _)| {
        let before = source[..*i]
            .chars()
            .next_back()
            .is_none_or(|c| !is_word_char(c));
        let after = source[i + word.len()..]
            .chars()
            .next()
            .is_none_or(|c| !is_word_char(c));
        before && after
    });
    match found {
        Some((i, _)) => Span {
            file: text.span.file,
            start: text.span.start + i as u32,
            end: text.span.start + (i + word.len()) as u32,
        },
        None => text.span,
    }
}

fn tools_without_records(
    case: &Case,
    suite: &Suite,
    sandbox: &Sandbox,
    diags: &mut Vec<Diagnostic>,
) {
    for tool in case.tools.iter().filter(|t| sandbox.is_own(t.span)) {
        let Some(declared) = suite
            .tools
            .iter()
            .find(|t| t.name.as_str() == tool.as_str())
        else {
            continue;
        };
        let bound = declared.worked_collections();
        // Records the run creates count: a booking tool with `new bookings B1` has work.
        let has_records = sandbox
            .world
            .records
            .iter()
            .map(|r| &r.collection)
            .chain(sandbox.world.new_ids.iter().map(|(c, _)| c))
            .any(|c| bound.contains(&c.as_str()));
        if bound.is_empty() || has_records {
            continue;
        }
        diags.push(
            Diagnostic::new(
                codes::TOOL_WITHOUT_RECORDS,
                format!("case {} offers `{}` but its world has no {}", case.id.as_str(), tool.as_str(), bound.join(" or ")),
            )
            .primary(tool.span, format!("`{}` works only on {}", tool.as_str(), bound.join(" and ")))
            .help(format!(
                "add the records the prose implies, or, if offering the tool with nothing to find is the point, write `allow {}` with a comment saying why",
                codes::TOOL_WITHOUT_RECORDS
            )),
        );
    }
}
