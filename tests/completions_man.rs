//! `casec completions SHELL` and `casec man`: generated from the command line's own
//! definitions, so each names every command `casec --help` lists.

use std::process::{Command, Output};

fn casec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_casec"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("casec runs")
}

fn stdout(output: &Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("UTF-8")
}

/// The commands `casec --help` lists (its `Commands:` section), without `help`.
fn commands() -> Vec<String> {
    let help = stdout(&casec(&["--help"]));
    let section = help
        .split("Commands:")
        .nth(1)
        .expect("a Commands section")
        .split("\n\n")
        .next()
        .unwrap();
    let names: Vec<String> = section
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_string)
        .collect();
    for expected in [
        "check",
        "build",
        "report",
        "judge",
        "completions",
        "man",
        "lsp",
    ] {
        assert!(names.iter().any(|n| n == expected), "{expected}: {names:?}");
    }
    names
}

#[test]
fn the_bash_completion_offers_every_command() {
    let script = stdout(&casec(&["completions", "bash"]));
    assert!(script.contains("complete "), "a bash completion script");
    // The words offered after `casec`: the list with `--version`, which only the
    // top level has.
    let top: Vec<&str> = script
        .lines()
        .filter_map(|l| l.trim().strip_prefix("opts=\""))
        .find(|l| l.split_whitespace().any(|w| w == "--version"))
        .expect("the words after casec")
        .trim_end_matches('"')
        .split_whitespace()
        .collect();
    for name in commands() {
        assert!(top.contains(&name.as_str()), "{name}: {top:?}");
    }
    // Options of a command are completed too.
    assert!(script.contains("--html"));
}

#[test]
fn every_shell_gets_a_completion_script() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout(&casec(&["completions", shell]));
        assert!(script.contains("report"), "{shell}");
    }
    let unknown = casec(&["completions", "tcsh"]);
    assert_eq!(unknown.status.code(), Some(2));
}

#[test]
fn the_man_page_names_every_command_and_each_command_has_its_own() {
    let page = stdout(&casec(&["man"]));
    assert!(
        page.starts_with(".ie") || page.contains(".TH casec"),
        "roff"
    );
    for name in commands() {
        assert!(page.contains(&name), "{name}");
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man1");
    stdout(&casec(&["man", "-o", out.to_str().unwrap()]));
    assert_eq!(
        std::fs::read_to_string(out.join("casec.1")).unwrap(),
        page,
        "the same page on stdout and in the folder"
    );
    for name in commands() {
        let sub = std::fs::read_to_string(out.join(format!("casec-{name}.1")))
            .unwrap_or_else(|e| panic!("casec-{name}.1: {e}"));
        assert!(sub.contains(".TH casec-"), "{name}");
    }
    // The same bytes every time.
    let again = dir.path().join("again");
    stdout(&casec(&["man", "-o", again.to_str().unwrap()]));
    for entry in std::fs::read_dir(&out).unwrap().flatten() {
        assert_eq!(
            std::fs::read(entry.path()).unwrap(),
            std::fs::read(again.join(entry.file_name())).unwrap()
        );
    }
}
