//! Which statements each kind of block accepts.
//!
//! The tables here describe the language's own keys (the fields of suites and cases
//! come from their shape, read by `fields`): the resolver validates blocks against
//! them (unknown, duplicate and missing keys), and `blocks` lists them by place for
//! the language server.

use std::fmt::Display;

use crate::diag::{codes, did_you_mean, suggest, Diagnostic};
use crate::source::Span;
use crate::syntax::ast::{Block, Statement};

/// One statement a block accepts. Keys are borrowed: the language's own are static, a
/// shape's fields lend theirs.
#[derive(Clone, Copy, Debug)]
pub struct KeySpec<'a> {
    pub key: &'a str,
    pub required: bool,
    pub repeated: bool,
    pub doc: &'a str,
}

/// A key is shown as it is written (`{param}` in a message names the statement).
impl Display for KeySpec<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key)
    }
}

impl KeySpec<'static> {
    /// A statement the block must hold, once.
    pub const fn required(key: &'static str, doc: &'static str) -> KeySpec<'static> {
        KeySpec {
            key,
            required: true,
            repeated: false,
            doc,
        }
    }

    /// A statement the block may hold, once.
    pub const fn optional(key: &'static str, doc: &'static str) -> KeySpec<'static> {
        KeySpec {
            key,
            required: false,
            repeated: false,
            doc,
        }
    }

    /// A statement the block may hold any number of times.
    pub const fn repeated(key: &'static str, doc: &'static str) -> KeySpec<'static> {
        KeySpec {
            key,
            required: false,
            repeated: true,
            doc,
        }
    }
}

/// Statements allowed at the top of a file.
pub const TOP_LEVEL: &[KeySpec<'static>] = &[
    KeySpec::repeated(
        "suite",
        "The suite: benchmark metadata and suite-wide defaults (suite.case only).",
    ),
    KeySpec::repeated(
        "tool",
        "A tool contract offered to the model (suite.case only).",
    ),
    KeySpec::repeated(
        "category",
        "A case category with its declared case count and defaults (suite.case only).",
    ),
    KeySpec::repeated("profile", "A named set of case defaults."),
    KeySpec::repeated(
        "world",
        "`world NAME { records… }`: a world cases start from with `world { from NAME; … }` (suite.case only).",
    ),
    KeySpec::repeated("case", "One benchmark case."),
    KeySpec::repeated(
        "schema",
        "`schema NAME { collection … }`: a world schema (typed sandbox collections).",
    ),
    KeySpec::repeated(
        "shape",
        "`shape NAME { field … }`: the fields, grading and layouts of a benchmark.",
    ),
];

pub const OVERRIDE: &[KeySpec<'static>] = &[
    KeySpec::required("result", "What the matched call returns."),
    KeySpec::optional("side_effect", "What the matched call writes."),
    KeySpec::optional("verify", "What a later verification or lookup returns."),
    KeySpec::optional(
        "when",
        "Machine part: `when { argument value }`, the calls it intercepts.",
    ),
    KeySpec::optional(
        "after",
        "Machine part: how many matching calls pass before it intercepts (default: none).",
    ),
    KeySpec::optional(
        "times",
        "Machine part: how many matching calls it intercepts (default: all).",
    ),
    KeySpec::optional(
        "error",
        "Machine part: `error CODE { field value }`, what the call returns.",
    ),
    KeySpec::optional(
        "returns",
        "Machine part: `returns { field value }`, success data the call returns instead.",
    ),
    KeySpec::optional(
        "request",
        "Machine part: the request id the intercepted call reports.",
    ),
    KeySpec::optional(
        "commits",
        "Machine part: the intercepted write is applied anyway.",
    ),
];

pub const FOLLOWUP: &[KeySpec<'static>] = &[
    KeySpec::required(
        "asked",
        "The clarification that triggers the scripted reply.",
    ),
    KeySpec::required("reply", "The scripted reply, returned verbatim."),
];

