//! The hidden side: every text of a suite that only the harness or the evaluator may
//! read, with what it is and whose it is.
//!
//! Names are left out on purpose: an override's tool is one the case offers, and check
//! ids and dimensions are identifiers, not secrets. Texts inherited by many cases (the
//! pass rule, the harness defaults) are one text written once; they are kept once, with
//! the number of cases that share them, so a leak of one is reported once.

use std::collections::HashMap;

use arcstr::ArcStr;

use crate::model::texts::{case_texts, suite_texts};
use crate::model::{Suite, Text};
use crate::source::Span;

/// A hidden text, what it is, and the cases it belongs to (none for the suite's own).
#[derive(Clone, Debug)]
pub struct Hidden {
    pub text: Text,
    pub what: String,
    /// The first case that has this text.
    case: Option<ArcStr>,
    /// The indices (in the suite's case order) of the cases that have it; none for the
    /// suite's own, which every case has.
    pub holders: Vec<usize>,
}

impl Hidden {
    /// "fixture facts of case TUJ-011", "pass rule shared by 100 cases", …
    pub fn describe(&self) -> String {
        match (&self.case, self.holders.len()) {
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
    seen: HashMap<(Span, ArcStr), Seen>,
}

/// A collected text: its index in `texts` and the last case that added it, so that a
/// text a case holds twice (the need as check R1) counts that case once.
struct Seen {
    index: usize,
    last_case: Option<usize>,
}

/// A case as the collector sees it: its index and id.
type Owner<'c> = Option<(usize, &'c ArcStr)>;

impl Collector {
    /// Adds a text of `case` (or of the suite, for `None`).
    fn add(&mut self, text: &Text, what: impl Into<String>, case: Owner) {
        let key = (text.span, text.value.clone());
        let index = case.map(|(i, _)| i);
        if let Some(seen) = self.seen.get_mut(&key) {
            if let Some(i) = index.filter(|&i| seen.last_case != Some(i)) {
                self.texts[seen.index].holders.push(i);
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
            holders: index.into_iter().collect(),
        });
    }
}

/// Every hidden text of the suite and its cases, in a fixed order: the suite's, then
/// each case's in case order. Hidden is what the shape declares `harness` or
/// `evaluator` (and case titles); identifiers are not texts here.
pub fn hidden_texts(suite: &Suite) -> Vec<Hidden> {
    let mut c = Collector::default();
    add_suite_texts(suite, &mut c);
    for (i, case) in suite.cases.iter().enumerate() {
        let owner = Some((i, &case.id.value));
        for labelled in case_texts(suite, case) {
            if labelled.visibility.hidden() && labelled.prose {
                c.add(&labelled.text, labelled.describe(), owner);
            }
        }
    }
    c.texts
}

/// The suite's own hidden texts, with what each is: those every case has.
pub fn suite_hidden_texts(suite: &Suite) -> Vec<(String, Text)> {
    let mut c = Collector::default();
    add_suite_texts(suite, &mut c);
    c.texts.into_iter().map(|h| (h.what, h.text)).collect()
}

fn add_suite_texts(suite: &Suite, c: &mut Collector) {
    for labelled in suite_texts(suite) {
        if labelled.visibility.hidden() && labelled.prose {
            c.add(&labelled.text, labelled.describe(), None);
        }
    }
}
