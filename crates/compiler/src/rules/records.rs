//! Record identifiers: every record the answer key names must exist in the case's
//! world.
//!
//! Tujora's revision notes fix cases whose fixtures could not support the expected
//! answer. The mechanical part of that defect is a record id — `M1`, `L2`, `B1`, `Q1`:
//! one to three capital letters and one to four digits — named in the answer key (the
//! case's evaluator texts: its need, checks, final state) but in none of the texts the
//! harness holds (its facts, override, follow-up), so the model can never retrieve it.
//!
//! In a case with a typed world, only ids whose letters are a collection's id prefix (or
//! the schema's request prefix) are records: the world schema says what records are.
//! A record of the world (or a new id it declares) is supported whatever the texts say:
//! the model finds it through the tools.
//!
//! Check ids share that shape (`R1`, `A2`, `S1`, `C1`), and so do records: Tujora has
//! a reminder R1, an appointment A1 and a conversation C1. An id is therefore read as
//! a record unless the word just before it is `check` or `checks` ("after check A1
//! passes"), which is how prose refers to another check. Capitalised words with digits
//! that are not records (a vitamin B12) are rare; they can be allowed per case.
//!
//! Guarantee: a warning, allowable per case, reported once per unknown id (further
//! mentions are secondary labels). Linear in the words of the case's texts; the world's
//! texts are only read when the answer key names an id at all.

use std::collections::{BTreeSet, HashMap};

use crate::diag::{codes, Diagnostic};
use crate::model::texts::Labelled;
use crate::model::{Case, Text};
use crate::source::{SourceDb, Span};

use super::words::{words, Word};

/// Checks the answer-key texts written in `case` against its `fixtures` (the texts the
/// harness holds, written in the case or inherited).
pub fn check(
    case: &Case,
    answer_texts: &[&Text],
    fixtures: &[&Labelled],
    db: &SourceDb,
    out: &mut Vec<Diagnostic>,
) {
    // A world that did not resolve (its schema or records have errors) would report
    // every record it holds as missing: the errors that say why are enough.
    if case.writes_world && case.sandbox.is_none() {
        return;
    }
    let mut named = named_ids(answer_texts, db);
    // With a typed world, a record id starts with the letters of one of its schema's
    // collections (or its request ids): `Q1`, the first quarter, is no record there.
    // A record of the world (or one the run will create) is there for the model to
    // find through the tools, whatever the harness's texts say.
    if let Some(sandbox) = &case.sandbox {
        let schema = &sandbox.schema;
        named.retain(|(id, _)| {
            let letters = id.trim_end_matches(|c: char| c.is_ascii_digit());
            schema.collections_with_prefix(letters).next().is_some()
                || schema.is_request_prefix(letters)
        });
        if !named.is_empty() {
            let in_world = sandbox.world.all_ids();
            named.retain(|(id, _)| !in_world.contains_key(id));
        }
    }
    if named.is_empty() {
        return;
    }
    let known = known_ids(fixtures, db);
    for (id, spans) in named {
        if !known.contains(&id) {
            out.push(report(case, &id, &spans, &known, fixtures));
        }
    }
}

