//! The blinding proof: no harness or evaluator text reaches a model bundle.
//!
//! Run on the bundles as built, before any is written. Every hidden text of the suite
//! ([`hidden`]) is cut into matching units ([`words`]: sentences and runs of words,
//! normalized); one Aho-Corasick automaton over all units scans every distinct string
//! of every bundle once. So the proof costs time linear in the hidden text plus the
//! distinct bundle text, however many bundles share the system instruction or a tool
//! contract. A hit becomes a `hidden_text_leak` error pointing at the hidden text that
//! leaked and at the model-facing text that repeats it.

mod hidden;
mod words;

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use aho_corasick::{AhoCorasick, MatchKind};
use serde_json::Value;

use crate::diag::{codes, Diagnostic};
use crate::model::{Suite, Text};

use super::bundle::model_facing_texts;
use hidden::Hidden;
use words::{Normalized, Word};
use words::{MIN_WORDS, RUN_WORDS};

/// The errors that stop the bundles: one per hidden text and model string it leaked
/// into. `bundles[i]` is the bundle of `suite.cases[i]`.
pub fn prove(suite: &Suite, bundles: &[Value]) -> Vec<Diagnostic> {
    let hidden = hidden::hidden_texts(suite);
    let tokenized: Vec<(Vec<Word>, Normalized)> =
        hidden.iter().map(|h| tokenize(h.text.as_str())).collect();
    let units = Units::of(&tokenized);
    let automaton = match AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        .build(&units.patterns)
    {
        Ok(automaton) => automaton,
        Err(e) => return vec![unprovable(suite, &e.to_string())],
    };
    let strings = BundleStrings::of(bundles);
    scan(&automaton, &units, &strings)
        .into_iter()
        .filter_map(|((h, s), ranges)| {
            let (string, cases) = &strings.list[s];
            let leaked = words::longest_merged(ranges)?;
            let found = Found {
                hidden: &hidden[h],
                words: &tokenized[h].0,
                leaked,
            };
            Some(leak(suite, found, string, cases))
        })
        .collect()
}

fn tokenize(text: &str) -> (Vec<Word>, Normalized) {
    let words = words::words(text);
    let normalized = Normalized::new(text, &words);
    (words, normalized)
}

/// Hidden word ranges found in bundle strings, by (hidden text, bundle string), in a
/// fixed order.
fn scan(
    automaton: &AhoCorasick,
    units: &Units,
    strings: &BundleStrings,
) -> BTreeMap<(usize, usize), Vec<Range<usize>>> {
    let mut hits: BTreeMap<(usize, usize), Vec<Range<usize>>> = BTreeMap::new();
    for (s, (string, _)) in strings.list.iter().enumerate() {
        let (_, haystack) = tokenize(string);
        for m in automaton.find_overlapping_iter(haystack.as_str()) {
            for unit in &units.owners[m.pattern().as_usize()] {
                hits.entry((unit.hidden, s))
                    .or_default()
                    .push(unit.words.clone());
            }
        }
    }
    hits
}

/// A matching unit: a word range of one hidden text.
struct Unit {
    hidden: usize,
    words: Range<usize>,
}

/// The automaton's patterns (slices of the normalized hidden texts), each with the
/// units it stands for: one pattern can be a unit of several hidden texts.
struct Units<'n> {
    patterns: Vec<&'n str>,
    owners: Vec<Vec<Unit>>,
}

