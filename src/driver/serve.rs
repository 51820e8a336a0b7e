//! `casec serve [SUITE] --case ID`: a case's sandbox over stdio JSON-RPC (MCP tools plus
//! casec's conversation methods, see `runtime::serve` and docs/traces.md).
//!
//! A session ends at `sandbox/end`, at the end of input, or when the process is asked
//! to stop (SIGTERM or SIGINT: the MCP SDK sends SIGTERM after closing the server's
//! input, and harnesses stop servers that overrun their time); each way it writes its
//! result record (`--result-out`). After `sandbox/end` the server answers until its
//! input ends, refusing any further event. Its trace (`--trace-out`) is written as it happens,
//! each event appended and synced to disk before the call is answered, so even a
//! process that is killed outright loses no event it answered; `casec replay` turns
//! the trace into the result record the session would have written. Either output is
//! created afresh: an existing file (a record of an earlier session, or a server
//! writing the same file) is refused before anything is served.
//!
//! Input is read a line at a time, each at most [`framing::MAX_LINE_BYTES`] long: a
//! longer line (or a client that never sends a line break) is skipped as it arrives and
//! answered with an error, never held in memory, and the session goes on.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};

use crate::capped_lines::{self, Line};
use crate::diag::{codes, Diagnostic};
use crate::judge::endpoint::Complete;
use crate::load;
use crate::runtime::commands::isolation::Isolation;
use crate::runtime::framing;
use crate::runtime::person::turn_from_response;
use crate::runtime::serve::{PersonModel, Session};
use crate::runtime::trace::TraceEvent;
use crate::runtime::trust::Trust;
use crate::source::SourceDb;
use crate::Depth;

use super::{compile_suite, output, write_atomically, Reporter, EXIT_ERRORS};

/// Where a session's records go.
pub struct ServeOutputs<'a> {
    pub trace: Option<&'a Path>,
    pub result: Option<&'a Path>,
}

/// The case's programs run as `trust` allows; a case whose programs it does not allow
/// is refused before anything is served or written.
pub fn serve(
    suite: &Path,
    case_id: &str,
    outputs: ServeOutputs,
    (trust, isolation): (Trust, Isolation),
    person: Option<&super::JudgeArgs>,
    reporter: &Reporter,
) -> u8 {
    let compilation = match compile_suite(suite, Depth::Check, reporter) {
        Ok(compilation) => compilation,
        Err(code) => return code,
    };
    let Some(model) = compilation.suite.as_ref() else {
        return EXIT_ERRORS;
    };
    let found = model.cases.iter().find(|c| c.id.as_str() == case_id);
    let Some((case, sandbox)) = found.and_then(|c| Some((c, c.sandbox.as_ref()?))) else {
        let d = Diagnostic::new(
            codes::IO,
            format!("no case `{case_id}` with a world in this suite"),
        )
        .at_path(load::display(suite))
        .help("give the id of a case that has a `world`");
        return reporter.report(&SourceDb::new(), &[d], 0);
    };
    if let Err(code) = super::trust::require(&compilation.db, &[], model, [case], trust, reporter) {
        return code;
    }
    let person_model =
        match person.map(|args| person_model(args, model, case, &compilation.db, reporter)) {
            None => None,
            Some(Ok(model)) => Some(model),
            Some(Err(code)) => return code,
        };
    let mut records = match Records::open(&outputs) {
        Ok(records) => records,
        Err(d) => return reporter.report(&SourceDb::new(), &[d], 0),
    };
    let mut session = Session::new(model, case, sandbox)
        .trusting(trust)
        .isolating(isolation);
    if let Some(person_model) = person_model {
        session = session.with_person_model(person_model);
    }
    let mut diagnostics = Vec::new();
    let input = read_input();
    let mut stdout = io::stdout().lock();
    loop {
        let answer = match input.recv() {
            Ok(Input::Line(line)) if line.trim_ascii().is_empty() => continue,
            Ok(Input::Line(line)) => match std::str::from_utf8(line.trim_ascii()) {
                Ok(text) => session.handle(text),
                Err(e) => Some(framing::parse_error(&format!("not UTF-8: {e}"))),
            },
            Ok(Input::TooLong) => Some(framing::line_too_long()),
            Ok(Input::End) | Err(_) => break,
        };
        // The event is on disk before the client learns of its result, and so is the
        // result record before `sandbox/end` is answered. The server still answers what
        // an MCP client sends after it (the SDK lists the tools again) until the input
        // ends.
        records.append(&session.events);
        if session.ended && !records.finished {
            diagnostics.extend(records.finish(&session));
        }
        if let Some(answer) = answer {
            if writeln!(stdout, "{answer}")
                .and_then(|()| stdout.flush())
                .is_err()
            {
                break;
            }
        }
    }
    if !records.finished {
        diagnostics.extend(records.finish(&session));
    }
    reporter.report(&SourceDb::new(), &diagnostics, 0)
}

