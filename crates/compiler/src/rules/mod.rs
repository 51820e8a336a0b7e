//! Semantic rules: what a resolved suite must meet beyond grammar and names (the phase
//! `casec check` runs; not the checks of a case, which are grading items).
//!
//! Resolution already reports what makes a suite impossible to build (unknown names,
//! duplicate or missing fields, duplicate case ids). This phase reports what makes a
//! buildable suite wrong: counts that disagree, tags that promise what the case lacks,
//! malformed check sets, clocks that are not real times, weekdays that contradict
//! their dates, records the answer key names but the world lacks, hidden text the model
//! can read, and sloppy prose. One module per family of rules:
//!
//! * `coverage`: `case_count` and category counts;
//! * `scenario`: tags ⇔ follow-ups and overrides; override tools;
//! * `grading`: check ids and dimensions; critical failures;
//! * `clock` and `weekday`: the case clock and dates in prose;
//! * `records`: record ids of the answer key;
//! * `leak`: model-facing text quoting hidden text;
//! * `prose`: empty strings and stray spaces;
//! * `tools`: tools with a prose contract only; undocumented arguments of offered tools;
//! * `allow`: `allow CODE` in a case;
//! * `suite_files`: the adapter programs a suite keeps in its folder.
//!
//! A diagnostic about a case's own text belongs to that case and may be allowed there;
//! one about text the case inherits (a category's background, the suite's clock) is
//! reported once, at the place it was written, and cannot be allowed by any one case.
//!
//! Guarantee: the phase reads the model and the source text only (but `suite_files`,
//! which `Compilation::new` runs apart, asks whether files exist), never panics, and is
//! linear in the size of the suite: every rule works case by case, and text shared by
//! many cases is checked once (remembered by span). A case's own diagnostics depend on
//! that case alone, so a large suite checks its cases on all cores with the same result.

mod allow;
mod clock;
mod coverage;
mod grading;
mod leak;
mod prose;
mod records;
mod scenario;
pub mod suite_files;
mod tools;
mod weekday;
mod words;
mod workspace;
pub mod world;

use std::rc::Rc;

use crate::diag::Diagnostic;
use crate::incremental::{Changes, ContextMemo, FileMemo};
use crate::model::shape::{FieldDecl, Visibility};
use crate::model::texts::{case_texts, suite_texts, Labelled};
use crate::model::{Case, Suite, Text};
use crate::source::{FileId, Origin, SourceDb, Span, SpanSet};

/// Suites from this many cases check their cases on all cores.
const PARALLEL_FROM_CASES: usize = 256;

/// Every semantic diagnostic of `suite`, given the diagnostics of the earlier phases.
/// Coverage counts are only meaningful when no earlier phase reported an error (every
/// file parsed and every case resolved). A case with an earlier error lost the checks
/// that error stopped, so its allows are not reported as allowing nothing.
/// With `reuse`, the own diagnostics of a case it kept (its file and the context are
/// unchanged since the run that made them: [`crate::incremental`]) are taken from it.
pub(crate) fn run(
    suite: &Suite,
    db: &SourceDb,
    earlier: &[Diagnostic],
    reuse: Option<&mut RuleCache>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if !earlier.iter().any(Diagnostic::is_error) {
        coverage::check(suite, &mut out);
    }
    tools::check(suite, db, &mut out);
    let suite_hidden = match &reuse {
        Some(cache) => cache.suite_hidden.get().cloned(),
        None => None,
    }
    .unwrap_or_else(|| Rc::new(leak::SuiteHidden::of(suite)));
    let cx = Cx {
        suite,
        db,
        stopped: Stopped::new(earlier),
        hidden: suite_hidden.prepare(suite),
    };
    let worth_threads = suite.cases.len() >= PARALLEL_FROM_CASES;
    if let Some(cache) = reuse {
        // Only changed cases are checked again, but what cases share needs them all.
        let shared = crate::parallel::map_with(
            &suite.cases,
            worth_threads,
            SharedSeen::default,
            |seen, case| seen.shared_part(case, &case_texts(suite, case)),
        );
        let found = cache.shared.get_or_make(leak::SharedFindings::default);
        check_shared(&cx, shared, found, &mut out);
        cache.run(&cx, &mut out);
        cache.suite_hidden.set(Rc::clone(&suite_hidden));
        return out;
    }
    // One pass over the cases, each case's texts listed once for its own checks and
    // for what it shares with the others.
    let checked = crate::parallel::map_with(
        &suite.cases,
        worth_threads,
        || (leak::Guard::default(), SharedSeen::default()),
        |(leaks, seen), case| {
            let texts = case_texts(suite, case);
            let shared = seen.shared_part(case, &texts);
            (check_own(case, &texts, &cx, leaks), shared)
        },
    );
    let (own, shared): (Vec<_>, Vec<_>) = checked.into_iter().unzip();
    check_shared(&cx, shared, &mut leak::SharedFindings::default(), &mut out);
    out.extend(own.into_iter().flatten());
    out
}

