//! The simulated person a case's assistant talks to (docs/people.md).
//!
//! Who the person is, what they want, know and keep to themselves, how they talk and
//! when they stop are the case's fields that the shape makes visible to the `person`
//! ([`Visibility::Person`]): a shape decides which exist. [`request`] builds the
//! request that asks a language model to play the person's next turn, deterministically,
//! from those fields and the conversation so far, and from nothing else: never a
//! check, a critical failure or an evaluator's text (the blinding proof checks every
//! case's person fields against them, as it checks bundles). [`parse_turn`] reads the
//! answer, failing closed: what the person says, what they privately think (never shown
//! to the assistant) and, when they end the conversation, why, how satisfied they are
//! (1 to 5) and their verdict in a sentence.
//!
//! A person's turns and ending are trace events (`user` with a `thought`, `end`), so a
//! golden trace holds the whole conversation and `casec verify` replays it without a
//! model; the result record carries the ending.

use serde_json::{json, Map, Value as Json};

use crate::model::shape::Visibility;
use crate::model::texts::case_texts;
use crate::model::{Case, Suite};

pub use crate::model::shape::{END_REASONS, PERSON_END_REASONS};

/// How a conversation ended, as the person (or the harness, at the turn limit) says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ending {
    /// One of [`END_REASONS`].
    pub reason: String,
    /// The person's satisfaction, 1 to 5 (none at the turn limit).
    pub satisfaction: Option<u8>,
    /// The person's verdict on the conversation, in a sentence.
    pub verdict: Option<String>,
}

impl Ending {
    /// The ending as the trace and the result record write it.
    pub fn to_json(&self) -> Json {
        json!({ "reason": self.reason, "satisfaction": self.satisfaction, "verdict": self.verdict })
    }

    /// An ending read from JSON (`reason`, optional `satisfaction` and `verdict`), or
    /// what is wrong with it.
    pub fn from_json(value: &Map<String, Json>) -> Result<Ending, String> {
        let reason = match value.get("reason").and_then(Json::as_str) {
            Some(reason) if END_REASONS.contains(&reason) => reason.to_string(),
            Some(other) => {
                return Err(format!(
                    "`{other}` is no end reason (one of: {})",
                    END_REASONS.join(", ")
                ))
            }
            None => return Err(format!("no `reason` (one of: {})", END_REASONS.join(", "))),
        };
        let satisfaction = match value.get("satisfaction") {
            None | Some(Json::Null) => None,
            Some(n) => Some(
                n.as_u64()
                    .filter(|n| (1..=5).contains(n))
                    .and_then(|n| u8::try_from(n).ok())
                    .ok_or("`satisfaction` is not a whole number from 1 to 5")?,
            ),
        };
        let verdict = match value.get("verdict") {
            None | Some(Json::Null) => None,
            Some(Json::String(v)) => Some(v.clone()),
            Some(_) => return Err("`verdict` is not a string".into()),
        };
        Ok(Ending {
            reason,
            satisfaction,
            verdict,
        })
    }
}

/// One turn of the person: what they say (none when they end without a word), what
/// they think, and whether they end the conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PersonTurn {
    pub message: Option<String>,
    pub thought: Option<String>,
    pub end: Option<Ending>,
}

/// One message of the conversation as the person sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Speaker {
    Person,
    Assistant,
}

/// The texts of a case the person reads, field by field: `(key, text)` in the shape's
/// order. Empty when the shape makes no field visible to the person.
pub fn person_fields<'a>(suite: &'a Suite, case: &'a Case) -> Vec<(&'a str, String)> {
    case_texts(suite, case)
        .into_iter()
        .filter(|t| t.visibility == Visibility::Person && !t.text.as_str().trim().is_empty())
        .map(|t| (t.field, t.text.as_str().to_string()))
        .collect()
}

