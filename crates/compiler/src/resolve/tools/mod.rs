//! Tool declarations: `tool NAME { behavior "…"; argument …; service … }`.
//!
//! A tool is read against the world schema it works over (the schema that declares
//! it, or the suite's): its arguments are typed ([`arguments`]), and its behaviour is
//! bound to a built-in service ([`services`]), declared as effects over the world
//! ([`behavior`]), or delegated to an adapter program. Everything a binding names —
//! arguments, collections, fields, enum values — is checked here, so that a tool that
//! checks clean can run.

pub mod arguments;
pub mod behavior;
pub mod services;

use std::time::Duration;

use crate::diag::{codes, Diagnostic};
use crate::model::tool::{secret_variable, variable_name, Adapter, Binding, Tool};
use crate::model::world::WorldSchema;
use crate::model::Text;
use crate::syntax::ast::Statement;

use super::keys::{self, all, body, first, KeySpec};
use super::values::{self, ValueType};

/// What a tool is read against.
#[derive(Clone, Copy)]
pub struct ToolCx<'a> {
    /// The world schema the tool works over, if any.
    pub schema: Option<&'a WorldSchema>,
}

/// The statements of a `tool` block.
pub const TOOL_KEYS: &[KeySpec<'static>] = &[
    KeySpec {
        key: "behavior",
        required: true,
        repeated: false,
        doc: "The contract the model is told: what the tool does.",
    },
    KeySpec::repeated(
        "argument",
        "`argument NAME TYPE [optional] { doc \"…\" }`: one typed argument.",
    ),
    KeySpec::optional(
        "service",
        "`service NAME { parameter name … }`: a built-in service runs the calls.",
    ),
    KeySpec::optional(
        "adapter",
        "`adapter \"COMMAND\" \"ARG\"… { reads …; writes …; env \"NAME\"… }`: a program of the suite runs the calls, with the user's consent (`--trust`).",
    ),
    KeySpec::repeated(
        "refuse",
        "`refuse CODE \"message\" { condition… }`: refuse calls meeting the conditions.",
    ),
    KeySpec::repeated(
        "read",
        "`read COLLECTION { match ARG; where FIELD ARG; show FIELD… }`: records a call returns.",
    ),
    KeySpec::repeated(
        "create",
        "`create COLLECTION { set FIELD from ARG }`: a record a call creates.",
    ),
    KeySpec::repeated(
        "update",
        "`update COLLECTION { record ARG; set FIELD … }`: a record a call changes.",
    ),
    KeySpec::repeated(
        "delete",
        "`delete COLLECTION { record ARG }`: a record a call removes.",
    ),
    KeySpec::repeated(
        "respond",
        "`respond { when { … }; after N; data { … } }`: a scripted answer.",
    ),
    KeySpec::optional(
        "idempotent",
        "`idempotent ARG`: a repeated request id returns the first result.",
    ),
];

/// The statements that declare effects over the world.
const DECLARED: &[&str] = &[
    "refuse",
    "read",
    "create",
    "update",
    "delete",
    "respond",
    "idempotent",
];

/// Reads `tool NAME { … }`.
pub fn read_tool(statement: &Statement, cx: ToolCx, diags: &mut Vec<Diagnostic>) -> Option<Tool> {
    let header = values::args_with_block(
        statement,
        &[ValueType::Ident],
        "tool NAME { argument …; service … }",
        diags,
    )?;
    let name = values::name_of(&header[0]);
    let statements = body(statement);
    keys::check_keys(
        statements,
        &[TOOL_KEYS],
        &format!("tool `{}`", name.as_str()),
        name.span,
        diags,
    );
    let before = diags.len();
    let behavior = first(statements, "behavior").and_then(|s| values::text(s, diags));
    let arguments = arguments::read_arguments(all(statements, "argument"), diags);
    if let Some(schema) = cx.schema {
        arguments::check_references(&arguments, schema, diags);
    }
    let behavior = behavior.filter(|_| diags.len() == before)?;
    let mut tool = Tool {
        name,
        behavior,
        arguments,
        binding: Binding::None,
        span: statement.key.span.to(header[0].span),
    };
    tool.binding = binding(statements, &tool, cx, diags)?;
    Some(tool)
}

