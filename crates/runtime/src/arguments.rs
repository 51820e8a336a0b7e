//! Checking a call's arguments against the tool's declaration, before anything runs.
//!
//! An argument the tool does not declare is `UNKNOWN_ARGUMENT`, a missing required one
//! `MISSING_ARGUMENT`, a value of the wrong type `INVALID_ARGUMENT`; each result names
//! the argument (`"argument": "operation"`) and says what was expected, so a model can
//! correct its call. `null` stands for an optional argument left out. Values are read
//! as [`super::values::from_json`] reads them, so every spelling a service accepts passes here.
//! A `fields` object is only checked to be an object: its fields are typed by the
//! service that writes them, against the collection the call names. An optional
//! argument with a `default` that a call leaves out (or gives `null`) is given its
//! default first ([`with_defaults`]): the call runs, and is recorded, with it.

use std::borrow::Cow;

use serde_json::{json, Map, Value as Json};

use crate::model::tool::{ArgType, Argument, Tool};
use crate::model::world::{id_letters, FieldType};

use super::values::from_json;
use super::{CallResult, Runtime};

/// The call's arguments with the declared defaults of those it leaves out, in objects
/// too; borrowed when no default applies.
pub fn with_defaults<'j>(tool: &Tool, arguments: &'j Json) -> Cow<'j, Json> {
    match fill(&tool.arguments, arguments) {
        Some(filled) => Cow::Owned(filled),
        None => Cow::Borrowed(arguments),
    }
}

/// `given` (an object of arguments) with the defaults of `declared` filled in, when
/// any applies.
fn fill(declared: &[Argument], given: &Json) -> Option<Json> {
    let empty = Map::new();
    let members = match given {
        Json::Object(m) => m,
        Json::Null => &empty,
        _ => return None,
    };
    let mut out: Option<Map<String, Json>> = None;
    for argument in declared {
        let name = argument.name.as_str();
        let value = members.get(name).filter(|v| !v.is_null());
        let replaced = match (value, &argument.default, &argument.ty) {
            (None, Some(default), _) => Some(default.clone()),
            (Some(inner), _, ArgType::Object(of)) => fill(of, inner),
            _ => None,
        };
        if let Some(replaced) = replaced {
            out.get_or_insert_with(|| members.clone())
                .insert(name.to_string(), replaced);
        }
    }
    out.map(Json::Object)
}

/// `Ok` when the call's arguments fit the declaration, else the refusal to answer with.
pub fn validate(tool: &Tool, arguments: &Json, rt: &Runtime) -> Result<(), CallResult> {
    let empty = Map::new();
    let given = match arguments {
        Json::Object(m) => m,
        Json::Null => &empty,
        _ => {
            return Err(refusal(
                "INVALID_ARGUMENT",
                None,
                "the arguments of a call are an object keyed by argument name".into(),
            ))
        }
    };
    members(&tool.arguments, given, "", tool.name.as_str(), rt)
}

fn members(
    declared: &[Argument],
    given: &Map<String, Json>,
    prefix: &str,
    owner: &str,
    rt: &Runtime,
) -> Result<(), CallResult> {
    if let Some(unknown) = given
        .keys()
        .find(|k| !declared.iter().any(|a| a.name.as_str() == k.as_str()))
    {
        let takes: Vec<&str> = declared.iter().map(|a| a.name.as_str()).collect();
        return Err(refusal(
            "UNKNOWN_ARGUMENT",
            Some(format!("{prefix}{unknown}")),
            format!(
                "`{owner}` takes no argument `{unknown}`; it takes: {}",
                if takes.is_empty() {
                    "none".to_string()
                } else {
                    takes.join(", ")
                }
            ),
        ));
    }
    for argument in declared {
        let name = format!("{prefix}{}", argument.name.as_str());
        match given.get(argument.name.as_str()) {
            None | Some(Json::Null) if argument.required => {
                return Err(refusal(
                    "MISSING_ARGUMENT",
                    Some(name.clone()),
                    format!("`{owner}` needs `{name}` ({})", argument.ty.describe()),
                ))
            }
            None | Some(Json::Null) => {}
            Some(value) => check(&argument.ty, value, &name, rt)?,
        }
    }
    Ok(())
}

fn check(ty: &ArgType, value: &Json, name: &str, rt: &Runtime) -> Result<(), CallResult> {
    let invalid = |why: String| {
        refusal(
            "INVALID_ARGUMENT",
            Some(name.to_string()),
            format!("`{name}`: {why}"),
        )
    };
    match ty {
        ArgType::Field(field) => {
            from_json(value, field, rt.zone).map_err(&invalid)?;
            record_ids(field, value, rt).map_err(invalid)
        }
        ArgType::Collection => {
            let names: Vec<&str> = rt
                .sandbox
                .schema
                .collections
                .iter()
                .map(|c| c.name.as_str())
                .collect();
            match value.as_str() {
                Some(c) if names.contains(&c) => Ok(()),
                _ => Err(invalid(format!(
                    "expected a collection: {}",
                    names.join(", ")
                ))),
            }
        }
        ArgType::Id => match value.as_str() {
            Some(id) if is_id(id, rt) => Ok(()),
            _ => Err(invalid(format!(
                "expected a record or request id ({})",
                example_ids(rt)
            ))),
        },
        ArgType::Fields(_) => match value {
            Json::Object(_) => Ok(()),
            _ => Err(invalid("expected an object of record fields".into())),
        },
        ArgType::Object(declared) => match value {
            Json::Object(given) => members(declared, given, &format!("{name}."), name, rt),
            _ => Err(invalid("expected an object".into())),
        },
    }
}

/// A reference must be shaped like an id of one of its collections (whether the
/// record exists is for the tool to answer).
fn record_ids(ty: &FieldType, value: &Json, rt: &Runtime) -> Result<(), String> {
    match (ty, value) {
        (FieldType::Ref(targets), Json::String(id)) => {
            let prefixes: Vec<&str> = targets
                .iter()
                .filter_map(|t| rt.sandbox.schema.collection(t))
                .map(|c| c.id_prefix.as_str())
                .collect();
            if id_letters(id).is_some_and(|l| prefixes.contains(&l)) {
                Ok(())
            } else {
                Err(format!(
                    "expected the id of a record of {}",
                    targets.join(" or ")
                ))
            }
        }
        (FieldType::List(item), Json::Array(items)) => {
            items.iter().try_for_each(|i| record_ids(item, i, rt))
        }
        _ => Ok(()),
    }
}

/// Whether `id` is shaped like a record id or request id of the world schema.
fn is_id(id: &str, rt: &Runtime) -> bool {
    let schema = &rt.sandbox.schema;
    id_letters(id).is_some_and(|letters| {
        schema.collections_with_prefix(letters).next().is_some()
            || schema.is_request_prefix(letters)
    })
}

fn example_ids(rt: &Runtime) -> String {
    let mut prefixes: Vec<&str> = rt
        .sandbox
        .schema
        .collections
        .iter()
        .map(|c| c.id_prefix.as_str())
        .collect();
    prefixes.sort_unstable();
    prefixes.dedup();
    let shown: Vec<String> = prefixes.iter().take(4).map(|p| format!("{p}1")).collect();
    format!("{}, …", shown.join(", "))
}

fn refusal(code: &str, argument: Option<String>, message: String) -> CallResult {
    let mut outcome = CallResult::error(code, message);
    if let (Some(argument), Json::Object(m)) = (argument, &mut outcome.result) {
        m.insert("argument".into(), json!(argument));
    }
    outcome
}
