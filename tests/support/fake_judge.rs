//! A small fake OpenAI-compatible chat-completions endpoint on a free local port, for
//! tests that make judged records with `casec judge`: it answers each request with the
//! verdict `answer(header)` gives, where `header` is the request's `casec judge
//! request {…}` line (its case, item and kind).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value as Json};

pub struct FakeJudge {
    pub url: String,
    requests: Arc<AtomicUsize>,
}

impl FakeJudge {
    /// How many requests were answered.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

type Answer = dyn Fn(&Json) -> (bool, String) + Send + Sync;

/// Starts the endpoint; `answer` gives `met` and `reason` for a request's header.
pub fn start(answer: impl Fn(&Json) -> (bool, String) + Send + Sync + 'static) -> FakeJudge {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a local port");
    let url = format!("http://{}/v1", listener.local_addr().expect("an address"));
    let requests = Arc::new(AtomicUsize::new(0));
    let answer: Arc<Answer> = Arc::new(answer);
    let count = requests.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (answer, count) = (answer.clone(), count.clone());
            std::thread::spawn(move || serve(stream, &*answer, &count));
        }
    });
    FakeJudge { url, requests }
}

/// Answers the requests of one connection (HTTP/1.1, kept alive) until it closes.
fn serve(stream: TcpStream, answer: &Answer, count: &AtomicUsize) {
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut length = 0;
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        count.fetch_add(1, Ordering::SeqCst);
        let body: Json = serde_json::from_slice(&body).unwrap_or_default();
        let header: Json = body["messages"][1]["content"]
            .as_str()
            .and_then(|user| user.lines().next())
            .and_then(|l| l.strip_prefix("casec judge request "))
            .and_then(|h| serde_json::from_str(h).ok())
            .unwrap_or_default();
        let (met, reason) = answer(&header);
        let content = json!({ "met": met, "reason": reason }).to_string();
        let text = json!({ "choices": [{ "index": 0, "message": { "role": "assistant", "content": content }, "finish_reason": "stop" }] }).to_string();
        let response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{text}",
            text.len()
        );
        if writer.write_all(response.as_bytes()).is_err() {
            return;
        }
    }
}
