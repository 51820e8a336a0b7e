//! The processes casec starts for a suite (adapter programs, workspace commands): each
//! in a process group of its own, killed as a whole, under a memory limit.

use std::process::{Child, Command};

/// Kills the process and whatever it started in its process group, then reaps it.
/// It is reaped only here, so its process group id cannot have been reused.
pub fn stop(child: &mut Child) {
    #[cfg(unix)]
    {
        let group = rustix::process::Pid::from_child(child);
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// A process group of its own (killed as a whole, see [`stop`]) and an address space
/// of at most `memory` bytes (`RLIMIT_AS`) for the process and each it starts.
#[cfg(unix)]
pub fn confine(command: &mut Command, memory: u64) {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    // Never above a hard limit the user has set already: the program could not raise it.
    let hard = getrlimit(Resource::As).maximum;
    let limit = hard.map_or(memory, |h| h.min(memory));
    let memory = Rlimit {
        current: Some(limit),
        maximum: Some(limit),
    };
    // SAFETY: the closure runs in the child between `fork` and `exec`, where only
    // async-signal-safe calls may be made: it makes one system call, `setrlimit`, and
    // allocates nothing (its error converts to `io::Error` without allocating).
    unsafe {
        command.pre_exec(move || setrlimit(Resource::As, memory).map_err(std::io::Error::from));
    }
}

/// Elsewhere the process starts as it is.
#[cfg(not(unix))]
pub fn confine(_: &mut Command, _: u64) {}