/// The own diagnostics of the cases of the last run, by case file and case id, and what
/// the texts cases inherit reported; kept by the rule of [`crate::incremental`].
#[derive(Default)]
pub struct RuleCache {
    cases: FileMemo<CaseKey, Vec<Diagnostic>>,
    /// What the texts cases inherit reported.
    shared: ContextMemo<leak::SharedFindings>,
    /// The suite's hidden texts: the suite file is part of the context.
    suite_hidden: ContextMemo<Rc<leak::SuiteHidden>>,
}

/// A case's file and the case id.
type CaseKey = (FileId, String);

impl RuleCache {
    /// Forgets what `changes` invalidates.
    pub(crate) fn enter(&mut self, changes: &Changes) {
        self.cases.enter(changes);
        self.shared.enter(changes);
        self.suite_hidden.enter(changes);
    }

    /// The own diagnostics of every case into `out`: kept ones, and fresh ones for the
    /// cases not kept; remembers this run's.
    fn run(&mut self, cx: &Cx, out: &mut Vec<Diagnostic>) {
        let suite = cx.suite;
        let keys: Vec<CaseKey> = suite
            .cases
            .iter()
            .map(|case| (case.extent.file, case.id.as_str().to_string()))
            .collect();
        let changed: Vec<usize> = (0..keys.len())
            .filter(|&i| !self.cases.contains(&keys[i]))
            .collect();
        // A first run checks every case: on all cores, as a run without a cache does.
        let cases: Vec<&Case> = changed.iter().map(|&i| &suite.cases[i]).collect();
        let worth_threads = cases.len() >= PARALLEL_FROM_CASES;
        let checked = crate::parallel::map_with(
            &cases,
            worth_threads,
            leak::Guard::default,
            |leaks, case| check_own(case, &case_texts(suite, case), cx, leaks),
        );
        for (i, own) in changed.into_iter().zip(checked) {
            self.cases.insert(keys[i].clone(), own);
        }
        let mut fresh = Vec::with_capacity(keys.len());
        for key in keys {
            if let Some(own) = self.cases.take(&key) {
                out.extend(own.iter().cloned());
                fresh.push((key, own));
            }
        }
        // Cases no longer in the suite are forgotten.
        self.cases.replace(fresh);
    }

    /// The own diagnostics of each case of the last run (those it reports, less those
    /// it allows), with the file the case is in: what `casec check --cache` keeps per
    /// file.
    pub fn own(&self) -> impl Iterator<Item = (FileId, &[Diagnostic])> {
        self.cases
            .iter()
            .map(|((file, _), own)| (*file, own.as_slice()))
    }
}

/// What the checks of a run read besides a case: the suite, the sources, where earlier
/// phases stopped, and the suite's hidden texts prepared for the leak rule.
struct Cx<'s> {
    suite: &'s Suite,
    db: &'s SourceDb,
    stopped: Stopped,
    hidden: leak::Prepared<'s>,
}

/// What one worker has seen of what cases share, as it goes through its cases in
/// order: the spans of inherited texts, and the sets of inherited texts the leak guard
/// is given. The first of each in case order is the first some worker keeps.
#[derive(Default)]
struct SharedSeen<'s> {
    texts: SpanSet,
    inherits: std::collections::HashSet<leak::Inherits<'s>, foldhash::fast::FixedState>,
}

/// A case's part of what cases share, as one worker saw it: its set of inherited texts
/// when the worker saw it first, and the inherited texts the worker saw first there.
struct SharedPart<'s> {
    inherits: Option<leak::Inherits<'s>>,
    texts: Vec<Labelled<'s>>,
}

