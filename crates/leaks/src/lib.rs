//! The leak rule: when model-facing text gives away hidden text. One tokenizer
//! ([`tokens`]) and one matcher, used by `casec check` (code `leak`) and by the
//! blinding proof of `casec bundle` (code `hidden_text_leak`), so the two agree.
//!
//! Hidden text leaks when the model-facing texts repeat:
//!
//! * a run of [`MIN_RUN`] consecutive words of a hidden text;
//! * a hidden text shorter than that, of at least [`MIN_WHOLE`] words, whole ("Claim
//!   reminder success", an error code `DELIVERY_PERMISSION_DENIED`);
//! * a sentence of a longer hidden text of at least [`MIN_SENTENCE`] words, whole.
//!
//! Words compare in their normal form (see [`tokens`]): letter case, punctuation,
//! spacing, invisible characters, compatibility forms and look-alike letters do not
//! hide a copy. The model-facing texts are scanned as one stream, in order, so a run
//! split over two texts (a sentence cut between the user message and a conversation
//! turn, see [`reading_order`]) is still one run; a leak reports each piece. Texts too
//! short to hold a unit (a reply "Go on.") are left out of the stream, so they do not
//! cut a run either. Strings a case may share with the
//! model on purpose (a path or a URL the task shows) are given as `allowed`: their
//! occurrences in model-facing text break runs and match nothing.
//!
//! Shorter items are never matched: short phrases ("do not send") recur in independent
//! texts, and names and one- or two-word values (`not_found`, a tool name) are shared
//! with the model by design.
//!
//! Cost: linear in the words of the texts. The hidden units are hashed into a map; the
//! stream is walked once, each position looking up the few unit lengths there are, and
//! a hit is confirmed word by word before it is reported.

// Module headers link to the private items of their crate: they are read by
// contributors, with `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

// The layers below, under the names the modules of this crate use for them.
use casec_base::unicode;
use casec_model as model;

pub mod tokens;

use std::borrow::Borrow;
use std::collections::HashMap;
use std::ops::Range;

use arcstr::ArcStr;
use foldhash::fast::FixedState;

use crate::model::{Case, Text};

use tokens::{normal_form, Tokens, Word};

/// Any run of this many consecutive words of a hidden text is a leak.
pub const MIN_RUN: usize = 5;

/// A hidden text shorter than [`MIN_RUN`] words is compared whole from this many words.
pub const MIN_WHOLE: usize = 3;

/// A sentence of a longer hidden text is compared whole from this many words.
pub const MIN_SENTENCE: usize = 4;

/// One text on either side: its value and its words.
#[derive(Clone, Copy)]
pub struct Item<'a> {
    pub text: &'a str,
    pub tokens: &'a Tokens,
}

/// Hidden words found in the model-facing texts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leak {
    /// The hidden text (its index in the hidden items) and the words of it repeated.
    pub hidden: usize,
    pub hidden_words: Range<usize>,
    /// Where the model sees them: one piece per model-facing text the run lies in.
    pub pieces: Vec<Piece>,
}

impl Leak {
    /// How many words leaked.
    pub fn len(&self) -> usize {
        self.hidden_words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.hidden_words.is_empty()
    }
}

/// Part of a leak in one model-facing text: that text's index and words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    pub visible: usize,
    pub words: Range<usize>,
}

/// A case's model-facing texts in the order the model reads the conversation: the user
/// message and the conversation turns first, one after the other, then the others in
/// the order given. Both callers scan in this order, so that a sentence cut between the
/// user message and a turn is one run for both.
pub fn reading_order<W, T: Borrow<Text>>(case: &Case, texts: Vec<(W, T)>) -> Vec<(W, T)> {
    let conversation: Vec<&Text> = case
        .user
        .iter()
        .chain(case.conversation.iter().map(|turn| &turn.content))
        .collect();
    let place = |t: &Text| {
        conversation.iter().position(|c| {
            c.span == t.span && (ArcStr::ptr_eq(&c.value, &t.value) || c.value == t.value)
        })
    };
    // The conversation by its place (stable), then the rest as given: the few turns
    // are sorted, not every tool text a case shows.
    let mut turns: Vec<(usize, (W, T))> = Vec::new();
    let mut rest: Vec<(W, T)> = Vec::with_capacity(texts.len());
    for entry in texts {
        match place(entry.1.borrow()) {
            Some(at) => turns.push((at, entry)),
            None => rest.push(entry),
        }
    }
    turns.sort_by_key(|(at, _)| *at);
    let mut ordered: Vec<(W, T)> = Vec::with_capacity(turns.len() + rest.len());
    ordered.extend(turns.into_iter().map(|(_, entry)| entry));
    ordered.extend(rest);
    ordered
}

