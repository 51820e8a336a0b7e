//! Typed field values: reading a written value against its field type, and its JSON.
//!
//! Every value of a record, an expectation or an override filter goes through
//! [`read`], so one set of rules (and diagnostics) covers them all.

use chrono_tz::Tz;

use crate::diag::{codes, suggest, Diagnostic};
use crate::syntax::ast::{ListItem, Value, ValueKind};

use crate::model::time::{self, DateTimeError};
use crate::model::value::{Bytes, FieldValue, IdIndex, NumberValue};
use crate::model::world::FieldType;

/// What reading a value needs: the case zone and the ids references may name.
pub struct TypeCx<'a> {
    pub zone: Option<Tz>,
    /// The ids a reference may name; `None` outside any case (a tool's declaration),
    /// where any id is taken.
    pub ids: Option<&'a IdIndex>,
}

/// Reads `value` as a value of `ty`, or reports why it is not one.
pub fn read(
    value: &Value,
    ty: &FieldType,
    cx: &TypeCx,
    field: &str,
) -> Result<FieldValue, Diagnostic> {
    let mismatch = |expected: String| type_error(value, field, ty, expected);
    match (ty, &value.kind) {
        (FieldType::Text, ValueKind::Str { text, .. }) => Ok(FieldValue::Text(text.to_string())),
        (FieldType::Bytes, ValueKind::Str { text, .. }) => {
            Ok(FieldValue::Bytes(Bytes::new(text.as_bytes())))
        }
        (FieldType::Date, ValueKind::Str { text, .. }) => time::parse_date(text)
            .map(FieldValue::Date)
            .map_err(mismatch),
        (FieldType::Time, ValueKind::Str { text, .. }) => time::parse_time(text)
            .map(FieldValue::Time)
            .map_err(mismatch),
        (FieldType::DateTime, ValueKind::Str { text, .. }) => {
            match time::parse_datetime(text, cx.zone) {
                Ok(dt) => Ok(FieldValue::DateTime(dt)),
                Err(DateTimeError::Invalid(why)) => Err(mismatch(why)),
                Err(DateTimeError::Transition { why, help }) => {
                    Err(type_error(value, field, ty, why).help(help))
                }
                Err(DateTimeError::OffsetMismatch {
                    written,
                    expected,
                    zone,
                }) => Err(offset_mismatch(value, text, &written, &expected, &zone)),
                Err(DateTimeError::NoZone) => Err(type_error(
                    value,
                    field,
                    ty,
                    "no timezone is known here (the case has none, or the rule belongs to no case), so a local time cannot be placed".into(),
                )
                .help("write the time with its offset, `\"2026-11-09T10:30:00-05:00\"`, or with its zone, `\"2026-11-09 10:30[America/New_York]\"`; in a case, a `timezone` on the suite or the case places local times")),
            }
        }
        (FieldType::Duration, ValueKind::Str { text, .. }) => time::parse_duration(text)
            .map(FieldValue::Duration)
            .map_err(mismatch),
        (FieldType::Recurrence, ValueKind::Str { text, .. } | ValueKind::Ident(text)) => {
            time::parse_recurrence(text)
                .map(FieldValue::Recurrence)
                .map_err(mismatch)
        }
        (FieldType::Bool, ValueKind::Ident(word)) if word == "true" || word == "false" => {
            Ok(FieldValue::Bool(word == "true"))
        }
        (FieldType::Number, ValueKind::Number(n)) => n
            .parse::<serde_json::Number>()
            .map(|n| FieldValue::Number(NumberValue(n)))
            .map_err(|_| mismatch("not a valid number".into())),
        (FieldType::Integer, ValueKind::Number(n)) => match n.parse::<serde_json::Number>() {
            Ok(n) if NumberValue::is_whole(&n) => Ok(FieldValue::Number(NumberValue(n))),
            _ => Err(mismatch("not a whole number".into())),
        },
        (FieldType::Enum(options), ValueKind::Ident(word)) => {
            if options.iter().any(|option| option == word) {
                Ok(FieldValue::Enum(word.to_string()))
            } else {
                Err(enum_error(value, field, word, options))
            }
        }
        (FieldType::Ref(targets), ValueKind::Ident(id)) => read_ref(value, id, targets, cx, field),
        (FieldType::List(item), ValueKind::List(items)) => items
            .iter()
            .enumerate()
            .map(|(i, list_item)| read_item(list_item, i, item, cx, field))
            .collect::<Result<Vec<_>, _>>()
            .map(FieldValue::List),
        _ => Err(mismatch(format!(
            "found {}; {}",
            value.describe(),
            how_to_write(ty)
        ))),
    }
}