/// The ids the answer-key texts name, in order of first mention, with every mention.
fn named_ids(answer_texts: &[&Text], db: &SourceDb) -> Vec<(String, Vec<Span>)> {
    let mut named: Vec<(String, Vec<Span>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for text in answer_texts {
        // Most requirements name no record at all: skip them without splitting. An id
        // has a capital right before a digit, as its text does, escapes decoded.
        let may_name_an_id = text
            .as_str()
            .as_bytes()
            .windows(2)
            .any(|pair| pair[0].is_ascii_uppercase() && pair[1].is_ascii_digit());
        if !may_name_an_id {
            continue;
        }
        let words = words(db, text);
        for (i, word) in words.iter().enumerate() {
            if i > 0 && matches!(words[i - 1].normalized().as_ref(), "check" | "checks") {
                continue;
            }
            for (id, span) in ids_in(word) {
                match index.get(id) {
                    Some(&k) => named[k].1.push(span),
                    None => {
                        index.insert(id.to_string(), named.len());
                        named.push((id.to_string(), vec![span]));
                    }
                }
            }
        }
    }
    named
}

fn report(
    case: &Case,
    id: &str,
    spans: &[Span],
    known: &BTreeSet<String>,
    fixtures: &[&Labelled],
) -> Diagnostic {
    let mut fields: Vec<&str> = Vec::new();
    for f in fixtures {
        if !fields.contains(&f.field) {
            fields.push(f.field);
        }
    }
    let fields = if fields.is_empty() {
        "fixtures".to_string()
    } else {
        fields
            .iter()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut d = Diagnostic::new(
        codes::UNSUPPORTED_RECORD,
        format!(
            "case {} names record `{id}`, which its {fields} never mention",
            case.id.as_str()
        ),
    )
    .primary(spans[0], "no such record in this case's world");
    for span in &spans[1..] {
        d = d.secondary(*span, "named again here");
    }
    let named = if known.is_empty() {
        "they name no records".to_string()
    } else {
        format!(
            "they name {}",
            known
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let first = fixtures.first();
    if let Some(first) = first {
        d = d.secondary(first.text.span, format!("the case's `{}`", first.field));
    }
    let field = first.map_or("fixtures", |f| f.field);
    d.help(format!(
        "add `{id}` to the `{field}` so the model can retrieve it, or fix the id ({named}); if `{id}` is not a record, add `allow {}` to the case",
        codes::UNSUPPORTED_RECORD
    ))
}

/// Ids named in the texts that make up the case's world.
fn known_ids(fixtures: &[&Labelled], db: &SourceDb) -> BTreeSet<String> {
    let mut known = BTreeSet::new();
    for labelled in fixtures {
        for word in words(db, &labelled.text) {
            known.extend(ids_in(&word).map(|(id, _)| id.to_string()));
        }
    }
    known
}

/// The record-like ids in a word (`M1/M2` holds two), with their spans.
fn ids_in<'w>(word: &'w Word) -> impl Iterator<Item = (&'w str, Span)> {
    alphanumeric_runs(&word.text)
        .filter(|(_, run)| is_record_id(run))
        .map(move |(start, run)| (run, word.part(start..start + run.len())))
}

/// The runs of alphanumeric characters of `s` with their byte offsets, read lazily:
/// every word of a case's prose is split here.
fn alphanumeric_runs(s: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut chars = s.char_indices().peekable();
    std::iter::from_fn(move || {
        let (from, _) = chars.find(|(_, c)| c.is_alphanumeric())?;
        let mut to = s.len();
        while let Some(&(i, c)) = chars.peek() {
            if !c.is_alphanumeric() {
                to = i;
                break;
            }
            chars.next();
        }
        Some((from, &s[from..to]))
    })
}

/// One to three capital letters, then one to four digits.
fn is_record_id(run: &str) -> bool {
    let letters = run.bytes().take_while(u8::is_ascii_uppercase).count();
    let digits = run.len() - letters;
    (1..=3).contains(&letters)
        && (1..=4).contains(&digits)
        && run.bytes().skip(letters).all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_ids_are_capitals_then_digits() {
        for id in ["M1", "L12", "BQ1", "ABC1234"] {
            assert!(is_record_id(id), "{id}");
        }
        for word in ["m1", "M", "12", "ABCD1", "M12345", "M1a", "TUJ", "Mé1"] {
            assert!(!is_record_id(word), "{word}");
        }
    }

    #[test]
    fn runs_split_at_punctuation() {
        let runs: Vec<&str> = alphanumeric_runs("(M1/M2's)").map(|(_, r)| r).collect();
        assert_eq!(runs, ["M1", "M2", "s"]);
    }
}