/// Whether the case has a simulated person (a field the person reads).
pub fn has_person(suite: &Suite, case: &Case) -> bool {
    !person_fields(suite, case).is_empty()
}

const INSTRUCTIONS: &str = "You are playing a person who is talking to an AI assistant. Stay in character: write as this person would, in their voice and at their length, one message at a time. You know only what your sheet below says. Tell the assistant something you privately know only when it asks for it or when the person would naturally volunteer it; never invent facts beyond your sheet. Push back when the assistant does something you did not want, and say so plainly. End the conversation when the person would: your goal is met (goal_met), the assistant refused what you need (refused), handed you to someone else (transferred), cannot help with this (out_of_scope), or you give up (gave_up). Answer with one JSON object: {\"message\": what you say next (null only when you end without a word), \"thought\": what you privately think (the assistant never sees it), \"end\": null, or when you end {\"reason\": one of goal_met, refused, transferred, out_of_scope, gave_up, \"satisfaction\": 1 to 5, \"verdict\": your verdict in one sentence}}.";

/// The chat-completions request that asks `model` for the person's next turn, given
/// the conversation so far (the person's opening message first): temperature 0, `seed`,
/// the turn's JSON schema as the response format.
pub fn request(
    suite: &Suite,
    case: &Case,
    conversation: &[(Speaker, String)],
    model: &str,
    seed: u64,
) -> Json {
    let mut sheet = String::from("Your sheet:\n");
    for (field, text) in person_fields(suite, case) {
        sheet.push_str(&format!("\n## {field}\n{}\n", text.trim()));
    }
    let mut transcript = String::from("The conversation so far:\n");
    for (speaker, text) in conversation {
        let who = match speaker {
            Speaker::Person => "You",
            Speaker::Assistant => "Assistant",
        };
        transcript.push_str(&format!("\n{who}: {}\n", text.trim()));
    }
    transcript.push_str("\nWrite your next turn as the JSON object described.");
    json!({
        "model": model,
        "messages": [
            { "role": "system", "content": format!("{INSTRUCTIONS}\n\n{sheet}") },
            { "role": "user", "content": transcript },
        ],
        "temperature": 0,
        "seed": seed,
        "response_format": {
            "type": "json_schema",
            "json_schema": { "name": "casec_person_turn", "strict": true, "schema": turn_schema() }
        }
    })
}

/// The JSON schema of a person's turn.
fn turn_schema() -> Json {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["message", "thought", "end"],
        "properties": {
            "message": { "type": ["string", "null"] },
            "thought": { "type": ["string", "null"] },
            "end": {
                "anyOf": [
                    { "type": "null" },
                    {
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["reason", "satisfaction", "verdict"],
                        "properties": {
                            "reason": { "enum": PERSON_END_REASONS },
                            "satisfaction": { "type": "integer", "minimum": 1, "maximum": 5 },
                            "verdict": { "type": "string" },
                        },
                    },
                ]
            },
        },
    })
}

/// The person's turn in a model's answer: one JSON object, alone or in one fenced
/// block. Anything else is an error saying what is wrong: a harness ends the
/// conversation rather than make up a turn.
pub fn parse_turn(content: &str) -> Result<PersonTurn, String> {
    let text = unfenced(content.trim());
    let value: Json = serde_json::from_str(text)
        .map_err(|e| format!("the person's turn is not one JSON object: {e}"))?;
    let Json::Object(object) = value else {
        return Err("the person's turn is not a JSON object".into());
    };
    if let Some(extra) = object
        .keys()
        .find(|k| !["message", "thought", "end"].contains(&k.as_str()))
    {
        return Err(format!(
            "`{extra}` is not a key of a person's turn (message, thought, end)"
        ));
    }
    let text_of = |key: &str| match object.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Json::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("`{key}` is not a string")),
    };
    let message = text_of("message")?;
    let thought = text_of("thought")?;
    let end = match object.get("end") {
        None | Some(Json::Null) => None,
        Some(Json::Object(end)) => {
            let ending = Ending::from_json(end)?;
            if !PERSON_END_REASONS.contains(&ending.reason.as_str()) {
                return Err(format!(
                    "a person does not end with `{}` (one of: {})",
                    ending.reason,
                    PERSON_END_REASONS.join(", ")
                ));
            }
            Some(ending)
        }
        Some(_) => return Err("`end` is neither null nor an object".into()),
    };
    if message.is_none() && end.is_none() {
        return Err("the person neither says anything nor ends the conversation".into());
    }
    Ok(PersonTurn {
        message,
        thought,
        end,
    })
}

