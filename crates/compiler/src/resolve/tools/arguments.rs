//! A tool's arguments: `argument NAME TYPE [optional] { doc "…" }`.
//!
//! Types are the world's field types (`text`, `enum a b`, `ref contacts`, `list …`)
//! plus the types only calls have: `collection` (a collection name), `id` (a record or
//! request id of any collection), `fields ARG` (the fields of a record of the collection
//! argument ARG names) and `object` (members declared as arguments in its block).

use crate::diag::{codes, suggest, Diagnostic};
use crate::model::tool::{ArgType, Argument};
use crate::model::world::{FieldType, WorldSchema};
use crate::model::Name;
use crate::syntax::ast::{Statement, Value};

use super::super::keys::{self, all, body, first, KeySpec};
use super::super::values;
use super::super::world::schema::{read_type, TypePlace};

const ARGUMENT_TYPES: TypePlace = TypePlace {
    code: codes::TOOL_DEFINITION,
    noun: "argument",
    also: &["collection", "id", "fields", "object"],
};

pub const ARGUMENT_KEYS: &[KeySpec<'static>] = &[
    KeySpec {
        key: "doc",
        required: false,
        repeated: false,
        doc: "What the argument means, as the model is told.",
    },
    KeySpec {
        key: "argument",
        required: false,
        repeated: true,
        doc: "A member of an `object` argument.",
    },
    KeySpec {
        key: "default",
        required: false,
        repeated: false,
        doc: "`default VALUE`: what a call that leaves this optional argument out runs with.",
    },
];

/// The arguments of a tool (or the members of an object argument), in order; duplicates
/// and malformed declarations are reported and left out.
pub fn read_arguments<'a>(
    statements: impl Iterator<Item = &'a Statement>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Argument> {
    let mut out: Vec<Argument> = Vec::new();
    for statement in statements {
        let Some(argument) = read_argument(statement, diags) else {
            continue;
        };
        if let Some(first) = out
            .iter()
            .find(|a| a.name.as_str() == argument.name.as_str())
        {
            diags.push(crate::resolve::duplicate(
                "argument",
                &argument.name,
                first.name.span,
            ));
            continue;
        }
        out.push(argument);
    }
    check_field_arguments(&out, diags);
    out
}

