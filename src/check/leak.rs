//! Leak guard: what the model under test sees must not give away what it is tested on.
//!
//! The model sees the texts of the fields its shape declares `model` (Tujora: the user
//! message and conversation, the person's background and preferences, …); the harness
//! and the evaluator hold the `harness` and `evaluator` ones (fixture facts, overrides,
//! follow-ups, checks, critical failures, expected state). A run of [`MIN_RUN`] or more
//! consecutive words of hidden text inside model-facing text is a leak: the answer (or
//! the world the model should discover with tools) handed over. Identifiers (tags,
//! clocks) and the strings of data blocks are not prose and are not compared.
//!
//! Words compare without case and surrounding punctuation. Each word is hashed once;
//! the hidden texts' runs of [`MIN_RUN`] words (shingles) go into a hash map, keyed by
//! their words' hashes, to their first place. Each window of a model-facing text is
//! looked up, confirmed word by word (so a hash collision is never reported), and
//! extended along the same hidden text, so a long copied passage is one diagnostic
//! covering the whole run. Only the hashes are computed for every text: the normalized
//! words that confirm a match, and the located words that report it, are made the
//! first time one of a text's shingles matches.
//!
//! Texts a case inherits (a category's background, the suite's communication check)
//! are hashed once per guard and shared by every case that inherits them.
//!
//! Guarantee: an error (never allowable); per case, time linear in the words of its
//! texts. Output is deterministic: the first hidden place of a shingle wins.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::rc::Rc;

use foldhash::fast::FixedState;

use crate::diag::{codes, Diagnostic};
use crate::model::shape::Visibility;
use crate::model::texts::Labelled;
use crate::model::{Case, Text};
use crate::source::{SourceDb, Span};

use super::words::{normalize, words, Word};
use super::written_in;

/// The shortest run of shared words that counts as a leak.
pub const MIN_RUN: usize = 5;

/// A text as a sequence of comparable words (those with a letter or digit).
///
/// Only the words' hashes are computed up front: nearly every text leaks nothing, so
/// the normalized words (to confirm a match) and the located words (to report it) are
/// made the first time a shingle of the text matches.
struct Prose<'a> {
    /// What the text is, for messages: "`facts`", "`override` result".
    what: String,
    text: &'a Text,
    db: &'a SourceDb,
    hashes: Vec<u64>,
    norms: OnceCell<Vec<Cow<'a, str>>>,
    words: OnceCell<Vec<Word<'a>>>,
}

impl<'a> Prose<'a> {
    fn new(what: String, text: &'a Text, db: &'a SourceDb) -> Prose<'a> {
        Prose {
            what,
            text,
            db,
            hashes: text
                .as_str()
                .split_whitespace()
                .filter_map(word_hash)
                .collect(),
            norms: OnceCell::new(),
            words: OnceCell::new(),
        }
    }

    fn len(&self) -> usize {
        self.hashes.len()
    }

    /// The normalized words, parallel to `hashes`.
    fn norms(&self) -> &[Cow<'a, str>] {
        self.norms.get_or_init(|| {
            self.text
                .as_str()
                .split_whitespace()
                .map(normalize)
                .filter(|norm| !norm.is_empty())
                .collect()
        })
    }

    /// The words located in the source, parallel to `hashes`.
    fn words(&self) -> &[Word<'a>] {
        self.words.get_or_init(|| {
            words(self.db, self.text)
                .into_iter()
                .filter(|word| !word.normalized().is_empty())
                .collect()
        })
    }

    /// The key of the shingle starting at word `i`.
    fn shingle(&self, i: usize) -> u64 {
        self.hashes[i..i + MIN_RUN]
            .iter()
            .fold(0, |key, h| key.rotate_left(17) ^ h)
    }

    /// Whether the shingles at `i` here and at `j` in `other` are the same words.
    fn same_shingle(&self, i: usize, other: &Prose, j: usize) -> bool {
        self.norms()[i..i + MIN_RUN] == other.norms()[j..j + MIN_RUN]
    }
}

/// The hash of a word's normalized form; `None` for a word without letters or digits.
/// Equal normalized forms hash equally, and most words are hashed without allocating.
fn word_hash(word: &str) -> Option<u64> {
    let norm = normalize(word);
    if norm.is_empty() {
        return None;
    }
    Some(FixedState::default().hash_one(norm.as_bytes()))
}

