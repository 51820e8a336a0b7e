//! Leak guard: what the model under test sees must not give away what it is tested on.
//!
//! The model sees the texts of the fields its shape declares `model` (Tujora: the user
//! message and conversation, the person's background and preferences, the tools'
//! contracts) — everything its bundle is built from ([`model_texts_of`]). The
//! harness and the evaluator hold the `harness` and `evaluator` ones (fixture facts,
//! overrides, follow-ups, checks, critical failures, expected state), the suite's
//! scoring rules and global critical failures among them. A leak is what the rule of
//! [`crate::leaks`] finds between the two — the same rule, on the same texts in the same
//! order, that the blinding proof of `casec bundle` applies to the bundles, so a suite
//! `casec check` passes is one `casec bundle` writes. Identifiers (tags, clocks) are
//! not prose and are not compared, and neither are the texts of a field the shape
//! declares `quotable` (shown to the model on purpose, for checks to quote: a policy).
//!
//! A leak that involves text the case wrote is the case's own diagnostic. A leak
//! between texts the case only inherits (the suite's tool contracts and its scoring
//! rules, say) is the same for every case that inherits them: it is found once per
//! distinct set of inherited texts, and reported once, not once per case or per set.
//!
//! Guarantee: an error (never allowable); per case, time linear in the words of its
//! texts, each inherited text split into words once per guard.

use std::borrow::{Borrow, Cow};
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::rc::Rc;

use arcstr::ArcStr;
use foldhash::fast::FixedState;

use crate::diag::{codes, Diagnostic};
use crate::leaks::tokens::Tokens;
use crate::leaks::{self, byte_range, Item, Leak, Set, Units, MIN_RUN, MIN_SENTENCE, MIN_WHOLE};
use crate::lower::bundle::{model_texts_of, SuiteModelTexts};
use crate::model::texts::{Labelled, What};
use crate::model::{Case, Suite, Text};
use crate::source::{SourceDb, Span};

use super::words::words;
use super::written_in;

/// A text of one side, with what it is.
type Described<'a> = (What<'a>, Cow<'a, Text>);

/// The suite's own hidden texts (scoring rules, global critical failures, the result
/// template, revision notes), which every case has, split into words and into units
/// once per run (or once per scope, for re-checks).
pub struct SuiteHidden {
    texts: Vec<(String, Text)>,
    tokens: Vec<Tokens>,
    units: Units,
}

impl SuiteHidden {
    pub fn of(suite: &Suite) -> SuiteHidden {
        let texts = crate::lower::blinding::suite_hidden_texts(suite);
        let tokens: Vec<Tokens> = texts.iter().map(|(_, t)| Tokens::of(t.as_str())).collect();
        let units = Units::of(&items(&texts, &tokens));
        SuiteHidden {
            texts,
            tokens,
            units,
        }
    }

    /// With the model texts every case draws on, for every case of the run.
    pub fn prepare<'s>(&'s self, suite: &'s Suite) -> Prepared<'s> {
        Prepared {
            texts: self,
            items: items(&self.texts, &self.tokens),
            model: SuiteModelTexts::of(suite),
        }
    }
}

/// The suite's hidden texts with their units, and what its cases' model texts draw on.
pub struct Prepared<'s> {
    texts: &'s SuiteHidden,
    items: Vec<Item<'s>>,
    model: SuiteModelTexts<'s>,
}

/// The leak guard of a chunk of cases: what cases share, prepared once — the words of
/// shared texts, and the units of the hidden texts a case inherits (its profile's
/// pass rule, tool behavior, replies), by the set of them.
#[derive(Default)]
pub struct Guard {
    shared: Shared,
    inherited: HashMap<Vec<TextKey>, Rc<Units>, FixedState>,
}

/// The words of shared texts, by text. Only texts that live in the model (borrowed) are
/// remembered: a text made for one case (a data block's string) is split where used.
type Shared = HashMap<TextKey, Rc<Tokens>, FixedState>;

/// A text by its span and the address and length of its value: cases that inherit a
/// text hold the same value, and the strings of a data block share one span.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct TextKey {
    span: Span,
    value: usize,
    len: usize,
}

