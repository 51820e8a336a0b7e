//! Calibration: how well a judge agrees with the suite's labelled runs.
//!
//! A golden trace is a positive for every item it leaves for review (each check met, no
//! critical failure committed); a counter-example's `violates` label makes each item it
//! names a negative (the check not met, the critical failure committed). The judge's
//! answers are compared with the labels per item id (R1, C1, GF2 … across cases), per
//! dimension (critical failures as one group) and overall: accuracy, balanced accuracy
//! and Cohen's κ, with a violation as the positive class. An item the judge leaves
//! without a verdict counts as a wrong answer, so a silent judge never looks
//! calibrated. The report lists every disagreement and every case without a negative.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{json, Value as Json};

use crate::diag::Diagnostic;
use crate::model::{Case, Suite};
use crate::runtime::replay::{findings, result_record, run};
use crate::runtime::trace::TraceEvent;
use crate::runtime::trace_files::{counter_examples, golden_path, read_counter, read_trace};
use crate::source::SourceDb;

use super::{review_items, Item, ItemKind, Judgement};

/// A run with labels: a golden trace or a labelled counter-example, replayed.
pub struct LabelledRun<'a> {
    pub case: &'a Case,
    /// `golden`, or the counter-example's label.
    pub name: String,
    pub record: Json,
    /// `None` for the golden run; else the items its labels name.
    pub violates: Option<Vec<String>>,
}

/// The labelled runs of every case with a world (`case_file` gives the file each case
/// was read from): the golden trace when there is one, then each counter-example with a
/// label, in label order. Traces are read into `db`; one that does not parse adds its
/// diagnostics and is left out.
pub fn labelled_runs<'a>(
    suite: &'a Suite,
    case_file: &dyn Fn(&Case) -> PathBuf,
    db: &mut SourceDb,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<LabelledRun<'a>> {
    let mut runs = Vec::new();
    for case in &suite.cases {
        let Some(sandbox) = &case.sandbox else {
            continue;
        };
        let case_file = case_file(case);
        let replayed = |events: &[TraceEvent]| {
            let rt = run(suite, case, sandbox, events);
            result_record(suite, &rt, &findings(&rt))
        };
        let golden = golden_path(&case_file, case.id.as_str());
        if golden.is_file() {
            match read_trace(db, &golden) {
                Ok(events) => runs.push(LabelledRun {
                    case,
                    name: "golden".into(),
                    record: replayed(&events),
                    violates: None,
                }),
                Err(found) => diagnostics.extend(found),
            }
        }
        for (label, path) in counter_examples(&case_file, case.id.as_str()) {
            match read_counter(db, &path) {
                Ok((_, labels)) if labels.is_empty() => {}
                Ok((events, labels)) => runs.push(LabelledRun {
                    case,
                    name: label,
                    record: replayed(&events),
                    violates: Some(labels.into_iter().flat_map(|l| l.items).collect()),
                }),
                Err(found) => diagnostics.extend(found),
            }
        }
    }
    runs
}

/// The review items of one run with the verdict its label expects (`met` in the
/// judge's sense): every item of a golden run (`violated` is `None`), or the items a
/// counter-example's labels name.
pub fn labelled<'a>(
    suite: &'a Suite,
    case: &'a Case,
    record: &Json,
    violated: Option<&[String]>,
) -> Vec<(Item<'a>, bool)> {
    review_items(suite, case, record)
        .into_iter()
        .filter_map(|item| {
            let critical = item.kind == ItemKind::CriticalFailure;
            match violated {
                None => Some((item, !critical)),
                Some(ids) => ids.contains(&item.id).then_some((item, critical)),
            }
        })
        .collect()
}

/// One labelled item of one run, as judged.
#[derive(Clone, Debug)]
pub struct Sample {
    pub case: String,
    /// `golden`, or the counter-example's label.
    pub run: String,
    pub item: String,
    /// The check's dimension, or `critical` for a critical failure.
    pub group: String,
    pub kind: ItemKind,
    pub expected: bool,
    pub judgement: Judgement,
}

impl Sample {
    fn violation(&self, met: bool) -> bool {
        match self.kind {
            ItemKind::Check => !met,
            ItemKind::CriticalFailure => met,
        }
    }

    /// Whether the label says the run violates the item.
    fn labelled_violation(&self) -> bool {
        self.violation(self.expected)
    }

