//! What writing an output does to what sits at the output path, and what happens when
//! an output cannot be written: symbolic links, FIFOs and devices, file modes, outputs
//! that are inputs, temporary files of killed runs, full devices and read-only folders.

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const TUJORA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/cases/tujora");

fn casec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(args)
        .current_dir(ROOT)
        .env("NO_COLOR", "1")
        .output()
        .expect("casec runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn master() -> Vec<u8> {
    let output = casec(&["build", TUJORA]);
    assert_eq!(output.status.code(), Some(0));
    output.stdout
}

#[test]
fn dash_is_standard_output() {
    let output = casec(&["build", TUJORA, "-o", "-"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(output.stdout, master());
    assert!(!Path::new(ROOT).join("-").exists());
}

#[test]
fn an_output_that_is_an_input_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let suite = dir.path().join("suite");
    fs::create_dir(&suite).unwrap();
    let suite_file = suite.join("suite.case");
    fs::copy(
        Path::new(ROOT).join("tests/build/minimal.case"),
        &suite_file,
    )
    .unwrap();
    let before = fs::read(&suite_file).unwrap();
    // By its own name, and by another: a hard link is the same file.
    let alias = dir.path().join("alias.json");
    fs::hard_link(&suite_file, &alias).unwrap();
    for output_path in [&suite_file, &alias] {
        let output = casec(&[
            "build",
            suite.to_str().unwrap(),
            "-o",
            output_path.to_str().unwrap(),
        ]);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(stderr(&output).contains("the output is an input of this run"));
        assert_eq!(fs::read(&suite_file).unwrap(), before);
    }

    let case = "cases/tujora/medication/TUJ-011.case";
    let copy = dir.path().join("TUJ-011.trace.jsonl");
    fs::copy(
        Path::new(ROOT).join("cases/tujora/medication/TUJ-011.trace.jsonl"),
        &copy,
    )
    .unwrap();
    let trace = fs::read(&copy).unwrap();
    for target in [Path::new(ROOT).join(case), copy.clone()] {
        let before = fs::read(&target).unwrap();
        let output = casec(&[
            "replay",
            case,
            "--trace",
            copy.to_str().unwrap(),
            "-o",
            target.to_str().unwrap(),
        ]);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert_eq!(fs::read(&target).unwrap(), before);
    }
    assert_eq!(fs::read(&copy).unwrap(), trace);
}

#[test]
fn a_file_with_a_name_of_the_longest_length_is_written() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let out = dir.path().join(format!("{}.json", "m".repeat(250)));
    let output = casec(&["build", TUJORA, "-o", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(fs::read(&out).unwrap(), master());
}

#[cfg(unix)]
mod unix {
    use super::*;
    use std::os::unix::fs::{symlink, PermissionsExt};

    #[test]
    fn a_symbolic_link_output_writes_its_target_and_stays_a_link() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let target = dir.path().join("real.json");
        fs::write(&target, "old").unwrap();
        let link = dir.path().join("link.json");
        symlink("real.json", &link).unwrap();
        let output = casec(&["build", TUJORA, "-o", link.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&target).unwrap(), master());
    }

    #[test]
    fn a_replaced_file_keeps_its_mode() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let out = dir.path().join("master.json");
        fs::write(&out, "old").unwrap();
        fs::set_permissions(&out, fs::Permissions::from_mode(0o600)).unwrap();
        let output = casec(&["build", TUJORA, "-o", out.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert_eq!(
            fs::metadata(&out).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(fs::read(&out).unwrap(), master());
    }

    #[test]
    fn a_device_is_written_into_not_replaced() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let (null, full) = devices(dir.path());
        let output = casec(&["build", TUJORA, "-o", null.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(!fs::metadata(&null).unwrap().is_file(), "still a device");
        let output = casec(&["build", TUJORA, "-o", full.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(
            stderr(&output).contains("No space left on device"),
            "{}",
            stderr(&output)
        );
        assert!(!fs::metadata(&full).unwrap().is_file(), "still a device");
    }

    #[test]
    fn a_fifo_is_written_into_not_replaced() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let fifo = dir.path().join("master.fifo");
        let made = Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).expect("the FIFO is readable"))
        };
        let output = casec(&["build", TUJORA, "-o", fifo.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert_eq!(reader.join().unwrap(), master());
        assert!(!fs::metadata(&fifo).unwrap().is_file(), "still a FIFO");
    }

    #[test]
    fn fmt_of_a_linked_case_file_formats_the_target_and_keeps_the_link() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let target = dir.path().join("real.case");
        fs::write(&target, "case X \"t\" {\n    user    \"hi\"\n}\n").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.case");
        symlink("real.case", &link).unwrap();
        let output = casec(&["fmt", link.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(
            fs::read_to_string(&target).unwrap(),
            "case X \"t\" {\n  user \"hi\"\n}\n"
        );
        assert_eq!(
            fs::metadata(&target).unwrap().permissions().mode() & 0o777,
            0o640
        );
    }

    #[test]
    fn temporary_files_of_a_dead_run_are_removed_and_live_ones_kept() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let out = dir.path().join("master.json");
        // A PID above Linux's maximum (2^22) belongs to no process.
        let dead = dir.path().join(".master.json.casec-tmp-4194305");
        let dead_folder = dir.path().join(".bundles.casec-tmp-4194306");
        let live = dir
            .path()
            .join(format!(".other.json.casec-tmp-{}", std::process::id()));
        let fresh = dir.path().join(".fresh.json.casec-tmp-4194307");
        let unrelated = dir.path().join(".notes.casec-tmp-x");
        for file in [&dead, &live, &fresh, &unrelated] {
            fs::write(file, "partial").unwrap();
        }
        fs::create_dir(&dead_folder).unwrap();
        fs::write(dead_folder.join("a.json"), "partial").unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        for path in [&dead, &live, &dead_folder, &unrelated] {
            fs::File::open(path).unwrap().set_modified(old).unwrap();
        }
        let output = casec(&["build", TUJORA, "-o", out.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        if cfg!(target_os = "linux") {
            assert!(
                !dead.exists() && !dead_folder.exists(),
                "stale files are removed"
            );
        }
        assert!(live.exists(), "a live process's file is kept");
        assert!(fresh.exists(), "a file touched in the last minute is kept");
        assert!(unrelated.exists(), "a name that is not casec's is kept");
    }

    /// A write that fails (here: files may not grow, whoever runs the test) is not
    /// counted as a file reformatted.
    #[test]
    fn fmt_that_cannot_write_claims_nothing() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let file = dir.path().join("x.case");
        fs::write(&file, "case X \"t\" {\n    user    \"hi\"\n}\n").unwrap();
        let output = Command::new("sh")
            .arg("-c")
            .arg("trap '' XFSZ; ulimit -f 0; exec \"$0\" fmt \"$1\"")
            .arg(env!("CARGO_BIN_EXE_casec"))
            .arg(&file)
            .output()
            .expect("sh runs");
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        let text = stderr(&output);
        assert!(text.contains("reformatted 0, 1 not written"), "{text}");
        assert!(text.contains("cannot write file"), "{text}");
        assert_eq!(
            fs::read_to_string(&file).unwrap(),
            "case X \"t\" {\n    user    \"hi\"\n}\n",
            "left as it was"
        );
    }

    #[test]
    fn fmt_in_a_read_only_folder_claims_nothing() {
        if is_root() {
            return; // root writes anywhere; the test above covers root
        }
        let dir = tempfile::tempdir().expect("a temp dir");
        let file = dir.path().join("x.case");
        fs::write(&file, "case X \"t\" {\n    user    \"hi\"\n}\n").unwrap();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o555)).unwrap();
        let output = casec(&["fmt", file.to_str().unwrap()]);
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(output.status.code(), Some(2));
        let text = stderr(&output);
        assert!(text.contains("reformatted 0, 1 not written"), "{text}");
    }

    fn is_root() -> bool {
        use std::os::unix::fs::MetadataExt;
        fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
    }

    /// As root, the device nodes to write are made in a temporary folder, so that a
    /// regression cannot replace the machine's `/dev/null`; others cannot replace
    /// `/dev`'s devices anyway.
    fn devices(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
        if !is_root() {
            return ("/dev/null".into(), "/dev/full".into());
        }
        let null = dir.join("null");
        let full = dir.join("full");
        for (path, minor) in [(&null, "3"), (&full, "7")] {
            let made = Command::new("mknod")
                .arg(path)
                .args(["c", "1", minor])
                .status()
                .expect("mknod runs");
            assert!(made.success(), "root makes device nodes");
        }
        (null, full)
    }
}

/// Every command whose output goes to standard output reports a write that fails
/// (`/dev/full`) and exits 2; diagnostics that cannot be printed exit 2 too.
#[cfg(target_os = "linux")]
#[test]
fn output_to_a_full_device_is_reported() {
    let full = || {
        fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let run = |args: &[&str], stdin: Option<&str>, to_stderr: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_casec"));
        command.args(args).current_dir(ROOT);
        if to_stderr {
            command.stderr(Stdio::from(full()));
        } else {
            command.stdout(Stdio::from(full())).stderr(Stdio::piped());
        }
        command.stdin(match stdin {
            Some(path) => Stdio::from(fs::File::open(Path::new(ROOT).join(path)).unwrap()),
            None => Stdio::null(),
        });
        command.output().expect("casec runs")
    };
    for (args, stdin) in [
        (&["fmt", "--stdin"][..], Some("cases/tujora/suite.case")),
        (&["stats", TUJORA], None),
        (&["stats", TUJORA, "--format", "json"], None),
        (&["verify", TUJORA], None),
        (&["build", TUJORA], None),
        (&["bundle", TUJORA, "--jsonl", "-"], None),
        (
            &[
                "replay",
                "TUJ-011",
                "--trace",
                "cases/tujora/medication/TUJ-011.trace.jsonl",
                TUJORA,
            ],
            None,
        ),
    ] {
        let output = run(args, stdin, false);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("cannot write standard output"),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    let check = run(
        &["check", "tests/ui/leak.case", "--format", "json"],
        None,
        true,
    );
    assert_eq!(check.status.code(), Some(2), "lost diagnostics");
}
