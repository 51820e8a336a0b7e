//! The hidden side: every text of a suite that only the harness or the evaluator may
//! read, with what it is and whose it is.
//!
//! Names are left out on purpose: an override's tool is one the case offers, and check
//! ids and dimensions are identifiers, not secrets. Texts inherited by many cases (the
//! pass rule, the harness defaults) are one text written once; they are kept once, with
//! the number of cases that share them, so a leak of one is reported once.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::model::{Case, Data, Suite, Text};
use crate::source::Span;

/// A hidden text, what it is, and the cases it belongs to (none for the suite's own).
#[derive(Clone, Debug)]
pub struct Hidden {
    pub text: Text,
    pub what: String,
    /// The first case that has this text, and how many cases have it.
    case: Option<Arc<str>>,
    cases: usize,
    /// The indices (in the suite's case order) of the cases that have it; none for the
    /// suite's own, which every case has.
    pub holders: Vec<usize>,
}

impl Hidden {
    /// "fixture facts of case TUJ-011", "pass rule shared by 100 cases", …
    pub fn describe(&self) -> String {
        match (&self.case, self.cases) {
            (None, _) => format!("the suite's {}", self.what),
            (Some(id), 1) => format!("{} of case {id}", self.what),
            (Some(_), n) => format!("{} shared by {n} cases", self.what),
        }
    }
}

/// Collects hidden texts, keeping each written text (span and value) once.
#[derive(Default)]
struct Collector {
    texts: Vec<Hidden>,
    seen: HashMap<(Span, Arc<str>), Seen>,
}

/// A collected text: its index in `texts` and the last case that added it, so that a
/// text a case holds twice (the need as check R1) counts that case once.
struct Seen {
    index: usize,
    last_case: Option<usize>,
}

/// A case as the collector sees it: its index and id.
type Owner<'c> = Option<(usize, &'c Arc<str>)>;

impl Collector {
    /// Adds a text of `case` (or of the suite, for `None`).
    fn add(&mut self, text: &Text, what: impl Into<String>, case: Owner) {
        let key = (text.span, text.value.clone());
        let index = case.map(|(i, _)| i);
        if let Some(seen) = self.seen.get_mut(&key) {
            if let Some(i) = index.filter(|&i| seen.last_case != Some(i)) {
                let hidden = &mut self.texts[seen.index];
                hidden.cases += 1;
                hidden.holders.push(i);
                seen.last_case = Some(i);
            }
            return;
        }
        let seen = Seen {
            index: self.texts.len(),
            last_case: index,
        };
        self.seen.insert(key, seen);
        self.texts.push(Hidden {
            text: text.clone(),
            what: what.into(),
            case: case.map(|(_, id)| id.clone()),
            cases: usize::from(case.is_some()),
            holders: index.into_iter().collect(),
        });
    }

    fn data(&mut self, data: &Data, what: &str) {
        let mut strings = Vec::new();
        strings_of(&data.value, &mut strings);
        for s in strings {
            self.add(&Text::new(s, data.span), what, None);
        }
    }
}

/// Every hidden text of the suite and its cases, in a fixed order: the suite's, then
/// each case's in case order.
pub fn hidden_texts(suite: &Suite) -> Vec<Hidden> {
    let mut c = Collector::default();
    suite_texts(suite, &mut c);
    for (i, case) in suite.cases.iter().enumerate() {
        case_texts(i, case, &mut c);
    }
    c.texts
}

/// The suite's own hidden texts, with what each is: those every case has.
pub fn suite_hidden_texts(suite: &Suite) -> Vec<(String, Text)> {
    let mut c = Collector::default();
    suite_texts(suite, &mut c);
    c.texts.into_iter().map(|h| (h.what, h.text)).collect()
}

fn suite_texts(suite: &Suite, c: &mut Collector) {
    for t in &suite.global_critical_failures {
        c.add(t, "global critical failure", None);
    }
    let s = &suite.scoring;
    let scoring = s
        .case_outcomes
        .iter()
        .chain([
            &s.official_complete_run,
            &s.overall_pass_rate,
            &s.incomplete_run_reporting,
            &s.category_pass_rate,
            &s.human_review,
        ])
        .chain(&s.required_reporting);
    for t in scoring {
        c.add(t, "scoring rule", None);
    }
    c.data(&s.result_record_template, "result record template");
    for note in &suite.revision_notes {
        c.add(&note.change, "revision note", None);
    }
}

fn case_texts(index: usize, case: &Case, c: &mut Collector) {
    let id = Some((index, &case.id.value));
    c.add(&case.title, "title", id);
    c.add(&case.facts, "fixture facts", id);
    if let Some(o) = &case.tool_override {
        c.add(&o.matches, "tool override match", id);
        c.add(&o.result, "tool override result", id);
        for t in o.side_effect.iter() {
            c.add(t, "tool override side effect", id);
        }
        for t in o.verification.iter() {
            c.add(t, "tool override verification", id);
        }
    }
    c.add(&case.tool_behavior, "default tool behavior", id);
    if let Some(f) = &case.followup {
        c.add(&f.when_asked, "follow-up question", id);
        c.add(&f.reply, "follow-up reply", id);
    }
    c.add(&case.unscripted_reply, "unscripted reply", id);
    c.add(&case.ground_truth_policy, "ground-truth policy", id);
    c.add(&case.need, "expected need", id);
    for check in &case.checks {
        let check_id = check.id.as_str();
        c.add(&check.requirement, format!("check {check_id}"), id);
        c.add(&check.evidence, format!("check {check_id} evidence"), id);
    }
    for t in &case.critical_failures {
        c.add(t, "critical failure", id);
    }
    c.add(&case.pass_rule, "pass rule", id);
    c.add(&case.final_state, "expected final state", id);
}

/// Every string in a JSON value, keys included.
fn strings_of(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings_of(v, out)),
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                strings_of(v, out);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}