/// Two words hashed instead of five: every text of every case is looked up by its key.
impl Hash for TextKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let span = self.span;
        state.write_u64(
            (u64::from(span.start) << 32 | u64::from(span.end))
                ^ u64::from(span.file.0).rotate_right(7),
        );
        state.write_u64(self.value as u64 ^ (self.len as u64).rotate_right(23));
    }
}

fn key_of(text: &Text) -> TextKey {
    TextKey {
        span: text.span,
        value: text.value.as_ptr() as usize,
        len: text.value.len(),
    }
}

/// Whether a text lives in the model, the same value for every case that has it.
#[allow(clippy::ptr_arg)] // whether the `Cow` borrows is the question
fn lives_in_model(text: &Cow<Text>) -> bool {
    matches!(text, Cow::Borrowed(_))
}

/// What a case inherits that its bundle shows: the texts it does not write (its
/// turns among them), and its tools.
pub(super) type Inherits<'a> = (Vec<TextKey>, Vec<&'a str>);

/// [`Inherits`] of a case, given every text of it.
pub(super) fn inherits<'a>(case: &'a Case, texts: &[Labelled<'a>]) -> Inherits<'a> {
    let inherited: Vec<TextKey> = texts
        .iter()
        .filter(|t| t.prose && !written_in(case, t.text.span) && lives_in_model(&t.text))
        .map(|t| key_of(&t.text))
        .chain(
            case.conversation
                .iter()
                .filter(|turn| !written_in(case, turn.content.span))
                .map(|turn| key_of(&turn.content)),
        )
        .collect();
    let tools = case.tools.iter().map(|t| t.as_str()).collect();
    (inherited, tools)
}

/// Both sides of a case, in the order the rule reads them: the case's hidden texts
/// (the suite's follow, in [`Prepared`]) and everything its bundle is built from, in
/// reading order, each text once.
struct Sides<'a> {
    hidden: Vec<Described<'a>>,
    visible: Vec<Described<'a>>,
}

impl<'a> Sides<'a> {
    /// The sides of a case, given every text of it; its hidden texts are those it
    /// wrote, then those it inherits.
    fn of(
        suite: &'a Suite,
        case: &'a Case,
        texts: &[Labelled<'a>],
        model: &'a SuiteModelTexts<'a>,
    ) -> Sides<'a> {
        let mut seen: HashSet<TextKey, FixedState> =
            HashSet::with_capacity_and_hasher(texts.len(), FixedState::default());
        let mut hidden: Vec<Described> = texts
            .iter()
            .filter(|t| t.visibility.hidden() && t.prose)
            .map(|t| (t.what(), t.text.clone()))
            .filter(|(_, t)| seen.insert(key_of(t)))
            .collect();
        hidden.sort_by_key(|(_, t)| !written_in(case, t.span));
        let visible = model_texts_of(suite, case, texts, model);
        let mut seen: HashSet<TextKey, FixedState> =
            HashSet::with_capacity_and_hasher(visible.len(), FixedState::default());
        let visible = visible
            .into_iter()
            .filter(|(what, _)| !quotable(suite, what))
            .filter(|(_, t)| seen.insert(key_of(t)))
            .collect();
        Sides {
            hidden,
            visible: leaks::reading_order(case, visible),
        }
    }
}

/// Whether a model text is of a field its shape declares `quotable`: shown to the model
/// on purpose for hidden texts to quote, so not a place hidden words leak to.
fn quotable(suite: &Suite, what: &What) -> bool {
    matches!(what, What::Field { field, .. } if suite.shape.quotable(field))
}

/// What the rule found for a case: the words of the case's hidden and visible texts
/// and the leaks (a leak's hidden index counts the case's texts, then the suite's).
struct Found {
    hidden: Vec<Rc<Tokens>>,
    visible: Vec<Rc<Tokens>>,
    leaks: Vec<Leak>,
}

impl Guard {
    /// The case's own leaks: those that involve a text written in the case.
    pub fn check(
        &mut self,
        suite: &Suite,
        case: &Case,
        texts: &[Labelled],
        prepared: &Prepared,
        db: &SourceDb,
        out: &mut Vec<Diagnostic>,
    ) {
        let sides = Sides::of(suite, case, texts, &prepared.model);
        let found = self.find(case, &sides, prepared);
        let own = |t: &Text| written_in(case, t.span);
        for leak in &found.leaks {
            let hidden_own = sides.hidden.get(leak.hidden).is_some_and(|(_, t)| own(t));
            let involves_case =
                hidden_own || leak.pieces.iter().any(|p| own(&sides.visible[p.visible].1));
            if involves_case {
                out.push(report(Some(case), &sides, prepared, leak, db, &found));
            }
        }
    }

