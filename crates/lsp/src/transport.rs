//! JSON-RPC framing over a byte stream: `Content-Length` headers, then a JSON body.
//!
//! Messages are [`lsp_server::Message`]s; the framing is done here rather than by
//! lsp-server's stdio threads so that a bad frame never ends the session. A body that
//! is not JSON gets a `ParseError` response, JSON that is not a message gets an
//! `InvalidRequest` response (echoing its id when it has one), and the next frame is
//! read as usual.
//!
//! What a frame may hold is capped, so that no input can grow memory until the process
//! aborts: a header line longer than [`MAX_HEADER_LINE_BYTES`] (an endless one
//! included) and a body longer than [`MAX_BODY_BYTES`] are skipped as they arrive,
//! never held, and answered with a `ParseError` (or, when the input ends first, end
//! the session like any input that ends without `exit`). A declared length is never
//! allocated up front.

use std::io::{self, BufRead, Read, Write};

use lsp_server::{ErrorCode, Message};
use serde_json::{json, Value};

use super::server::Server;
use crate::capped_lines::{self, Line};

/// The longest header line read, its line break included. Headers are a
/// `Content-Length` and perhaps a `Content-Type`: some dozen bytes.
const MAX_HEADER_LINE_BYTES: usize = 8 << 10;

/// The longest message body read (a body is held whole while it is read): far above
/// the text of any `.case` file a person edits, sent whole at each change. It is below
/// the largest source casec reads ([`crate::load::MAX_FILE_BYTES`]) on purpose: an
/// editor sends a document whole at every change, and a document of over 64 MiB (JSON
/// escaping included) is one `casec check` reads, not one the editor serves.
const MAX_BODY_BYTES: u64 = 64 << 20;

/// Serves one session: reads messages from `input` until `exit` or the end of the
/// input, writing the server's messages to `output`. Returns the exit code.
pub fn serve(input: &mut impl BufRead, output: &mut impl Write, server: &mut Server) -> u8 {
    loop {
        let frame = match read_frame(input) {
            Ok(Some(frame)) => frame,
            // The client went away without `exit`: a failure, as the protocol says.
            Ok(None) | Err(_) => return 1,
        };
        let replies = match frame.and_then(message) {
            Ok(message) => server.handle(message).iter().map(to_json).collect(),
            Err(reply) => vec![reply],
        };
        for reply in replies.into_iter().filter(|r| !r.is_null()) {
            if write_frame(output, &reply).is_err() {
                return 1;
            }
        }
        if let Some(code) = server.exit_code() {
            return code;
        }
    }
}

/// The next frame's body (or the error response to a frame whose headers could not be
/// read), `None` at the end of the input.
fn read_frame(input: &mut impl BufRead) -> io::Result<Option<Result<Vec<u8>, Value>>> {
    let mut length: Option<Result<u64, String>> = None;
    // A header that makes the frame bad even with a good length.
    let mut problem: Option<String> = None;
    let mut seen_header = false;
    // Bytes, not `read_line`: a header that is not UTF-8 is a bad frame, not the end of
    // the session.
    let mut bytes = Vec::new();
    loop {
        match capped_lines::read_line(input, MAX_HEADER_LINE_BYTES, &mut bytes)? {
            Line::End => return Ok(None),
            Line::TooLong => {
                seen_header = true;
                problem.get_or_insert(format!(
                    "a header line longer than {} KiB",
                    MAX_HEADER_LINE_BYTES >> 10
                ));
                continue;
            }
            Line::Read => {}
        }
        let line = String::from_utf8_lossy(&bytes);
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if seen_header {
                break;
            }
            continue;
        }
        seen_header = true;
        if let Some((name, value)) = line.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                let value = value.trim();
                length = Some(
                    value
                        .parse()
                        .map_err(|_| format!("bad Content-Length `{value}`")),
                );
            }
        }
    }
    let bad = |problem: &str| {
        Ok(Some(Err(rpc_error(
            Value::Null,
            ErrorCode::ParseError,
            problem,
        ))))
    };
    let length = match length {
        Some(Ok(length)) => length,
        Some(Err(problem)) => return bad(&problem),
        None => return bad(problem.as_deref().unwrap_or("no Content-Length header")),
    };
    if length > MAX_BODY_BYTES {
        problem.get_or_insert(format!(
            "a message of {length} bytes, longer than the limit of {} MiB",
            MAX_BODY_BYTES >> 20
        ));
    }
    if let Some(problem) = problem {
        // Skipped, not read: the next frame starts after it.
        if io::copy(&mut input.take(length), &mut io::sink())? < length {
            return Ok(None);
        }
        return bad(&format!("{problem}: the frame was skipped"));
    }
    let mut body = Vec::new();
    input.take(length).read_to_end(&mut body)?;
    if (body.len() as u64) < length {
        return Ok(None);
    }
    Ok(Some(Ok(body)))
}

/// A message as sent: the JSON-RPC version first, then the message's own fields.
fn to_json(message: &Message) -> Value {
    let mut out = serde_json::Map::new();
    out.insert("jsonrpc".to_string(), json!("2.0"));
    if let Ok(Value::Object(fields)) = serde_json::to_value(message) {
        out.extend(fields);
    }
    Value::Object(out)
}

