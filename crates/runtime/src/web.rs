//! Web references as real servers: the world's endpoint records answered over HTTP to
//! the programs a run starts, with the faults the endpoints declare.
//!
//! One semantics for every requester: [`Web::answer`] decides what a request gets,
//! whether it comes from a tool bound to the `http` service ([`super::services::http`])
//! or from a program a command runs ([`serve`]), and the requests of one run are
//! counted together, so "the first request fails" means the first, whoever makes it.
//! An endpoint may declare (through the `http` binding's optional fields) that its
//! first N requests fail: the connection closed without an answer (`reset`), held
//! open without one (`timeout`), or an error status (`status`); and a latency before
//! every answer.
//!
//! [`serve`] is a deliberately small HTTP/1.1 server, written here rather than taken
//! from a crate because a fault is a socket-level act (close without answering, hold
//! the line) that server crates hide. It answers one request per connection, in
//! origin form (`GET /path` with a `Host`) or in proxy form (`GET http://host/path`),
//! URLs compared with the scheme and host in any case and an empty path as `/`,
//! so a program reaches a declared URL either directly or through `http_proxy`; a
//! `CONNECT` (HTTPS through the proxy) is answered 501: the sandbox serves plain HTTP.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

pub use crate::model::tool::Fault;
use crate::model::tool::Http;
use crate::model::value::FieldValue;

use super::state::State;

/// One endpoint as a server answers it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Endpoint {
    /// The endpoint record's id.
    pub id: String,
    pub url: String,
    /// Absent: any method.
    pub method: Option<String>,
    pub status: u16,
    pub body: String,
    /// How many of its first requests fail, and how.
    pub failures: u64,
    pub fault: Fault,
    pub failure_status: u16,
    pub latency_ms: u64,
}

/// What a request gets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum Answer {
    /// An HTTP answer: the endpoint's, a status fault, or 404 for a URL no endpoint
    /// serves (`endpoint` absent).
    Status {
        endpoint: Option<String>,
        status: u16,
        body: String,
    },
    /// A fault without an answer.
    Dropped { endpoint: String, fault: Fault },
}

/// A request a run made, for the trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub method: String,
    pub url: String,
    #[serde(flatten)]
    pub answer: Answer,
}

/// The endpoints of a run and how many requests each has had.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Web {
    pub endpoints: Vec<Endpoint>,
    /// Requests so far, by endpoint id.
    pub counts: BTreeMap<String, u64>,
}

impl Web {
    /// The endpoints a world holds, read through an `http` binding.
    pub fn from_state(state: &State, h: &Http) -> Web {
        let text = |r: &super::state::Rec, field: Option<&crate::model::Name>| match field
            .and_then(|f| r.field(f.as_str()))
        {
            Some(FieldValue::Text(t) | FieldValue::Enum(t)) => Some(t.clone()),
            _ => None,
        };
        let number = |r: &super::state::Rec, field: Option<&crate::model::Name>| match field
            .and_then(|f| r.field(f.as_str()))
        {
            Some(FieldValue::Number(n)) => n.as_f64().filter(|n| *n >= 0.0).map(|n| n as u64),
            _ => None,
        };
        let endpoints = state
            .in_collection(h.endpoints_collection.as_str())
            .map(|r| Endpoint {
                id: r.id.clone(),
                url: text(r, Some(&h.url_field)).unwrap_or_default(),
                method: text(r, h.method_field.as_ref()),
                status: number(r, Some(&h.status_field)).map_or(200, status_code),
                body: text(r, Some(&h.body_field)).unwrap_or_default(),
                failures: number(r, h.failures_field.as_ref()).unwrap_or(0),
                fault: text(r, h.fault_field.as_ref())
                    .and_then(|w| w.parse().ok())
                    .unwrap_or(Fault::Reset),
                failure_status: number(r, h.failure_status_field.as_ref()).map_or(503, status_code),
                latency_ms: number(r, h.latency_field.as_ref()).unwrap_or(0),
            })
            .collect();
        Web {
            endpoints,
            counts: BTreeMap::new(),
        }
    }

    /// What a request gets, and the latency before it; counts the request.
    pub fn answer(&mut self, method: &str, url: &str) -> (Answer, Duration) {
        let url = same_url(url);
        let found = self.endpoints.iter().find(|e| {
            same_url(&e.url) == url
                && e.method
                    .as_deref()
                    .is_none_or(|m| m.eq_ignore_ascii_case(method))
        });
        let Some(endpoint) = found else {
            let answer = Answer::Status {
                endpoint: None,
                status: 404,
                body: String::new(),
            };
            return (answer, Duration::ZERO);
        };
        let count = self.counts.entry(endpoint.id.clone()).or_insert(0);
        *count += 1;
        let failing = *count <= endpoint.failures;
        let answer = match (failing, endpoint.fault) {
            (false, _) => Answer::Status {
                endpoint: Some(endpoint.id.clone()),
                status: endpoint.status,
                body: endpoint.body.clone(),
            },
            (true, Fault::Status) => Answer::Status {
                endpoint: Some(endpoint.id.clone()),
                status: endpoint.failure_status,
                body: String::new(),
            },
            (true, fault) => Answer::Dropped {
                endpoint: endpoint.id.clone(),
                fault,
            },
        };
        (answer, Duration::from_millis(endpoint.latency_ms))
    }
}