impl<'s> SharedSeen<'s> {
    fn shared_part(&mut self, case: &'s Case, texts: &[Labelled<'s>]) -> SharedPart<'s> {
        let inherits = leak::inherits(case, texts);
        let first = !self.inherits.contains(&inherits);
        if first {
            self.inherits.insert(inherits.clone());
        }
        let mut inherited: Vec<Labelled<'s>> = texts
            .iter()
            .filter(|t| !written_in(case, t.text.span) && self.texts.insert(t.text.span))
            .cloned()
            .collect();
        // Most cases keep none: all their lists are held until the checks run.
        inherited.shrink_to_fit();
        SharedPart {
            inherits: first.then_some(inherits),
            texts: inherited,
        }
    }
}

/// What the cases share, each reported once at the place it was written: the suite's
/// texts, the texts cases inherit, and the clocks. `shared` holds each case's part, in
/// case order.
fn check_shared(
    cx: &Cx,
    shared: Vec<SharedPart>,
    found: &mut leak::SharedFindings,
    out: &mut Vec<Diagnostic>,
) {
    let (suite, db) = (cx.suite, cx.db);
    let firsts = suite
        .cases
        .iter()
        .zip(&shared)
        .filter_map(|(case, part)| Some((case, part.inherits.as_ref()?)));
    leak::Guard::default().check_shared(suite, firsts, &cx.hidden, db, found, out);
    let mut hygiene = Hygiene::default();
    for labelled in suite_texts(suite) {
        hygiene.check(suite, &labelled, db, out);
    }
    // Each worker kept a text at the first case it saw it in only (it sees cases in
    // order), so the checks below, which keep the first of each text in the whole run,
    // see every text's first case as a run in order would.
    let mut clocks = clock::Clocks::default();
    for (case, part) in suite.cases.iter().zip(&shared) {
        clocks.check(case, db, out);
        for labelled in &part.texts {
            hygiene.check(suite, labelled, db, out);
        }
    }
}

/// A case's own diagnostics, less those it allows. Independent of the other cases (a
/// leak guard only remembers inherited texts to split them once), so a suite's cases
/// can be checked on several threads, a guard each.
fn check_own(case: &Case, texts: &[Labelled], cx: &Cx, leaks: &mut leak::Guard) -> Vec<Diagnostic> {
    let (suite, db) = (cx.suite, cx.db);
    let mut own = Vec::new();
    check_case(case, suite, texts, db, &mut own);
    world::check_case(case, suite, texts, db, &mut own);
    workspace::check(case, suite, &mut own);
    leaks.check(suite, case, texts, &cx.hidden, db, &mut own);
    leak::check_person(suite, case, texts, db, &mut own);
    let mut seen = SpanSet::default();
    for labelled in texts {
        let text = labelled.text.as_ref();
        if written_in(case, text.span) && seen.insert(text.span) {
            prose::check(text, db, declared_field(suite, labelled.field), &mut own);
        }
    }
    let mut reported = Vec::new();
    allow::apply(case, own, cx.stopped.within(case.extent), &mut reported);
    reported
}

/// Where earlier phases reported errors, to tell which cases lost checks to them.
/// The errors' places are sorted, so each case looks its own up in a binary search.
pub(crate) struct Stopped {
    errors: Vec<Span>,
}

impl Stopped {
    fn new(earlier: &[Diagnostic]) -> Stopped {
        let mut errors: Vec<Span> = earlier
            .iter()
            .filter(|d| d.is_error())
            .filter_map(Diagnostic::primary_span)
            .collect();
        errors.sort_unstable();
        Stopped { errors }
    }

    /// Whether an earlier error lies within `extent`.
    fn within(&self, extent: Span) -> bool {
        let from = Span {
            end: extent.start,
            ..extent
        };
        let first = self.errors.partition_point(|e| *e < from);
        self.errors[first..]
            .iter()
            .take_while(|e| e.file == extent.file && e.start <= extent.end)
            .any(|e| e.start >= extent.start && e.end <= extent.end)
    }
}

