//! Where a session's commands run: a fresh folder (the workspace), isolated with Linux
//! namespaces by bubblewrap (`bwrap`, the sandbox Flatpak uses), or, only when the user
//! says so (`--unisolated-commands`), on the machine itself.
//!
//! In the isolation the workspace folder is the root of the file system, so `/outputs`
//! and `/workspace` are folders of it and a command may make new ones; the machine's
//! system folders are mounted over it read-only (`/usr`, `/bin`, `/lib`, a few files of
//! `/etc`), with a private `/proc` and `/dev`, and private, discarded `/etc`, `/run`,
//! `/var` and `/tmp`.
//! Nothing else of the machine is visible, the workspace is the only writable place
//! that lasts, and the command has no network but its own loopback, where the run's
//! endpoints are served: new user, PID, network, IPC and UTS namespaces, every
//! capability dropped, killed with casec. docs/security.md is the user's account.
//!
//! The isolated side is `casec workspace-job` ([`super::job`]), the same program,
//! mounted read-only inside, started with no environment and made non-dumpable, so the
//! command can neither read it (`/proc/PID/environ`) nor write into its output; a hard
//! deadline past the command's own time limit kills the whole isolation if that side
//! hangs.

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::job::{self, Job, Outcome};
use crate::process;

/// How commands are kept from the machine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Isolation {
    /// Namespaces (bubblewrap), running `program` (the casec executable) inside.
    #[default]
    Namespaces,
    /// None: commands run on the machine, as the user, in the workspace folder (their
    /// absolute paths are the machine's). Only with the user's explicit consent.
    Host,
}

/// The files of `/etc` a command may read: what the C library and common runtimes
/// consult (users, name resolution, time zone, shared-library paths, alternatives).
const ETC_FILES: &[&str] = &[
    "passwd",
    "group",
    "nsswitch.conf",
    "hosts",
    "localtime",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "alternatives",
    "mime.types",
    "ssl",
    "ca-certificates",
    "python3",
    "fonts",
];

/// How long past a command's own limit the isolation may take before it is killed.
const GRACE: Duration = Duration::from_secs(10);
/// The longest outcome read from the isolated side: room for both output streams at
/// their limit, each byte escaped in JSON at most six times over (`\u0000`), and the
/// requests.
fn max_outcome(limits: &crate::model::tool::CommandLimits) -> u64 {
    (limits.output_kib << 10)
        .saturating_mul(2 * 6)
        .saturating_add(16 << 20)
}

/// A session's workspace: a fresh folder, removed when the session ends.
pub struct Workspace {
    folder: tempfile::TempDir,
    isolation: Isolation,
    /// The casec executable run inside the isolation.
    program: PathBuf,
    /// The files the folder held after the last command, as read back then.
    pub(super) held: Option<super::Files>,
}

impl Workspace {
    /// A fresh, empty workspace; an error says why commands cannot run here.
    pub fn create(isolation: Isolation, program: PathBuf) -> Result<Workspace, String> {
        if isolation == Isolation::Namespaces {
            available()?;
        }
        let folder = tempfile::Builder::new()
            .prefix("casec-workspace-")
            .tempdir()
            .map_err(|e| format!("cannot make a workspace folder: {e}"))?;
        Ok(Workspace {
            folder,
            isolation,
            program,
            held: None,
        })
    }

    /// The folder that stands for the root of the command's file system.
    pub fn root(&self) -> &Path {
        self.folder.path()
    }

    /// Runs a job in the workspace and waits for its outcome.
    pub fn run_job(&self, job: &Job) -> Outcome {
        match self.isolation {
            Isolation::Host => job::run(job, self.root()),
            Isolation::Namespaces => self.run_isolated(job).unwrap_or_else(|why| Outcome {
                not_started: Some(why),
                ..Outcome::default()
            }),
        }
    }

    fn run_isolated(&self, job: &Job) -> Result<Outcome, String> {
        let request = serde_json::to_vec(job).map_err(|e| e.to_string())?;
        let mut child = bubblewrap(self.root(), &self.program)
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start `bwrap`: {e}"))?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(&request);
        }
        let cap = max_outcome(&job.limits);
        let read = |stream: Option<Box<dyn Read + Send>>| {
            std::thread::spawn(move || {
                let mut text = Vec::new();
                if let Some(stream) = stream {
                    let _ = stream.take(cap).read_to_end(&mut text);
                }
                text
            })
        };
        let stdout = read(
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
        );
        let stderr = read(
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
        );
        let deadline = Instant::now() + Duration::from_secs(job.limits.timeout_seconds) + GRACE;
        let finished = loop {
            match child.try_wait() {
                Ok(Some(_)) => break true,
                Ok(None) if Instant::now() >= deadline => break false,
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(_) => break false,
            }
        };
        process::stop(&mut child);
        let stdout = stdout.join().unwrap_or_default();
        let stderr = stderr.join().unwrap_or_default();
        if !finished {
            return Err("the isolated workspace did not finish in time and was killed".into());
        }
        serde_json::from_slice(&stdout).map_err(|_| {
            let said = String::from_utf8_lossy(&stderr);
            format!("the isolated workspace failed: {}", said.trim())
        })
    }
}