    /// The leaks between texts that cases only inherit, once for each distinct set of
    /// them (the cases of one category with the same tools share one). Most cases
    /// inherit what an earlier case did: their inherited texts (and the tools and turns
    /// their bundle shows, [`inherits`]) tell, before their sides are built. `firsts`
    /// are, in case order, cases that some worker saw first with what they inherit
    /// (each worker sees cases in order): the first of each among them is the first in
    /// the suite. `found` remembers what each distinct set reported, for the next run
    /// in the same scope.
    pub fn check_shared<'a>(
        &mut self,
        suite: &'a Suite,
        firsts: impl Iterator<Item = (&'a Case, &'a Inherits<'a>)>,
        prepared: &Prepared,
        db: &SourceDb,
        found: &mut SharedFindings,
        out: &mut Vec<Diagnostic>,
    ) {
        let mut seen: HashSet<&Inherits, FixedState> = HashSet::default();
        // Two sets that differ in a text the leak does not involve (a case that writes
        // its own `preferences`) find the same leak: it is reported once.
        let mut reported_once: HashSet<(String, Vec<Span>), FixedState> = HashSet::default();
        for (case, inherits) in firsts {
            if !seen.insert(inherits) {
                continue;
            }
            let texts = crate::model::texts::case_texts(suite, case);
            let mut sides = Sides::of(suite, case, &texts, &prepared.model);
            sides.hidden.retain(|(_, t)| !written_in(case, t.span));
            sides.visible.retain(|(_, t)| !written_in(case, t.span));
            // Sets that differ only in what the cases wrote are the same set here; so
            // are a re-check's cases taken over from the last run and those resolved
            // again, whose inherited texts are the same in new memory.
            let texts = SharedTexts::of(&sides);
            if found.now.contains_key(&texts) {
                continue;
            }
            let reported = match found.last.remove(&texts) {
                Some(reported) => reported,
                None => {
                    let leaks = self.find(case, &sides, prepared);
                    let report = |leak| report(None, &sides, prepared, leak, db, &leaks);
                    leaks.leaks.iter().map(report).collect()
                }
            };
            let identity =
                |d: &Diagnostic| (d.message.clone(), d.labels.iter().map(|l| l.span).collect());
            out.extend(
                reported
                    .iter()
                    .filter(|d| reported_once.insert(identity(d)))
                    .cloned(),
            );
            found.now.insert(texts, reported);
        }
        found.last = std::mem::take(&mut found.now);
    }

    /// Applies the rule to a case's sides: texts the case wrote are split now, shared
    /// ones taken from the guard's memory (or split and remembered there).
    fn find(&mut self, case: &Case, sides: &Sides, prepared: &Prepared) -> Found {
        let mut tokens = |texts: &[Described]| -> Vec<Rc<Tokens>> {
            texts
                .iter()
                .map(|(_, text)| {
                    if written_in(case, text.span) || !lives_in_model(text) {
                        return Rc::new(Tokens::of(text.as_str()));
                    }
                    self.shared
                        .entry(key_of(text))
                        .or_insert_with(|| Rc::new(Tokens::of(text.as_str())))
                        .clone()
                })
                .collect()
        };
        let hidden = tokens(&sides.hidden);
        let visible = tokens(&sides.visible);
        let any_own = sides
            .hidden
            .iter()
            .chain(&sides.visible)
            .any(|(_, t)| written_in(case, t.span));
        let written = sides
            .hidden
            .iter()
            .take_while(|(_, t)| written_in(case, t.span))
            .count();
        let hidden_items = items(&sides.hidden, &hidden);
        let (own, inherited) = hidden_items.split_at(written);
        let inherited_units = self
            .inherited
            .entry(
                sides.hidden[written..]
                    .iter()
                    .filter(|(_, t)| lives_in_model(t))
                    .map(|(_, t)| key_of(t))
                    .collect(),
            )
            .or_insert_with(|| Rc::new(Units::of(inherited)))
            .clone();
        let own_units = Units::of(own);
        let sets = [
            Set {
                units: &own_units,
                items: own,
                only_near_fresh: false,
            },
            Set {
                units: &inherited_units,
                items: inherited,
                only_near_fresh: true,
            },
            Set {
                units: &prepared.texts.units,
                items: &prepared.items,
                only_near_fresh: true,
            },
        ];
        // Between inherited texts alone, leaks are the same for every case that
        // inherits them: `check_shared` finds them once. A case's own visible texts
        // are fresh; for `check_shared` (which keeps no own text) all are.
        let fresh: Vec<bool> = sides
            .visible
            .iter()
            .map(|(_, t)| written_in(case, t.span) || !any_own)
            .collect();
        let leaks = leaks::leaks_of(&sets, &items(&sides.visible, &visible), &fresh, &[]);
        Found {
            hidden,
            visible,
            leaks,
        }
    }
}