/// The model that plays the case's simulated person, reached with the judge's settings:
/// temperature 0, the seed, the cache (a turn the model gave is reused for the same
/// request; only readable turns are kept), the endpoint's retries. The key's variable
/// is withheld from the suite's programs, as the judge's is.
fn person_model(
    args: &super::JudgeArgs,
    model: &crate::model::Suite,
    case: &crate::model::Case,
    db: &SourceDb,
    reporter: &Reporter,
) -> Result<PersonModel, u8> {
    let key = (args.api_key_env, "person model", "--person-api-key-env");
    super::trust::withhold(db, model, [case], key, reporter)?;
    let (endpoint, cache) = super::judge::connect(args, "person").map_err(|d| {
        reporter.report(&SourceDb::new(), &[d], 0);
        super::EXIT_USAGE
    })?;
    let endpoint = endpoint.named("the person model");
    let complete = move |body: &serde_json::Value| {
        let key = crate::judge::prompt::digest(body.to_string().as_bytes());
        let cached = cache
            .as_ref()
            .and_then(|c| c.get_answer(&key, body, "turn"));
        if let Some(serde_json::Value::String(text)) = cached {
            return Ok(text);
        }
        let text = endpoint.complete(body)?;
        if let (Some(cache), Ok(_)) = (&cache, turn_from_response(&text)) {
            // A cache that cannot be written costs a request next time, nothing else.
            let _ = cache.put_answer(&key, body, "turn", &text.as_str().into());
        }
        Ok(text)
    };
    Ok(PersonModel {
        model: args.model.to_string(),
        seed: args.seed,
        complete: Box::new(complete),
    })
}

/// What the session's input brings.
enum Input {
    /// One line, with its line break if it had one (it may be any bytes).
    Line(Vec<u8>),
    /// A line longer than [`framing::MAX_LINE_BYTES`], skipped unread.
    TooLong,
    /// The end of input, or a signal to stop.
    End,
}

/// Lines of standard input, and SIGTERM or SIGINT as the end, on one channel: reading
/// blocks, so each source has a thread that feeds the channel.
fn read_input() -> Receiver<Input> {
    // A rendezvous: the reader hands a line over only when the session asks for the
    // next, so it holds at most one line ahead of the one being answered. A client that
    // writes faster than it is answered waits, rather than filling memory with its
    // lines (each up to `framing::MAX_LINE_BYTES`).
    let (tx, rx) = mpsc::sync_channel(0);
    stop_on_signals(tx.clone());
    std::thread::spawn(move || {
        let mut stdin = io::stdin().lock();
        let mut line = Vec::new();
        loop {
            let read = capped_lines::read_line(&mut stdin, framing::MAX_LINE_BYTES, &mut line);
            let input = match read {
                Ok(Line::Read) => Input::Line(std::mem::take(&mut line)),
                Ok(Line::TooLong) => Input::TooLong,
                Ok(Line::End) | Err(_) => break,
            };
            if tx.send(input).is_err() {
                return;
            }
        }
        let _ = tx.send(Input::End);
    });
    rx
}

#[cfg(unix)]
fn stop_on_signals(tx: mpsc::SyncSender<Input>) {
    use signal_hook::consts::{SIGINT, SIGTERM};
    // Without the handlers a signal still ends the process, as before: only the
    // result record is then missing, and the trace has every event.
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGTERM, SIGINT]) else {
        return;
    };
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            let _ = tx.send(Input::End);
        }
    });
}

#[cfg(not(unix))]
fn stop_on_signals(_: mpsc::SyncSender<Input>) {}

