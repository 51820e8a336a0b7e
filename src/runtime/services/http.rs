//! `http`: HTTP requests answered from the world's endpoint records.
//!
//! A request is answered by the endpoint record whose URL equals the call's (and whose
//! method equals it, when endpoints declare methods; a call without a method is a
//! GET), with the record's status code and body. A URL no endpoint serves answers 404
//! with an empty body: an HTTP answer, not a failure of the tool. Network failures are
//! injected by a case's overrides (`override http_get "…" { times 1; error … }`).

use serde_json::{json, Value as Json};

use crate::model::tool::Http;
use crate::model::value::FieldValue;

use super::super::{CallResult, Runtime};
use super::argument;

pub fn run(rt: &mut Runtime, h: &Http, arguments: &Json) -> CallResult {
    let url = argument(arguments, Some(&h.url)).unwrap_or_default();
    let method = argument(arguments, h.method.as_ref()).unwrap_or("GET");
    let served = rt.state.in_collection(h.endpoints.as_str()).find(|r| {
        let same_url = r.field(h.url_field.as_str()) == Some(&FieldValue::Text(url.to_string()));
        let same_method = match h.method_field.as_ref().and_then(|m| r.field(m.as_str())) {
            Some(FieldValue::Text(m) | FieldValue::Enum(m)) => m.eq_ignore_ascii_case(method),
            _ => true,
        };
        same_url && same_method
    });
    let Some(endpoint) = served else {
        return CallResult::ok(
            json!({ "url": url, "code": 404, "body": "" }),
            Vec::new(),
            Vec::new(),
        );
    };
    let code = endpoint
        .field(h.status_field.as_str())
        .map(FieldValue::to_json)
        .unwrap_or(json!(200));
    let body = endpoint
        .field(h.body_field.as_str())
        .map(FieldValue::to_json)
        .unwrap_or(json!(""));
    CallResult::ok(
        json!({ "url": url, "code": code, "body": body }),
        vec![endpoint.id.clone()],
        Vec::new(),
    )
}
