//! Reading the values of a statement as the schema expects them.
//!
//! Each reader checks the number and kind of values (and whether a block may follow),
//! reports a `bad_arguments` diagnostic with the statement's usage otherwise, and
//! returns `None` so resolution can go on with the next statement.

use std::fmt::Display;

use serde_json::{Map, Value as Json};

use crate::diag::{codes, Diagnostic};
use crate::model::{Data, Name, Number, Text};
use crate::source::Span;
use crate::syntax::ast::{Block, ListItem, Statement, Value, ValueKind};

/// The type a statement wants of a value, as written: a string, a name or a number.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ValueType {
    Str,
    Ident,
    Number,
}

impl ValueType {
    fn describe(self) -> &'static str {
        match self {
            ValueType::Str => "a string",
            ValueType::Ident => "a name",
            ValueType::Number => "a number",
        }
    }

    fn accepts(self, value: &Value) -> bool {
        matches!(
            (self, &value.kind),
            (ValueType::Str, ValueKind::Str { .. })
                | (ValueType::Ident, ValueKind::Ident(_))
                | (ValueType::Number, ValueKind::Number(_))
        )
    }
}

fn bad(statement: &Statement, span: Span, label: String, usage: impl Display) -> Diagnostic {
    Diagnostic::new(
        codes::BAD_ARGUMENTS,
        format!("`{}` is not written as expected", statement.name()),
    )
    .primary(span, label)
    .help(format!("write it as `{usage}`"))
}

fn values_span(statement: &Statement) -> Span {
    match (statement.values.first(), statement.values.last()) {
        (Some(a), Some(b)) => a.span.to(b.span),
        _ => statement.key.span,
    }
}

/// Checks values against `kinds` exactly and that no block follows.
pub fn args<'a>(
    statement: &'a Statement,
    kinds: &[ValueType],
    usage: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<&'a [Value]> {
    let ok = args_with_block(statement, kinds, usage, diags)?;
    if let Some(block) = &statement.block {
        diags.push(bad(
            statement,
            block.span,
            "no block is allowed here".into(),
            usage,
        ));
        return None;
    }
    Some(ok)
}

/// Checks values against `kinds`; a block may follow (the caller reads it).
/// `usage` is how the statement is written, for the help of a diagnostic: formatted
/// only when there is one (`format_args!`), since every statement of a world is read
/// here.
pub fn args_with_block<'a>(
    statement: &'a Statement,
    kinds: &[ValueType],
    usage: impl Display,
    diags: &mut Vec<Diagnostic>,
) -> Option<&'a [Value]> {
    let values = &statement.values;
    if values.len() != kinds.len() {
        let label = match kinds.len() {
            0 => "takes no values".to_string(),
            n => format!(
                "expected {} value{}, found {}",
                n,
                if n == 1 { "" } else { "s" },
                values.len()
            ),
        };
        diags.push(bad(statement, values_span(statement), label, &usage));
        return None;
    }
    for (value, kind) in values.iter().zip(kinds) {
        if !kind.accepts(value) {
            let label = format!("expected {}, found {}", kind.describe(), value.describe());
            diags.push(bad(statement, value.span, label, &usage));
            return None;
        }
    }
    Some(values)
}

/// A `KEY NAME TYPE… [optional] { … }` statement's words (a collection's `field`, a
/// tool's `argument`): its name, its type's words and whether it is required.
pub struct Declared<'a> {
    pub name: Name,
    pub type_words: Vec<&'a Value>,
    pub required: bool,
}