/// The byte range of the words `words` of `item`.
pub fn byte_range(item: Item, words: Range<usize>) -> Range<usize> {
    let all = &item.tokens.words;
    match (
        all.get(words.start),
        words.end.checked_sub(1).and_then(|i| all.get(i)),
    ) {
        (Some(first), Some(last)) => first.start as usize..last.end as usize,
        _ => 0..0,
    }
}

/// Every leak of `hidden` into `visible`, in the order of the model-facing stream;
/// occurrences of the `allowed` strings in `visible` do not count.
pub fn leaks(hidden: &[Item], visible: &[Item], allowed: &[&str]) -> Vec<Leak> {
    let set = Set {
        units: &Units::of(hidden),
        items: hidden,
        only_near_fresh: false,
    };
    leaks_of(&[set], visible, &vec![true; visible.len()], allowed)
}

/// Like [`leaks`], for hidden texts in [`Set`]s, each with its units made beforehand
/// (so a suite's shared texts are prepared once, not for every case). A leak's
/// `hidden` counts the items of the sets in order. `fresh` says, for each visible
/// text, whether it is new here: a set that is [`Set::only_near_fresh`] is only looked
/// for in runs that reach into a fresh text (its matches among shared texts alone are
/// the same each time, and found once elsewhere).
pub fn leaks_of(sets: &[Set], visible: &[Item], fresh: &[bool], allowed: &[&str]) -> Vec<Leak> {
    if sets.iter().all(|set| set.units.units.is_empty()) {
        return Vec::new();
    }
    let stream = Stream::of(visible, fresh, allowed);
    let mut lengths: Vec<usize> = sets
        .iter()
        .flat_map(|set| set.units.lengths.iter().copied())
        .collect();
    lengths.sort_unstable();
    lengths.dedup();
    // The starts of the sets looked for everywhere, not only near fresh texts.
    let everywhere: Vec<&Starts> = sets
        .iter()
        .filter(|set| !set.only_near_fresh)
        .map(|set| &set.units.starts)
        .collect();
    let mut out = Vec::new();
    let mut at = 0;
    while at < stream.len() {
        // Most positions are far from fresh text and start no unit of a set looked for
        // everywhere: a tight scan passes them.
        at = stream.next_possible_start(at, &everywhere);
        if at >= stream.len() {
            break;
        }
        let mut offset = 0;
        let mut best: Option<(usize, Unit, usize)> = None;
        // The key of the two words from here, which every unit that starts here has.
        let Some(start) = stream.window(at, 2).map(|w| pair_key(w[0], w[1])) else {
            at += 1;
            continue;
        };
        // Most positions start no unit of any set they are looked for in: one bit test
        // per set tells, before anything else is tried.
        let near_fresh = stream.near_fresh[at];
        let may_start = sets
            .iter()
            .any(|set| (near_fresh || !set.only_near_fresh) && set.units.starts.may_contain(start));
        if !may_start {
            at += 1;
            continue;
        }
        for set in sets {
            let wanted = !set.only_near_fresh || near_fresh;
            if let Some((unit, len)) = wanted
                .then(|| {
                    set.units
                        .longest_at(set.items, &stream, (at, start), &lengths, visible)
                })
                .flatten()
            {
                if best.is_none_or(|(_, _, b)| len > b) {
                    best = Some((offset, unit, len));
                }
            }
            offset += set.items.len();
        }
        match best {
            Some((offset, unit, len)) => {
                let mut leak = stream.leak(unit, at, len);
                leak.hidden += offset;
                out.push(leak);
                at += len;
            }
            None => at += 1,
        }
    }
    out
}

