//! A small fake OpenAI-compatible chat-completions endpoint on a free local port, for
//! tests that make judged records with `casec judge`: it answers each request with the
//! verdict `answer(header)` gives, where `header` is the request's `casec judge
//! request {…}` line (its case, item and kind). [`start_with`] answers with any reply
//! instead (a redirect, an error body that echoes the request's headers).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value as Json};

pub struct FakeJudge {
    pub url: String,
    requests: Arc<AtomicUsize>,
}

impl FakeJudge {
    /// `judge RECORD… --suite cases/tujora --endpoint URL --model fake-judge -o OUT`: a
    /// run of `casec judge` against this judge, from the repository root.
    pub fn judge_args<'a>(&'a self, records: &[&'a Path], out: &'a Path) -> Vec<&'a str> {
        let mut args = vec!["judge"];
        args.extend(records.iter().map(|r| crate::support::cli::path(r)));
        args.extend([
            "--suite",
            "cases/tujora",
            "--endpoint",
            &self.url,
            "--model",
            "fake-judge",
            "-o",
            crate::support::cli::path(out),
        ]);
        args
    }

    /// How many requests were answered.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

/// One request as the endpoint read it.
pub struct Exchange {
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Exchange {
    /// The value of the header `name` (any case), if the request has it.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The request's `casec judge request {…}` header line, parsed (null without one).
    pub fn judge_header(&self) -> Json {
        let body: Json = serde_json::from_slice(&self.body).unwrap_or_default();
        body["messages"][1]["content"]
            .as_str()
            .and_then(|user| user.lines().next())
            .and_then(|l| l.strip_prefix("casec judge request "))
            .and_then(|h| serde_json::from_str(h).ok())
            .unwrap_or_default()
    }
}

/// What the endpoint sends back.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// A chat completion whose message is the verdict `{"met": met, "reason": reason}`.
pub fn verdict(met: bool, reason: &str) -> Reply {
    let content = json!({ "met": met, "reason": reason }).to_string();
    Reply {
        status: 200,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: json!({ "choices": [{ "index": 0, "message": { "role": "assistant", "content": content }, "finish_reason": "stop" }] }).to_string(),
    }
}

/// Starts the endpoint; `answer` gives `met` and `reason` for a request's header.
pub fn start(answer: impl Fn(&Json) -> (bool, String) + Send + Sync + 'static) -> FakeJudge {
    start_with(move |exchange| {
        let (met, reason) = answer(&exchange.judge_header());
        verdict(met, &reason)
    })
}

type Respond = dyn Fn(&Exchange) -> Reply + Send + Sync;

/// Starts the endpoint; `respond` gives the whole reply to each request.
pub fn start_with(respond: impl Fn(&Exchange) -> Reply + Send + Sync + 'static) -> FakeJudge {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a local port");
    let url = format!("http://{}/v1", listener.local_addr().expect("an address"));
    let requests = Arc::new(AtomicUsize::new(0));
    let respond: Arc<Respond> = Arc::new(respond);
    let count = requests.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (respond, count) = (respond.clone(), count.clone());
            std::thread::spawn(move || serve(stream, &*respond, &count));
        }
    });
    FakeJudge { url, requests }
}

/// Answers the requests of one connection (HTTP/1.1, kept alive) until it closes.
fn serve(stream: TcpStream, respond: &Respond, count: &AtomicUsize) {
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    while let Some(exchange) = read_request(&mut reader) {
        count.fetch_add(1, Ordering::SeqCst);
        let reply = respond(&exchange);
        let mut response = format!("HTTP/1.1 {} X\r\n", reply.status);
        for (name, value) in &reply.headers {
            response.push_str(&format!("{name}: {value}\r\n"));
        }
        response.push_str(&format!(
            "Content-Length: {}\r\n\r\n{}",
            reply.body.len(),
            reply.body
        ));
        if writer.write_all(response.as_bytes()).is_err() {
            return;
        }
    }
}

/// The next request of a connection; `None` once it closes.
fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Exchange> {
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return None;
    }
    let mut headers = Vec::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return None;
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            headers.push((name.to_string(), value.trim().to_string()));
        }
    }
    let length = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Exchange { headers, body })
}