fn read_argument(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Argument> {
    let values::Declared {
        name,
        type_words,
        required,
    } = values::declared(statement, ("argument", "an argument"), diags)?;
    let statements = body(statement);
    keys::check_keys(
        statements,
        &[ARGUMENT_KEYS],
        "an argument block",
        name.span,
        diags,
    );
    let doc = first(statements, "doc").and_then(|s| values::text(s, diags));
    let ty = read_arg_type(&type_words, statement, diags)?;
    if !matches!(ty, ArgType::Object(_)) {
        if let Some(member) = first(statements, "argument") {
            diags.push(
                Diagnostic::new(
                    codes::TOOL_DEFINITION,
                    format!("argument `{}` is not an object", name.as_str()),
                )
                .primary(member.key.span, "only an `object` argument has members")
                .help(format!(
                    "write `argument {} object {{ argument … }}`",
                    name.as_str()
                )),
            );
            return None;
        }
    }
    let default = match first(statements, "default") {
        Some(s) => Some(read_default(s, &name, &ty, required, diags)?),
        None => None,
    };
    Some(Argument {
        name,
        ty,
        required,
        doc,
        default,
    })
}

/// `default VALUE` of an optional argument of a world field type, typed as the field:
/// a datetime must carry its offset (a tool belongs to no case, so to no zone).
fn read_default(
    statement: &Statement,
    name: &Name,
    ty: &ArgType,
    required: bool,
    diags: &mut Vec<Diagnostic>,
) -> Option<serde_json::Value> {
    let error = |message: String, label: &str, help: &str| {
        Diagnostic::new(codes::TOOL_DEFINITION, message)
            .primary(statement.span, label.to_string())
            .help(help.to_string())
    };
    if required {
        diags.push(error(
            format!("argument `{}` is required: it has no default", name.as_str()),
            "a default of a required argument",
            "mark the argument `optional`, or remove `default`: a call must give a required argument",
        ));
        return None;
    }
    let ArgType::Field(field) = ty else {
        diags.push(error(
            format!("argument `{}` cannot have a default", name.as_str()),
            "not a value type",
            "a default is a value of a world field type (text, number, integer, bool, enum, date, time, duration, list …)",
        ));
        return None;
    };
    let [value] = statement.values.as_slice() else {
        diags.push(error(
            "`default` takes one value".into(),
            "expected one value",
            "write `default VALUE`, e.g. `default 1` or `default \"economy\"`",
        ));
        return None;
    };
    let cx = crate::resolve::world::value::TypeCx {
        zone: None,
        ids: None,
    };
    match crate::resolve::world::value::read(value, field, &cx, name.as_str()) {
        Ok(read) => Some(read.to_json()),
        Err(d) => {
            diags.push(d);
            None
        }
    }
}

/// The type words after an argument's name.
fn read_arg_type(
    words: &[&Value],
    statement: &Statement,
    diags: &mut Vec<Diagnostic>,
) -> Option<ArgType> {
    let head = words.first()?;
    let word = head.as_ident().unwrap_or_default();
    let rest = &words[1..];
    let no_more = |diags: &mut Vec<Diagnostic>| {
        if rest.is_empty() {
            return true;
        }
        diags.push(
            Diagnostic::new(
                codes::TOOL_DEFINITION,
                format!("type `{word}` takes no arguments"),
            )
            .primary(
                rest[0].span.to(rest[rest.len() - 1].span),
                "not part of the type",
            )
            .help("mark an optional argument with a final `optional`"),
        );
        false
    };
    match word {
        "collection" => no_more(diags).then_some(ArgType::Collection),
        "id" => no_more(diags).then_some(ArgType::Id),
        "object" => no_more(diags)
            .then(|| ArgType::Object(read_arguments(all(body(statement), "argument"), diags))),
        "fields" => match rest {
            [of] => Some(ArgType::Fields(
                of.as_ident().unwrap_or_default().to_string(),
            )),
            _ => {
                diags.push(
                    Diagnostic::new(
                        codes::TOOL_DEFINITION,
                        "`fields` needs the argument that names the collection",
                    )
                    .primary(head.span, "the fields of which collection?")
                    .help("write `argument fields fields collection`, where `collection` is an argument of type `collection`"),
                );
                None
            }
        },
        _ => read_type(words, &ARGUMENT_TYPES, diags).map(ArgType::Field),
    }
}

/// Every `ref` of an argument (or of a member of an object argument) names a
/// collection of the schema the tool works over: a call could never give one otherwise.
pub fn check_references(arguments: &[Argument], schema: &WorldSchema, diags: &mut Vec<Diagnostic>) {
    for argument in arguments {
        let mut ty = match &argument.ty {
            ArgType::Field(ty) => ty,
            ArgType::Object(members) => {
                check_references(members, schema, diags);
                continue;
            }
            ArgType::Collection | ArgType::Id | ArgType::Fields(_) => continue,
        };
        while let FieldType::List(item) = ty {
            ty = item;
        }
        let FieldType::Ref(targets) = ty else {
            continue;
        };
        let names = schema.collections.iter().map(|c| c.name.as_str());
        for target in targets.iter().filter(|t| schema.collection(t).is_none()) {
            let d = Diagnostic::new(
                codes::TOOL_DEFINITION,
                format!(
                    "argument `{}` refers to unknown collection `{target}`",
                    argument.name.as_str()
                ),
            )
            .primary(
                argument.name.span,
                "its `ref` names no collection of the world schema",
            );
            diags.push(match suggest(target, names.clone()) {
                Some(near) => d.help(format!("did you mean `{near}`?")),
                None => d.help("declare the collection in the world schema or fix the name"),
            });
        }
    }
}

/// `fields ARG` must name an argument of the same tool whose type is `collection`.
fn check_field_arguments(arguments: &[Argument], diags: &mut Vec<Diagnostic>) {
    for argument in arguments {
        let ArgType::Fields(of) = &argument.ty else {
            continue;
        };
        let names_collection = arguments
            .iter()
            .any(|a| a.name.as_str() == of && a.ty == ArgType::Collection);
        if !names_collection {
            diags.push(
                Diagnostic::new(
                    codes::TOOL_DEFINITION,
                    format!(
                        "argument `{}` holds the fields of `{of}`, which is not a collection argument",
                        argument.name.as_str()
                    ),
                )
                .primary(argument.name.span, "its record type cannot be known")
                .help(format!("declare `argument {of} collection` in the same tool")),
            );
        }
    }
}
