//! The blinding proof: no harness or evaluator text reaches a model bundle.
//!
//! Run on the bundles as built, before any is written, with the leak rule of
//! [`crate::leaks`] that `casec check` applies too: for each case, its hidden texts
//! ([`hidden`]: its own, those it inherits, the suite's) against every string of its
//! bundle. The strings are scanned in the order of the model-facing texts they come
//! from ([`model_facing_texts`]), as `casec check` scans those texts, so the two find
//! the same leaks; a string that comes from no model-facing text (which would be a
//! mistake of the lowering) is scanned after them. A string of a field the shape
//! declares `quotable` (shown on purpose, for hidden texts to quote) is not scanned,
//! as `casec check` does not read it. A hit becomes a `hidden_text_leak`
//! error pointing at the hidden text that leaked and at the model-facing text that
//! repeats it, one per hidden text and string, naming every bundle it reaches.
//!
//! Every text is split into words once (bundles share the system instruction and the
//! tool contracts), and each bundle is scanned in time linear in its words.

mod hidden;

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

use crate::diag::{codes, Diagnostic};
use crate::leaks::tokens::Tokens;
use crate::leaks::{self, byte_range, Item, Set, Units, MIN_RUN, MIN_SENTENCE, MIN_WHOLE};
use crate::model::{Case, Suite, Text};

use super::bundle::model_facing_texts;
pub use hidden::suite_hidden_texts;
use hidden::Hidden;

/// The errors that stop the bundles: one per hidden text and model string it leaked
/// into. `bundles[i]` is the bundle of `suite.cases[i]`.
pub fn prove(suite: &Suite, bundles: &[Value]) -> Vec<Diagnostic> {
    let hidden = hidden::hidden_texts(suite);
    let tokens: Vec<Tokens> = hidden.iter().map(|h| Tokens::of(h.text.as_str())).collect();
    let items: Vec<Item> = hidden
        .iter()
        .zip(&tokens)
        .map(|(h, tokens)| Item {
            text: h.text.as_str(),
            tokens,
        })
        .collect();
    let (shared, by_case) = by_case(&hidden, suite.cases.len());
    let shared_items: Vec<Item> = shared.iter().map(|&i| items[i]).collect();
    let shared_units = Units::of(&shared_items);
    let string_tokens = string_tokens(bundles);
    // (hidden text, leaked words, model string) → the cases whose bundles hold it.
    let mut found: BTreeMap<(usize, usize, usize, &str), Vec<usize>> = BTreeMap::new();
    for (c, (case, bundle)) in suite.cases.iter().zip(bundles).enumerate() {
        let own: Vec<Item> = by_case[c].iter().map(|&i| items[i]).collect();
        let own_units = Units::of(&own);
        let sets = [
            Set {
                units: &own_units,
                items: &own,
                only_near_fresh: false,
            },
            Set {
                units: &shared_units,
                items: &shared_items,
                only_near_fresh: false,
            },
        ];
        let v: Vec<Item> = ordered_strings(suite, case, bundle)
            .into_iter()
            .filter_map(|s| {
                let tokens = string_tokens.get(s)?;
                Some(Item { text: s, tokens })
            })
            .collect();
        for leak in leaks::leaks_of(&sets, &v, &vec![true; v.len()], &[]) {
            let hidden_index = match by_case[c].get(leak.hidden) {
                Some(&i) => i,
                None => shared[leak.hidden - by_case[c].len()],
            };
            let string = v[leak.pieces[0].visible].text;
            let key = (
                hidden_index,
                leak.hidden_words.start,
                leak.hidden_words.end,
                string,
            );
            found.entry(key).or_default().push(c);
        }
    }
    found
        .into_iter()
        .map(|((h, start, end, string), cases)| {
            let quote = &hidden[h].text.as_str()[byte_range(items[h], start..end)];
            leak(suite, &hidden[h], quote, string, &cases)
        })
        .collect()
}

/// The indices of the suite's own hidden texts, which every case has, and for each
/// case those of the hidden texts it holds itself or inherits.
fn by_case(hidden: &[Hidden], cases: usize) -> (Vec<usize>, Vec<Vec<usize>>) {
    let shared: Vec<usize> = (0..hidden.len())
        .filter(|&i| hidden[i].holders.is_empty())
        .collect();
    let mut out = vec![Vec::new(); cases];
    for (i, h) in hidden.iter().enumerate() {
        for &c in &h.holders {
            if let Some(list) = out.get_mut(c) {
                list.push(i);
            }
        }
    }
    (shared, out)
}

/// The words of every distinct string of the bundles, each split once.
fn string_tokens(bundles: &[Value]) -> HashMap<&str, Tokens> {
    let mut out: HashMap<&str, Tokens> = HashMap::new();
    let mut strings = Vec::new();
    for bundle in bundles {
        strings.clear();
        string_values(bundle, &mut strings);
        for s in &strings {
            out.entry(*s).or_insert_with(|| Tokens::of(s));
        }
    }
    out
}

/// The strings of a bundle in the order of the case's model-facing texts (in reading
/// order, as `casec check` scans them), each once; strings that come from no
/// model-facing text follow, in bundle order.
fn ordered_strings<'b>(suite: &Suite, case: &Case, bundle: &'b Value) -> Vec<&'b str> {
    let mut in_bundle = Vec::new();
    string_values(bundle, &mut in_bundle);
    let mut by_value: HashMap<&str, &'b str> = HashMap::new();
    for s in &in_bundle {
        by_value.entry(*s).or_insert(*s);
    }
    let mut taken = HashSet::new();
    let mut quoted = HashSet::new();
    let mut out = Vec::new();
    for (shown, text) in leaks::reading_order(case, model_facing_texts(suite, case)) {
        if let Some(s) = by_value.get(text.as_str()) {
            if shown.quotable {
                quoted.insert(*s);
            } else if taken.insert(*s) {
                out.push(*s);
            }
        }
    }
    let unread = in_bundle.into_iter().filter(|s| !quoted.contains(s));
    out.extend(unread.filter(|s| taken.insert(*s)));
    out
}

/// Every string value of a bundle, in order. Object keys are not listed: they are
/// fixed field names, or tool names that the bundle also lists in `available_tools`.
fn string_values<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| string_values(v, out)),
        Value::Object(map) => map.values().for_each(|v| string_values(v, out)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// The diagnostic for hidden words found in the bundle string `string`.
fn leak(suite: &Suite, hidden: &Hidden, quote: &str, string: &str, cases: &[usize]) -> Diagnostic {
    let d = Diagnostic::new(
        codes::HIDDEN_TEXT_LEAK,
        format!(
            "{} leaks into {}: \"{}\"",
            hidden.describe(),
            bundles_phrase(suite, cases),
            shorten(quote)
        ),
    )
    .primary(hidden.text.span, "hidden from the model")
    .help(format!(
        "the model must see no harness or evaluator text: reword the model-facing text so that it \
         shares no run of {MIN_RUN} words, no sentence of {MIN_SENTENCE}+ words and no whole short \
         text of {MIN_WHOLE}+ words with hidden text"
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
        .find(|(shown, t)| !shown.quotable && t.as_str() == string)
        .map(|(shown, t)| (shown.what, t))
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