/// The one way a tool's calls are run: a service, an adapter, or declared effects.
fn binding(
    statements: &[Statement],
    tool: &Tool,
    cx: ToolCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<Binding> {
    let service = first(statements, "service");
    let adapter = first(statements, "adapter");
    let declared = statements.iter().find(|s| DECLARED.contains(&s.name()));
    let ways: Vec<&Statement> = [service, adapter, declared].into_iter().flatten().collect();
    if let [first_way, second, ..] = ways.as_slice() {
        diags.push(
            Diagnostic::new(
                codes::TOOL_DEFINITION,
                format!("tool `{}` says twice how it runs", tool.name.as_str()),
            )
            .primary(second.key.span, "a second way of running the calls")
            .secondary(first_way.key.span, "the first")
            .help("give a tool one of: a `service`, an `adapter`, or declared effects (`read`, `create`, `update`, `delete`, `refuse`, `respond`)"),
        );
        return None;
    }
    match (service, adapter, declared) {
        (Some(s), _, _) => services::read_service(s, tool, cx, diags)
            .map(|bound| Binding::Service(Box::new(bound))),
        (_, Some(a), _) => read_adapter(a, cx, diags).map(Binding::Adapter),
        (_, _, Some(_)) => {
            behavior::read_behavior(statements, tool, cx, diags).map(Binding::Declared)
        }
        _ => Some(Binding::None),
    }
}

/// The statements of an `adapter` block.
pub const ADAPTER_KEYS: &[KeySpec<'static>] = &[
    KeySpec::optional(
        "reads",
        "The collections the adapter is sent (default: every collection).",
    ),
    KeySpec::optional("writes", "The collections the adapter's changes may touch."),
    KeySpec::optional(
        "env",
        "`env \"NAME\"…`: environment variables passed to the program besides PATH (never a key, token, secret or password; docs/security.md).",
    ),
    KeySpec::optional(
        "timeout_seconds",
        "How long casec waits for the program's answer to one call, in whole seconds (1 to 3600; default 10).",
    ),
];

/// `adapter "COMMAND" "ARG"… { reads COLL…; writes COLL…; env "NAME"… }`.
fn read_adapter(statement: &Statement, cx: ToolCx, diags: &mut Vec<Diagnostic>) -> Option<Adapter> {
    let command: Option<Vec<Text>> = statement
        .values
        .iter()
        .map(|v| v.as_str().map(|_| values::text_of(v)))
        .collect();
    let Some(command) = command.filter(|c| !c.is_empty()) else {
        diags.push(
            Diagnostic::new(codes::BAD_ARGUMENTS, "`adapter` is not written as expected")
                .primary(
                    statement.span,
                    "expected the command and its arguments, as strings",
                )
                .help(
                    "write it as `adapter \"python3\" \"tools/PROGRAM.py\" { writes COLLECTION }`",
                ),
        );
        return None;
    };
    let statements = body(statement);
    keys::check_keys(
        statements,
        &[ADAPTER_KEYS],
        "an adapter block",
        statement.key.span,
        diags,
    );
    let collections = |key: &str, diags: &mut Vec<Diagnostic>| {
        let names = first(statements, key).and_then(|s| values::names(s, diags))?;
        for name in &names {
            services::known_collection(name, cx.schema, diags);
        }
        Some(names)
    };
    let reads = collections("reads", diags);
    let writes = collections("writes", diags).unwrap_or_default();
    let before = diags.len();
    let env = first(statements, "env")
        .and_then(|s| values::words(s, diags))
        .unwrap_or_default();
    for name in &env {
        check_variable(name, diags);
    }
    let timeout = first(statements, "timeout_seconds").and_then(|s| timeout_seconds(s, diags));
    if diags.len() > before {
        return None;
    }
    Some(Adapter {
        command,
        reads,
        writes,
        env,
        timeout: timeout.map_or(Adapter::DEFAULT_TIMEOUT, Duration::from_secs),
        span: statement.span,
    })
}

/// `timeout_seconds N`: whole seconds from 1 to [`Adapter::MAX_TIMEOUT`].
fn timeout_seconds(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<u64> {
    let number = values::number(statement, diags)?;
    let most = Adapter::MAX_TIMEOUT.as_secs();
    let seconds = number.value.as_u64().filter(|n| (1..=most).contains(n));
    if seconds.is_none() {
        diags.push(
            Diagnostic::new(
                codes::BAD_ARGUMENTS,
                format!("`timeout_seconds` must be a whole number of seconds from 1 to {most}"),
            )
            .primary(number.span, "not a time limit casec can keep")
            .help("write e.g. `timeout_seconds 30`; without it, casec waits 10 seconds for each answer"),
        );
    }
    seconds
}

/// An `env` name of an adapter: a variable name, and not a credential's, which a
/// suite's program is never given.
fn check_variable(name: &Text, diags: &mut Vec<Diagnostic>) {
    let text = name.as_str();
    if !variable_name(text) {
        diags.push(
            Diagnostic::new(
                codes::TOOL_DEFINITION,
                format!("`{text}` is not the name of an environment variable"),
            )
            .primary(name.span, "in the adapter's `env`")
            .help("name a variable with letters, digits and `_`, as a shell exports it: `env \"LANG\"`"),
        );
    } else if secret_variable(text) {
        diags.push(
            Diagnostic::new(
                codes::TOOL_DEFINITION,
                format!("the adapter asks for `{text}`, which holds a credential by its name"),
            )
            .primary(name.span, "never passed to a suite's program")
            .help("a suite's program gets no key, token, secret or password (docs/security.md): remove it, and let the program work without it"),
        );
    }
}