/// What [`Guard::check_shared`] reported for each distinct set of inherited texts, in
/// the last run and in this one. Valid within one scope (the files that declare
/// anything but cases unchanged, so every inherited text and the suite's hidden texts
/// with them): a set's report depends on nothing else.
#[derive(Default)]
pub struct SharedFindings {
    last: HashMap<SharedTexts, Vec<Diagnostic>, FixedState>,
    now: HashMap<SharedTexts, Vec<Diagnostic>, FixedState>,
}

/// The texts of both sides of a set of inherited texts, by what they are, where they
/// were written and what they say: a re-check finds them again in new memory.
#[derive(PartialEq, Eq, Hash)]
struct SharedTexts(Vec<(bool, String, Span, ArcStr)>);

impl SharedTexts {
    fn of(sides: &Sides) -> SharedTexts {
        let side = |hidden: bool, texts: &[Described]| {
            texts
                .iter()
                .map(move |(what, t)| (hidden, what.to_string(), t.span, t.value.clone()))
                .collect::<Vec<_>>()
        };
        let mut texts = side(true, &sides.hidden);
        texts.extend(side(false, &sides.visible));
        SharedTexts(texts)
    }
}

/// The texts of one side with their words, as the rule reads them.
fn items<'t, W, T: Borrow<Text> + 't, K: Borrow<Tokens>>(
    texts: &'t [(W, T)],
    tokens: &'t [K],
) -> Vec<Item<'t>> {
    texts
        .iter()
        .zip(tokens)
        .map(|((_, t), tokens)| Item {
            text: t.borrow().as_str(),
            tokens: tokens.borrow(),
        })
        .collect()
}

fn report(
    case: Option<&Case>,
    sides: &Sides,
    prepared: &Prepared,
    leak: &Leak,
    db: &SourceDb,
    found: &Found,
) -> Diagnostic {
    let (hidden_what, hidden, hidden_tokens) = match sides.hidden.get(leak.hidden) {
        Some((what, text)) => (what.to_string(), &**text, &*found.hidden[leak.hidden]),
        None => {
            let i = leak.hidden - sides.hidden.len();
            let (what, text) = &prepared.texts.texts[i];
            (what.clone(), text, &prepared.texts.tokens[i])
        }
    };
    let hidden_item = Item {
        text: hidden.as_str(),
        tokens: hidden_tokens,
    };
    let first = &leak.pieces[0];
    let visible_what = sides.visible[first.visible].0;
    let len = leak.len();
    let whose = match case {
        Some(case) => format!("the {visible_what} of case {}", case.id.as_str()),
        None => format!("the {visible_what}"),
    };
    let mut d = Diagnostic::new(
        codes::LEAK,
        format!("{whose} repeats {len} words of the hidden {hidden_what}"),
    );
    for (i, piece) in leak.pieces.iter().enumerate() {
        let text = &*sides.visible[piece.visible].1;
        let item = Item {
            text: text.as_str(),
            tokens: &found.visible[piece.visible],
        };
        let span = locate(db, text, byte_range(item, piece.words.clone()));
        d = if i == 0 && leak.pieces.len() == 1 {
            d.primary(span, format!("the model sees these {len} words"))
        } else if i == 0 {
            let here = piece.words.len();
            d.primary(
                span,
                format!("the model sees {here} of the {len} words here"),
            )
        } else {
            d.secondary(span, "and these, next in what the model reads")
        };
    }
    let origin = locate(
        db,
        hidden,
        byte_range(hidden_item, leak.hidden_words.clone()),
    );
    d.secondary(origin, format!("the same words in the hidden {hidden_what}"))
        .help(format!(
            "the model under test sees the {visible_what}: reword it so that it shares no run of \
             {MIN_RUN} words, no sentence of {MIN_SENTENCE}+ words and no whole short text of \
             {MIN_WHOLE}+ words with the {hidden_what} (case, punctuation, invisible and look-alike \
             characters do not count)"
        ))
}