/// The person's turn in a chat-completions response body: the content of its first
/// choice's message, read by [`parse_turn`]. No choice, a refusal or a cut-off answer
/// is an error, as for the judge: the turn is never made up.
pub fn turn_from_response(body: &str) -> Result<(String, PersonTurn), String> {
    let response: Json = serde_json::from_str(body)
        .map_err(|e| format!("the endpoint's answer is not JSON: {e}"))?;
    let choice = response
        .get("choices")
        .and_then(Json::as_array)
        .and_then(|c| c.first())
        .ok_or("the endpoint's answer has no choices")?;
    let content = choice_content(choice, "the person model")?;
    parse_turn(content).map(|turn| (content.to_string(), turn))
}

/// The text content of one choice of a chat-completions answer from `who` (`the
/// judge`), or why there is none: no message, a refusal, an answer cut off.
pub fn choice_content<'c>(choice: &'c Json, who: &str) -> Result<&'c str, String> {
    let message = choice.get("message").ok_or("a choice has no message")?;
    if let Some(refusal) = message.get("refusal").and_then(Json::as_str) {
        return Err(format!("{who} refused: {refusal}"));
    }
    if choice.get("finish_reason").and_then(Json::as_str) == Some("length") {
        return Err(format!(
            "{who}'s answer was cut off (finish_reason `length`)"
        ));
    }
    message
        .get("content")
        .and_then(Json::as_str)
        .ok_or_else(|| format!("{who}'s message has no text content"))
}

/// The body of one fenced block (```json … ```), or the text itself: how a model's
/// JSON answer is read, the person's turn here and the judge's verdict alike.
pub fn unfenced(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let Some(body) = rest.strip_suffix("```") else {
        return text;
    };
    let body = body.strip_prefix("json").unwrap_or(body);
    if body.contains("```") {
        return text;
    }
    body.trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_is_read_or_refused_with_why() {
        let said =
            parse_turn(r#"{"message": "Saturday, 7pm.", "thought": "finally", "end": null}"#)
                .unwrap();
        assert_eq!(said.message.as_deref(), Some("Saturday, 7pm."));
        assert_eq!(said.thought.as_deref(), Some("finally"));
        let ended = parse_turn(
            "```json\n{\"message\": null, \"thought\": null, \"end\": {\"reason\": \"gave_up\", \"satisfaction\": 2, \"verdict\": \"It never listened.\"}}\n```",
        )
        .unwrap();
        assert_eq!(ended.end.unwrap().satisfaction, Some(2));
        for (bad, why) in [
            ("nope", "not one JSON object"),
            (
                r#"{"message": null, "thought": "hm", "end": null}"#,
                "neither says anything",
            ),
            (
                r#"{"message": "x", "end": {"reason": "bored"}}"#,
                "no end reason",
            ),
            (
                r#"{"message": "x", "end": {"reason": "refused", "satisfaction": 9}}"#,
                "from 1 to 5",
            ),
            (r#"{"message": "x", "mood": "ok"}"#, "not a key"),
            (
                r#"{"message": "x", "end": {"reason": "turn_limit"}}"#,
                "does not end with",
            ),
        ] {
            let error = parse_turn(bad).unwrap_err();
            assert!(error.contains(why), "{bad}: {error}");
        }
    }
}
