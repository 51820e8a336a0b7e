//! Consent to run a suite's programs, and where those programs may be.
//!
//! A suite is data until the user says otherwise. The programs its tools' adapters
//! name run only with the user's consent ([`Trust`]: `--trust` on the command line,
//! `trust=True` in Python), as pre-commit hooks and VS Code's workspace trust ask for
//! it. With consent, a program given as a path, and an argument that is an absolute
//! path or climbs with `..`, must resolve (symbolic links followed) inside the suite
//! folder, unless the user also allows programs outside it ([`Trust::Outside`],
//! `--trust-outside`); a bare program name (`python3`) is looked up on `PATH`.
//!
//! Commands ask [`refusals`] before they do any work and refuse with its reasons; the
//! runtime asks [`launch`] again before it starts a program, so no path through the
//! code starts one without consent. docs/security.md is the user's account.

use std::fs;
use std::path::{Component, Path, PathBuf};

use crate::diag::{codes, Diagnostic};
use crate::model::tool::{Adapter, Binding, Tool};
use crate::model::{Case, Suite};

/// What the user allows a suite's programs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Trust {
    /// No consent: none of the suite's programs runs (the default).
    #[default]
    Untrusted,
    /// Its programs run when they are inside the suite folder (or bare names on `PATH`).
    Suite,
    /// Its programs run wherever they are, and may be given paths outside the suite.
    Outside,
}

impl Trust {
    /// The trust the two flags give (`--trust`, `--trust-outside`); the second alone
    /// gives none, as it widens a consent that must be given first.
    pub fn from_flags(trust: bool, outside: bool) -> Trust {
        match (trust, outside) {
            (false, _) => Trust::Untrusted,
            (true, false) => Trust::Suite,
            (true, true) => Trust::Outside,
        }
    }
}

/// Why a program may not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The user has not consented to running the suite's programs.
    NoConsent,
    /// A program path or a path argument is outside the suite folder (or cannot be
    /// resolved), and the user has not allowed that.
    Outside {
        /// The word of the command, as the suite writes it.
        word: String,
        /// Where it leads, or why that cannot be told.
        leads: String,
    },
}

/// A program the suite would run, refused: whose, what, and why.
#[derive(Clone, Debug)]
pub struct Refusal<'a> {
    pub tool: &'a Tool,
    pub adapter: &'a Adapter,
    pub why: Refused,
}

impl Refusal<'_> {
    /// What was refused, in a sentence that names the tool and its command.
    pub fn message(&self) -> String {
        let tool = self.tool.name.as_str();
        let command = shown(self.adapter);
        match &self.why {
            Refused::NoConsent => format!(
                "the suite's tool `{tool}` runs the program `{command}`, and you have not allowed this suite's programs to run"
            ),
            Refused::Outside { word, leads } => format!(
                "the tool `{tool}` runs `{command}`, whose `{word}` is outside the suite folder ({leads})"
            ),
        }
    }

    /// What the user can do about it; `consent` says how the user allows it in this
    /// front end (`--trust`, `trust=True`).
    pub fn help(&self, consent: &Consent) -> String {
        match &self.why {
            Refused::NoConsent => format!(
                "a suite's programs run as you, with your files: if you trust this suite, {} (docs/security.md)",
                consent.suite
            ),
            Refused::Outside { .. } => format!(
                "keep the suite's programs and the paths they are given inside the suite folder, or, if you trust it to reach outside, {} (docs/security.md)",
                consent.outside
            ),
        }
    }

    /// The refusal as a diagnostic at the `adapter` statement.
    pub fn diagnostic(&self, consent: &Consent) -> Diagnostic {
        let label = match &self.why {
            Refused::NoConsent => "a program of the suite",
            Refused::Outside { .. } => "a program or path outside the suite folder",
        };
        Diagnostic::new(codes::UNTRUSTED_ADAPTER, self.message())
            .primary(self.adapter.span, label)
            .help(self.help(consent))
    }
}

/// How a front end's user consents: the words of its help.
pub struct Consent {
    /// To running the suite's programs.
    pub suite: &'static str,
    /// To programs and paths outside the suite folder as well.
    pub outside: &'static str,
}

/// The command line's words.
pub const COMMAND_LINE: Consent = Consent {
    suite: "run the command again with --trust",
    outside: "add --trust-outside to --trust",
};

/// The tools with an adapter that `cases` offer, each once, in the suite's order.
pub fn adapters<'a>(
    suite: &'a Suite,
    cases: impl IntoIterator<Item = &'a Case>,
) -> Vec<(&'a Tool, &'a Adapter)> {
    let offered: Vec<&str> = cases
        .into_iter()
        .filter(|c| c.sandbox.is_some())
        .flat_map(|c| c.tools.iter().map(|t| t.as_str()))
        .collect();
    suite
        .tools
        .iter()
        .filter(|t| offered.contains(&t.name.as_str()))
        .filter_map(|t| match &t.binding {
            Binding::Adapter(adapter) => Some((t, adapter)),
            _ => None,
        })
        .collect()
}

/// Every program of `cases` (with a world) that `trust` does not allow, with why: none
/// when they may all run. Commands ask this before any work.
pub fn refusals<'a>(
    suite: &'a Suite,
    cases: impl IntoIterator<Item = &'a Case>,
    trust: Trust,
) -> Vec<Refusal<'a>> {
    adapters(suite, cases)
        .into_iter()
        .filter_map(|(tool, adapter)| {
            let why = launch(adapter, suite.root.as_deref(), trust).err()?;
            Some(Refusal { tool, adapter, why })
        })
        .collect()
}

