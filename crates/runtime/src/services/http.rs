//! `http`: HTTP requests answered from the world's endpoint records.
//!
//! A request is answered by the endpoint record whose URL equals the call's (and whose
//! method equals it, when endpoints declare methods; a call without a method is a
//! GET), with the record's status code and body. A URL no endpoint serves answers 404
//! with an empty body: an HTTP answer, not a failure of the tool. What an endpoint
//! answers, with its declared faults, is decided by [`crate::web`], for this
//! tool and for the programs a command runs alike: a dropped connection is the error
//! `NETWORK_ERROR`, one held without an answer `TIMEOUT`. Failures are also injected by
//! a case's overrides (`override http_get "…" { times 1; error … }`).

use serde_json::{json, Value as Json};

use crate::model::tool::Http;

use super::super::web::{Answer, Fault};
use super::super::{CallResult, Runtime};
use super::argument;

pub fn run(rt: &mut Runtime, h: &Http, arguments: &Json) -> CallResult {
    let url = argument(arguments, Some(&h.url_argument)).unwrap_or_default();
    let method = argument(arguments, h.method_argument.as_ref()).unwrap_or("GET");
    // The tool does not wait out an endpoint's latency: the sandbox's clock stands still.
    let (answer, _latency) = rt.web(h).answer(method, url);
    match answer {
        Answer::Status {
            endpoint,
            status,
            body,
        } => CallResult::ok(
            json!({ "url": url, "code": status, "body": body }),
            endpoint.into_iter().collect(),
            Vec::new(),
        ),
        Answer::Dropped {
            fault: Fault::Timeout,
            ..
        } => CallResult::error("TIMEOUT", format!("`{url}` did not answer")),
        Answer::Dropped { .. } => CallResult::error(
            "NETWORK_ERROR",
            format!("`{url}` closed the connection without answering"),
        ),
    }
}