/// The per-case rules, reporting into the case's own diagnostics.
fn check_case(
    case: &Case,
    suite: &Suite,
    texts: &[Labelled],
    db: &SourceDb,
    own: &mut Vec<Diagnostic>,
) {
    scenario::check_tags(case, suite, own);
    scenario::check_override_tool(case, own);
    grading::check_ids(case, &suite.shape, own);
    grading::check_counts(case, &suite.shape, own);
    let prose = written_texts(case, texts, |t| t.prose);
    weekday::check(case, &prose, db, own);
    let answers = written_texts(case, texts, |t| {
        t.visibility == Visibility::Evaluator && t.prose
    });
    // The case's world is what its own harness texts say, not the defaults it inherits.
    let fixtures: Vec<&Labelled> = texts
        .iter()
        .filter(|t| t.visibility == Visibility::Harness && t.prose && written_in(case, t.text.span))
        .collect();
    records::check(case, &answers, &fixtures, db, own);
}

/// Prose hygiene over a run: each literal once, the stdlib's never (authors cannot fix
/// it, and its own tests keep it clean).
#[derive(Default)]
struct Hygiene {
    seen: SpanSet,
}

impl Hygiene {
    fn check(
        &mut self,
        suite: &Suite,
        labelled: &Labelled,
        db: &SourceDb,
        out: &mut Vec<Diagnostic>,
    ) {
        let text = labelled.text.as_ref();
        if db.file(text.span.file).origin == Origin::Stdlib || !self.seen.insert(text.span) {
            return;
        }
        prose::check(text, db, declared_field(suite, labelled.field), out);
    }
}

/// The shape's declaration of the field `key` (a case field, else a suite field).
fn declared_field<'s>(suite: &'s Suite, key: &str) -> Option<&'s FieldDecl> {
    let shape = &suite.shape;
    shape
        .case_fields
        .iter()
        .chain(&shape.suite_fields)
        .find(|f| f.key.as_str() == key)
}

/// Whether `span` was written inside the case's own block.
fn written_in(case: &Case, span: Span) -> bool {
    span.file == case.extent.file && case.extent.start <= span.start && span.end <= case.extent.end
}

/// The texts among `texts` that `keep` keeps and that were written in the case itself,
/// each once (a derived check's requirement is also its field's text).
fn written_texts<'t>(
    case: &Case,
    texts: &'t [Labelled],
    keep: impl Fn(&Labelled) -> bool,
) -> Vec<&'t Text> {
    let mut seen = SpanSet::default();
    texts
        .iter()
        .filter(|t| keep(t) && written_in(case, t.text.span) && seen.insert(t.text.span))
        .map(|t| t.text.as_ref())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Compilation;

    /// A suite that breaks rules in every case, as the generator makes them.
    fn rule_breaking_suite(cases: usize) -> Compilation {
        let mut db = SourceDb::new();
        let master = casec_corpus::generate_master(cases, 7);
        let file = db.add("master.json", master, Origin::User);
        let files = crate::import::import(&db, file).expect("the generated master imports");
        Compilation::new(crate::Config {
            sources: crate::Sources::in_memory(files),
            depth: crate::Depth::Resolve,
            recheck: None,
        })
    }

    /// Workers take batches of cases, each with a leak guard that has seen some earlier
    /// batches: what a case reports must not depend on what its guard saw before.
    #[test]
    fn checking_cases_in_batches_reports_what_checking_them_together_does() {
        let compilation = rule_breaking_suite(120);
        let suite = compilation.suite.as_ref().expect("the suite resolves");
        let db = &compilation.db;
        let suite_hidden = leak::SuiteHidden::of(suite);
        let cx = Cx {
            suite,
            db,
            stopped: Stopped::new(&compilation.diagnostics),
            hidden: suite_hidden.prepare(suite),
        };
        let mut guard = leak::Guard::default();
        let together: Vec<Diagnostic> = suite
            .cases
            .iter()
            .flat_map(|case| check_own(case, &case_texts(suite, case), &cx, &mut guard))
            .collect();
        assert!(together.len() > 100, "the corpus breaks rules");
        for (batch, workers) in [(1, 1), (7, 1), (7, 2), (64, 3)] {
            let mut guards: Vec<leak::Guard> =
                (0..workers).map(|_| leak::Guard::default()).collect();
            let split: Vec<Diagnostic> = suite
                .cases
                .chunks(batch)
                .enumerate()
                .flat_map(|(k, cases)| {
                    let guard = &mut guards[k % workers];
                    cases
                        .iter()
                        .flat_map(|case| check_own(case, &case_texts(suite, case), &cx, guard))
                        .collect::<Vec<_>>()
                })
                .collect();
            assert_eq!(split, together, "batches of {batch} on {workers} workers");
        }
    }
}
