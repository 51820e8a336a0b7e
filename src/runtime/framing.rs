//! JSON-RPC 2.0 framing for `casec serve`: what a line of input is, and the text of an
//! answer.
//!
//! Whatever a client sends, the session goes on, and every request gets an answer:
//!
//! * text that is not JSON (or not UTF-8) gets a `-32700` parse error with id `null`;
//! * JSON that is not a request object (`42`, `null`, `"str"`, an object without a
//!   string `method`, a `jsonrpc` other than `"2.0"`, an id that is not a string, a
//!   number or `null`) gets a `-32600` invalid request, with the request's id when it
//!   has a valid one;
//! * a batch (an array) is answered as JSON-RPC 2.0 says: an array of the answers to
//!   its requests, in order, or nothing when it holds only notifications; an empty
//!   batch is one invalid request. (MCP 2025-06-18 dropped batches, but a client that
//!   sends one still gets well-formed answers rather than silence.)
//! * a client's response (an object with `result` or `error` and no `method`) is
//!   ignored: this server sends no requests, so there is nothing it answers.
//!
//! Ids are echoed exactly as written, byte for byte: a number beyond what a float holds
//! (`123456789012345678901234567890`) comes back unchanged, not rounded.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value as Json;

/// JSON-RPC's error code for a message that is not a valid request.
pub const INVALID_REQUEST: i64 = -32600;
const PARSE_ERROR: i64 = -32700;

/// A line of input: one message or a batch of them.
pub enum Input<'a> {
    One(Message<'a>),
    Batch(Vec<Message<'a>>),
}

/// One message, as far as the session needs to know.
pub enum Message<'a> {
    /// A request (with an id) or a notification (without).
    Request {
        id: Option<&'a RawValue>,
        method: String,
        params: Json,
    },
    /// Not a valid request: answered with `-32600`.
    Invalid {
        id: Option<&'a RawValue>,
        reason: String,
    },
    /// A client's response: not answered.
    Response,
}

/// The members of a message object that framing reads; the others are ignored.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    /// Present (`Some`, even for `null`) or absent (`None`: a notification).
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<Json>,
    #[serde(default)]
    params: Option<Json>,
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// A member that is present, whatever its value (`null` included).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// Reads a line of input; `Err` holds the answer to input that is not JSON or is an
/// empty batch.
pub fn parse(text: &str) -> Result<Input<'_>, String> {
    let value: &RawValue = serde_json::from_str(text)
        .map_err(|e| parse_error(&format!("not a JSON-RPC message: {e}")))?;
    if value.get().starts_with('[') {
        let items: Vec<&RawValue> =
            serde_json::from_str(value.get()).map_err(|e| parse_error(&e.to_string()))?;
        if items.is_empty() {
            return Err(error(None, INVALID_REQUEST, "an empty batch"));
        }
        return Ok(Input::Batch(items.into_iter().map(message).collect()));
    }
    Ok(Input::One(message(value)))
}

/// One message of the input, whatever JSON it is.
fn message(value: &RawValue) -> Message<'_> {
    let invalid = |id, reason: &str| Message::Invalid {
        id,
        reason: reason.to_string(),
    };
    if !value.get().starts_with('{') {
        return invalid(None, "a JSON-RPC message is an object");
    }
    let Ok(envelope) = serde_json::from_str::<Envelope>(value.get()) else {
        return invalid(None, "a JSON-RPC message is an object");
    };
    let id = envelope.id.filter(|id| valid_id(id));
    if envelope.id.is_some() && id.is_none() {
        return invalid(None, "the id must be a string, a number or null");
    }
    if envelope.jsonrpc.map(RawValue::get) != Some("\"2.0\"") {
        return invalid(id, "`jsonrpc` must be \"2.0\"");
    }
    match envelope.method {
        Some(Json::String(method)) => match envelope.params {
            None => Message::Request {
                id,
                method,
                params: Json::Object(Default::default()),
            },
            Some(params @ (Json::Object(_) | Json::Array(_))) => {
                Message::Request { id, method, params }
            }
            Some(_) => invalid(id, "`params` must be an object or an array"),
        },
        None if envelope.result.is_some() || envelope.error.is_some() => Message::Response,
        _ => invalid(id, "a request needs a string `method`"),
    }
}