fn write_frame(output: &mut impl Write, message: &Value) -> io::Result<()> {
    let body = message.to_string();
    write!(output, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    output.flush()
}

/// The message a frame holds, or the error response it gets (`Null`: none, for a
/// notification that cannot be read, since notifications are never answered).
fn message(body: Vec<u8>) -> Result<Message, Value> {
    let value: Value = serde_json::from_slice(&body).map_err(|e| {
        rpc_error(
            Value::Null,
            ErrorCode::ParseError,
            &format!("not JSON: {e}"),
        )
    })?;
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    let is_request = !id.is_null() && value.get("method").is_some();
    // Checked apart: lsp-server would read a request whose id it cannot represent
    // (`4.5`, an integer beyond 32 bits) as a notification, and it would go unanswered.
    let read = if is_request {
        serde_json::from_value::<lsp_server::Request>(value).map(Message::Request)
    } else {
        serde_json::from_value::<Message>(value)
    };
    read.map_err(|e| {
        if id.is_null() {
            return Value::Null;
        }
        let problem = format!("not a request or response casec can read: {e}");
        rpc_error(id, ErrorCode::InvalidRequest, &problem)
    })
}

fn rpc_error(id: Value, code: ErrorCode, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code as i32, "message": message } })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Options;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    /// The bodies of the frames in `output`.
    fn bodies(output: &[u8]) -> Vec<Value> {
        let text = String::from_utf8(output.to_vec()).unwrap();
        text.split("Content-Length: ")
            .skip(1)
            .map(|f| serde_json::from_str(f.split_once("\r\n\r\n").unwrap().1).unwrap())
            .collect()
    }

    fn serve_bytes(mut input: &[u8]) -> (u8, Vec<Value>) {
        let mut server = Server::new(Options {
            cache_dir: std::env::temp_dir(),
        });
        let mut output = Vec::new();
        let code = serve(&mut input, &mut output, &mut server);
        (code, bodies(&output))
    }

    #[test]
    fn bad_frames_are_answered_and_the_session_goes_on() {
        let mut input: Vec<u8> = Vec::new();
        input.extend(frame("{ not json").bytes());
        input.extend(b"X-Nothing: 1\r\n\r\n");
        input.extend(b"Content-Length: many\r\n\r\n");
        input.extend(b"Content-Length: \xff\r\n\r\n");
        for body in [
            r#"{"jsonrpc":"2.0","id":4.5,"method":"initialize"}"#,
            r#"{"jsonrpc":"2.0","method":7}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#,
            r#"{"jsonrpc":"2.0","method":"exit"}"#,
        ] {
            input.extend(frame(body).bytes());
        }
        let (code, replies) = serve_bytes(&input);
        let errors: Vec<(&Value, &Value)> = replies
            .iter()
            .filter_map(|r| Some((&r["id"], r.get("error")?.get("code")?)))
            .collect();
        let parse_error = (&Value::Null, &json!(-32700));
        assert_eq!(
            errors,
            [
                parse_error,
                parse_error,
                parse_error,
                parse_error,
                (&json!(4.5), &json!(-32600)),
            ]
        );
        assert_eq!(replies[5]["id"], 1);
        assert_eq!(replies[5]["jsonrpc"], "2.0");
        assert_eq!(replies[6]["id"], 2);
        assert_eq!(code, 0);
    }

    #[test]
    fn a_huge_declared_length_meets_the_end_of_input() {
        let (code, replies) = serve_bytes(b"Content-Length: 18446744073709551615\r\n\r\n{}");
        assert_eq!((code, replies.len()), (1, 0));
    }

    /// The frames of a session that initializes, shuts down and exits.
    fn orderly_session() -> Vec<u8> {
        [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#,
            r#"{"jsonrpc":"2.0","method":"exit"}"#,
        ]
        .iter()
        .flat_map(|body| frame(body).into_bytes())
        .collect()
    }

    #[test]
    fn a_header_line_over_the_cap_is_skipped_with_its_frame_and_answered() {
        let body = r#"{"jsonrpc":"2.0","id":9,"method":"shutdown"}"#;
        let mut input = format!("X-Long: {}\r\n", "a".repeat(MAX_HEADER_LINE_BYTES)).into_bytes();
        input.extend(frame(body).bytes());
        input.extend(orderly_session());
        let (code, replies) = serve_bytes(&input);
        assert_eq!(replies[0]["error"]["code"], -32700);
        assert_eq!(
            replies[0]["error"]["message"],
            "a header line longer than 8 KiB: the frame was skipped"
        );
        // The frame's body was skipped, not read as headers or answered.
        assert_eq!(replies[1]["id"], 1);
        assert_eq!((code, replies.len()), (0, 3));
    }

    #[test]
    fn an_endless_header_line_ends_the_session_as_a_failure() {
        let endless = vec![b'a'; 4 * MAX_HEADER_LINE_BYTES];
        assert_eq!(serve_bytes(&endless), (1, vec![]));
    }

    #[test]
    fn a_body_over_the_cap_is_skipped_and_answered() {
        let length = MAX_BODY_BYTES + 1;
        let mut input = format!("Content-Length: {length}\r\n\r\n").into_bytes();
        input.resize(input.len() + length as usize, b' ');
        input.extend(orderly_session());
        let (code, replies) = serve_bytes(&input);
        assert_eq!(
            replies[0]["error"]["message"],
            "a message of 67108865 bytes, longer than the limit of 64 MiB: the frame was skipped"
        );
        assert_eq!((code, replies.len()), (0, 3));
    }

    #[test]
    fn input_that_ends_without_exit_is_a_failure() {
        assert_eq!(serve_bytes(b"").0, 1);
        let unfinished =
            frame(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#);
        assert_eq!(serve_bytes(unfinished.as_bytes()).0, 1);
    }
}
