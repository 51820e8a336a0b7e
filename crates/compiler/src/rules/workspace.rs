//! What a case that runs workspace commands (`commands.run`) says that its workspace
//! cannot hold, found before anything runs:
//!
//! * a file of its world, or a file its checks read, at a path the workspace cannot
//!   hold (not absolute, with `.` or `..`, or under a system folder such as `/tmp` or
//!   `/etc`, which the isolation mounts from the machine): a command never sees the
//!   one, and never leaves the other (`outside_workspace`);
//! * an endpoint at an `https://` URL: the endpoints are served to programs over plain
//!   HTTP, so a script cannot fetch it; only the `http` tool answers it
//!   (`https_endpoint`).
//!
//! Both are warnings a case may allow (a tool may still read such a file, and the
//! tool may fetch such a URL).

use crate::diag::{codes, Diagnostic};
use crate::model::expect::Sandbox;
use crate::model::tool::{file_store, workspace_path};
use crate::model::value::FieldValue;
use crate::model::{Case, Suite};

pub fn check(case: &Case, suite: &Suite, diags: &mut Vec<Diagnostic>) {
    let Some(sandbox) = case.sandbox.as_ref().filter(|_| suite.runs_commands(case)) else {
        return;
    };
    seeded_outside(suite, sandbox, diags);
    for path in sandbox.file_paths() {
        if workspace_path(path.as_str()).is_none() {
            diags.push(outside(
                path.as_str(),
                path.span,
                "a command can never leave a file there",
            ));
        }
    }
    https_endpoints(suite, sandbox, diags);
}

fn seeded_outside(suite: &Suite, sandbox: &Sandbox, diags: &mut Vec<Diagnostic>) {
    let Some(Ok(store)) = file_store(&suite.tools) else {
        return;
    };
    for (key, path) in texts_of(
        sandbox,
        store.collection.as_str(),
        store.path_field.as_str(),
    ) {
        if workspace_path(path).is_none() {
            diags.push(outside(path, key.span, "a command never sees this file"));
        }
    }
}

/// The text of `field` in each record of `collection` of the case's world, with the
/// field's key where it is written.
fn texts_of<'a>(
    sandbox: &'a Sandbox,
    collection: &'a str,
    field: &'a str,
) -> impl Iterator<Item = (&'a crate::model::Name, &'a str)> + 'a {
    sandbox
        .world
        .records
        .iter()
        .filter(move |r| r.collection.as_str() == collection)
        .filter_map(
            move |r| match r.fields.iter().find(|(name, _)| name.as_str() == field) {
                Some((name, FieldValue::Text(text))) => Some((name, text.as_str())),
                _ => None,
            },
        )
}

fn outside(path: &str, span: crate::source::Span, label: &str) -> Diagnostic {
    Diagnostic::new(
        codes::OUTSIDE_WORKSPACE,
        format!("`{path}` is outside the workspace the case's commands run in"),
    )
    .primary(span, label)
    .help("write an absolute path under a folder of the workspace (`/workspace/…`, `/outputs/…`), not under a system folder (`/tmp`, `/etc`, `/usr`, …) and without `.` or `..`")
}

fn https_endpoints(suite: &Suite, sandbox: &Sandbox, diags: &mut Vec<Diagnostic>) {
    let http = suite.tools.iter().find_map(|tool| tool.http());
    let Some(http) = http else {
        return;
    };
    for (name, url) in texts_of(
        sandbox,
        http.endpoints_collection.as_str(),
        http.url_field.as_str(),
    ) {
        {
            if url.starts_with("https://") {
                diags.push(
                    Diagnostic::new(
                        codes::HTTPS_ENDPOINT,
                        format!("`{url}` is served to the case's commands over plain HTTP only"),
                    )
                    .primary(name.span, "a script cannot fetch an https:// URL in the workspace")
                    .help(format!(
                        "write the URL as `http://{}` (and so in the instruction and the files that give it); the `http` tool answers either",
                        url.trim_start_matches("https://")
                    )),
                );
            }
        }
    }
}