/// The leak guard of a run: remembers the words of inherited texts.
#[derive(Default)]
pub struct Guard<'a> {
    inherited: HashMap<Span, Rc<Prose<'a>>>,
}

impl<'a> Guard<'a> {
    /// Checks one case, given every text of it.
    pub fn check(
        &mut self,
        case: &'a Case,
        texts: &[Labelled<'a>],
        db: &'a SourceDb,
        out: &mut Vec<Diagnostic>,
    ) {
        let hidden = self.all_prose(case, texts, |v| v.hidden(), db);
        let visible = self.all_prose(case, texts, |v| v == Visibility::Model, db);
        find_leaks(case, &hidden, &visible, out);
    }

    /// The words of each prose text of a visibility `keep` keeps, each literal once.
    fn all_prose(
        &mut self,
        case: &Case,
        texts: &[Labelled<'a>],
        keep: impl Fn(Visibility) -> bool,
        db: &'a SourceDb,
    ) -> Vec<Rc<Prose<'a>>> {
        let mut seen = HashSet::new();
        texts
            .iter()
            .filter(|t| !t.name && keep(t.visibility))
            .filter_map(|t| match t.text {
                Cow::Borrowed(text) => Some((t, text)),
                Cow::Owned(_) => None,
            })
            .filter(|(_, text)| seen.insert(text.span))
            .map(|(t, text)| self.prose(case, t, text, db))
            .collect()
    }

    /// The words of `text`: split now if the case wrote it, else split once per run.
    fn prose(
        &mut self,
        case: &Case,
        labelled: &Labelled,
        text: &'a Text,
        db: &'a SourceDb,
    ) -> Rc<Prose<'a>> {
        let what = || labelled.describe();
        if written_in(case, text.span) {
            return Rc::new(Prose::new(what(), text, db));
        }
        self.inherited
            .entry(text.span)
            .or_insert_with(|| Rc::new(Prose::new(what(), text, db)))
            .clone()
    }
}

fn find_leaks(case: &Case, hidden: &[Rc<Prose>], visible: &[Rc<Prose>], out: &mut Vec<Diagnostic>) {
    let windows = hidden.iter().map(|p| p.len().saturating_sub(MIN_RUN - 1));
    let mut shingles: HashMap<u64, (usize, usize), FixedState> =
        HashMap::with_capacity_and_hasher(windows.sum(), FixedState::default());
    for (t, prose) in hidden.iter().enumerate() {
        for w in 0..prose.len().saturating_sub(MIN_RUN - 1) {
            shingles.entry(prose.shingle(w)).or_insert((t, w));
        }
    }
    if shingles.is_empty() {
        return;
    }
    for prose in visible {
        find_runs(case, prose, hidden, &shingles, out);
    }
}

fn find_runs(
    case: &Case,
    visible: &Prose,
    hidden: &[Rc<Prose>],
    shingles: &HashMap<u64, (usize, usize), FixedState>,
    out: &mut Vec<Diagnostic>,
) {
    let mut i = 0;
    while i + MIN_RUN <= visible.len() {
        let hit = shingles
            .get(&visible.shingle(i))
            .filter(|&&(t, start)| visible.same_shingle(i, &hidden[t], start));
        let Some(&(t, start)) = hit else {
            i += 1;
            continue;
        };
        let source = &hidden[t];
        let mut len = MIN_RUN;
        while i + len < visible.len()
            && start + len < source.len()
            && visible.norms()[i + len] == source.norms()[start + len]
        {
            len += 1;
        }
        out.push(report(case, visible, i, source, start, len));
        i += len;
    }
}

fn report(
    case: &Case,
    visible: &Prose,
    at: usize,
    source: &Prose,
    start: usize,
    len: usize,
) -> Diagnostic {
    let (seen, hidden) = (visible.words(), source.words());
    let leaked = seen[at].core().to(seen[at + len - 1].core());
    let origin = hidden[start].core().to(hidden[start + len - 1].core());
    Diagnostic::error(
        codes::LEAK,
        format!(
            "the {} of case {} repeats {len} words of its {}",
            visible.what,
            case.id.as_str(),
            source.what
        ),
    )
    .primary(leaked, format!("the model sees these {len} words"))
    .secondary(origin, format!("the same words in the hidden {}", source.what))
    .help(format!(
        "the model under test sees the {}: reword it so that no {MIN_RUN} consecutive words come from the {}",
        visible.what, source.what
    ))
}