/// Hidden texts with their units, for [`leaks_of`].
#[derive(Clone, Copy)]
pub struct Set<'a> {
    pub units: &'a Units,
    pub items: &'a [Item<'a>],
    /// Only look for these texts where a run reaches a fresh visible text.
    pub only_near_fresh: bool,
}

/// A matching unit: `len` words of hidden text `hidden` from word `start`; `run`
/// units (windows of [`MIN_RUN`]) may be extended along their text. Units with one
/// key are chained through `next` (an index into the set's units), so that the map
/// holds one entry per key and no list of its own.
#[derive(Clone, Copy, Debug)]
struct Unit {
    hidden: u32,
    start: u32,
    len: u8,
    run: bool,
    next: u32,
}

const NO_UNIT: u32 = u32::MAX;

/// The key of a sequence of word hashes (its length is part of it).
fn key(hashes: impl Iterator<Item = u64>) -> u64 {
    let mut len = 0u64;
    let folded = hashes.fold(0u64, |k, h| {
        len += 1;
        k.rotate_left(17) ^ h
    });
    folded ^ len.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// [`key`] of two word hashes, as every position of a stream computes it.
fn pair_key(first: u64, second: u64) -> u64 {
    (first.rotate_left(17) ^ second) ^ 2u64.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The units of some hidden texts, by key: what matching looks up.
pub struct Units {
    /// Key → the first unit with it.
    units: HashMap<u64, u32, FixedState>,
    /// The keys of the first two words of every unit: most positions of a stream start
    /// no unit, and one look-up here tells, before any unit length is tried.
    starts: Starts,
    all: Vec<Unit>,
    /// The unit lengths that occur, shortest first.
    lengths: Vec<usize>,
}

impl Units {
    /// The units of `items`: runs, whole short texts, short sentences.
    pub fn of(items: &[Item]) -> Units {
        let words: usize = items.iter().map(|i| i.tokens.len()).sum();
        let mut set = Units {
            units: HashMap::with_capacity_and_hasher(words, FixedState::default()),
            starts: Starts::for_units(words),
            // About one unit a word: a run from each but the last few, and sentences.
            all: Vec::with_capacity(words),
            lengths: Vec::new(),
        };
        for (h, item) in items.iter().enumerate() {
            let words = &item.tokens.words;
            let n = words.len();
            if n >= MIN_RUN {
                for start in 0..=n - MIN_RUN {
                    set.add(h, words, start, MIN_RUN, true);
                }
                let short = sentences(words).filter(|s| (MIN_SENTENCE..MIN_RUN).contains(&s.len()));
                for sentence in short {
                    set.add(h, words, sentence.start, sentence.len(), false);
                }
            } else if n >= MIN_WHOLE {
                set.add(h, words, 0, n, false);
            }
        }
        set.lengths.sort_unstable();
        set
    }

    fn add(&mut self, h: usize, words: &[Word], start: usize, len: usize, run: bool) {
        let words = &words[start..start + len];
        self.starts.insert(pair_key(words[0].hash, words[1].hash));
        let slot = self
            .units
            .entry(key(words.iter().map(|w| w.hash)))
            .or_insert(NO_UNIT);
        self.all.push(Unit {
            hidden: h as u32,
            start: start as u32,
            len: len as u8,
            run,
            next: *slot,
        });
        *slot = (self.all.len() - 1) as u32;
        if !self.lengths.contains(&len) {
            self.lengths.push(len);
        }
    }

    /// The units with key `k`.
    fn with_key(&self, k: u64) -> impl Iterator<Item = &Unit> {
        let mut next = self.units.get(&k).copied().unwrap_or(NO_UNIT);
        std::iter::from_fn(move || {
            let unit = self.all.get(next as usize)?;
            next = unit.next;
            Some(unit)
        })
    }

    /// The longest confirmed match starting at stream position `at` (whose first two
    /// words have the key `start`), trying the unit lengths `lengths`: the unit and how
    /// many words match (a run unit extended as far as its text and the stream agree).
    fn longest_at(
        &self,
        items: &[Item],
        stream: &Stream,
        (at, start): (usize, u64),
        lengths: &[usize],
        visible: &[Item],
    ) -> Option<(Unit, usize)> {
        if !self.starts.may_contain(start) {
            return None;
        }
        let mut best: Option<(Unit, usize)> = None;
        for &len in lengths {
            let Some(window) = stream.window(at, len) else {
                break;
            };
            for unit in self.with_key(key(window.iter().copied())) {
                if usize::from(unit.len) != len {
                    continue;
                }
                let h = items[unit.hidden as usize];
                let start = unit.start as usize;
                if !(0..len).all(|i| stream.same(at + i, h, start + i, visible)) {
                    continue;
                }
                let mut matched = len;
                if unit.run {
                    while at + matched < stream.len()
                        && !stream.masked(at + matched)
                        && start + matched < h.tokens.len()
                        && stream.same(at + matched, h, start + matched, visible)
                    {
                        matched += 1;
                    }
                }
                if best.is_none_or(|(_, b)| matched > b) {
                    best = Some((*unit, matched));
                }
            }
        }
        best
    }
}

/// The keys that start units, as a bit set: a position whose key's bit is clear starts
/// no unit. A set bit may be another key's (the units confirm), so a look-up is one bit
/// test instead of a hash-table probe at every position of every stream, most of which
/// start nothing.
struct Starts {
    bits: Vec<u64>,
    /// The number of bits less one (a power of two less one).
    mask: usize,
}

impl Starts {
    /// Room for the units of this many words: about 1 in 64 bits set, so that few
    /// positions that start nothing pass.
    fn for_units(words: usize) -> Starts {
        let bits = (words.max(1) * 64).next_power_of_two();
        Starts {
            bits: vec![0; bits.div_ceil(64)],
            mask: bits - 1,
        }
    }

    /// The bit of key `k`: its high bits, which the fold of [`key`] mixes best.
    fn bit(&self, k: u64) -> usize {
        (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & self.mask
    }

    fn insert(&mut self, k: u64) {
        let b = self.bit(k);
        self.bits[b / 64] |= 1 << (b % 64);
    }

    fn may_contain(&self, k: u64) -> bool {
        let b = self.bit(k);
        self.bits[b / 64] & (1 << (b % 64)) != 0
    }
}

/// Word ranges of the sentences of a text.
fn sentences(words: &[Word]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut start = 0;
    (0..words.len()).filter_map(move |i| {
        if !words[i].ends_sentence {
            return None;
        }
        let range = start..i + 1;
        start = i + 1;
        Some(range)
    })
}

/// The model-facing texts as one sequence of words, a field a vector: the scan of
/// [`leaks_of`] reads the hashes and the marks of every word, the places only of
/// matches.
struct Stream {
    /// The hash of each word's normal form.
    hashes: Vec<u64>,
    /// Each word's visible text and its index there.
    places: Vec<(u32, u32)>,
    /// Whether a fresh text's word lies among the [`MIN_RUN`] words from each word.
    near_fresh: Vec<bool>,
    /// Whether each word is part of an allowed string: it matches nothing and breaks
    /// runs. Empty when nothing is allowed.
    masked: Vec<bool>,
}

impl Stream {
    fn of(visible: &[Item], fresh: &[bool], allowed: &[&str]) -> Stream {
        // A text too short to hold a unit on its own (a reply "Go on." between two
        // parts of a copy) is left out, so that it does not cut the run.
        let kept = |item: &&Item| item.tokens.len() >= MIN_WHOLE;
        let len = visible.iter().filter(kept).map(|i| i.tokens.len()).sum();
        let mut stream = Stream {
            hashes: Vec::with_capacity(len),
            places: Vec::with_capacity(len),
            near_fresh: Vec::with_capacity(len),
            masked: Vec::new(),
        };
        // Each word is marked as fresh if its text is, and the marks are then spread
        // back to the [`MIN_RUN`] - 1 words before each fresh one.
        for (v, item) in visible.iter().enumerate() {
            if !kept(&item) {
                continue;
            }
            let words = &item.tokens.words;
            stream.hashes.extend(words.iter().map(|w| w.hash));
            stream
                .places
                .extend((0..words.len() as u32).map(|w| (v as u32, w)));
            let is_fresh = fresh.get(v).copied().unwrap_or(true);
            stream
                .near_fresh
                .extend(std::iter::repeat_n(is_fresh, words.len()));
        }
        stream.masked = mask(&stream.hashes, allowed);
        let mut next_fresh = usize::MAX;
        for (i, near) in stream.near_fresh.iter_mut().enumerate().rev() {
            if *near {
                next_fresh = i;
            }
            *near = next_fresh.saturating_sub(i) < MIN_RUN;
        }
        stream
    }

    fn len(&self) -> usize {
        self.hashes.len()
    }

    fn masked(&self, at: usize) -> bool {
        self.masked.get(at).copied().unwrap_or(false)
    }

    /// The first position from `at` that is near a fresh text, or whose first two
    /// words may start a unit of one of `everywhere` (the stream's length if none).
    fn next_possible_start(&self, mut at: usize, everywhere: &[&Starts]) -> usize {
        while at + 1 < self.len() {
            if self.near_fresh[at] {
                return at;
            }
            let start = pair_key(self.hashes[at], self.hashes[at + 1]);
            if everywhere.iter().any(|starts| starts.may_contain(start)) {
                return at;
            }
            at += 1;
        }
        self.len()
    }

    /// The hashes of the `len` words from `at`, if none of them is masked.
    fn window(&self, at: usize, len: usize) -> Option<&[u64]> {
        let window = self.hashes.get(at..at + len)?;
        (!(at..at + len).any(|i| self.masked(i))).then_some(window)
    }

    /// Whether stream word `at` and word `word` of hidden `h` are the same word.
    fn same(&self, at: usize, h: Item, word: usize, visible: &[Item]) -> bool {
        let hidden_word = h.tokens.words[word];
        if self.hashes[at] != hidden_word.hash {
            return false;
        }
        let (v, w) = self.places[at];
        let v = visible[v as usize];
        let seen = v.tokens.words[w as usize];
        normal_form(&v.text[seen.range()]) == normal_form(&h.text[hidden_word.range()])
    }

    /// The leak of `unit` matched over `len` stream words from `at`.
    fn leak(&self, unit: Unit, at: usize, len: usize) -> Leak {
        let mut pieces: Vec<Piece> = Vec::new();
        for &(visible, word) in &self.places[at..at + len] {
            let (visible, word) = (visible as usize, word as usize);
            match pieces.last_mut() {
                Some(p) if p.visible == visible => p.words.end = word + 1,
                _ => pieces.push(Piece {
                    visible,
                    words: word..word + 1,
                }),
            }
        }
        let start = unit.start as usize;
        Leak {
            hidden: unit.hidden as usize,
            hidden_words: start..start + len,
            pieces,
        }
    }
}

/// Which of the stream words `hashes` spell an allowed string; empty when none do.
fn mask(hashes: &[u64], allowed: &[&str]) -> Vec<bool> {
    let sequences: Vec<Vec<u64>> = allowed
        .iter()
        .map(|a| {
            Tokens::of(a)
                .words
                .iter()
                .map(|w| w.hash)
                .collect::<Vec<u64>>()
        })
        .filter(|s| !s.is_empty())
        .collect();
    if sequences.is_empty() {
        return Vec::new();
    }
    let mut by_first: HashMap<u64, Vec<&[u64]>, FixedState> = HashMap::default();
    for s in &sequences {
        by_first.entry(s[0]).or_default().push(s);
    }
    let mut masked = vec![false; hashes.len()];
    for at in 0..hashes.len() {
        let Some(candidates) = by_first.get(&hashes[at]) else {
            continue;
        };
        for s in candidates {
            if hashes.get(at..at + s.len()) == Some(s) {
                masked[at..at + s.len()].iter_mut().for_each(|m| *m = true);
            }
        }
    }
    masked
}

#[cfg(test)]
mod tests;
