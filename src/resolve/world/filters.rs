//! Conditions on records and on tool calls: the blocks of `count`, `record`, `called`
//! and an override's `when`.
//!
//! A condition is `PATH VALUE` (equality) or `PATH OP VALUE`; `any { … }` holds when
//! one of its conditions does. On records a path is a field, followed through
//! references (`booking.status`) and into datetimes (`at.time`, `at.date`). On calls a
//! path is an argument of the tool's contract, or `fields.NAME` for the record fields a
//! call carries, typed by the collection the same block names.

use crate::diag::{codes, suggest, Diagnostic};
use crate::model::{Name, Text, ToolContract};
use crate::source::Span;
use crate::syntax::ast::{Statement, Value, ValueKind};

use crate::model::expect::{Condition, Op, Operand, OPS};
use crate::model::value::{FieldValue, IdIndex};
use crate::model::world::{id_letters, Collection, FieldType, WorldSchema};

use super::records::{known_collection, unknown_field};
use super::value::{self, TypeCx};

/// Which diagnostics a call filter reports: an override that can never match says so;
/// an expectation names the unknown thing.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Expectation,
    Override,
}

/// What conditions are read against.
pub struct FilterCx<'a> {
    pub schema: &'a WorldSchema,
    pub zone: Option<chrono_tz::Tz>,
    /// Every record id of the case, existing or new.
    pub ids: &'a IdIndex,
    /// Request ids the case's overrides issue.
    pub requests: &'a [Name],
}

impl FilterCx<'_> {
    fn type_cx(&self) -> TypeCx<'_> {
        TypeCx {
            zone: self.zone,
            ids: self.ids,
        }
    }
}

