//! The machine part of a tool override, written beside its prose:
//!
//! ```case
//! override book_visit "create" {
//!   result "TIMEOUT; request_id=Q1"                       # prose, for the master JSON
//!   side_effect "booking B1 successfully created for requested offered slot"
//!   verify "lookup Q1 returns confirmed B1"
//!   when { operation create }                              # which calls it intercepts
//!   times 1                                                # only the first such call
//!   error TIMEOUT                                          # what the call returns
//!   request Q1                                             # the request id it reports
//!   commits                                                # the write happens anyway
//! }
//! ```
//!
//! Without `commits` the intercepted call writes nothing, so a later verify or lookup
//! finds nothing; with it, the write is applied as the call asked (under the id the
//! world's `new` declares, if any) and a lookup of the request id returns the record.

use serde_json::Value as Json;

use crate::diag::{codes, Diagnostic};
use crate::model::tool::Tool;
use crate::model::Name;
use crate::resolve::keys::{body, first};
use crate::resolve::values::{self, ValueType};
use crate::syntax::ast::Statement;

use crate::model::expect::{MachineOverride, OverrideAnswer};
use crate::model::world::WorldSchema;

use super::filters::{self, FilterCx, FilterPlace};
use super::offered_tool;
use super::records::check_prefix;

/// Keys of the machine part, as the case schema lists them for override blocks.
pub const MACHINE_KEYS: &[&str] = &[
    "when", "after", "times", "error", "returns", "request", "commits",
];

/// Whether an override block has a machine part at all.
pub fn has_machine_part(statement: &Statement) -> bool {
    body(statement)
        .iter()
        .any(|s| MACHINE_KEYS.contains(&s.name()))
}

/// The request id an override issues, read first: expectations may name it.
pub fn request_id(
    statement: &Statement,
    schema: &WorldSchema,
    diags: &mut Vec<Diagnostic>,
) -> Option<Name> {
    let request = first(body(statement), "request").and_then(|s| values::name(s, diags))?;
    let Some(prefix) = &schema.request_prefix else {
        diags.push(
            Diagnostic::new(
                codes::RECORD_ID_PREFIX,
                format!("{} declares no request ids", schema.name.as_str()),
            )
            .primary(request.span, "this schema's tools issue no request ids")
            .help("add `request_prefix Q` to the schema, or remove `request`"),
        );
        return None;
    };
    check_prefix(&request, prefix, prefix, schema, diags).then_some(request)
}

/// Reads the machine part of `statement` (an `override TOOL "match" { … }`).
pub fn read_override(
    statement: &Statement,
    offered: &[Name],
    tools: &[Tool],
    request: Option<Name>,
    cx: &FilterCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<MachineOverride> {
    let tool = statement
        .values
        .first()
        .and_then(|v| v.as_ident().map(|_| values::name_of(v)))?;
    let statements = body(statement);
    let before = diags.len();
    // A tool the case does not offer is `override_tool_unavailable` (or `unknown_tool`),
    // reported for every override whether it has a machine part or not.
    let contract = offered_tool(&tool, offered, tools, &mut Vec::new());
    let when = match (first(statements, "when"), contract) {
        (Some(s), Some(contract)) => values::block_only(s, diags)
            .map(|b| {
                filters::call_conditions(&b.statements, contract, cx, FilterPlace::Override, diags)
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let after = first(statements, "after").and_then(|s| count(s, 0, diags));
    let times = first(statements, "times").and_then(|s| count(s, 1, diags));
    let answer = answer(statement, statements, diags);
    let commits = first(statements, "commits")
        .is_some_and(|s| values::args(s, &[], "commits", diags).is_some());
    let answer = answer?;
    (diags.len() == before).then_some(MachineOverride {
        at: statement.key.span,
        tool,
        when,
        after,
        times,
        answer,
        request,
        commits,
    })
}

/// `error CODE { … }` or `returns { … }`: exactly one says what the call returns.
fn answer(
    statement: &Statement,
    statements: &[Statement],
    diags: &mut Vec<Diagnostic>,
) -> Option<OverrideAnswer> {
    match (first(statements, "error"), first(statements, "returns")) {
        (Some(e), None) => {
            error(e, diags).map(|(code, details)| OverrideAnswer::Error { code, details })
        }
        (None, Some(r)) => values::block_only(r, diags)
            .map(|b| OverrideAnswer::Returns(values::data_object(b, diags))),
        (Some(e), Some(r)) => {
            diags.push(
                Diagnostic::new(codes::BAD_ARGUMENTS, "this override both fails and succeeds")
                    .primary(r.key.span, "`returns` gives success data")
                    .secondary(e.key.span, "`error` gives a failure")
                    .help("keep one: `error CODE` for an injected failure, `returns { … }` for scripted success data"),
            );
            None
        }
        (None, None) => {
            diags.push(
                Diagnostic::new(codes::MISSING_FIELD, "this override's machine part says nothing about what the call returns")
                    .primary(statement.key.span, "what does the intercepted call return?")
                    .help("add `error CODE` (e.g. `error TIMEOUT`, with `{ field \"value\" }` for further result fields) or `returns { field \"value\" }` for success data"),
            );
            None
        }
    }
}

/// A count of calls of at least `least` (`after 0` is allowed; `times 0` is not).
fn count(statement: &Statement, least: u64, diags: &mut Vec<Diagnostic>) -> Option<u64> {
    let number = values::number(statement, diags)?;
    match number.value.as_u64().filter(|n| *n >= least) {
        Some(n) => Some(n),
        None => {
            let key = statement.name();
            let help = if key == "times" {
                "write `times 1` to intercept only the first matching call; leave it out to intercept every one"
            } else {
                "write `after 1` to let the first matching call through and intercept the next ones"
            };
            diags.push(
                Diagnostic::new(
                    codes::BAD_ARGUMENTS,
                    format!("`{key}` must be a whole number of at least {least}"),
                )
                .primary(number.span, "not a count of calls")
                .help(help),
            );
            None
        }
    }
}

/// `error CODE` or `error CODE { field value … }`.
fn error(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<(Name, Option<Json>)> {
    let v = values::args_with_block(
        statement,
        &[ValueType::Ident],
        "error CODE { field \"value\" }",
        diags,
    )?;
    let details = statement
        .block
        .as_ref()
        .map(|b| values::data_object(b, diags));
    Some((values::name_of(&v[0]), details))
}
