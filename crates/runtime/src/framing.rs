//! JSON-RPC 2.0 framing for `casec serve`: what a line of input is, and the text of an
//! answer.
//!
//! Whatever a client sends, the session goes on, and every request gets an answer:
//!
//! * text that is not JSON (or not UTF-8) gets a `-32700` parse error with id `null`,
//!   and so does JSON that cannot be read as data: a member of the message given twice
//!   (`"id"` twice: which one would be answered?), arrays or objects nested more than
//!   128 deep, or a string escape of half a UTF-16 surrogate pair (`"\ud800"`, which
//!   no Unicode text holds) in the id, the method or the params;
//! * a line longer than [`MAX_LINE_BYTES`] is not read: it gets a `-32600` invalid
//!   request with id `null`;
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

/// The longest line of input read as a message, its line break included: far above
/// any call a harness makes (a tool call is some hundred bytes), far below what would
/// exhaust memory. A longer line is skipped as it arrives, never held.
pub const MAX_LINE_BYTES: usize = 64 << 20;

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
    /// An object that cannot be read as data: answered with a [`parse_error`].
    Unreadable { reason: String },
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
    let envelope = match serde_json::from_str::<Envelope>(value.get()) {
        Ok(envelope) => envelope,
        Err(e) => {
            let at = format!("line {}, column {}", e.line(), e.column());
            return unreadable(format!("{} ({at})", problem_of(&e)));
        }
    };
    if let Some(Err(e)) = envelope
        .id
        .filter(|id| id.get().starts_with('"'))
        .map(text_of)
    {
        return unreadable(format!("the id holds {}", problem_of(&e)));
    }
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

fn unreadable(reason: String) -> Message<'static> {
    Message::Unreadable { reason }
}

/// What makes JSON unreadable as data, without serde_json's position: its words, or
/// clearer ones for the recursion limit and for half a surrogate pair (which serde_json
/// words by where its decoding stopped).
fn problem_of(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let problem = text
        .rsplit_once(" at line ")
        .map_or(text.as_str(), |(p, _)| p);
    match problem {
        "recursion limit exceeded" => "arrays or objects nested more than 128 deep".into(),
        p if p.contains("hex escape") || p.contains("unicode code point") => {
            r"a `\u` escape of half a UTF-16 surrogate pair, which no Unicode text holds".into()
        }
        p => p.to_string(),
    }
}

/// The text of a JSON string, which fails for an escape of half a surrogate pair.
fn text_of(string: &RawValue) -> Result<String, serde_json::Error> {
    serde_json::from_str(string.get())
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

/// The answer to a line longer than [`MAX_LINE_BYTES`], which was not read.
pub fn line_too_long() -> String {
    let limit = MAX_LINE_BYTES >> 20;
    error(
        None,
        INVALID_REQUEST,
        &format!("a line of more than {limit} MiB: it was skipped unread; send one message of at most {limit} MiB per line"),
    )
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
            Message::Unreadable { reason } => format!("unreadable: {reason}"),
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
    fn objects_that_cannot_be_read_as_data_are_parse_errors_not_invalid_objects() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"a":{}{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        for (text, problem) in [
            (
                r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
                "unreadable: duplicate field `id` (line 1, column",
            ),
            (
                r#"{"jsonrpc":"2.0","id":"\ud800","method":"ping"}"#,
                r"unreadable: the id holds a `\u` escape of half a UTF-16 surrogate pair",
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"x\udc00"}"#,
                r"unreadable: a `\u` escape of half a UTF-16 surrogate pair, which no Unicode text holds (line 1, column 41)",
            ),
            (
                deep.as_str(),
                "unreadable: arrays or objects nested more than 128 deep (line 1, column",
            ),
        ] {
            let kind = &kinds(text)[0];
            assert!(kind.starts_with(problem), "{text}: {kind}");
        }
        // A surrogate pair is text, and an id holding one is echoed as written.
        assert_eq!(
            kinds(r#"{"jsonrpc":"2.0","id":"\ud83d\ude00","method":"ping"}"#),
            [r#"request ping "\ud83d\ude00""#]
        );
    }

    #[test]
    fn a_line_too_long_is_an_invalid_request_with_no_id() {
        let answer: Json = serde_json::from_str(&line_too_long()).unwrap();
        assert_eq!(answer["id"], Json::Null);
        assert_eq!(answer["error"]["code"], INVALID_REQUEST);
        assert!(answer["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("a line of more than 64 MiB"));
    }

    #[test]
    fn text_that_is_not_json_is_a_parse_error() {
        let answer = &kinds("{not json")[0];
        assert!(answer.starts_with(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"#));
    }
}