/// Item `index` (from 0) of the list field `field`, whose items are of type `item`. A
/// mistake is reported as the item's ("item 2 of `items`"), not as the list field's.
fn read_item(
    list_item: &ListItem,
    index: usize,
    item: &FieldType,
    cx: &TypeCx,
    field: &str,
) -> Result<FieldValue, Diagnostic> {
    let which = format!("item {} of `{field}`", index + 1);
    let value = match list_item {
        ListItem::Value(v) => v,
        ListItem::Block(b) => {
            return Err(
                Diagnostic::new(codes::RECORD_FIELD_TYPE, format!("{which} is a block"))
                    .primary(b.span, format!("expected {}", item.describe()))
                    .help(format!(
                        "`{field}` is a list of {}: {}",
                        item.describe(),
                        how_to_write(&FieldType::List(Box::new(item.clone())))
                    )),
            );
        }
    };
    read(value, item, cx, field).map_err(|mut d| {
        if d.code == codes::RECORD_FIELD_TYPE {
            d.message = format!("{which} is not a valid {}", item.describe());
            d.help = Some(format!(
                "`{field}` is a list of {}: {}",
                item.describe(),
                how_to_write(&FieldType::List(Box::new(item.clone())))
            ));
        }
        d
    })
}

fn read_ref(
    value: &Value,
    id: &str,
    targets: &[String],
    cx: &TypeCx,
    field: &str,
) -> Result<FieldValue, Diagnostic> {
    let Some(ids) = cx.ids else {
        return Ok(FieldValue::Ref(id.to_string()));
    };
    match ids.get(id) {
        // A record of an unknown collection: its error is reported where it is written.
        Some(collection) if collection.is_empty() || targets.contains(collection) => {
            Ok(FieldValue::Ref(id.to_string()))
        }
        Some(collection) => Err(Diagnostic::new(
            codes::DANGLING_REFERENCE,
            format!("`{field}` refers to `{id}`, a record of {collection}"),
        )
        .primary(
            value.span,
            format!("expected a record of {}", targets.join(" or ")),
        )
        .help(format!("name a record of {}", targets.join(" or ")))),
        None => {
            let candidates: Vec<&str> = ids
                .iter()
                .filter(|(_, c)| targets.contains(c))
                .map(|(i, _)| i.as_str())
                .collect();
            let d = Diagnostic::new(
                codes::DANGLING_REFERENCE,
                format!("`{field}` refers to `{id}`, which this world does not hold"),
            )
            .primary(value.span, "no record has this id");
            Err(match suggest(id, candidates.iter().copied()) {
                Some(near) => d.help(format!("did you mean `{near}`?")),
                None => d.help(format!(
                    "add a record of {} with id `{id}` to the world",
                    targets.join(" or ")
                )),
            })
        }
    }
}

fn how_to_write(ty: &FieldType) -> String {
    match ty {
        FieldType::Text => "write a string".into(),
        FieldType::Date => "write \"YYYY-MM-DD\"".into(),
        FieldType::Time => "write \"HH:MM\"".into(),
        FieldType::DateTime => "write \"YYYY-MM-DD HH:MM\"".into(),
        FieldType::Duration => "write e.g. \"30m\" or \"1h30m\"".into(),
        FieldType::Recurrence => "write e.g. daily or \"weekly tuesday\"".into(),
        FieldType::Bytes => {
            "write a string (its UTF-8 bytes), or `from \"PATH\"` for a file of the suite folder"
                .into()
        }
        FieldType::Bool => "write true or false".into(),
        FieldType::Number => "write a number".into(),
        FieldType::Integer => "write a whole number".into(),
        FieldType::Enum(options) => format!("write one of: {}", options.join(", ")),
        FieldType::Ref(targets) => format!("write the id of a record of {}", targets.join(" or ")),
        FieldType::List(item) => match **item {
            FieldType::Text => "write a list of strings, e.g. `[\"milk\", \"bread\"]`".into(),
            _ => format!("write a list `[…]` of {}", item.describe()),
        },
    }
}

fn type_error(value: &Value, field: &str, ty: &FieldType, why: String) -> Diagnostic {
    Diagnostic::new(
        codes::RECORD_FIELD_TYPE,
        format!("`{field}` is not a valid {}", ty.describe()),
    )
    .primary(value.span, why)
    .help(format!(
        "`{field}` is {}: {}",
        ty.describe(),
        how_to_write(ty)
    ))
}

fn enum_error(value: &Value, field: &str, word: &str, options: &[String]) -> Diagnostic {
    let d = Diagnostic::new(
        codes::RECORD_FIELD_TYPE,
        format!("`{word}` is not a value of `{field}`"),
    )
    .primary(
        value.span,
        format!("expected one of: {}", options.join(", ")),
    );
    match suggest(word, options.iter().map(String::as_str)) {
        Some(near) => d.help(format!("did you mean `{near}`?")),
        None => d.help(format!("`{field}` takes one of: {}", options.join(", "))),
    }
}

fn offset_mismatch(
    value: &Value,
    text: &str,
    written: &str,
    expected: &str,
    zone: &str,
) -> Diagnostic {
    let stamp = text.split('[').next().unwrap_or(text);
    let local = stamp.get(..16).unwrap_or(stamp).replace('T', " ");
    Diagnostic::new(
        codes::ZONE_OFFSET_MISMATCH,
        format!("offset {written} contradicts {zone}, where this time has offset {expected}"),
    )
    .primary(value.span, format!("{zone} is at {expected} on this date"))
    .help(format!(
        "write \"{local}\" to take the zone's offset, or give a zone in brackets if the prose names another"
    ))
}
