//! The reward file an exported evaluator writes (`evaluator "…" { reward KEY VALUE … }`
//! in a shape's folder export): each declared key computed from a run's result record,
//! as [`report`](super::report) reads it, so the evaluator decides nothing itself.
//!
//! * `passed`: 1 when the run passed (every check passed by machine, nothing left for a
//!   reader, no critical failure), else 0: never 1 while anything is undecided;
//! * `share`: the share of the case's checks that passed, from 0 to 1 (a check left for
//!   a reader has not passed), `null` for a case without checks;
//! * a dimension: 1 when every check of that dimension passed, else 0; `null` for a case
//!   without one, or whose field the key's `if FIELD WORD` names lacks the word.

use serde_json::{json, Map, Value as Json};

use crate::model::shape::{Kind, Reward, RewardValue, Verdict};
use crate::model::{Case, Suite};

use super::replay::Status;
use super::report::ResultRecord;

/// The reward file's object: the declared keys, in their order.
pub fn reward(suite: &Suite, case: &Case, record: &ResultRecord, rewards: &[Reward]) -> Json {
    let mut out = Map::new();
    for reward in rewards {
        let applies = reward
            .only_if
            .as_ref()
            .is_none_or(|(field, word)| holds_word(suite, case, field.as_str(), word.as_str()));
        let value = if applies {
            value(suite, record, &reward.value)
        } else {
            Json::Null
        };
        out.insert(reward.key.as_str().to_string(), value);
    }
    Json::Object(out)
}

fn value(suite: &Suite, record: &ResultRecord, value: &RewardValue) -> Json {
    let passed = |status: &str| status == Status::Pass.as_str();
    match value {
        RewardValue::Passed => json!(u8::from(record.verdict == Verdict::Passed)),
        RewardValue::Share => {
            let total = record.checks.len();
            let passing = record.checks.iter().filter(|(_, s)| passed(s)).count();
            if total == 0 {
                Json::Null
            } else {
                json!(passing as f64 / total as f64)
            }
        }
        RewardValue::Dimension(name) => {
            let grading = &suite.shape.grading;
            let mut of_dimension = record.checks.iter().filter(|(id, _)| {
                grading
                    .dimension_of_id(id)
                    .is_some_and(|d| d.name.as_str() == name.as_str())
            });
            let Some(first) = of_dimension.next() else {
                return Json::Null;
            };
            let all = passed(&first.1) && of_dimension.all(|(_, s)| passed(s));
            json!(u8::from(all))
        }
    }
}

/// Whether the case's field `field` (a `names`, `text` or `category` field, as the
/// shape's reader allows) holds `word`: one of its names, or its text.
fn holds_word(suite: &Suite, case: &Case, field: &str, word: &str) -> bool {
    let fields = &suite.shape.case_fields;
    let Some(id) = fields.iter().position(|f| f.key.as_str() == field) else {
        return false;
    };
    if fields[id].kind == Kind::Category {
        return case.category.as_ref().is_some_and(|c| c.as_str() == word);
    }
    case.value(id)
        .is_some_and(|v| v.texts().iter().any(|t| t.as_str() == word))
}