/// The conditions of a block on records of `collection`.
pub fn record_conditions(
    statements: &[Statement],
    collection: &Collection,
    cx: &FilterCx,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Condition> {
    conditions(statements, diags, &|s, d| record_test(s, collection, cx, d))
}

/// The conditions of `statements`: each one a `test`, or an `any { … }` block of them.
fn conditions(
    statements: &[Statement],
    diags: &mut Vec<Diagnostic>,
    test: &dyn Fn(&Statement, &mut Vec<Diagnostic>) -> Option<Condition>,
) -> Vec<Condition> {
    statements
        .iter()
        .filter_map(|s| match s.name() {
            "any" => {
                let block = crate::resolve::values::block_only(s, diags)?;
                Some(Condition::Any(conditions(&block.statements, diags, test)))
            }
            _ => test(s, diags),
        })
        .collect()
}

fn record_test(
    statement: &Statement,
    collection: &Collection,
    cx: &FilterCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<Condition> {
    let (op, value) = split_test(statement, diags)?;
    let path = statement.name();
    let ty = path_type(path, statement.key.span, collection, cx.schema, diags)?;
    let operand = typed_operand(&ty, op, value, path, cx, diags)?;
    Some(Condition::Test {
        path: path.to_string(),
        op,
        value: Operand::Typed(operand),
    })
}

/// `PATH VALUE` or `PATH OP VALUE`.
fn split_test<'a>(
    statement: &'a Statement,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Op, &'a Value)> {
    let usage = || {
        format!(
            "write `{0} VALUE` or `{0} OP VALUE`, OP one of: {1}",
            statement.name(),
            OPS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
        )
    };
    let bad = |label: &str| {
        Diagnostic::error(
            codes::BAD_ARGUMENTS,
            format!(
                "condition `{}` is not written as expected",
                statement.name()
            ),
        )
        .primary(statement.span, label.to_string())
        .help(usage())
    };
    if statement.block.is_some() {
        diags.push(bad("a condition takes no block"));
        return None;
    }
    match statement.values.as_slice() {
        [value] => Some((Op::Eq, value)),
        [op, value] => match OPS.iter().find(|(n, _)| Some(*n) == op.as_ident()) {
            Some((_, op)) => Some((*op, value)),
            None => {
                diags.push(bad("the first of two values must be an operator"));
                None
            }
        },
        _ => {
            diags.push(bad("expected a value, or an operator and a value"));
            None
        }
    }
}

/// The type a dotted path names, starting from `collection`.
pub fn path_type(
    path: &str,
    span: Span,
    collection: &Collection,
    schema: &WorldSchema,
    diags: &mut Vec<Diagnostic>,
) -> Option<FieldType> {
    let mut segments = path.split('.');
    let first = segments.next().unwrap_or_default();
    let Some(spec) = collection.field(first) else {
        diags.push(unknown_field(&Text::new(first, span), collection));
        return None;
    };
    let mut ty = spec.ty.clone();
    for segment in segments {
        ty = match (&ty, segment) {
            (FieldType::DateTime, "date") => FieldType::Date,
            (FieldType::DateTime, "time") => FieldType::Time,
            (FieldType::Ref(targets), field) => {
                ref_field_type(targets, field, span, schema, diags)?
            }
            _ => {
                diags.push(
                    Diagnostic::error(
                        codes::UNKNOWN_RECORD_FIELD,
                        format!("`{path}` goes past a {}", ty.describe()),
                    )
                    .primary(
                        span,
                        format!("`{segment}` cannot follow a {}", ty.describe()),
                    )
                    .help(
                        "follow a reference with `.field`, or a datetime with `.date` or `.time`",
                    ),
                );
                return None;
            }
        };
    }
    Some(ty)
}

fn ref_field_type(
    targets: &[String],
    field: &str,
    span: Span,
    schema: &WorldSchema,
    diags: &mut Vec<Diagnostic>,
) -> Option<FieldType> {
    let found: Vec<&FieldType> = targets
        .iter()
        .filter_map(|t| schema.collection(t))
        .filter_map(|c| c.field(field).map(|f| &f.ty))
        .collect();
    match found.split_first() {
        Some((first, rest)) if rest.iter().all(|t| t == first) => Some((*first).clone()),
        Some(_) => {
            diags.push(
                Diagnostic::error(codes::UNKNOWN_RECORD_FIELD, format!("`{field}` has different types in {}", targets.join(", ")))
                    .primary(span, "this path is ambiguous")
                    .help("compare a field whose type is the same in every collection the reference may name"),
            );
            None
        }
        None => {
            let target = targets.first().and_then(|t| schema.collection(t))?;
            diags.push(unknown_field(&Text::new(field, span), target));
            None
        }
    }
}

/// Reads a condition's operand for a field of type `ty` under `op`.
fn typed_operand(
    ty: &FieldType,
    op: Op,
    value: &Value,
    path: &str,
    cx: &FilterCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<FieldValue> {
    let operand_type = match (op, ty) {
        (Op::Eq | Op::Not, _) => ty.clone(),
        (Op::Contains | Op::Lacks, FieldType::Text) => FieldType::Text,
        (Op::Contains | Op::Lacks, FieldType::List(item)) => (**item).clone(),
        (Op::Before | Op::After, FieldType::Date | FieldType::Time | FieldType::DateTime)
        | (Op::Before | Op::After, FieldType::Duration | FieldType::Number) => ty.clone(),
        (Op::In, _) => FieldType::List(Box::new(ty.clone())),
        _ => {
            diags.push(
                Diagnostic::error(codes::RECORD_FIELD_TYPE, format!("`{}` does not apply to `{path}`", op.as_str()))
                    .primary(value.span, format!("`{path}` is {}", ty.describe()))
                    .help("`contains`/`lacks` apply to text and lists; `before`/`after` to dates, times, durations and numbers"),
            );
            return None;
        }
    };
    match value::read(value, &operand_type, &cx.type_cx(), path) {
        Ok(v) => Some(v),
        Err(d) => {
            diags.push(d);
            None
        }
    }
}

/// The conditions of a block on calls of `tool`.
pub fn call_conditions(
    statements: &[Statement],
    tool: &ToolContract,
    cx: &FilterCx,
    role: Role,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Condition> {
    let collection = named_collection(statements, cx, role, diags);
    call_tests(statements, tool, collection, cx, role, diags)
}

fn call_tests(
    statements: &[Statement],
    tool: &ToolContract,
    collection: Option<&Collection>,
    cx: &FilterCx,
    role: Role,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Condition> {
    conditions(statements, diags, &|s, d| {
        call_test(s, tool, collection, cx, role, d)
    })
}

/// The collection an argument named `collection` is compared to, if the block does.
fn named_collection<'a>(
    statements: &[Statement],
    cx: &FilterCx<'a>,
    role: Role,
    diags: &mut Vec<Diagnostic>,
) -> Option<&'a Collection> {
    let statement = statements.iter().find(|s| s.name() == "collection")?;
    let [value] = statement.values.as_slice() else {
        return None;
    };
    let name = value.as_ident().or(value.as_str())?;
    let mut found = Vec::new();
    let collection = known_collection(&Text::new(name, value.span), cx.schema, &mut found);
    diags.extend(found.into_iter().map(|d| recode(d, role)));
    collection
}

/// One argument's name and the values its contract allows (`operation:create|update`).
pub fn argument_specs(tool: &ToolContract) -> Vec<(String, Vec<String>)> {
    tool.arguments
        .iter()
        .map(|a| match a.as_str().split_once(':') {
            Some((name, options)) => (
                name.to_string(),
                options.split('|').map(str::to_string).collect(),
            ),
            None => (a.as_str().to_string(), Vec::new()),
        })
        .collect()
}

fn call_test(
    statement: &Statement,
    tool: &ToolContract,
    collection: Option<&Collection>,
    cx: &FilterCx,
    role: Role,
    diags: &mut Vec<Diagnostic>,
) -> Option<Condition> {
    let (op, value) = split_test(statement, diags)?;
    let path = statement.name();
    let (argument, field_path) = match path.split_once('.') {
        Some((a, rest)) => (a, Some(rest)),
        None => (path, None),
    };
    let specs = argument_specs(tool);
    let Some((_, options)) = specs.iter().find(|(n, _)| n == argument) else {
        let d = Diagnostic::error(
            codes::UNKNOWN_ARGUMENT,
            format!("{} takes no argument `{argument}`", tool.name.as_str()),
        )
        .primary(statement.key.span, "not an argument of its contract");
        let d = match suggest(argument, specs.iter().map(|(n, _)| n.as_str())) {
            Some(near) => d.help(format!("did you mean `{near}`?")),
            None => d.help(format!(
                "{} takes: {}",
                tool.name.as_str(),
                specs
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        };
        diags.push(recode(d, role));
        return None;
    };
    if let Some(field_path) = field_path {
        return fields_test(statement, collection, field_path, op, value, cx, diags);
    }
    let text = plain_text(value, statement, diags)?;
    if argument == "collection" {
        known_collection(
            &Text::new(text.as_str(), value.span),
            cx.schema,
            &mut Vec::new(),
        )?;
    } else if !options.is_empty() && !options.contains(&text) && matches!(op, Op::Eq) {
        let d = Diagnostic::error(
            codes::UNKNOWN_ARGUMENT,
            format!(
                "`{text}` is not a value of {}'s `{argument}`",
                tool.name.as_str()
            ),
        )
        .primary(
            value.span,
            format!("the contract allows: {}", options.join(", ")),
        );
        let d = match suggest(&text, options.iter().map(String::as_str)) {
            Some(near) => d.help(format!("did you mean `{near}`?")),
            None => d.help(format!("use one of: {}", options.join(", "))),
        };
        diags.push(recode(d, role));
        return None;
    } else if !known_id(&text, cx) {
        diags.push(recode(unknown_id(&text, value.span), role));
        return None;
    }
    Some(Condition::Test {
        path: path.to_string(),
        op,
        value: Operand::Plain(text),
    })
}

fn fields_test(
    statement: &Statement,
    collection: Option<&Collection>,
    field_path: &str,
    op: Op,
    value: &Value,
    cx: &FilterCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<Condition> {
    let Some(collection) = collection else {
        diags.push(
            Diagnostic::error(
                codes::BAD_ARGUMENTS,
                format!("`{}` needs the collection it belongs to", statement.name()),
            )
            .primary(
                statement.key.span,
                "no `collection` condition in this block types this field",
            )
            .help("add `collection NAME` to the same block"),
        );
        return None;
    };
    let ty = path_type(field_path, statement.key.span, collection, cx.schema, diags)?;
    let operand = typed_operand(&ty, op, value, field_path, cx, diags)?;
    Some(Condition::Test {
        path: statement.name().to_string(),
        op,
        value: Operand::Typed(operand),
    })
}

fn plain_text(value: &Value, statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<String> {
    match &value.kind {
        ValueKind::Str { text, .. } | ValueKind::Ident(text) | ValueKind::Number(text) => {
            Some(text.to_string())
        }
        ValueKind::List(_) => {
            diags.push(
                Diagnostic::error(
                    codes::BAD_ARGUMENTS,
                    format!("`{}` compares one argument value", statement.name()),
                )
                .primary(value.span, "a list is not an argument value")
                .help("write one name, string or number"),
            );
            None
        }
    }
}

/// Whether a value that looks like an id names a record or request of the case; other
/// values (free text, numbers) are not ids and pass.
pub fn known_id(text: &str, cx: &FilterCx) -> bool {
    let Some(letters) = id_letters(text) else {
        return true;
    };
    let is_id_shaped = cx.schema.collections_with_prefix(letters).next().is_some()
        || cx.schema.is_request_prefix(letters);
    !is_id_shaped || cx.ids.contains_key(text) || cx.requests.iter().any(|r| r.as_str() == text)
}

pub fn unknown_id(id: &str, span: Span) -> Diagnostic {
    Diagnostic::error(
        codes::UNKNOWN_RECORD,
        format!("`{id}` names no record of this world"),
    )
    .primary(
        span,
        "not a record, a declared new id or a request id of this case",
    )
    .help(format!(
        "add `{id}` to the world (or `new COLLECTION {id}` if the run creates it), or fix the id"
    ))
}

/// In an override, every way of naming something that does not exist means the
/// override can never fire.
fn recode(d: Diagnostic, role: Role) -> Diagnostic {
    match role {
        Role::Expectation => d,
        Role::Override => Diagnostic {
            code: codes::OVERRIDE_MATCHES_NOTHING,
            message: format!("this override matches nothing: {}", d.message),
            ..d
        },
    }
}
