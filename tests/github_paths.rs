//! `--format github` names each file relative to the repository root, as GitHub places
//! annotations: run from a subfolder, where the paths typed start with `..`, the
//! annotations still name `cases/tujora/medication/TUJ-011.case`.

use std::path::Path;
use std::process::Command;

/// A copy of the Tujora suite's `.case` files under `repo/cases/tujora`, with an
/// unknown tag in TUJ-011.
fn repo_copy(repo: &Path) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases/tujora");
    let to = repo.join("cases/tujora");
    for entry in walk(&from) {
        let relative = entry.strip_prefix(&from).unwrap();
        let target = to.join(relative);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        let mut text = std::fs::read_to_string(&entry).unwrap();
        if relative.ends_with("TUJ-011.case") {
            text = text.replace("tags tool_failure_or_ambiguous_result", "tags tool_failure");
        }
        std::fs::write(target, text).unwrap();
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else if path.extension().is_some_and(|e| e == "case") {
            files.push(path);
        }
    }
    files
}

/// The `file=` of each annotation `casec check .. --format github` prints, run in the
/// suite's `appointments` folder.
fn annotated_files(repo: &Path, workspace: Option<&Path>) -> Vec<String> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_casec"));
    command
        .args(["check", "..", "--format", "github"])
        .current_dir(repo.join("cases/tujora/appointments"))
        .env_remove("GITHUB_WORKSPACE");
    if let Some(workspace) = workspace {
        command.env("GITHUB_WORKSPACE", workspace);
    }
    let output = command.output().expect("casec runs");
    assert_eq!(output.status.code(), Some(1), "the unknown tag is an error");
    let stderr = String::from_utf8(output.stderr).unwrap();
    let files: Vec<String> = stderr
        .lines()
        .filter(|l| l.starts_with("::"))
        .filter_map(|l| {
            let file = l.split("file=").nth(1)?;
            Some(file.split([',', ':']).next()?.to_string())
        })
        .collect();
    assert!(!files.is_empty(), "{stderr}");
    files
}

#[test]
fn annotations_name_files_from_github_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    repo_copy(&repo);
    let files = annotated_files(&repo, Some(&repo));
    assert!(
        files.contains(&"cases/tujora/medication/TUJ-011.case".to_string()),
        "{files:?}"
    );
    assert!(files.iter().all(|f| !f.contains("..")), "{files:?}");
}

#[test]
fn annotations_name_files_from_the_git_work_tree() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    repo_copy(&repo);
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let files = annotated_files(&repo, None);
    assert!(
        files.contains(&"cases/tujora/medication/TUJ-011.case".to_string()),
        "{files:?}"
    );
}

#[test]
fn without_a_root_annotations_keep_the_path_as_typed() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    repo_copy(&repo);
    let above_has_git = dir.path().ancestors().any(|a| a.join(".git").exists());
    let files = annotated_files(&repo, None);
    if !above_has_git {
        assert!(
            files.contains(&"../medication/TUJ-011.case".to_string()),
            "{files:?}"
        );
    }
}