/// A URL as requests compare it: the scheme and host in lower case, and `/` for an
/// empty path (a client asks for `http://api.test/` when told `http://API.test`).
fn same_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (host, tail) = rest.split_at(end);
    let slash = if tail.starts_with('/') { "" } else { "/" };
    format!(
        "{}://{}{slash}{tail}",
        scheme.to_ascii_lowercase(),
        host.to_ascii_lowercase()
    )
}

/// A status code from a world's number (outside 100..=599: 500).
fn status_code(n: u64) -> u16 {
    u16::try_from(n)
        .ok()
        .filter(|s| (100..=599).contains(s))
        .unwrap_or(500)
}

/// The longest a `timeout` fault holds a connection, and the longest a request's head
/// may take to arrive.
pub const HOLD_LIMIT: Duration = Duration::from_secs(60);
/// The largest request head (request line and headers) read, and body skipped.
const HEAD_LIMIT: u64 = 64 << 10;
const BODY_LIMIT: u64 = 1 << 20;

/// A running server: its port, the requests it has answered, and a switch to stop it.
pub struct Server {
    pub port: u16,
    web: Arc<Mutex<(Web, Vec<Request>)>>,
    stopping: Arc<AtomicBool>,
}

impl Server {
    /// The requests answered since the last call, and the counts so far.
    pub fn drain(&self) -> (Vec<Request>, Web) {
        match self.web.lock() {
            Ok(mut guard) => {
                let requests = std::mem::take(&mut guard.1);
                (requests, guard.0.clone())
            }
            Err(poisoned) => {
                let mut guard = poisoned.into_inner();
                (std::mem::take(&mut guard.1), guard.0.clone())
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        // Wake the accepting thread so that it sees the switch.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Serves `web` on `address` (`127.0.0.1:0`: a free loopback port) until the returned
/// server is dropped; each connection is answered on a thread of its own.
pub fn serve(web: Web, address: &str) -> std::io::Result<Server> {
    let listener = TcpListener::bind(address)?;
    let port = listener.local_addr()?.port();
    let shared = Arc::new(Mutex::new((web, Vec::new())));
    let stopping = Arc::new(AtomicBool::new(false));
    let (state, stop) = (shared.clone(), stopping.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            let Ok(stream) = stream else { continue };
            let (state, stop) = (state.clone(), stop.clone());
            std::thread::spawn(move || answer_connection(stream, &state, &stop));
        }
    });
    Ok(Server {
        port,
        web: shared,
        stopping,
    })
}

/// Reads one request from `stream` and answers it as the endpoints say.
fn answer_connection(stream: TcpStream, state: &Mutex<(Web, Vec<Request>)>, stop: &AtomicBool) {
    let _ = stream.set_read_timeout(Some(HOLD_LIMIT));
    let Ok(reader_stream) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(reader_stream.take(HEAD_LIMIT));
    let Some((method, target, headers)) = read_head(&mut reader) else {
        return;
    };
    if method.eq_ignore_ascii_case("CONNECT") {
        let body = "This sandbox serves its web references over plain HTTP: use an http:// URL.\n";
        respond(&stream, 501, body);
        return;
    }
    let Some(url) = request_url(&target, &headers) else {
        respond(
            &stream,
            400,
            "a request needs an absolute URL or a Host header\n",
        );
        return;
    };
    skip_body(reader, &headers);
    let (answer, latency) = {
        let mut guard = match state.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        let (answer, latency) = guard.0.answer(&method, &url);
        guard.1.push(Request {
            method: method.clone(),
            url,
            answer: answer.clone(),
        });
        (answer, latency)
    };
    std::thread::sleep(latency);
    match answer {
        Answer::Status { status, body, .. } => respond(&stream, status, &body),
        Answer::Dropped {
            fault: Fault::Timeout,
            ..
        } => hold(&stream, stop),
        Answer::Dropped { .. } => {}
    }
    let _ = stream.shutdown(Shutdown::Both);
}

/// A request's headers, each name in lower case with its value.
type Headers = Vec<(String, String)>;

/// The request line's method and target, and the headers.
fn read_head(reader: &mut impl BufRead) -> Option<(String, String, Headers)> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut words = line.split_whitespace();
    let (method, target) = (words.next()?.to_string(), words.next()?.to_string());
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).ok()? == 0 {
            break;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    Some((method, target, headers))
}

/// The URL a request names: its target in proxy form, or `http://HOST` and the
/// target in origin form.
fn request_url(target: &str, headers: &[(String, String)]) -> Option<String> {
    if target.starts_with("http://") || target.starts_with("https://") {
        return Some(target.to_string());
    }
    let host = headers.iter().find(|(n, _)| n == "host")?;
    Some(format!("http://{}{target}", host.1))
}

/// Reads and discards a request's body (up to a limit), so that closing the
/// connection after the answer does not reset it under the requester: first what the
/// head's reader already holds (a client sends head and body together), then the rest
/// from the connection.
fn skip_body(mut reader: BufReader<std::io::Take<TcpStream>>, headers: &[(String, String)]) {
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse::<u64>().ok())
        .unwrap_or(0)
        .min(BODY_LIMIT);
    let held = reader
        .buffer()
        .len()
        .min(usize::try_from(length).unwrap_or(usize::MAX));
    reader.consume(held);
    let rest = length.saturating_sub(held as u64);
    let stream = reader.into_inner().into_inner();
    let _ = std::io::copy(&mut stream.take(rest), &mut std::io::sink());
}