pub const CHECK: &[KeySpec<'static>] = &[
    KeySpec::optional(
        "dimension",
        "The check's dimension (default: from its id letter).",
    ),
    KeySpec::optional(
        "evidence",
        "The check's evidence (default: the dimension's evidence).",
    ),
];

/// Validates the statements of a block against `specs`: reports unknown keys (with the
/// nearest known key), repeated keys that may appear once, and missing required keys
/// (at `owner`, the statement that opened the block). `context` names the block in a
/// diagnostic (`case TUJ-001`): formatted only for one (`format_args!`), since every
/// block of every case is checked here.
pub fn check_keys(
    statements: &[Statement],
    specs: &[&[KeySpec<'_>]],
    context: impl Display + Copy,
    owner: Span,
    diags: &mut Vec<Diagnostic>,
) {
    let find = |key: &str| specs.iter().flat_map(|s| s.iter()).find(|s| s.key == key);
    let mut seen: Vec<(&str, Span)> = Vec::new();
    // A misspelt required key is reported once, as unknown with its correction, not
    // again as missing.
    let mut corrected: Vec<&str> = Vec::new();
    for statement in statements {
        let key = statement.name();
        match find(key) {
            None => {
                let (d, near) = unknown_key(statement, specs, context);
                corrected.extend(near);
                diags.push(d);
            }
            Some(spec) if !spec.repeated => {
                if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
                    diags.push(
                        Diagnostic::new(
                            codes::DUPLICATE_FIELD,
                            format!("`{key}` is given twice in {context}"),
                        )
                        .primary(statement.key.span, "given again here")
                        .secondary(*first, "first given here")
                        .help(format!("keep one `{key}` statement")),
                    );
                } else {
                    seen.push((key, statement.key.span));
                }
            }
            Some(_) => {}
        }
    }
    for spec in specs.iter().flat_map(|s| s.iter()).filter(|s| s.required) {
        if !statements.iter().any(|s| s.name() == spec.key) && !corrected.contains(&spec.key) {
            diags.push(
                Diagnostic::new(
                    codes::MISSING_FIELD,
                    format!("{context} has no `{}`", spec.key),
                )
                .primary(owner, format!("`{}` is required here", spec.key))
                .help(format!("add `{}`: {}", spec.key, spec.doc)),
            );
        }
    }
}

/// The diagnostic of an unknown key, and the known key it is probably a misspelling of.
fn unknown_key<'k>(
    statement: &Statement,
    specs: &[&[KeySpec<'k>]],
    context: impl Display,
) -> (Diagnostic, Option<&'k str>) {
    let key = statement.name();
    let known = specs.iter().flat_map(|s| s.iter()).map(|s| s.key);
    let d = Diagnostic::new(
        codes::UNKNOWN_FIELD,
        format!("unknown statement `{key}` in {context}"),
    )
    .primary(statement.key.span, "not known here");
    match suggest(key, known) {
        Some(near) => (did_you_mean(d, statement.key.span, near), Some(near)),
        None => {
            let all: Vec<&str> = specs.iter().flat_map(|s| s.iter()).map(|s| s.key).collect();
            (
                d.help(format!("{context} accepts: {}", all.join(", "))),
                None,
            )
        }
    }
}

/// The first statement with `key`.
pub fn first<'a>(block: &'a [Statement], key: &str) -> Option<&'a Statement> {
    block.iter().find(|s| s.name() == key)
}

/// Every statement with `key`, in order.
pub fn all<'a>(block: &'a [Statement], key: &'a str) -> impl Iterator<Item = &'a Statement> + 'a {
    block.iter().filter(move |s| s.name() == key)
}

/// The statements of a statement's block (empty when it has none).
pub fn body(statement: &Statement) -> &[Statement] {
    statement
        .block
        .as_ref()
        .map_or(&[], |b: &Block| &b.statements)
}
