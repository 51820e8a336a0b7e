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
use crate::model::{Case, Text};
use crate::source::{SourceDb, Span};

use super::{critical_id, id_mentions, prose_of, Decided, Sandbox};

/// The world consistency diagnostics of one case (none without a world).
pub fn check_case(case: &Case, db: &SourceDb, diags: &mut Vec<Diagnostic>) {
    let Some(sandbox) = &case.sandbox else {
        return;
    };
    unclassified(case, sandbox, diags);
    unmodelled_records(case, sandbox, db, diags);
    tools_without_records(case, sandbox, diags);
}

fn unclassified(case: &Case, sandbox: &Sandbox, diags: &mut Vec<Diagnostic>) {
    let checks = case
        .checks
        .iter()
        .filter(|c| {
            sandbox.decided(c.id.as_str(), !sandbox.is_own(c.span)) == Decided::Unclassified
        })
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
    let mut d = Diagnostic::error(
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

fn unmodelled_records(case: &Case, sandbox: &Sandbox, db: &SourceDb, diags: &mut Vec<Diagnostic>) {
    let known = sandbox.world.all_ids();
    let requests: Vec<&str> = sandbox
        .machine_override
        .iter()
        .filter_map(|o| o.request.as_ref().map(|r| r.as_str()))
        .collect();
    let mut reported: Vec<&str> = Vec::new();
    for text in prose_of(case) {
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
    let letters = super::records::id_letters(word).unwrap_or_default();
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
    Diagnostic::error(
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

fn tools_without_records(case: &Case, sandbox: &Sandbox, diags: &mut Vec<Diagnostic>) {
    for tool in case.tools.iter().filter(|t| sandbox.is_own(t.span)) {
        let bound: Vec<&str> = sandbox
            .schema
            .collections
            .iter()
            .filter(|c| c.tools.iter().any(|t| t.as_str() == tool.as_str()))
            .map(|c| c.name.as_str())
            .collect();
        // A record the run will create (`new reservations RV1`) is one the tool can
        // work on too: a booking tool books into an empty collection.
        let world = &sandbox.world;
        let has_records = world
            .records
            .iter()
            .map(|r| &r.collection)
            .chain(world.new_ids.iter().map(|(collection, _)| collection))
            .any(|c| bound.contains(&c.as_str()));
        if bound.is_empty() || has_records {
            continue;
        }
        diags.push(
            Diagnostic::warning(
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