/// The span of the bytes `range` of a text's value in the source: the written words
/// that hold them, or the whole literal when its words cannot be told apart.
fn locate(db: &SourceDb, text: &Text, range: Range<usize>) -> Span {
    let located = words(db, text);
    let value = text.as_str();
    let offsets = value.split_whitespace().map(|w| {
        w.as_ptr() as usize - value.as_ptr() as usize
            ..w.as_ptr() as usize - value.as_ptr() as usize + w.len()
    });
    let hit: Vec<usize> = offsets
        .enumerate()
        .filter(|(_, w)| w.start < range.end && range.start < w.end)
        .map(|(i, _)| i)
        .collect();
    match (hit.first(), hit.last()) {
        (Some(&a), Some(&b)) if b < located.len() => located[a].core().to(located[b].core()),
        _ => text.span,
    }
}

/// The simulated person's texts (the fields the shape makes visible to the `person`,
/// docs/people.md) must not give away what the assistant is graded on: the leak rule
/// between them and the evaluator's texts of the case and the suite. The person's
/// prompt is built from those texts alone, so a case that passes is one whose prompt
/// holds no check, critical failure or evaluator text.
pub fn check_person(
    suite: &Suite,
    case: &Case,
    texts: &[Labelled],
    db: &SourceDb,
    out: &mut Vec<Diagnostic>,
) {
    use crate::model::shape::Visibility;
    let person: Vec<&Labelled> = texts
        .iter()
        .filter(|t| t.visibility == Visibility::Person && t.prose)
        .collect();
    if person.is_empty() {
        return;
    }
    let suite_texts = crate::model::texts::suite_texts(suite);
    let evaluator: Vec<&Labelled> = texts
        .iter()
        .chain(&suite_texts)
        .filter(|t| t.visibility == Visibility::Evaluator && t.prose)
        .collect();
    let hidden_tokens: Vec<Tokens> = evaluator
        .iter()
        .map(|t| Tokens::of(t.text.as_str()))
        .collect();
    let visible_tokens: Vec<Tokens> = person.iter().map(|t| Tokens::of(t.text.as_str())).collect();
    let hidden: Vec<Item> = evaluator
        .iter()
        .zip(&hidden_tokens)
        .map(|(t, tokens)| Item {
            text: t.text.as_str(),
            tokens,
        })
        .collect();
    let visible: Vec<Item> = person
        .iter()
        .zip(&visible_tokens)
        .map(|(t, tokens)| Item {
            text: t.text.as_str(),
            tokens,
        })
        .collect();
    for leak in leaks::leaks(&hidden, &visible, &[]) {
        let (Some(source), Some(piece)) = (evaluator.get(leak.hidden), leak.pieces.first()) else {
            continue;
        };
        let Some(seen) = person.get(piece.visible) else {
            continue;
        };
        if !written_in(case, seen.text.span) && !written_in(case, source.text.span) {
            continue;
        }
        let len = leak.len();
        let at = locate(
            db,
            &seen.text,
            byte_range(visible[piece.visible], piece.words.clone()),
        );
        let from = locate(
            db,
            &source.text,
            byte_range(hidden[leak.hidden], leak.hidden_words.clone()),
        );
        out.push(
            Diagnostic::new(
                codes::LEAK,
                format!(
                    "the simulated person's {} repeats {len} words of the evaluator's {}",
                    seen.describe(),
                    source.describe()
                ),
            )
            .primary(at, format!("the person's prompt holds these {len} words"))
            .secondary(from, "the same words in the evaluator's text")
            .help("the person plays the user, who must not know how the assistant is graded: reword the person's text so that it repeats no check, critical failure or evaluator text"),
        );
    }
}