/// The casec executable the isolated side runs: `CASEC_JOB_PROGRAM` when set (an
/// embedder's, such as the Python package's), else this program when it is casec, else
/// `casec` on `PATH`.
pub fn job_program() -> Result<PathBuf, String> {
    if let Some(program) = std::env::var_os("CASEC_JOB_PROGRAM") {
        return Ok(PathBuf::from(program));
    }
    let this = std::env::current_exe().ok();
    if let Some(this) = this.filter(|p| p.file_stem().is_some_and(|s| s == "casec")) {
        return Ok(this);
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|folder| folder.join("casec"))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| "workspace commands need the casec program (its isolated side): put `casec` on PATH or name it in CASEC_JOB_PROGRAM".to_string())
}

/// Whether bubblewrap can make an isolation here; the error says what to do. Probed
/// once per process: every session of a `verify` asks.
fn available() -> Result<(), String> {
    static PROBED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    PROBED.get_or_init(probe).clone()
}

fn probe() -> Result<(), String> {
    let probe = Command::new("bwrap")
        .args(["--unshare-all", "--ro-bind", "/", "/", "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    match probe {
        Ok(done) if done.status.success() => Ok(()),
        Ok(done) => Err(format!(
            "bubblewrap cannot make an isolation on this machine ({}): it needs unprivileged user namespaces (see docs/security.md), or pass --unisolated-commands to run workspace commands unisolated, as you",
            String::from_utf8_lossy(&done.stderr).trim()
        )),
        Err(_) => Err("workspace commands run isolated by bubblewrap (`bwrap`), which is not installed: install it (Debian and Ubuntu: `apt install bubblewrap`), or pass --unisolated-commands to run them unisolated, as you".into()),
    }
}

/// The `bwrap` command that runs `program workspace-job` with `root` as the file
/// system's root (see the module's rules).
fn bubblewrap(root: &Path, program: &Path) -> Command {
    let mut command = Command::new("bwrap");
    command.args(bubblewrap_arguments(root, program));
    command
}

/// The arguments of that `bwrap` command: for a harness that runs it itself (the
/// Python package, in Inspect's `local` sandbox, whose folder is then the root).
pub fn bubblewrap_arguments(root: &Path, program: &Path) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    let mut push = |words: &[&dyn AsRef<OsStr>]| {
        args.extend(words.iter().map(|w| w.as_ref().to_os_string()));
    };
    // The isolated side starts with no environment (casec's may hold keys); the job
    // gives the command its own.
    push(&[
        &"--die-with-parent",
        &"--new-session",
        &"--unshare-all",
        &"--cap-drop",
        &"ALL",
        &"--clearenv",
    ]);
    push(&[&"--bind", &root, &"/"]);
    // Private and discarded with each command: nothing written under them lasts, and
    // they are mounted before what is bound inside them.
    for private in ["/etc", "/run", "/var", "/tmp"] {
        push(&[&"--tmpfs", &private]);
    }
    push(&[&"--ro-bind", &"/usr", &"/usr"]);
    // Mounted, not linked, even where the machine links them into /usr: the mount
    // points stay in the workspace folder between commands, and a mount onto one that
    // is there already is fine where a second link is not.
    for top in ["bin", "sbin", "lib", "lib32", "lib64", "libx32"] {
        let host = Path::new("/").join(top);
        if host.is_dir() {
            push(&[&"--ro-bind", &host, &host]);
        }
    }
    for file in ETC_FILES {
        let host = Path::new("/etc").join(file);
        push(&[&"--ro-bind-try", &host, &host]);
    }
    push(&[&"--proc", &"/proc", &"--dev", &"/dev"]);
    push(&[&"--ro-bind", &program, &JOB_PROGRAM]);
    push(&[&"--chdir", &"/", &"--", &JOB_PROGRAM, &"workspace-job"]);
    args
}

/// Where the isolated side's program is mounted.
const JOB_PROGRAM: &str = "/run/casec/casec";
