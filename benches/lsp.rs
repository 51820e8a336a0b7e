//! Language server latency on the Tujora suite: the time from a keystroke in a case
//! file (an incremental `didChange`) to the diagnostics of the whole suite being ready
//! to publish, with the suite loaded. Also the first open (reading and checking the
//! suite from disk) and the requests an editor sends while typing.
//!
//! `cargo bench --bench lsp`; the figures are recorded in `docs/performance.md`.

use std::path::Path;
use std::time::{Duration, Instant};

use casec::lsp::{Options, Server};
use lsp_server::{Message, Notification, Request, RequestId};
use serde_json::{json, Value};

const ROUNDS: usize = 400;

/// The allocator `casec lsp` runs with (see `src/main.rs`), so that the figures are
/// the server's.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/tujora");
    let path = root.join("appointments/TUJ-034.case");
    let text = std::fs::read_to_string(&path).expect("the Tujora suite");
    let uri = lsp_types::Url::from_file_path(&path)
        .expect("an absolute path")
        .to_string();
    let cache_dir = std::env::temp_dir().join(format!("casec-bench-{}", std::process::id()));
    let mut server = Server::new(Options { cache_dir });
    request(&mut server, 0, "initialize", json!({ "capabilities": {} }));
    notify(&mut server, "initialized", json!({}));

    let open = time(|| {
        notify(
            &mut server,
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "case", "version": 1, "text": text } }),
        )
    });
    println!("open TUJ-034 (read and check the suite of 101 files): {open:?}");

    // Type one character into the user's message, then delete it: every change is a
    // full re-check of the suite with the edited file re-parsed.
    let at = json!({ "line": 3, "character": 8 });
    let mut edits = Vec::with_capacity(ROUNDS);
    for round in 0..ROUNDS {
        let (range, text) = if round % 2 == 0 {
            (json!({ "start": at, "end": at }), "x")
        } else {
            (
                json!({ "start": at, "end": { "line": 3, "character": 9 } }),
                "",
            )
        };
        let params = json!({
            "textDocument": { "uri": uri, "version": round + 2 },
            "contentChanges": [{ "range": range, "text": text }],
        });
        edits.push(time(|| {
            notify(&mut server, "textDocument/didChange", params)
        }));
    }
    report("re-check after an edit (didChange)", &mut edits);

    // For comparison: the same suite compiled from scratch each time, as `casec check`
    // does; the difference is the parsing the server's cache saves.
    let mut diagnostics = Vec::new();
    let sources: Vec<(String, String)> = casec::load::suite_sources(&root, &mut diagnostics)
        .into_iter()
        .map(|s| {
            // Names relative to the suite folder: `suite.case` is the suite file.
            let prefix = format!("{}/", root.display());
            (
                s.name.trim_start_matches(&prefix).to_string(),
                s.text.to_string(),
            )
        })
        .collect();
    let mut uncached: Vec<Duration> = (0..ROUNDS / 4)
        .map(|_| {
            let start = Instant::now();
            let compilation = casec::Compilation::new(casec::Sources::in_memory(
                sources.iter().map(|(n, t)| (n, t)),
            ));
            let elapsed = start.elapsed();
            assert!(!compilation.has_errors(), "the Tujora suite is clean");
            elapsed
        })
        .collect();
    report(
        "full compile without the parse cache (for comparison)",
        &mut uncached,
    );

    let position =
        json!({ "textDocument": { "uri": uri }, "position": { "line": 1, "character": 11 } });
    for (method, label) in [
        ("textDocument/completion", "completion of a category"),
        ("textDocument/hover", "hover over a category"),
    ] {
        let mut times: Vec<Duration> = (0..ROUNDS)
            .map(|i| time(|| request(&mut server, i as i32 + 1, method, position.clone())))
            .collect();
        report(label, &mut times);
    }
}

fn time(f: impl FnOnce() -> Vec<Message>) -> Duration {
    let start = Instant::now();
    let replies = f();
    let elapsed = start.elapsed();
    assert!(!replies.is_empty(), "every message measured gets an answer");
    elapsed
}

fn report(label: &str, times: &mut [Duration]) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "{label}: median {:?}, p90 {:?}, max {:?} ({} runs)",
        at(0.5),
        at(0.9),
        at(1.0),
        times.len()
    );
}

fn request(server: &mut Server, id: i32, method: &str, params: Value) -> Vec<Message> {
    let request = Request::new(RequestId::from(id), method.to_string(), params);
    server.handle(Message::Request(request))
}

fn notify(server: &mut Server, method: &str, params: Value) -> Vec<Message> {
    server.handle(Message::Notification(Notification::new(
        method.to_string(),
        params,
    )))
}
