//! The machine part of a tool override, written beside its prose:
//!
//! ```case
//! override provider_booking "create" {
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
use crate::model::{Name, ToolContract};
use crate::resolve::keys::{body, first};
use crate::resolve::values::{self, Kind};
use crate::syntax::ast::Statement;

use crate::model::expect::MachineOverride;
use crate::model::world::WorldSchema;

use super::filters::{self, FilterCx, Role};
use super::offered_contract;
use super::records::check_prefix;

/// Keys of the machine part, as the case schema lists them for override blocks.
pub const MACHINE_KEYS: &[&str] = &["when", "times", "error", "request", "commits"];

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
            Diagnostic::error(
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
    contracts: &[ToolContract],
    request: Option<Name>,
    cx: &FilterCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<MachineOverride> {
    let tool = statement
        .values
        .first()
        .and_then(|v| v.as_ident().map(|_| values::text_of(v)))?;
    let statements = body(statement);
    let before = diags.len();
    let mut unoffered = Vec::new();
    let contract = offered_contract(&tool, offered, contracts, &mut unoffered);
    diags.extend(unoffered.into_iter().map(|d| Diagnostic {
        code: codes::OVERRIDE_MATCHES_NOTHING,
        message: format!("this override matches nothing: {}", d.message),
        ..d
    }));
    let when = match (first(statements, "when"), contract) {
        (Some(s), Some(contract)) => values::block_only(s, diags)
            .map(|b| filters::call_conditions(&b.statements, contract, cx, Role::Override, diags))
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let times = first(statements, "times").and_then(|s| positive(s, diags));
    let error = first(statements, "error").and_then(|s| error(s, diags));
    let commits = first(statements, "commits")
        .is_some_and(|s| values::args(s, &[], "commits", diags).is_some());
    let Some((error, details)) = error else {
        if diags.len() == before {
            diags.push(
                Diagnostic::error(codes::MISSING_FIELD, "this override's machine part has no `error`")
                    .primary(statement.key.span, "what does the intercepted call return?")
                    .help("add `error CODE`, e.g. `error TIMEOUT` (and `{ field \"value\" }` for further result fields)"),
            );
        }
        return None;
    };
    (diags.len() == before).then_some(MachineOverride {
        tool,
        when,
        times,
        error,
        details,
        request,
        commits,
    })
}

fn positive(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<u64> {
    let number = values::number(statement, diags)?;
    match number.value.as_u64().filter(|n| *n >= 1) {
        Some(n) => Some(n),
        None => {
            diags.push(
                Diagnostic::error(codes::BAD_ARGUMENTS, "`times` must be a whole number of at least 1")
                    .primary(number.span, "not a count of calls")
                    .help("write `times 1` to intercept only the first matching call; leave it out to intercept every one"),
            );
            None
        }
    }
}

/// `error CODE` or `error CODE { field value … }`.
fn error(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<(Name, Option<Json>)> {
    let v = values::args_with_block(
        statement,
        &[Kind::Ident],
        "error CODE { field \"value\" }",
        diags,
    )?;
    let details = statement
        .block
        .as_ref()
        .map(|b| values::data_object(b, diags));
    Some((values::text_of(&v[0]), details))
}