fn respond(mut stream: &TcpStream, status: u16, body: &str) {
    let kind = match body.trim_start().starts_with(['{', '[']) {
        true => "application/json",
        false => "text/plain; charset=utf-8",
    };
    let head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        reason(status),
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
    let _ = stream.flush();
}

/// Holds a connection open without answering, until the requester closes it, the
/// server stops, or [`HOLD_LIMIT`] passes.
fn hold(stream: &TcpStream, stop: &AtomicBool) {
    let started = Instant::now();
    let _ = stream.set_read_timeout(Some(Duration::from_millis(100)));
    let mut buffer = [0u8; 512];
    while started.elapsed() < HOLD_LIMIT && !stop.load(Ordering::SeqCst) {
        match (&*stream).read(&mut buffer) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return,
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn web() -> Web {
        Web {
            endpoints: vec![Endpoint {
                id: "EP1".into(),
                url: "http://rates.test/today".into(),
                method: None,
                status: 200,
                body: "{\"EUR\": 1.08}".into(),
                failures: 1,
                fault: Fault::Reset,
                failure_status: 503,
                latency_ms: 0,
            }],
            counts: BTreeMap::new(),
        }
    }

    #[test]
    fn the_first_request_fails_then_the_endpoint_answers() {
        let mut web = web();
        let (first, _) = web.answer("GET", "http://rates.test/today");
        assert_eq!(
            first,
            Answer::Dropped {
                endpoint: "EP1".into(),
                fault: Fault::Reset
            }
        );
        let (second, _) = web.answer("GET", "http://rates.test/today");
        assert!(matches!(second, Answer::Status { status: 200, .. }));
        let (same, _) = web.answer("GET", "HTTP://Rates.test/today");
        assert!(
            matches!(same, Answer::Status { status: 200, .. }),
            "{same:?}"
        );
        assert_eq!(same_url("http://api.test"), "http://api.test/");
        assert_eq!(same_url("http://api.test?q=1"), "http://api.test/?q=1");
        let (unknown, _) = web.answer("GET", "http://elsewhere.test/");
        assert!(matches!(
            unknown,
            Answer::Status {
                endpoint: None,
                status: 404,
                ..
            }
        ));
    }

    fn get(port: u16, request: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        stream.shutdown(Shutdown::Write).unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    }

    #[test]
    fn a_server_answers_in_proxy_and_origin_form_and_records_each_request() {
        let server = serve(web(), "127.0.0.1:0").unwrap();
        let proxy = "GET http://rates.test/today HTTP/1.1\r\nHost: rates.test\r\n\r\n";
        assert_eq!(get(server.port, proxy), "", "the first request is dropped");
        let origin = "GET /today HTTP/1.1\r\nHost: rates.test\r\n\r\n";
        let answer = get(server.port, origin);
        assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
        assert!(answer.ends_with("{\"EUR\": 1.08}"), "{answer}");
        let connect = get(server.port, "CONNECT rates.test:443 HTTP/1.1\r\n\r\n");
        assert!(connect.starts_with("HTTP/1.1 501"), "{connect}");
        let (requests, web) = server.drain();
        assert_eq!(requests.len(), 2);
        assert_eq!(web.counts.get("EP1"), Some(&2));
        assert_eq!(requests[1].url, "http://rates.test/today");
    }

    #[test]
    fn a_post_with_a_body_is_answered_at_once() {
        let server = serve(web(), "127.0.0.1:0").unwrap();
        let _ = get(
            server.port,
            "GET /today HTTP/1.1\r\nHost: rates.test\r\n\r\n",
        );
        // As clients do: head and body in one write, the connection left open.
        let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
        let post =
            "POST /today HTTP/1.1\r\nHost: rates.test\r\nContent-Length: 11\r\n\r\n{\"a\": true}";
        stream.write_all(post.as_bytes()).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer:?}");
    }

    #[test]
    fn a_head_that_is_not_http_gets_no_answer_and_no_panic() {
        let server = serve(web(), "127.0.0.1:0").unwrap();
        assert_eq!(get(server.port, "\u{0}\u{1}garbage"), "");
        assert_eq!(
            get(server.port, "GET /x HTTP/1.1\r\n\r\n")
                .split(' ')
                .nth(1),
            Some("400")
        );
        assert!(server.drain().0.is_empty());
    }
}