impl<'n> Units<'n> {
    /// Units of each hidden text, given as its words and normalized form.
    fn of(tokenized: &'n [(Vec<Word>, Normalized)]) -> Units<'n> {
        let mut units = Units {
            patterns: Vec::new(),
            owners: Vec::new(),
        };
        let mut ids: HashMap<&'n str, usize> = HashMap::new();
        for (h, (text_words, normalized)) in tokenized.iter().enumerate() {
            for range in words::units(text_words) {
                let pattern = normalized.words(range.clone());
                let id = *ids.entry(pattern).or_insert_with(|| {
                    units.patterns.push(pattern);
                    units.owners.push(Vec::new());
                    units.patterns.len() - 1
                });
                units.owners[id].push(Unit {
                    hidden: h,
                    words: range,
                });
            }
        }
        units
    }
}

/// The distinct strings of all bundles, in order of first appearance, each with the
/// indices of the bundles that hold it. Object keys are not listed: they are fixed
/// field names, or tool names that the bundle also lists in `available_tools`.
struct BundleStrings<'b> {
    list: Vec<(&'b str, Vec<usize>)>,
}

impl<'b> BundleStrings<'b> {
    fn of(bundles: &'b [Value]) -> BundleStrings<'b> {
        let mut list: Vec<(&'b str, Vec<usize>)> = Vec::new();
        let mut index: HashMap<&'b str, usize> = HashMap::new();
        for (b, bundle) in bundles.iter().enumerate() {
            let mut strings = Vec::new();
            string_values(bundle, &mut strings);
            for s in strings {
                let i = *index.entry(s).or_insert_with(|| {
                    list.push((s, Vec::new()));
                    list.len() - 1
                });
                if list[i].1.last() != Some(&b) {
                    list[i].1.push(b);
                }
            }
        }
        BundleStrings { list }
    }
}

fn string_values<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| string_values(v, out)),
        Value::Object(map) => map.values().for_each(|v| string_values(v, out)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// Hidden words found in a bundle string: the hidden text, its words, and the longest
/// range of them that leaked.
struct Found<'h> {
    hidden: &'h Hidden,
    words: &'h [Word],
    leaked: Range<usize>,
}

impl Found<'_> {
    /// The leaked words as written in the hidden text.
    fn quote(&self) -> &str {
        let value = self.hidden.text.as_str();
        let first = self.words.get(self.leaked.start).map_or(0, |w| w.start);
        let last = self
            .leaked
            .end
            .checked_sub(1)
            .and_then(|i| self.words.get(i))
            .map_or(value.len(), |w| w.end);
        value.get(first..last).unwrap_or(value)
    }
}

/// The diagnostic for hidden words found in the bundle string `string`.
fn leak(suite: &Suite, found: Found, string: &str, cases: &[usize]) -> Diagnostic {
    let d = Diagnostic::error(
        codes::HIDDEN_TEXT_LEAK,
        format!(
            "{} leaks into {}: \"{}\"",
            found.hidden.describe(),
            bundles_phrase(suite, cases),
            shorten(found.quote())
        ),
    )
    .primary(found.hidden.text.span, "hidden from the model")
    .help(format!(
        "the model must see no harness or evaluator text: reword the model-facing text so that it \
         shares no sentence of {MIN_WORDS}+ words and no run of {RUN_WORDS} words with hidden text"
    ));
    match locate(suite, string, cases) {
        Some((what, text)) => {
            d.secondary(text.span, format!("but the model sees it in this {what}"))
        }
        None => d,
    }
}

/// Where a bundle string was written: the first model-facing text of its first bundle's
/// case with that value.
fn locate(suite: &Suite, string: &str, cases: &[usize]) -> Option<(String, Text)> {
    let case = suite.cases.get(*cases.first()?)?;
    model_facing_texts(suite, case)
        .into_iter()
        .find(|(_, t)| t.as_str() == string)
}

/// "the bundle of TUJ-011", "20 bundles (TUJ-021, TUJ-022, TUJ-023, …)".
fn bundles_phrase(suite: &Suite, cases: &[usize]) -> String {
    let ids: Vec<&str> = cases
        .iter()
        .filter_map(|&i| suite.cases.get(i).map(|c| c.id.as_str()))
        .collect();
    match ids.as_slice() {
        [one] => format!("the bundle of {one}"),
        _ => {
            let mut shown = ids.iter().take(3).copied().collect::<Vec<_>>().join(", ");
            if ids.len() > 3 {
                shown.push_str(", …");
            }
            format!("{} bundles ({shown})", ids.len())
        }
    }
}

/// A quote cut to a readable length at a character boundary.
fn shorten(quote: &str) -> String {
    const MAX_CHARS: usize = 100;
    match quote.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &quote[..cut]),
        None => quote.to_string(),
    }
}

fn unprovable(suite: &Suite, reason: &str) -> Diagnostic {
    Diagnostic::error(
        codes::HIDDEN_TEXT_LEAK,
        format!("cannot prove that the bundles are blind: {reason}"),
    )
    .primary(suite.span, "while scanning the bundles of this suite")
    .help("no bundle was written; split the suite so that its hidden text is smaller")
}
