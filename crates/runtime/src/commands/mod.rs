//! `commands.run`: a shell command run in the case's workspace, for real.
//!
//! A session's first command makes its workspace ([`isolation::Workspace`]: a fresh
//! folder, isolated). Before each command the file store is written to it (the
//! store holds what the world seeded and what tools wrote; a file the store no longer
//! holds is removed), the command runs ([`job`]) with the run's endpoints served to it
//! ([`crate::web`]), and then the folder's files become the store's
//! ([`crate::workspace::overlay_files`]): what the command wrote is what
//! `file` expectations grade, and what a `read_file` tool reads next. Each request its
//! programs made goes into the trace as a call of the suite's tool bound to the
//! endpoints' `http` service, marked as made by the command, so a recovery check reads
//! a retry whoever made it.
//!
//! The result carries `exit_code`, `stdout` and `stderr` (their first bytes, with
//! `stdout_bytes`/`stderr_bytes` counting all); a command that exits non-zero is the
//! error `COMMAND_FAILED`, one killed at its time limit `TIMEOUT`, one that cannot run
//! here (no isolation available, a workspace that cannot be written) `UNAVAILABLE`.

pub mod isolation;
pub mod job;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value as Json};

use crate::model::expect::{FileStore, Sandbox};
use crate::model::tool::{file_store, workspace_path, Commands, Http, Tool};
use crate::model::value::FieldValue;
use crate::model::Suite;

use super::services::argument;
use super::state::State;
use super::web::{Answer, Fault};
use super::{workspace, CallRecord, CallResult, Runtime};

use isolation::Workspace;
use job::{Job, Outcome};

/// Where a session's commands run: makes the workspace hold exactly the store's files,
/// runs a job there, and gives its outcome and the workspace's files after it. casec's
/// own is [`isolation::Workspace`]; the Python package gives one that runs jobs in an
/// Inspect sandbox (docs/python.md).
pub trait Executor: Send {
    /// `files`: the store's files, by store path (only paths in the workspace);
    /// `folders`: the workspace's top folders the run may leave files in (`/outputs`),
    /// for an executor that cannot read the whole file system.
    fn run(&mut self, job: &Job, files: &Files, folders: &[String]) -> Result<Ran, String>;
}

/// What a job did, and the workspace's files after it (or why they cannot be read:
/// the outcome, and the requests it reports, stand all the same).
pub struct Ran {
    pub outcome: Outcome,
    pub files: Result<Files, String>,
}

/// Files by store path (`/outputs/a.csv`), with their bytes.
pub type Files = BTreeMap<String, Vec<u8>>;

impl Executor for Workspace {
    fn run(&mut self, job: &Job, files: &Files, _folders: &[String]) -> Result<Ran, String> {
        // The folder holds what the last command left, as read back then (nothing else
        // writes in it between commands); read only when that is not known.
        let held = match self.held.take() {
            Some(held) => Ok(held),
            None => workspace::files_under(self.root()).map_err(|e| e.to_string()),
        };
        held.and_then(|held| sync(self.root(), &held, files))
            .map_err(|why| format!("the workspace cannot be written: {why}"))?;
        let outcome = self.run_job(job);
        let files = workspace::files_under(self.root()).map_err(|why| why.to_string());
        self.held = files.as_ref().ok().cloned();
        Ok(Ran { outcome, files })
    }
}

pub fn run(rt: &mut Runtime, c: &Commands, arguments: &Json) -> CallResult {
    let command = argument(arguments, Some(&c.command_argument))
        .unwrap_or_default()
        .to_string();
    let directory = argument(arguments, c.directory_argument.as_ref())
        .unwrap_or("/")
        .to_string();
    let Some(Ok(store)) = file_store(&rt.suite.tools) else {
        return CallResult::error("UNAVAILABLE", "the suite's tools keep no files (no tool is bound to a `files.*` service): a workspace has nothing to hold");
    };
    let files = store_files(&rt.state, &store);
    let folders = workspace_folders(rt, &files);
    let http = endpoints_tool(rt);
    let job = Job {
        command,
        directory,
        limits: c.limits,
        web: http.map(|(_, h)| rt.web(h).clone()),
    };
    let ran = rt
        .executor()
        .and_then(|executor| executor.run(&job, &files, &folders));
    let Ran {
        mut outcome,
        files: after,
    } = match ran {
        Ok(ran) => ran,
        Err(why) => return CallResult::error("UNAVAILABLE", why),
    };
    if let Some(web) = outcome.web.take() {
        rt.web.counts = web.counts;
    }
    if let Some(endpoints) = http {
        record_requests(
            rt,
            endpoints,
            &job.command,
            std::mem::take(&mut outcome.requests),
        );
    }
    let overlaid = after.and_then(|after| {
        workspace::overlay_files(rt, after, |path| workspace_path(path).is_some())
            .map_err(|why| why.to_string())
    });
    match overlaid {
        Ok(changed) => result(outcome, changed),
        Err(why) => CallResult::error(
            "UNAVAILABLE",
            format!("the command ran, but the workspace it left cannot be read: {why}"),
        ),
    }
}

