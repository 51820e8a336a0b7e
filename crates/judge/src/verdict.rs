//! Reading a judge's answer, failing closed: anything but one clear verdict is an
//! error with the reason, and the item stays for review.
//!
//! The answer is an OpenAI chat-completions response; the verdict is the content of
//! its message, a JSON object `{"met": bool, "reason": str}` (alone, or in one fenced
//! code block). No choice, a refusal, a truncated answer, content that is not such an
//! object, a `met` given twice with two values, or choices that disagree: each is
//! refused with what was wrong.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::Value as Json;

/// A judge's verdict on one review item: whether it is met, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemVerdict {
    pub met: bool,
    pub reason: String,
}

/// The verdict of a chat-completions response body.
pub fn from_response(body: &str) -> Result<ItemVerdict, String> {
    let response: Json = serde_json::from_str(body)
        .map_err(|e| format!("the endpoint's answer is not JSON: {e}"))?;
    let choices = response
        .get("choices")
        .and_then(Json::as_array)
        .filter(|c| !c.is_empty())
        .ok_or("the endpoint's answer has no choices")?;
    let mut found: Option<ItemVerdict> = None;
    for choice in choices {
        let verdict = from_choice(choice)?;
        match &found {
            Some(first) if first.met != verdict.met => {
                return Err("the endpoint's choices contradict each other".into())
            }
            Some(_) => {}
            None => found = Some(verdict),
        }
    }
    found.ok_or_else(|| "the endpoint's answer has no choices".into())
}

fn from_choice(choice: &Json) -> Result<ItemVerdict, String> {
    from_content(crate::runtime::person::choice_content(choice, "the judge")?)
}

/// The verdict in a message's text.
pub fn from_content(content: &str) -> Result<ItemVerdict, String> {
    let text = crate::runtime::person::unfenced(content.trim());
    if text.is_empty() {
        return Err("the judge gave no verdict (empty content)".into());
    }
    let raw: Raw = serde_json::from_str(text).map_err(|e| {
        format!("the judge's verdict is not a JSON object {{\"met\": bool, \"reason\": str}}: {e}")
    })?;
    match (raw.met.as_slice(), raw.reason) {
        ([], _) => Err("the judge's verdict has no boolean `met`".into()),
        ([met, rest @ ..], _) if rest.iter().any(|m| m != met) => Err(
            "the judge's verdict contradicts itself (`met` given twice, with two values)".into(),
        ),
        (_, None) => Err("the judge's verdict has no string `reason`".into()),
        ([met, ..], Some(reason)) => Ok(ItemVerdict { met: *met, reason }),
    }
}

/// A verdict object as written: every `met` it gives (to find a contradiction that a
/// map would hide), its reason, and no other key.
struct Raw {
    met: Vec<bool>,
    reason: Option<String>,
}

impl<'de> Deserialize<'de> for Raw {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Raw, D::Error> {
        deserializer.deserialize_map(RawVisitor)
    }
}

struct RawVisitor;

impl<'de> Visitor<'de> for RawVisitor {
    type Value = Raw;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object with `met` and `reason`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Raw, A::Error> {
        let mut raw = Raw {
            met: Vec::new(),
            reason: None,
        };
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "met" => raw.met.push(map.next_value()?),
                "reason" => {
                    let reason: String = map.next_value()?;
                    if raw.reason.replace(reason).is_some() {
                        return Err(de::Error::custom("`reason` given twice"));
                    }
                }
                other => return Err(de::Error::custom(format!("unknown key `{other}`"))),
            }
        }
        Ok(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(content: &str) -> String {
        serde_json::json!({ "choices": [{ "message": { "role": "assistant", "content": content }, "finish_reason": "stop" }] }).to_string()
    }

    #[test]
    fn a_clear_verdict_is_read() {
        let v = from_response(&response(r#"{"met": true, "reason": "it books 14:00"}"#));
        assert_eq!(
            v,
            Ok(ItemVerdict {
                met: true,
                reason: "it books 14:00".into()
            })
        );
        let fenced = "```json\n{\"met\": false, \"reason\": \"no\"}\n```";
        assert_eq!(from_content(fenced).map(|v| v.met), Ok(false));
    }

    #[test]
    fn anything_else_fails_closed() {
        for bad in [
            "",
            "yes",
            "{\"met\": \"true\", \"reason\": \"\"}",
            "{\"met\": true}",
            "{\"reason\": \"x\"}",
            "{\"met\": true, \"met\": false, \"reason\": \"x\"}",
            "{\"met\": true, \"reason\": \"x\", \"confidence\": 1}",
            "[true]",
            "```\n{\"met\": true, \"reason\": \"a\"}\n```\n```\n{}\n```",
        ] {
            assert!(from_content(bad).is_err(), "accepted {bad:?}");
        }
        for body in [
            "not json",
            "{}",
            r#"{"choices": []}"#,
            r#"{"choices": [{"message": {"refusal": "no", "content": null}}]}"#,
            r#"{"choices": [{"message": {"content": "{\"met\": true, \"reason\": \"a\"}"}, "finish_reason": "length"}]}"#,
            r#"{"choices": [{"message": {"content": "{\"met\": true, \"reason\": \"a\"}"}}, {"message": {"content": "{\"met\": false, \"reason\": \"b\"}"}}]}"#,
        ] {
            assert!(from_response(body).is_err(), "accepted {body}");
        }
    }
}