fn valid_id(id: &RawValue) -> bool {
    let text = id.get();
    text == "null" || text.starts_with(|c: char| c == '"' || c == '-' || c.is_ascii_digit())
}

/// The answer to a request that succeeded.
pub fn result(id: &RawValue, result: &Json) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{},"result":{result}}}"#, id.get())
}

/// An error answer; without an id (it could not be read) the id is `null`.
pub fn error(id: Option<&RawValue>, code: i64, message: &str) -> String {
    let error = serde_json::json!({ "code": code, "message": message });
    let id = id.map_or("null", RawValue::get);
    format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#)
}

/// The answer to input that is not JSON.
pub fn parse_error(message: &str) -> String {
    error(None, PARSE_ERROR, &format!("parse error: {message}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<String> {
        let describe = |m: &Message| match m {
            Message::Request { id, method, .. } => {
                format!("request {method} {}", id.map_or("-", |id| id.get()))
            }
            Message::Invalid { id, .. } => format!("invalid {}", id.map_or("-", |id| id.get())),
            Message::Response => "response".to_string(),
        };
        match parse(text) {
            Ok(Input::One(m)) => vec![describe(&m)],
            Ok(Input::Batch(ms)) => ms.iter().map(describe).collect(),
            Err(answer) => vec![answer],
        }
    }

    #[test]
    fn requests_notifications_and_responses() {
        assert_eq!(
            kinds(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            ["request ping 1"]
        );
        assert_eq!(
            kinds(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            ["request notifications/initialized -"]
        );
        assert_eq!(
            kinds(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            ["request ping null"]
        );
        assert_eq!(
            kinds(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#),
            ["response"]
        );
        assert_eq!(
            kinds(r#"{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"x"}}"#),
            ["response"]
        );
    }

    #[test]
    fn ids_are_kept_as_written() {
        let big = r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}"#;
        assert_eq!(kinds(big), ["request ping 123456789012345678901234567890"]);
        assert_eq!(
            kinds(r#"{"jsonrpc":"2.0","id":"a\u0062","method":"ping"}"#),
            [r#"request ping "a\u0062""#]
        );
        let id: &RawValue = serde_json::from_str("1.0e400").unwrap();
        assert_eq!(
            result(id, &serde_json::json!({})),
            r#"{"jsonrpc":"2.0","id":1.0e400,"result":{}}"#
        );
    }

    #[test]
    fn what_is_not_a_request_is_invalid() {
        for text in ["42", "null", "\"str\"", "true", "{}"] {
            assert_eq!(kinds(text), ["invalid -"], "{text}");
        }
        assert_eq!(kinds(r#"{"jsonrpc":"2.0","id":1}"#), ["invalid 1"]);
        assert_eq!(
            kinds(r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#),
            ["invalid 3"]
        );
        assert_eq!(
            kinds(r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#),
            ["invalid -"]
        );
        assert_eq!(
            kinds(r#"{"jsonrpc":"2.0","id":4,"method":"ping","params":5}"#),
            ["invalid 4"]
        );
    }

    #[test]
    fn batches_hold_messages_and_an_empty_one_is_invalid() {
        assert_eq!(
            kinds(
                r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}, 5, {"jsonrpc":"2.0","method":"x"}]"#
            ),
            ["request ping 1", "invalid -", "request x -"]
        );
        assert_eq!(
            kinds("[]"),
            [r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"an empty batch"}}"#]
        );
    }

    #[test]
    fn text_that_is_not_json_is_a_parse_error() {
        let answer = &kinds("{not json")[0];
        assert!(answer.starts_with(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"#));
    }
}