/// The files a case's world seeds in its workspace, by path (for a harness that seeds
/// its sandbox before the first command: Inspect samples' `files`).
pub fn seeded_files(suite: &Suite, sandbox: &Sandbox) -> Files {
    match file_store(&suite.tools) {
        Some(Ok(store)) => store_files(&State::from_world(&sandbox.world), &store),
        _ => Files::new(),
    }
}

/// The store's files that belong in the workspace, by path.
fn store_files(state: &State, store: &FileStore) -> Files {
    state
        .in_collection(store.collection.as_str())
        .filter_map(|record| {
            let Some(FieldValue::Text(path)) = record.field(store.path_field.as_str()) else {
                return None;
            };
            workspace_path(path)?;
            let bytes = match record.field(store.content_field.as_str()) {
                Some(FieldValue::Bytes(b)) => b.data.to_vec(),
                Some(FieldValue::Text(t)) => t.as_bytes().to_vec(),
                _ => Vec::new(),
            };
            Some((path.clone(), bytes))
        })
        .collect()
}

/// The workspace's top folders a run's files are read from: those of the store's
/// files and those the case's file expectations name (`/outputs`), sorted.
fn workspace_folders(rt: &Runtime, files: &Files) -> Vec<String> {
    let named = rt.sandbox.file_paths();
    let mut folders: Vec<String> = files
        .keys()
        .map(String::as_str)
        .chain(named.iter().map(|p| p.as_str()))
        .filter_map(|path| {
            let top = workspace_path(path)?
                .components()
                .next()?
                .as_os_str()
                .to_str()?
                .to_string();
            Some(format!("/{top}"))
        })
        .collect();
    folders.sort();
    folders.dedup();
    folders
}

/// What the trace keeps of a call's result when `tool` runs commands: the exit code
/// (null when a signal ended the command), whether it timed out, and its output as
/// capped, from a command's result or an override's answer for one.
pub fn kept(tool: Option<&Tool>, result: &Json) -> Option<Box<Json>> {
    let runs_commands = tool.is_some_and(|t| t.commands().is_some());
    let exit_code = result.get("exit_code").filter(|_| runs_commands)?;
    let text = |key: &str| result.get(key).and_then(Json::as_str).unwrap_or_default();
    Some(Box::new(json!({
        "exit_code": exit_code,
        "timed_out": result.get("error").and_then(Json::as_str) == Some("TIMEOUT"),
        "stdout": text("stdout"),
        "stderr": text("stderr"),
    })))
}

/// The call's result from the command's outcome.
fn result(outcome: Outcome, changed: Vec<String>) -> CallResult {
    if let Some(why) = outcome.not_started {
        return CallResult::error("UNAVAILABLE", why);
    }
    let fields = json!({
        "exit_code": outcome.exit_code,
        "stdout": outcome.stdout,
        "stderr": outcome.stderr,
        "stdout_bytes": outcome.stdout_bytes,
        "stderr_bytes": outcome.stderr_bytes,
    });
    let failure = match (outcome.timed_out, outcome.exit_code) {
        (true, _) => Some((
            "TIMEOUT",
            "the command was killed at its time limit".to_string(),
        )),
        (false, Some(0)) => None,
        (false, Some(code)) => Some(("COMMAND_FAILED", format!("the command exited with {code}"))),
        (false, None) => Some((
            "COMMAND_FAILED",
            "the command was killed by a signal".to_string(),
        )),
    };
    let mut done = match failure {
        None => CallResult::ok(fields, Vec::new(), Vec::new()),
        Some((error, message)) => {
            let mut failed = CallResult::error(error, message);
            if let (Json::Object(result), Json::Object(fields)) = (&mut failed.result, fields) {
                result.extend(fields);
            }
            failed
        }
    };
    // A failed command may have written files all the same: they count.
    done.changed = changed;
    done
}

/// The tool the case offers over the world's endpoints (`http`), with its binding.
fn endpoints_tool<'a>(rt: &Runtime<'a>) -> Option<(&'a Tool, &'a Http)> {
    rt.offered()
        .iter()
        .find_map(|tool| Some((*tool, tool.http()?)))
}