/// Reads a [`Declared`] statement whose key is `noun` (`field`, `argument`), said with
/// its article (`a field`, `an argument`) in the message when it is not so written.
pub fn declared<'a>(
    statement: &'a Statement,
    (noun, with_article): (&str, &str),
    diags: &mut Vec<Diagnostic>,
) -> Option<Declared<'a>> {
    let words: Option<Vec<&Value>> = statement
        .values
        .iter()
        .map(|v| v.as_ident().map(|_| v))
        .collect();
    let mut words = words.unwrap_or_default();
    let required = words.last().and_then(|v| v.as_ident()) != Some("optional");
    if !required {
        words.pop();
    }
    if words.len() < 2 {
        diags.push(
            Diagnostic::new(
                codes::BAD_ARGUMENTS,
                format!("`{noun}` is not written as expected"),
            )
            .primary(
                statement.span,
                format!("expected {with_article} name and a type, as names"),
            )
            .help(format!(
                "write it as `{noun} NAME TYPE [optional] {{ doc \"…\" }}`"
            )),
        );
        return None;
    }
    Some(Declared {
        name: name_of(words[0]),
        type_words: words.split_off(1),
        required,
    })
}

pub fn text_of(value: &Value) -> Text {
    Text::new(
        value.as_str().or(value.as_ident()).unwrap_or_default(),
        value.span,
    )
}

/// A value read as a name (an identifier, or a string where the syntax allows one).
pub fn name_of(value: &Value) -> Name {
    Name::from(text_of(value))
}

/// The name in the header of a shape, schema or profile declaration: `std.` prefixed
/// when the stdlib declares it.
pub fn declared_name(value: &Value, stdlib: bool) -> Name {
    let name = name_of(value);
    match stdlib {
        true => Name::new(format!("std.{}", name.as_str()), name.span),
        false => name,
    }
}

/// [`args`] for a statement whose usage is its own key followed by `rest`. The usage
/// is only formatted when a diagnostic needs it: reading a large suite formats none.
fn keyed_args<'a>(
    statement: &'a Statement,
    kinds: &[ValueType],
    rest: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<&'a [Value]> {
    let values = &statement.values;
    let fits = statement.block.is_none()
        && values.len() == kinds.len()
        && values.iter().zip(kinds).all(|(v, kind)| kind.accepts(v));
    if fits {
        return Some(values);
    }
    args(
        statement,
        kinds,
        &format!("{}{rest}", statement.name()),
        diags,
    )
}

