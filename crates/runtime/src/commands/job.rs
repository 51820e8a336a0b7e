//! One command, run where the workspace is: inside the isolation (`casec
//! workspace-job`, started by [`super::isolation`]) or, with the user's explicit
//! consent, on the machine itself.
//!
//! A [`Job`] comes in as JSON on standard input and its [`Outcome`] goes out as JSON on
//! standard output. The job serves the run's endpoints on a loopback port
//! ([`crate::web::serve`]) and runs the command with `/bin/sh -c` in a process
//! group of its own, under the memory limit, with an environment of its own (`PATH`,
//! `HOME=/tmp`, `LANG=C.UTF-8`, and `http_proxy` pointing at the endpoints); it keeps
//! the first bytes of each output stream and kills the group at the time limit.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::model::tool::CommandLimits;
use crate::process;
use crate::web::{self, Request, Web};

/// A command to run, with what it may use and the endpoints it may reach.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Job {
    pub command: String,
    /// The working directory, as the command sees the file system.
    pub directory: String,
    pub limits: CommandLimits,
    /// The run's endpoints and their counts so far (absent: none is served).
    pub web: Option<Web>,
}

/// What a command did.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// Its exit code (absent when a signal ended it, or it could not start).
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// Why it could not start.
    pub not_started: Option<String>,
    pub stdout: String,
    pub stderr: String,
    /// How many bytes each stream wrote, kept or not.
    pub stdout_bytes: u64,
    pub stderr_bytes: u64,
    /// The requests its programs made, in order, and the endpoints' counts after them.
    pub requests: Vec<Request>,
    pub web: Option<Web>,
}

/// The `PATH` a command gets.
const PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// Runs `job`, its working directory taken under `root` (`/` in the isolation).
pub fn run(job: &Job, root: &std::path::Path) -> Outcome {
    let server = match &job.web {
        Some(endpoints) => match web::serve(endpoints.clone(), "127.0.0.1:0") {
            Ok(server) => Some(server),
            Err(e) => {
                return Outcome {
                    not_started: Some(format!("cannot serve the endpoints: {e}")),
                    ..Outcome::default()
                }
            }
        },
        None => None,
    };
    let directory: PathBuf = root.join(job.directory.trim_start_matches('/'));
    let mut command = Command::new("/bin/sh");
    command
        .arg("-c")
        .arg(&job.command)
        .current_dir(&directory)
        .env_clear()
        .env("PATH", PATH)
        .env("HOME", "/tmp")
        .env("LANG", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(server) = &server {
        let proxy = format!("http://127.0.0.1:{}", server.port);
        for variable in ["http_proxy", "HTTP_PROXY"] {
            command.env(variable, &proxy);
        }
    }
    process::confine(&mut command, job.limits.memory_mib << 20);
    let mut outcome = execute(command, &job.limits, &directory);
    if let Some(server) = server {
        let (requests, web) = server.drain();
        outcome.requests = requests;
        outcome.web = Some(web);
    }
    outcome
}

/// Starts the command, reads its streams, and waits for it within the time limit.
fn execute(mut command: Command, limits: &CommandLimits, directory: &std::path::Path) -> Outcome {
    if !directory.is_dir() {
        return Outcome {
            not_started: Some(format!("no folder `{}`", directory.display())),
            ..Outcome::default()
        };
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return Outcome {
                not_started: Some(format!("cannot start `/bin/sh`: {e}")),
                ..Outcome::default()
            }
        }
    };
    let cap = usize::try_from(limits.output_kib << 10).unwrap_or(usize::MAX);
    let stdout = Captured::start(child.stdout.take(), cap);
    let stderr = Captured::start(child.stderr.take(), cap);
    let deadline = Instant::now() + Duration::from_secs(limits.timeout_seconds);
    let (status, timed_out) = loop {
        match child.try_wait() {
            Ok(Some(status)) => break (Some(status), false),
            Ok(None) if Instant::now() >= deadline => break (None, true),
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => break (None, false),
        }
    };
    // Whatever the shell left running in its group goes with it.
    process::stop(&mut child);
    let (stdout, stdout_bytes) = stdout.finish();
    let (stderr, stderr_bytes) = stderr.finish();
    Outcome {
        exit_code: status.and_then(|s| s.code()),
        timed_out,
        not_started: None,
        stdout,
        stderr,
        stdout_bytes,
        stderr_bytes,
        requests: Vec::new(),
        web: None,
    }
}

/// An output stream read on a thread of its own: the first bytes kept, every byte
/// counted, so the command never blocks on a full pipe.
struct Captured {
    kept: Arc<Mutex<(Vec<u8>, u64)>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Captured {
    fn start(stream: Option<impl Read + Send + 'static>, cap: usize) -> Captured {
        let kept = Arc::new(Mutex::new((Vec::new(), 0u64)));
        let reader = stream.map(|mut stream| {
            let kept = kept.clone();
            std::thread::spawn(move || {
                let mut buffer = [0u8; 8192];
                while let Ok(n) = stream.read(&mut buffer) {
                    if n == 0 {
                        return;
                    }
                    let Ok(mut kept) = kept.lock() else { return };
                    let room = cap.saturating_sub(kept.0.len()).min(n);
                    kept.0.extend_from_slice(&buffer[..room]);
                    kept.1 += n as u64;
                }
            })
        });
        Captured { kept, reader }
    }

    /// What was kept, as text (invalid UTF-8 replaced), and the bytes written.
    fn finish(mut self) -> (String, u64) {
        // The group was killed, so the pipe's writers are gone and the reader ends; a
        // process that left the group may still hold the pipe: it is not waited for.
        let waited = Instant::now();
        if let Some(reader) = self.reader.take() {
            while !reader.is_finished() && waited.elapsed() < Duration::from_secs(1) {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let kept = match self.kept.lock() {
            Ok(kept) => kept.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        (String::from_utf8_lossy(&kept.0).into_owned(), kept.1)
    }
}