/// Each request a command's programs made, as a call of `tool` marked as the
/// command's: not a step of the run, and not replayed from a trace.
fn record_requests(
    rt: &mut Runtime,
    (tool, h): (&Tool, &Http),
    command: &str,
    requests: Vec<super::web::Request>,
) {
    for request in requests {
        let (failed, error, returned) = match &request.answer {
            Answer::Status { endpoint, .. } => (false, None, endpoint.iter().cloned().collect()),
            Answer::Dropped { endpoint, fault } => {
                // A `status` fault is an answer (`Answer::Status`), never dropped.
                let code = match fault {
                    Fault::Timeout => "TIMEOUT",
                    Fault::Reset | Fault::Status => "NETWORK_ERROR",
                };
                (true, Some(code.to_string()), vec![endpoint.clone()])
            }
        };
        let mut arguments = json!({ h.url_argument.as_str(): request.url });
        if let Some(method) = &h.method_argument {
            arguments[method.as_str()] = json!(request.method);
        }
        rt.command_requests.push(CallRecord {
            tool: tool.name.as_str().to_string(),
            arguments,
            failed,
            error,
            intercepted: false,
            returned,
            changed: Vec::new(),
            by_command: Some(command.to_string()),
            output: None,
        });
    }
}

/// Makes the folder `root` hold exactly `files`: writes each file whose bytes differ,
/// and removes each file the store does not hold. Never through a link a command left
/// (it could lead anywhere on the machine): a link in the way is removed.
pub fn flush(root: &Path, files: &Files) -> Result<(), String> {
    let on_disk = workspace::files_under(root).map_err(|e| e.to_string())?;
    sync(root, &on_disk, files)
}

/// Makes the folder `root`, which holds `on_disk`, hold exactly `files` (see [`flush`]).
fn sync(root: &Path, on_disk: &Files, files: &Files) -> Result<(), String> {
    for (path, bytes) in files {
        let Some(relative) = workspace_path(path) else {
            continue;
        };
        if on_disk.get(path) != Some(bytes) {
            write_file(root, &relative, bytes).map_err(|e| format!("`{path}`: {e}"))?;
        }
    }
    for path in on_disk.keys().filter(|p| !files.contains_key(*p)) {
        if let Some(relative) = workspace_path(path) {
            let _ = std::fs::remove_file(root.join(relative));
        }
    }
    Ok(())
}

/// Writes `bytes` at `relative` under `root`, making its folders; whatever is in the
/// way that is not a folder (a file, a link) is removed first, so nothing is written
/// through a link.
fn write_file(root: &Path, relative: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut at = root.to_path_buf();
    let parts: Vec<_> = relative.components().collect();
    let Some((file, folders)) = parts.split_last() else {
        return Ok(());
    };
    for folder in folders {
        at.push(folder);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                std::fs::remove_file(&at)?;
                std::fs::create_dir(&at)?;
            }
            Err(_) => std::fs::create_dir(&at)?,
        }
    }
    at.push(file);
    match std::fs::symlink_metadata(&at) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&at)?,
        Ok(_) => std::fs::remove_file(&at)?,
        Err(_) => {}
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&at)
        .and_then(|mut f| std::io::Write::write_all(&mut f, bytes))
}

/// `casec workspace-job`: the isolated side of a command (standard input: a [`Job`];
/// standard output: its [`Outcome`]).
pub fn job_main() -> u8 {
    // The command runs as the same user: without this it could read this process's
    // memory and descriptors through /proc, and write a forged outcome.
    #[cfg(target_os = "linux")]
    if rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
        .is_err()
    {
        eprintln!("casec workspace-job: cannot make the job non-dumpable");
        return 2;
    }
    let mut input = Vec::new();
    if std::io::Read::read_to_end(&mut std::io::stdin(), &mut input).is_err() {
        return 2;
    }
    let Ok(job) = serde_json::from_slice::<Job>(&input) else {
        eprintln!("casec workspace-job: standard input is not a job");
        return 2;
    };
    let outcome = job::run(&job, Path::new("/"));
    match serde_json::to_writer(std::io::stdout(), &outcome) {
        Ok(()) => 0,
        Err(_) => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_path_maps_into_the_workspace_only_when_it_stays_in_it() {
        assert_eq!(
            workspace_path("/outputs/a.csv"),
            Some("outputs/a.csv".into())
        );
        assert_eq!(
            workspace_path("/workspace/报告/数据.xlsx"),
            Some("workspace/报告/数据.xlsx".into())
        );
        for outside in [
            "outputs/a.csv",
            "/outputs/../etc/passwd",
            "/etc/passwd",
            "/tmp/x",
            "/",
        ] {
            assert_eq!(workspace_path(outside), None, "{outside}");
        }
    }

    #[test]
    fn a_write_never_goes_through_a_link_in_the_way() {
        let root = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), root.path().join("outputs")).unwrap();
        write_file(root.path(), Path::new("outputs/a.csv"), b"x").unwrap();
        assert!(root.path().join("outputs").is_dir());
        assert_eq!(
            std::fs::read(root.path().join("outputs/a.csv")).unwrap(),
            b"x"
        );
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
    }
}