/// The session's outputs, claimed when it starts.
struct Records<'a> {
    trace: Option<TraceOut<'a>>,
    result: Option<&'a Path>,
    /// The result record is written (once, at the session's end).
    finished: bool,
    /// The first failure to write the trace; the session goes on without it.
    failed: Option<Diagnostic>,
}

/// The trace file, and how many of the session's events it holds.
struct TraceOut<'a> {
    path: &'a Path,
    file: File,
    /// A regular file, which is synced after each event (a FIFO or device is not).
    regular: bool,
    written: usize,
}

impl<'a> Records<'a> {
    /// Creates both outputs, refusing any that exists as a regular file; the result
    /// record's file is held empty until the session ends.
    fn open(outputs: &ServeOutputs<'a>) -> Result<Records<'a>, Diagnostic> {
        let trace = outputs
            .trace
            .map(|path| {
                let claimed = claim(path)?;
                let file = OpenOptions::new()
                    .write(true)
                    .open(&claimed.target)
                    .map_err(|e| record_error(path, &e))?;
                Ok(TraceOut {
                    path,
                    file,
                    regular: claimed.regular,
                    written: 0,
                })
            })
            .transpose()?;
        if let Some(path) = outputs.result {
            claim(path)?;
        }
        Ok(Records {
            trace,
            result: outputs.result,
            failed: None,
            finished: false,
        })
    }

    /// Appends the events the trace does not hold yet.
    fn append(&mut self, events: &[TraceEvent]) {
        let Some(trace) = self.trace.as_mut().filter(|_| self.failed.is_none()) else {
            return;
        };
        if let Err(e) = trace.append(events) {
            self.failed = Some(record_error(trace.path, &e));
        }
    }

    /// Writes the result record; the diagnostics of whatever could not be written.
    fn finish(&mut self, session: &Session) -> Vec<Diagnostic> {
        self.finished = true;
        self.append(&session.events);
        let mut diagnostics: Vec<Diagnostic> = self.failed.take().into_iter().collect();
        if let Some(path) = self.result {
            let mut record =
                serde_json::to_string_pretty(&session.result_record()).unwrap_or_default();
            record.push('\n');
            if let Err(e) = write_atomically(path, record.as_bytes()) {
                diagnostics.push(record_error(path, &e));
            }
        }
        diagnostics
    }
}

impl TraceOut<'_> {
    fn append(&mut self, events: &[TraceEvent]) -> io::Result<()> {
        let new = events.get(self.written..).unwrap_or_default();
        if new.is_empty() {
            return Ok(());
        }
        let text: String = new.iter().map(|e| format!("{}\n", e.to_json())).collect();
        self.file.write_all(text.as_bytes())?;
        if self.regular {
            self.file.sync_data()?;
        }
        self.written = events.len();
        Ok(())
    }
}

/// An output the session has claimed: the file it writes, and whether that is a
/// regular file (which the session created) rather than a FIFO or a device.
struct Claimed {
    target: PathBuf,
    regular: bool,
}

/// Claims an output of the session: creates it as a new, empty regular file,
/// exclusively so that two servers cannot share it, or takes a FIFO or device as it is;
/// an existing regular file is refused. Symbolic links are followed.
fn claim(path: &Path) -> Result<Claimed, Diagnostic> {
    let target = output::resolve(path).map_err(|e| record_error(path, &e))?;
    match fs::metadata(&target) {
        Ok(meta) if meta.is_file() => Err(exists(path)),
        Ok(_) => Ok(Claimed {
            target,
            regular: false,
        }),
        Err(_) => match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)
        {
            Ok(_) => Ok(Claimed {
                target,
                regular: true,
            }),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(exists(path)),
            Err(e) => Err(record_error(path, &e)),
        },
    }
}

fn exists(path: &Path) -> Diagnostic {
    Diagnostic::new(
        codes::IO,
        "the file exists: it holds the record of another session, or another server is writing it",
    )
    .at_path(load::display(path))
    .help("give each session its own new --trace-out and --result-out; nothing was served")
}

fn record_error(path: &Path, e: &io::Error) -> Diagnostic {
    Diagnostic::new(codes::IO, format!("cannot write the session's record: {e}"))
        .at_path(load::display(path))
        .help("check that the folder exists and is writable")
}