/// `key "text"`
pub fn text(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Text> {
    keyed_args(statement, &[ValueType::Str], " \"…\"", diags).map(|v| text_of(&v[0]))
}

/// `key name`
pub fn name(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Name> {
    keyed_args(statement, &[ValueType::Ident], " NAME", diags).map(|v| name_of(&v[0]))
}

/// `key 100`
pub fn number(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Number> {
    let usage = format!("{} 100", statement.name());
    let v = args(statement, &[ValueType::Number], &usage, diags)?;
    parse_number(&v[0], statement, &usage, diags)
}

pub fn parse_number(
    value: &Value,
    statement: &Statement,
    usage: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Number> {
    match &value.kind {
        ValueKind::Number(n) => match n.parse::<serde_json::Number>() {
            Ok(parsed) => Some(Number {
                value: parsed,
                span: value.span,
            }),
            Err(_) => {
                diags.push(bad(
                    statement,
                    value.span,
                    "not a valid number".into(),
                    usage,
                ));
                None
            }
        },
        _ => None,
    }
}

/// `key a b c` (zero or more names)
pub fn names(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Vec<Name>> {
    list_of(statement, ValueType::Ident, "NAME", diags)
}

/// `key a "b" c`: names, each written bare or quoted.
pub fn words(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Vec<Name>> {
    let usage = || format!("{} NAME \"text\" …", statement.name());
    for value in &statement.values {
        if !(ValueType::Ident.accepts(value) || ValueType::Str.accepts(value)) {
            let label = format!("expected a name or a string, found {}", value.describe());
            diags.push(bad(statement, value.span, label, usage()));
            return None;
        }
    }
    no_block(statement, usage, diags)?;
    Some(statement.values.iter().map(name_of).collect())
}

fn list_of(
    statement: &Statement,
    kind: ValueType,
    item: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<Name>> {
    let usage = || format!("{} {item} {item} …", statement.name());
    for value in &statement.values {
        if !kind.accepts(value) {
            let label = format!("expected {}, found {}", kind.describe(), value.describe());
            diags.push(bad(statement, value.span, label, usage()));
            return None;
        }
    }
    no_block(statement, usage, diags)?;
    Some(statement.values.iter().map(name_of).collect())
}

fn no_block(
    statement: &Statement,
    usage: impl Fn() -> String,
    diags: &mut Vec<Diagnostic>,
) -> Option<()> {
    match &statement.block {
        Some(block) => {
            diags.push(bad(
                statement,
                block.span,
                "no block is allowed here".into(),
                usage(),
            ));
            None
        }
        None => Some(()),
    }
}

/// What `read` makes of each statement, in a list sized to the statements. A statement
/// read without error gives one item, and `filter_map(…).collect()` would start such a
/// list at four: for assertions (216 bytes each before `File` was boxed, 80 now),
/// mostly one or two to a list, that spare room was a fifth of a case's model.
pub fn read_each<T>(statements: &[Statement], read: impl FnMut(&Statement) -> Option<T>) -> Vec<T> {
    let mut items = Vec::with_capacity(statements.len());
    items.extend(statements.iter().filter_map(read));
    items
}

/// A statement that must open a block and take no values: `key { … }`.
pub fn block_only<'a>(statement: &'a Statement, diags: &mut Vec<Diagnostic>) -> Option<&'a Block> {
    let usage = format_args!("{} {{ … }}", statement.name());
    args_with_block(statement, &[], usage, diags)?;
    match &statement.block {
        Some(block) => Some(block),
        None => {
            diags.push(bad(
                statement,
                statement.span,
                "a block `{ … }` must follow".into(),
                usage,
            ));
            None
        }
    }
}

/// A free-form data block as a JSON object: `key value`, `key { … }`, `key [ … ]`;
/// `true`, `false` and `null` are the only bare names.
pub fn data(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Data> {
    let block = block_only(statement, diags)?;
    Some(Data {
        value: data_object(block, diags),
        span: block.span,
    })
}

pub fn data_object(block: &Block, diags: &mut Vec<Diagnostic>) -> Json {
    let mut map = Map::new();
    let mut first_span: Vec<(String, Span)> = Vec::new();
    for statement in &block.statements {
        let key = statement.name().to_string();
        if let Some((_, first)) = first_span.iter().find(|(k, _)| *k == key) {
            diags.push(
                Diagnostic::new(
                    codes::DUPLICATE_FIELD,
                    format!("`{key}` is given twice in this data block"),
                )
                .primary(statement.key.span, "given again here")
                .secondary(*first, "first given here"),
            );
            continue;
        }
        first_span.push((key.clone(), statement.key.span));
        let value = match (&statement.values[..], &statement.block) {
            ([], Some(inner)) => data_object(inner, diags),
            ([value], None) => data_value(value, diags),
            _ => {
                diags.push(bad(
                    statement,
                    statement.span,
                    "a data field takes one value or one block".into(),
                    format!("{key} VALUE"),
                ));
                Json::Null
            }
        };
        map.insert(key, value);
    }
    Json::Object(map)
}

fn data_value(value: &Value, diags: &mut Vec<Diagnostic>) -> Json {
    match &value.kind {
        ValueKind::Str { text, .. } => Json::String(text.to_string()),
        ValueKind::Number(n) => n
            .parse::<serde_json::Number>()
            .map(Json::Number)
            .unwrap_or(Json::Null),
        ValueKind::Ident(name) => match name.as_str() {
            "true" => Json::Bool(true),
            "false" => Json::Bool(false),
            "null" => Json::Null,
            other => {
                diags.push(
                    Diagnostic::new(
                        codes::BAD_ARGUMENTS,
                        format!("bare name `{other}` in a data block"),
                    )
                    .primary(
                        value.span,
                        "expected a string, number, true, false, null, list or block",
                    )
                    .help(format!("quote it: \"{other}\"")),
                );
                Json::Null
            }
        },
        ValueKind::List(items) => Json::Array(
            items
                .iter()
                .map(|item| match item {
                    ListItem::Value(v) => data_value(v, diags),
                    ListItem::Block(b) => data_object(b, diags),
                })
                .collect(),
        ),
    }
}
