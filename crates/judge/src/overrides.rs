//! A person's verdicts, which take precedence over the judge's: a JSON Lines file, one
//! verdict per line,
//!
//! ```text
//! {"case": "TUJ-021", "item": "R1", "met": true, "author": "ana", "reason": "…"}
//! {"case": "TUJ-021", "item": "F3", "met": false, "author": "ana", "reason": "…", "evidence": "blake3:…"}
//! ```
//!
//! `met` has the judge's meaning (a check met, a critical failure committed). Without
//! `evidence`, a verdict applies to every run of the case; with it (the
//! `evidence_digest` a judged record shows), only to runs with that evidence. Every
//! line is checked against the suite: a case it has, an item of that case, each
//! verdict given once. A judged record keeps the author and the reason.

use std::collections::HashMap;

use serde_json::{Map, Value as Json};

use crate::diag::{codes, Diagnostic};
use crate::model::Suite;
use crate::source::{nonblank_lines, FileId, Span};

/// One person's verdict on one item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Override {
    pub case: String,
    pub item: String,
    pub met: bool,
    pub author: String,
    pub reason: String,
    /// The evidence digest it is limited to.
    pub evidence: Option<String>,
}

/// Every override of a run of `casec judge`, by case and item.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    by_item: HashMap<(String, String), Vec<Override>>,
}

impl Overrides {
    /// The verdict for `item` of `case` judged on `evidence`: one limited to that
    /// evidence first, else one for every run.
    pub fn find(&self, case: &str, item: &str, evidence: &str) -> Option<&Override> {
        let given = self.by_item.get(&(case.to_string(), item.to_string()))?;
        given
            .iter()
            .find(|o| o.evidence.as_deref() == Some(evidence))
            .or_else(|| given.iter().find(|o| o.evidence.is_none()))
    }
}

const HELP: &str = "write one JSON object per line: {\"case\": ID, \"item\": ID, \"met\": true|false, \"author\": NAME, \"reason\": TEXT} (optionally \"evidence\": the evidence_digest of a judged record)";

/// Reads an override file against `suite`, or gives the diagnostics of every bad line.
pub fn read(file: FileId, text: &str, suite: &Suite) -> Result<Overrides, Vec<Diagnostic>> {
    let mut out = Overrides::default();
    let mut diags = Vec::new();
    for (span, line) in nonblank_lines(file, text) {
        match parse_line(line).and_then(|o| known(o, suite)) {
            Ok(o) => {
                let given = out
                    .by_item
                    .entry((o.case.clone(), o.item.clone()))
                    .or_default();
                if given.iter().any(|g| g.evidence == o.evidence) {
                    diags.push(
                        bad(span, format!("a second verdict on `{}` of `{}`", o.item, o.case))
                            .help("keep one verdict per item (and evidence digest): delete or merge the other line"),
                    );
                } else {
                    given.push(o);
                }
            }
            Err(why) => diags.push(bad(span, why).help(HELP)),
        }
    }
    if diags.is_empty() {
        Ok(out)
    } else {
        Err(diags)
    }
}

fn bad(span: Span, why: String) -> Diagnostic {
    Diagnostic::new(
        codes::JUDGE_OVERRIDE,
        "this line is not a verdict on an item of the suite",
    )
    .primary(span, why)
}

fn parse_line(line: &str) -> Result<Override, String> {
    let json: Json = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let Json::Object(object) = json else {
        return Err("a JSON value that is not an object".into());
    };
    const KEYS: [&str; 6] = ["case", "item", "met", "author", "reason", "evidence"];
    if let Some(extra) = object.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!("`{extra}` is not a key of a verdict"));
    }
    let text = |key: &str| -> Result<String, String> {
        match object.get(key) {
            Some(Json::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
            _ => Err(format!("no non-empty string `{key}`")),
        }
    };
    Ok(Override {
        case: text("case")?,
        item: text("item")?,
        met: object
            .get("met")
            .and_then(Json::as_bool)
            .ok_or("no boolean `met`")?,
        author: text("author")?,
        reason: text("reason")?,
        evidence: evidence(&object)?,
    })
}

fn evidence(object: &Map<String, Json>) -> Result<Option<String>, String> {
    match object.get("evidence") {
        None => Ok(None),
        Some(Json::String(s)) if s.starts_with("blake3:") => Ok(Some(s.clone())),
        Some(_) => Err("`evidence` is not an evidence digest (`blake3:…`)".into()),
    }
}

/// The override, if its case and item exist.
fn known(o: Override, suite: &Suite) -> Result<Override, String> {
    let Some(case) = suite.cases.iter().find(|c| c.id.as_str() == o.case) else {
        return Err(format!("`{}` is not a case of this suite", o.case));
    };
    let is_check = case.checks.iter().any(|c| c.id.as_str() == o.item);
    let is_critical = suite.criticals(case).iter().any(|c| c.id == o.item);
    if is_check || is_critical {
        Ok(o)
    } else {
        Err(format!(
            "`{}` is no check or critical failure of `{}`",
            o.item, o.case
        ))
    }
}
