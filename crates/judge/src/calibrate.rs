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
//! A report can then gate a judge ([`Gate`]): only the items it agrees on beyond a κ
//! threshold are decided by its verdicts; the others stay for review.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde_json::{json, Value as Json};

use crate::diag::{codes, Diagnostic};
use crate::model::{Case, Suite};
use crate::runtime::replay::{findings, play, result_record};
use crate::runtime::trace::TraceEvent;
use crate::runtime::trace_files::{
    counter_examples, golden_path, observed, read_counter_of, read_trace, Found,
};
use crate::runtime::trust::Trust;
use crate::runtime::Runtime;
use crate::source::{FileId, SourceDb, Span};

use super::{review_items, Item, ItemKind, Judgement, VerdictSource};

/// A run with labels: a golden trace or a labelled counter-example, replayed.
pub struct LabelledRun<'a> {
    pub case: &'a Case,
    /// `golden`, the counter-example's label, or `observed-<NAME>` for an observed
    /// conversation a reviewer labelled.
    pub name: String,
    pub record: Json,
    /// `None` for the golden run; else the items its labels name.
    pub violates: Option<Vec<String>>,
}

/// The labelled runs of every case with a world (`case_file` gives the file each case
/// was read from): the golden trace when there is one, then each counter-example with a
/// label, in label order; then each observed conversation of the suite (its `observed/`
/// folder) that a reviewer labelled, replayed against each case a label names, with
/// those labels. Traces are read into `db`; one that does not parse adds its
/// diagnostics and is left out. The suite's programs run as `trust` allows.
pub fn labelled_runs<'a>(
    suite: &'a Suite,
    case_file: &dyn Fn(&Case) -> PathBuf,
    trust: Trust,
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
            let rt = play(Runtime::new(suite, case, sandbox).trusting(trust), events);
            result_record(suite, &rt, &findings(&rt))
        };
        let golden = golden_path(&case_file, case.id.as_str());
        if golden.is_file() {
            match read_trace(db, &golden, Found::BesideCase(&case_file)) {
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
            match read_counter_of(db, &path, &case_file, case.id.as_str()) {
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
    if let Some(root) = &suite.root {
        runs.extend(observed_runs(suite, root, trust, db, diagnostics));
    }
    runs
}

/// The observed conversations a reviewer labelled, one run per case a label names.
fn observed_runs<'a>(
    suite: &'a Suite,
    root: &std::path::Path,
    trust: Trust,
    db: &mut SourceDb,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<LabelledRun<'a>> {
    let conversations = match observed(db, root) {
        Ok(found) => found,
        Err(found) => {
            diagnostics.extend(found);
            return Vec::new();
        }
    };
    let mut runs = Vec::new();
    for conversation in conversations {
        let mut graded: Vec<&str> = Vec::new();
        for id in conversation.labels.iter().filter_map(|l| l.case.as_deref()) {
            if !graded.contains(&id) {
                graded.push(id);
            }
        }
        for id in graded {
            let found = suite.cases.iter().find(|c| c.id.as_str() == id);
            let Some((case, sandbox)) = found.and_then(|c| Some((c, c.sandbox.as_ref()?))) else {
                let span = conversation
                    .labels
                    .iter()
                    .find(|l| l.case.as_deref() == Some(id))
                    .map(|l| l.span);
                diagnostics.push(
                    Diagnostic::new(
                        codes::TRACE_LINE,
                        format!("the label names `{id}`, no case with a world"),
                    )
                    .primary(
                        span.unwrap_or(Span::new(conversation.file, 0..0)),
                        "in this observed conversation",
                    )
                    .help("name a case of the suite that has a `world`"),
                );
                continue;
            };
            let rt = play(
                Runtime::new(suite, case, sandbox).trusting(trust),
                &conversation.events,
            );
            runs.push(LabelledRun {
                case,
                name: format!("observed-{}", conversation.name),
                record: result_record(suite, &rt, &findings(&rt)),
                violates: Some(
                    conversation
                        .labels
                        .iter()
                        .filter(|l| l.case.as_deref() == Some(id))
                        .flat_map(|l| l.items.clone())
                        .collect(),
                ),
            });
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
    /// `golden`, the counter-example's label, or `observed-<NAME>`.
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
        // Four decimals; a negative zero (a kappa of -0.0) is 0.
        let round = |x: Option<f64>| x.map(|x| (x * 10_000.0).round() / 10_000.0 + 0.0);
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

/// Which items a judge may decide: those its calibration shows it agrees on. An item id
/// gates when the calibration report judged it on at least one negative and one
/// positive, left none without a verdict, and reached Cohen's κ of at least `min_kappa`.
#[derive(Clone, Debug)]
pub struct Gate {
    /// The item ids that gate.
    gating: BTreeSet<String>,
    /// Item id → why it does not gate.
    refused: BTreeMap<String, String>,
    /// The judge model and prompt version the calibration was made with.
    pub model: String,
    pub prompt_version: String,
}

impl Gate {
    /// The gate of a calibration report (`casec calibrate --format json`).
    pub fn from_report(report: &Json, min_kappa: f64) -> Result<Gate, String> {
        let setting = |key: &str| {
            report
                .pointer(&format!("/settings/{key}"))
                .and_then(Json::as_str)
                .map(str::to_string)
                .ok_or_else(|| format!("no `settings.{key}`: not a report of `casec calibrate`"))
        };
        let per_item = report
            .get("per_item")
            .and_then(Json::as_object)
            .ok_or("no `per_item`: not a report of `casec calibrate`")?;
        let (mut gating, mut refused) = (BTreeSet::new(), BTreeMap::new());
        for (item, a) in per_item {
            let count = |key: &str| a.get(key).and_then(Json::as_u64).unwrap_or(0);
            let kappa = a.get("kappa").and_then(Json::as_f64);
            let why = if count("negatives") == 0 {
                Some("no labelled negative".to_string())
            } else if count("negatives") == count("samples") {
                Some("no labelled positive".to_string())
            } else if count("unjudged") > 0 {
                Some(format!("{} sample(s) without a verdict", count("unjudged")))
            } else {
                match kappa {
                    Some(k) if k >= min_kappa => None,
                    Some(k) => Some(format!("κ {k:.2} is below {min_kappa:.2}")),
                    None => Some("no κ".to_string()),
                }
            };
            match why {
                Some(why) => {
                    refused.insert(item.clone(), why);
                }
                None => {
                    gating.insert(item.clone());
                }
            }
        }
        Ok(Gate {
            gating,
            refused,
            model: setting("model")?,
            prompt_version: setting("prompt_version")?,
        })
    }

    /// Leaves a judge's (or the cache's) verdict on an item the judge is not calibrated
    /// on for review, saying why and what the judge said; a person's verdict stands.
    pub fn apply(&self, judgement: &mut Judgement) {
        if !matches!(
            judgement.source,
            Some(VerdictSource::Judge | VerdictSource::Cache)
        ) {
            return;
        }
        let Some(met) = judgement.met else {
            return;
        };
        if self.gating.contains(&judgement.item) {
            return;
        }
        let why = self
            .refused
            .get(&judgement.item)
            .cloned()
            .unwrap_or_else(|| "not in the calibration".to_string());
        judgement.reason = format!(
            "the judge is not calibrated on {} ({why}); it said met={met}: {}",
            judgement.item, judgement.reason
        );
        judgement.met = None;
        judgement.source = None;
    }
}

/// The gate of the calibration report `text` (file `file`) for a judge of `model`, or
/// the diagnostic that refuses it: not a report of `casec calibrate`, or a report of
/// another judge model or prompt version (its agreement says nothing of this judge).
pub fn read_gate(
    file: FileId,
    text: &str,
    model: &str,
    min_kappa: f64,
) -> Result<Gate, Diagnostic> {
    let whole = Span::new(file, 0..text.trim_end().len());
    let refuse = |why: String| {
        Diagnostic::new(codes::CALIBRATION, "this calibration cannot gate the judge")
            .primary(whole, why)
            .help("give the report `casec calibrate SUITE --format json` (or `-o FILE`) wrote for the same judge model and prompt version")
    };
    let report: Json = serde_json::from_str(text).map_err(|e| refuse(format!("not JSON: {e}")))?;
    let gate = Gate::from_report(&report, min_kappa).map_err(refuse)?;
    if gate.model != model {
        return Err(refuse(format!(
            "a calibration of `{}`, not of `{model}`",
            gate.model
        )));
    }
    if gate.prompt_version != super::prompt::PROMPT_VERSION {
        return Err(refuse(format!(
            "a calibration of prompt `{}`, not of `{}`",
            gate.prompt_version,
            super::prompt::PROMPT_VERSION
        )));
    }
    Ok(gate)
}