/// A program cleared to start: what to run, with which arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The program: a bare name (looked up on `PATH`) or its resolved path.
    pub program: PathBuf,
    pub args: Vec<String>,
}

/// The program of `adapter` and its arguments, if `trust` lets it start from the suite
/// folder `root`.
pub fn launch(adapter: &Adapter, root: Option<&Path>, trust: Trust) -> Result<Launch, Refused> {
    if trust == Trust::Untrusted {
        return Err(Refused::NoConsent);
    }
    let (program, args) = match adapter.command.split_first() {
        Some((program, args)) => (program.as_str(), args),
        // The resolver never gives an adapter without a program; starting "" fails.
        None => ("", &[][..]),
    };
    let root = root.and_then(|r| fs::canonicalize(r).ok());
    // The resolved path of a word the suite must keep inside its folder, when it
    // resolves (and outside is allowed); else why it is refused.
    let allowed = |word: &str, path: &Path| -> Result<Option<PathBuf>, Refused> {
        let resolved = resolve(root.as_deref(), path);
        let leads = match (&root, &resolved) {
            (Some(root), Some(resolved)) if resolved.starts_with(root) => {
                return Ok(Some(resolved.clone()))
            }
            (None, _) => "the suite was not read from a folder".to_string(),
            (_, Some(resolved)) => format!("it leads to {}", resolved.display()),
            (_, None) => "it cannot be resolved".to_string(),
        };
        match trust {
            Trust::Outside => Ok(resolved),
            _ => Err(Refused::Outside {
                word: word.to_string(),
                leads,
            }),
        }
    };
    let program_path = Path::new(program);
    let program = match is_path(program_path) {
        true => allowed(program, program_path)?.unwrap_or(program_path.to_path_buf()),
        false => program_path.to_path_buf(),
    };
    for arg in args {
        for path in path_words(arg.as_str()) {
            allowed(arg.as_str(), path)?;
        }
    }
    Ok(Launch {
        program,
        args: args.iter().map(|a| a.as_str().to_string()).collect(),
    })
}

/// A program given as a path (`tools/x.py`, `./x`, `/bin/sh`), not a bare name.
fn is_path(program: &Path) -> bool {
    program.is_absolute() || program.components().count() > 1
}

/// The paths an argument may name that must stay in the suite: itself, and what
/// follows its first `=` (`--config=../x`), when absolute or climbing with `..`.
fn path_words(arg: &str) -> impl Iterator<Item = &Path> {
    let value = arg.split_once('=').map(|(_, v)| v);
    std::iter::once(arg)
        .chain(value)
        .map(Path::new)
        .filter(|p| p.is_absolute() || p.components().any(|c| c == Component::ParentDir))
}

/// `path` (relative to `root`) with every symbolic link resolved. A path that does not
/// exist resolves through its deepest existing folder, if the rest does not climb.
fn resolve(root: Option<&Path>, path: &Path) -> Option<PathBuf> {
    let full = match root {
        Some(root) => root.join(path),
        None => path.to_path_buf(),
    };
    let mut rest = Vec::new();
    let mut existing = full.as_path();
    loop {
        if let Ok(found) = fs::canonicalize(existing) {
            if rest.iter().any(|c| !matches!(c, Component::Normal(_))) {
                return None;
            }
            return Some(rest.iter().rev().fold(found, |p, c| p.join(c)));
        }
        rest.push(existing.components().next_back()?);
        existing = existing.parent()?;
    }
}

/// The command as the suite writes it, words with spaces quoted.
pub fn shown(adapter: &Adapter) -> String {
    adapter
        .command
        .iter()
        .map(|w| match w.as_str().contains(char::is_whitespace) {
            true => format!("{:?}", w.as_str()),
            false => w.as_str().to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_give_trust_only_with_consent_first() {
        assert_eq!(Trust::from_flags(false, true), Trust::Untrusted);
        assert_eq!(Trust::from_flags(true, false), Trust::Suite);
        assert_eq!(Trust::from_flags(true, true), Trust::Outside);
    }

    #[test]
    fn absolute_and_climbing_arguments_are_checked_bare_words_are_not() {
        let words = |arg: &'static str| path_words(arg).collect::<Vec<_>>();
        assert!(words("tools/x.py").is_empty());
        assert!(words("-c").is_empty());
        assert_eq!(words("/etc/passwd"), [Path::new("/etc/passwd")]);
        assert_eq!(words("../x"), [Path::new("../x")]);
        assert_eq!(words("--config=../x"), [Path::new("../x")]);
        assert!(is_path(Path::new("./x")) && is_path(Path::new("/bin/sh")));
        assert!(!is_path(Path::new("python3")));
    }

    #[test]
    fn a_missing_path_resolves_through_its_deepest_folder_unless_it_climbs() {
        let dir = std::env::temp_dir();
        let root = fs::canonicalize(&dir).expect("the temporary folder");
        assert_eq!(
            resolve(Some(&root), Path::new("casec-no-such/file")),
            Some(root.join("casec-no-such/file"))
        );
        assert_eq!(
            resolve(Some(&root), Path::new("casec-no-such/../../x")),
            None
        );
    }
}