    /// Whether the judge says so; an item without a verdict is taken as the opposite of
    /// its label.
    fn judged_violation(&self) -> bool {
        match self.judgement.met {
            Some(met) => self.violation(met),
            None => !self.labelled_violation(),
        }
    }

    fn agrees(&self) -> bool {
        self.judgement.met == Some(self.expected)
    }
}

/// Agreement of a set of samples with their labels.
#[derive(Clone, Debug, PartialEq)]
pub struct Agreement {
    pub samples: usize,
    pub negatives: usize,
    pub unjudged: usize,
    pub accuracy: Option<f64>,
    pub balanced_accuracy: Option<f64>,
    /// `None` when chance agreement is total (one class only, on both sides).
    pub kappa: Option<f64>,
}

pub fn agreement<'a>(samples: impl IntoIterator<Item = &'a Sample>) -> Agreement {
    // [labelled violation][judged violation]
    let mut table = [[0usize; 2]; 2];
    let mut unjudged = 0;
    for s in samples {
        table[usize::from(s.labelled_violation())][usize::from(s.judged_violation())] += 1;
        unjudged += usize::from(s.judgement.met.is_none());
    }
    let n = table.iter().flatten().sum::<usize>();
    let ratio = |a: usize, b: usize| (b > 0).then(|| a as f64 / b as f64);
    let accuracy = ratio(table[0][0] + table[1][1], n);
    let recalls: Vec<f64> = [
        ratio(table[1][1], table[1][0] + table[1][1]),
        ratio(table[0][0], table[0][0] + table[0][1]),
    ]
    .into_iter()
    .flatten()
    .collect();
    let balanced_accuracy =
        (!recalls.is_empty()).then(|| recalls.iter().sum::<f64>() / recalls.len() as f64);
    let kappa = accuracy.and_then(|observed| {
        let n = n as f64;
        let labelled = (table[1][0] + table[1][1]) as f64 / n;
        let judged = (table[0][1] + table[1][1]) as f64 / n;
        let chance = labelled * judged + (1.0 - labelled) * (1.0 - judged);
        (chance < 1.0).then(|| (observed - chance) / (1.0 - chance))
    });
    Agreement {
        samples: n,
        negatives: table[1][0] + table[1][1],
        unjudged,
        accuracy,
        balanced_accuracy,
        kappa,
    }
}

impl Agreement {
    pub fn to_json(&self) -> Json {
        let round = |x: Option<f64>| x.map(|x| (x * 10_000.0).round() / 10_000.0);
        json!({
            "samples": self.samples,
            "negatives": self.negatives,
            "unjudged": self.unjudged,
            "accuracy": round(self.accuracy),
            "balanced_accuracy": round(self.balanced_accuracy),
            "kappa": round(self.kappa),
        })
    }
}

/// The calibration report: overall, per item id and per group, the disagreements, and
/// the cases with review items but no labelled negative (in the order of `samples`).
pub fn report(samples: &[Sample]) -> Json {
    let mut by_item: BTreeMap<&str, Vec<&Sample>> = BTreeMap::new();
    let mut by_group: BTreeMap<&str, Vec<&Sample>> = BTreeMap::new();
    for s in samples {
        by_item.entry(&s.item).or_default().push(s);
        by_group.entry(&s.group).or_default().push(s);
    }
    let table = |groups: BTreeMap<&str, Vec<&Sample>>| -> Json {
        groups
            .into_iter()
            .map(|(k, v)| (k.to_string(), agreement(v).to_json()))
            .collect::<serde_json::Map<_, _>>()
            .into()
    };
    let disagreements: Vec<Json> = samples
        .iter()
        .filter(|s| !s.agrees())
        .map(|s| {
            json!({
                "case": s.case,
                "run": s.run,
                "item": s.item,
                "expected_met": s.expected,
                "judged_met": s.judgement.met,
                "reason": s.judgement.reason,
            })
        })
        .collect();
    // Case → whether it has a negative, with the cases in the order first seen.
    let mut negative: BTreeMap<&str, bool> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for s in samples {
        let has = negative.entry(&s.case).or_insert_with(|| {
            order.push(&s.case);
            false
        });
        *has |= s.labelled_violation();
    }
    let without_negative: Vec<&str> = order.into_iter().filter(|c| !negative[c]).collect();
    json!({
        "overall": agreement(samples).to_json(),
        "per_item": table(by_item),
        "per_group": table(by_group),
        "disagreements": disagreements,
        "cases_without_negative": without_negative,
    })
}
