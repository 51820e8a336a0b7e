//! Expectations: a small assertion language over the final sandbox state and the tool
//! trace, tied to the checks it decides (`expect A1 S1 { … }`), predicates of critical
//! failures (`forbid F2 { … }`) and review marks (`review A3 F1`).
//!
//! The assertions and their exact meaning are listed in docs/worlds.md; this module
//! reads and validates them against the case (its world, tools and checks) and gives
//! their JSON for the sandbox file.

use crate::diag::{codes, suggest, Diagnostic};
use crate::model::tool::Tool;
use crate::model::world::FieldType;
use crate::model::{Name, Text};
use crate::resolve::keys::{body, check_keys, KeySpec};
use crate::resolve::values::{self, ValueType};
use crate::syntax::ast::{Block, Statement, Value, ValueKind};

use crate::model::expect::{
    cell_position, AggregateExpectation, AggregateValue, ImageExpectation, JsonExpected, JsonPoint,
    SheetExpectation, DOCUMENT_TYPES,
};
use crate::model::expect::{
    Assertion, CallOutcome, CellExpectation, Condition, Count, CsvExpectation, FileExpectation, Op,
    ReplyTest, Step,
};
use crate::model::expr::Aggregate;
use crate::model::world::{id_letters, Collection};

use super::filters::{self, FilterCx, FilterPlace};
use super::records::known_collection;

pub const ASSERTIONS: &[KeySpec<'static>] = &[
    KeySpec::repeated("exists", "`exists ID…`: the records exist at the end."),
    KeySpec::repeated("absent", "`absent ID…`: the records do not exist at the end."),
    KeySpec::repeated("unchanged", "`unchanged [COLLECTION|ID…] [except ID…]`: as in the initial world (bare: the whole world)."),
    KeySpec::repeated("changed", "`changed COLLECTION|ID…`: at least one of them differs from the initial world."),
    KeySpec::repeated("record", "`record ID { field value … }`: the record exists and its fields match."),
    KeySpec::repeated("count", "`count COLLECTION [at_least|at_most] N { conditions }`: records matching."),
    KeySpec::repeated("sum", "`sum COLLECTION FIELD N [within T] { conditions }`: the field adds up to N over the records matching."),
    KeySpec::repeated("min", "`min COLLECTION FIELD N [within T] { conditions }`: the smallest value of the field over the records matching is N."),
    KeySpec::repeated("max", "`max COLLECTION FIELD N [within T] { conditions }`: the largest value of the field over the records matching is N."),
    KeySpec::repeated("first", "`first COLLECTION FIELD ID { conditions }`: of the records matching, ID comes first in the field's order (the earliest, the smallest)."),
    KeySpec::repeated("last", "`last COLLECTION FIELD ID { conditions }`: of the records matching, ID comes last in the field's order (the most recent, the largest)."),
    KeySpec::repeated("called", "`called TOOL [[at_least|at_most] N] { conditions }`: matching calls (default: at least one)."),
    KeySpec::repeated("retrieved", "`retrieved ID…`: a tool result showed each record."),
    KeySpec::repeated("verified", "`verified ID` or `verified COLLECTION { conditions }`: read back after its last write."),
    KeySpec::repeated("in_order", "`in_order { TOOL { … }; asked; … }`: these steps happen in this order."),
    KeySpec::repeated("only_after", "`only_after { FIRST; THEN }`: every THEN call comes after a FIRST step."),
    KeySpec::repeated("asked", "`asked`: the assistant asked the scripted follow-up question."),
    KeySpec::repeated("file", "`file \"PATH\" { contains \"…\"; csv { … } }`: a file the run leaves, and what it holds."),
    KeySpec::repeated("reply", "`reply contains|lacks|is|has_word|matches \"…\"` or `reply number N [within T]`: the assistant's final reply."),
    KeySpec::repeated("any", "`any { … }`: at least one of the assertions holds."),
    KeySpec::repeated("not", "`not { … }`: the assertions do not all hold."),
];

/// What assertions are read against.
pub struct ExpectCx<'a> {
    pub filters: FilterCx<'a>,
    /// The suite's tools and the names of those this case offers.
    pub tools: &'a [Tool],
    pub offered: &'a [Name],
    /// How many scripted follow-ups the case has (`asked N` names one of them).
    pub followups: usize,
}

/// The assertions of `statement`'s block (an `expect`, a `forbid`, an `any` or a
/// `not`), which must hold at least one: an empty block decides nothing.
pub fn read_assertions(
    statement: &Statement,
    block: &Block,
    cx: &ExpectCx,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Assertion> {
    let statements = &block.statements;
    match statements.first() {
        Some(first) => check_keys(
            statements,
            &[ASSERTIONS],
            "an expectation",
            first.key.span,
            diags,
        ),
        None => diags.push(empty_block(statement, block)),
    }
    values::read_each(statements, |s| assertion(s, cx, diags))
}

fn empty_block(statement: &Statement, block: &Block) -> Diagnostic {
    let key = statement.name();
    let meaning = match key {
        "expect" => "it would pass every run",
        "forbid" => "it would fire on every run",
        _ => "it would never hold",
    };
    let help = match key {
        "expect" | "forbid" => format!(
            "write the assertions that decide it (`{key} {} {{ record R1 {{ status done }} }}`), or `review` it when only a reader can",
            statement.values.first().map_or("ID", |v| v.as_ident().unwrap_or("ID"))
        ),
        _ => format!("write the assertions `{key}` combines, or remove it"),
    };
    Diagnostic::new(
        codes::EMPTY_ASSERTIONS,
        format!("`{key}` holds no assertion"),
    )
    .primary(block.span, meaning)
    .help(help)
}

fn assertion(
    statement: &Statement,
    cx: &ExpectCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<Assertion> {
    match statement.name() {
        "exists" => ids(statement, cx, diags).map(Assertion::Exists),
        "absent" => ids(statement, cx, diags).map(Assertion::Absent),
        "retrieved" => ids(statement, cx, diags).map(Assertion::Retrieved),
        "unchanged" => unchanged(statement, cx, diags),
        "changed" => changed(statement, cx, diags),
        "record" => record(statement, cx, diags),
        "count" => count(statement, cx, diags),
        "sum" => aggregate(Aggregate::Sum, statement, cx, diags),
        "min" => aggregate(Aggregate::Min, statement, cx, diags),
        "max" => aggregate(Aggregate::Max, statement, cx, diags),
        "first" => aggregate(Aggregate::First, statement, cx, diags),
        "last" => aggregate(Aggregate::Last, statement, cx, diags),
        "called" => called(statement, cx, diags),
        "verified" => verified(statement, cx, diags),
        "in_order" => steps(statement, cx, diags).map(Assertion::InOrder),
        "only_after" => only_after(statement, cx, diags),
        "asked" => asked(statement, cx, diags).map(Assertion::Asked),
        "file" => file(statement, cx, diags).map(|f| Assertion::File(Box::new(f))),
        "reply" => reply(statement, diags).map(Assertion::Reply),
        "any" => nested(statement, cx, diags).map(Assertion::Any),
        "not" => nested(statement, cx, diags).map(Assertion::Not),
        _ => None,
    }
}

fn nested(
    statement: &Statement,
    cx: &ExpectCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<Assertion>> {
    let block = values::block_only(statement, diags)?;
    Some(read_assertions(statement, block, cx, diags))
}

/// `KEY ID…`: at least one record id, each known.
fn ids(statement: &Statement, cx: &ExpectCx, diags: &mut Vec<Diagnostic>) -> Option<Vec<Name>> {
    let names = values::names(statement, diags)?;
    if names.is_empty() {
        diags.push(
            Diagnostic::new(
                codes::BAD_ARGUMENTS,
                format!("`{}` names no record", statement.name()),
            )
            .primary(statement.span, "expected one or more record ids")
            .help(format!("write it as `{} B1`", statement.name())),
        );
        return None;
    }
    let before = diags.len();
    for name in &names {
        known_record(name, cx, diags);
    }
    (diags.len() == before).then_some(names)
}

fn known_record<'a>(
    name: &Name,
    cx: &'a ExpectCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<&'a Collection> {
    let ids = cx.filters.ids?;
    match ids.get(name.as_str()) {
        Some(collection) => cx.filters.schema.collection(collection),
        None => {
            let d = filters::unknown_id(name.as_str(), name.span);
            let near = suggest(name.as_str(), ids.keys().map(String::as_str));
            diags.push(match near {
                Some(near) => d.help(format!("did you mean `{near}`?")),
                None => d,
            });
            None
        }
    }
}

/// Splits `unchanged`/`changed` targets into collections and records.
fn targets(
    values: &[Name],
    cx: &ExpectCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Vec<Name>, Vec<Name>)> {
    let before = diags.len();
    let (mut collections, mut records) = (Vec::new(), Vec::new());
    for name in values {
        if id_letters(name.as_str()).is_some() {
            known_record(name, cx, diags);
            records.push(name.clone());
        } else {
            known_collection(name, cx.filters.schema, diags);
            collections.push(name.clone());
        }
    }
    (diags.len() == before).then_some((collections, records))
}

fn unchanged(
    statement: &Statement,
    cx: &ExpectCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<Assertion> {
    let names = values::names(statement, diags)?;
    let split = names.iter().position(|n| n.as_str() == "except");
    let (scope, except) = match split {
        Some(i) => (&names[..i], &names[i + 1..]),
        None => (&names[..], &names[..0]),
    };
    if split.is_some() && except.is_empty() {
        diags.push(
            Diagnostic::new(codes::BAD_ARGUMENTS, "`except` names no record")
                .primary(statement.span, "expected record ids after `except`")
                .help("write it as `unchanged COLLECTION except RECORD_ID`"),
        );
        return None;
    }
    let (mut collections, records) = targets(scope, cx, diags)?;
    let before = diags.len();
    for id in except {
        known_record(id, cx, diags);
    }
    if diags.len() > before {
        return None;
    }
    if scope.is_empty() {
        collections = cx
            .filters
            .schema
            .collections
            .iter()
            .map(|c| c.name.clone())
            .collect();
    }
    Some(Assertion::Unchanged {
        collections,
        records,
        except: except.to_vec(),
    })
}

fn changed(statement: &Statement, cx: &ExpectCx, diags: &mut Vec<Diagnostic>) -> Option<Assertion> {
    let names = ids_or_collections(statement, diags)?;
    let (collections, records) = targets(&names, cx, diags)?;
    Some(Assertion::Changed {
        collections,
        records,
    })
}

fn ids_or_collections(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Vec<Name>> {
    let names = values::names(statement, diags)?;
    if names.is_empty() {
        diags.push(
            Diagnostic::new(
                codes::BAD_ARGUMENTS,
                format!("`{}` names nothing", statement.name()),
            )
            .primary(statement.span, "expected collections or record ids")
            .help(format!(
                "write it as `{} COLLECTION` or `{} RECORD_ID`",
                statement.name(),
                statement.name()
            )),
        );
        return None;
    }
    Some(names)
}

fn record(statement: &Statement, cx: &ExpectCx, diags: &mut Vec<Diagnostic>) -> Option<Assertion> {
    let v = values::args_with_block(
        statement,
        &[ValueType::Ident],
        "record ID { field value }",
        diags,
    )?;
    let id = values::name_of(&v[0]);
    let collection = known_record(&id, cx, diags)?;
    let conditions = filters::record_conditions(body(statement), collection, &cx.filters, diags);
    Some(Assertion::Record { id, conditions })
}

/// `[N]`, `[at_least N]`, `[at_most N]` after the first value; `None` when absent.
fn count_of(
    rest: &[Value],
    statement: &Statement,
    usage: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Option<Count>> {
    let number = |v: &Value| match &v.kind {
        ValueKind::Number(n) => n.parse::<u64>().ok(),
        _ => None,
    };
    let parsed = match rest {
        [] => Some(None),
        [n] => number(n).map(|n| Some(Count::Exactly(n))),
        [word, n] => match (word.as_ident(), number(n)) {
            (Some("at_least"), Some(n)) => Some(Some(Count::AtLeast(n))),
            (Some("at_most"), Some(n)) => Some(Some(Count::AtMost(n))),
            _ => None,
        },
        _ => None,
    };
    if parsed.is_none() {
        diags.push(
            Diagnostic::new(
                codes::BAD_ARGUMENTS,
                format!("`{}` is not written as expected", statement.name()),
            )
            .primary(
                statement.span,
                "expected a count: N, at_least N or at_most N",
            )
            .help(format!("write it as `{usage}`")),
        );
    }
    parsed
}

/// `sum COLLECTION FIELD N [within T] { condition… }`.
/// `sum|min|max COLLECTION FIELD N [within T] { … }` or `first|last COLLECTION FIELD ID
/// { … }`.
fn aggregate(
    of: Aggregate,
    statement: &Statement,
    cx: &ExpectCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<Assertion> {
    let word = of.as_str();
    let by_record = matches!(of, Aggregate::First | Aggregate::Last);
    let (usage, expected_what) = if by_record {
        (
            format!("{word} COLLECTION FIELD ID {{ field value }}"),
            "expected a collection, the field that orders its records and the record's id",
        )
    } else {
        (
            format!("{word} COLLECTION FIELD N [within T] {{ field value }}"),
            "expected a collection, a number field, the number and an optional `within T`",
        )
    };
    let number = |v: &Value| match &v.kind {
        ValueKind::Number(n) => n.parse::<f64>().ok().filter(|f| f.is_finite()),
        _ => None,
    };
    let parsed = match (by_record, statement.values.as_slice()) {
        (true, [c, f, id]) => id
            .as_ident()
            .map(|_| (c, f, AggregateValue::Record(values::name_of(id)))),
        (false, [c, f, n]) => {
            number(n).map(|value| (c, f, AggregateValue::Number { value, within: 0.0 }))
        }
        (false, [c, f, n, w, t]) if w.as_ident() == Some("within") => {
            match (number(n), number(t).filter(|t| *t >= 0.0)) {
                (Some(value), Some(within)) => {
                    Some((c, f, AggregateValue::Number { value, within }))
                }
                _ => None,
            }
        }
        _ => None,
    };
    let Some((c, f, expected)) =
        parsed.filter(|(c, f, _)| c.as_ident().is_some() && f.as_ident().is_some())
    else {
        diags.push(
            Diagnostic::new(
                codes::BAD_ARGUMENTS,
                format!("`{word}` is not written as expected"),
            )
            .primary(statement.span, expected_what)
            .help(format!("write it as `{usage}`")),
        );
        return None;
    };
    let name = values::name_of(c);
    let field = values::name_of(f);
    let collection = known_collection(&name, cx.filters.schema, diags)?;
    let Some(spec) = collection.field(field.as_str()) else {
        diags.push(crate::resolve::world::records::unknown_field(
            &field, collection,
        ));
        return None;
    };
    let numeric = matches!(spec.ty, FieldType::Number | FieldType::Integer);
    let ordered = numeric
        || matches!(
            spec.ty,
            FieldType::Date
                | FieldType::Time
                | FieldType::DateTime
                | FieldType::Duration
                | FieldType::Text
        );
    if !(numeric || by_record && ordered) {
        let (what, help) = if by_record {
            (
                "is a field with no order, which `first` and `last` need",
                "name a text, date, time, datetime, duration, number or integer field to order the records by",
            )
        } else if of == Aggregate::Sum {
            (
                "is not a number to add up",
                "sum a `number` or `integer` field; count records with `count`",
            )
        } else {
            ("is not a number", "take the smallest or largest of a `number` or `integer` field; `first` and `last` find the record that comes first or last in any order")
        };
        diags.push(
            Diagnostic::new(
                codes::RECORD_FIELD_TYPE,
                format!("`{}` {what}", field.as_str()),
            )
            .primary(
                field.span,
                format!("a field of type {}", spec.ty.describe()),
            )
            .help(help),
        );
        return None;
    }
    if let AggregateValue::Record(id) = &expected {
        if !filters::known_id(id.as_str(), &cx.filters) {
            diags.push(filters::unknown_id(id.as_str(), id.span));
            return None;
        }
    }
    let conditions = filters::record_conditions(body(statement), collection, &cx.filters, diags);
    Some(Assertion::Aggregate(Box::new(AggregateExpectation {
        of,
        collection: name,
        field,
        expected,
        conditions,
    })))
}

fn count(statement: &Statement, cx: &ExpectCx, diags: &mut Vec<Diagnostic>) -> Option<Assertion> {
    let usage = "count COLLECTION [at_least|at_most] N { field value }";
    let Some((first, rest)) = statement
        .values
        .split_first()
        .filter(|(f, _)| f.as_ident().is_some())
    else {
        values::args_with_block(
            statement,
            &[ValueType::Ident, ValueType::Number],
            usage,
            diags,
        );
        return None;
    };
    let name = values::name_of(first);
    let count = count_of(rest, statement, usage, diags)?;
    let Some(count) = count else {
        diags.push(
            Diagnostic::new(codes::BAD_ARGUMENTS, "`count` has no number")
                .primary(statement.span, "expected how many records match")
                .help(format!("write it as `{usage}`")),
        );
        return None;
    };
    let collection = known_collection(&name, cx.filters.schema, diags)?;
    let conditions = filters::record_conditions(body(statement), collection, &cx.filters, diags);
    Some(Assertion::Count {
        collection: name,
        count,
        conditions,
    })
}

fn called(statement: &Statement, cx: &ExpectCx, diags: &mut Vec<Diagnostic>) -> Option<Assertion> {
    let usage = "called TOOL [failed|any] [[at_least|at_most] N] { argument value }";
    let Some((first, rest)) = statement
        .values
        .split_first()
        .filter(|(f, _)| f.as_ident().is_some())
    else {
        values::args_with_block(statement, &[ValueType::Ident], usage, diags);
        return None;
    };
    let (outcome, rest) = call_outcome(rest);
    let count = count_of(rest, statement, usage, diags)?.unwrap_or(Count::AtLeast(1));
    let (tool, conditions) = call(&values::name_of(first), body(statement), cx, diags)?;
    Some(Assertion::Called {
        tool,
        outcome,
        count,
        conditions,
    })
}

/// A leading `failed` or `any` among the values after a tool's name.
fn call_outcome(values: &[Value]) -> (CallOutcome, &[Value]) {
    let word = values.first().and_then(|v| v.as_ident());
    match word.and_then(CallOutcome::written) {
        Some(outcome) => (outcome, &values[1..]),
        None => (CallOutcome::Succeeded, values),
    }
}

/// A tool the case offers and the conditions on its calls.
fn call(
    tool: &Name,
    block: &[Statement],
    cx: &ExpectCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Name, Vec<Condition>)> {
    let contract = super::offered_tool(tool, cx.offered, cx.tools, diags)?;
    let conditions = filters::call_conditions(
        block,
        contract,
        &cx.filters,
        FilterPlace::Expectation,
        diags,
    );
    Some((tool.clone(), conditions))
}

fn verified(
    statement: &Statement,
    cx: &ExpectCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<Assertion> {
    let v = values::args_with_block(
        statement,
        &[ValueType::Ident],
        "verified ID` or `verified COLLECTION { … }",
        diags,
    )?;
    let name = values::name_of(&v[0]);
    if id_letters(name.as_str()).is_some() {
        known_record(&name, cx, diags)?;
        return Some(Assertion::VerifiedRecord(name));
    }
    let collection = known_collection(&name, cx.filters.schema, diags)?;
    let conditions = filters::record_conditions(body(statement), collection, &cx.filters, diags);
    Some(Assertion::VerifiedMatch {
        collection: name,
        conditions,
    })
}

fn steps(statement: &Statement, cx: &ExpectCx, diags: &mut Vec<Diagnostic>) -> Option<Vec<Step>> {
    let block = values::block_only(statement, diags)?;
    let before = diags.len();
    let steps: Vec<Step> = block
        .statements
        .iter()
        .filter_map(|s| match s.name() {
            "asked" => asked(s, cx, diags).map(Step::Asked),
            _ => {
                let (outcome, rest) = call_outcome(&s.values);
                if !rest.is_empty() {
                    diags.push(
                        Diagnostic::new(
                            codes::BAD_ARGUMENTS,
                            format!("step `{}` is not written as expected", s.name()),
                        )
                        .primary(
                            s.span,
                            "a step is a tool, optionally `failed` or `any`, and its conditions",
                        )
                        .help(format!(
                            "write it as `{} [failed|any] {{ argument value }}`",
                            s.name()
                        )),
                    );
                    return None;
                }
                let tool = Name::new(s.name(), s.key.span);
                call(&tool, body(s), cx, diags).map(|(tool, conditions)| Step::Call {
                    tool,
                    outcome,
                    conditions,
                })
            }
        })
        .collect();
    if steps.len() < 2 && diags.len() == before {
        diags.push(
            Diagnostic::new(
                codes::BAD_ARGUMENTS,
                format!("`{}` needs at least two steps", statement.name()),
            )
            .primary(statement.span, "one step has no order")
            .help("list the steps as `TOOL { argument value }` or `asked`, one per line, in order"),
        );
        return None;
    }
    (diags.len() == before).then_some(steps)
}

fn only_after(
    statement: &Statement,
    cx: &ExpectCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<Assertion> {
    let steps = steps(statement, cx, diags)?;
    if steps.len() != 2 || matches!(steps[1], Step::Asked(_)) {
        diags.push(
            Diagnostic::new(codes::BAD_ARGUMENTS, "`only_after` takes a first step and a call")
                .primary(statement.span, "expected exactly two steps, the second a tool call")
                .help("write it as `only_after { TOOL { ARGUMENT VALUE }; TOOL }`: the calls that must come first"),
        );
        return None;
    }
    Some(Assertion::OnlyAfter(steps))
}

pub const FILE_KEYS: &[KeySpec<'static>] = &[
    KeySpec::repeated(
        "contains",
        "`contains \"…\"`: the content holds this text (as the sandbox compares text).",
    ),
    KeySpec::repeated(
        "csv",
        "`csv { columns …; rows N; row { … } }`: the content read as CSV with a header row.",
    ),
    KeySpec::repeated(
        "xlsx",
        "`xlsx { sheet \"NAME\" { columns …; rows N; row { … }; cell B2 VALUE } }`: the content read as a workbook (XLSX, XLS, ODS).",
    ),
    KeySpec::repeated(
        "document",
        "`document { contains \"…\" }`: the text of the document (DOCX, PPTX, ODF, or plain text) holds these texts.",
    ),
    KeySpec::optional(
        "image",
        "`image { type png; width N; height N }`: the content is an image of this format and size.",
    ),
    KeySpec::repeated(
        "json",
        "`json { \"/POINTER\" VALUE [within T]; \"/POINTER\" count N }`: the content read as JSON.",
    ),
];

pub const DOCUMENT_KEYS: &[KeySpec<'static>] = &[
    KeySpec::optional(
        "type",
        "`type NAME`: the document's format, read from its bytes: pdf, docx, pptx, odt, odp, text.",
    ),
    KeySpec::repeated(
        "contains",
        "`contains \"…\"`: the document's text holds this text (as the sandbox compares text).",
    ),
];

pub const IMAGE_KEYS: &[KeySpec<'static>] = &[
    KeySpec::optional(
        "type",
        "`type NAME`: the format: png, jpeg, gif, webp, bmp, tiff, ico, …",
    ),
    KeySpec::optional("width", "`width N`: the width in pixels."),
    KeySpec::optional("height", "`height N`: the height in pixels."),
];

/// The image formats `image { type … }` names (imagesize's, in lower case).
const IMAGE_TYPES: &[&str] = &[
    "aseprite", "avif", "bmp", "dds", "exr", "farbfeld", "gif", "hdr", "heif", "ico", "ilbm",
    "jpeg", "jxl", "ktx2", "png", "pnm", "psd", "qoi", "tga", "tiff", "vtf", "webp",
];

/// The statements of `xlsx { … }` besides the table's and the cells' (which, written
/// straight in it, are about the first sheet).
pub const XLSX_KEYS: &[KeySpec<'static>] = &[KeySpec::repeated(
    "sheet",
    "`sheet \"NAME\" { … }`: a sheet by its name, read as a table; the statements written straight in `xlsx` are about the first sheet.",
)];

/// A sheet's cells, beside its table's statements (those of `csv`).
pub const CELL_KEYS: &[KeySpec<'static>] = &[KeySpec::repeated(
    "cell",
    "`cell B2 VALUE [within T]`: the cell at a reference.",
)];

pub const CSV_KEYS: &[KeySpec<'static>] = &[
    KeySpec::repeated("columns", "`columns NAME…`: the header row, in order."),
    KeySpec::repeated("rows", "`rows [at_least|at_most] N`: how many data rows."),
    KeySpec::repeated(
        "row",
        "`row { COLUMN VALUE [within T]; … }`: some data row has these cells.",
    ),
];

/// `asked` (some scripted follow-up was asked) or `asked N` (the case's Nth, from 1).
fn asked(statement: &Statement, cx: &ExpectCx, diags: &mut Vec<Diagnostic>) -> Option<Option<u32>> {
    if statement.values.is_empty() {
        return values::args(statement, &[], "asked [N]", diags).map(|_| None);
    }
    let n = match statement.values.as_slice() {
        [v] => match &v.kind {
            ValueKind::Number(n) => n.parse::<u32>().ok(),
            _ => None,
        },
        _ => None,
    };
    match n {
        Some(n) if n >= 1 && (n as usize) <= cx.followups && statement.block.is_none() => {
            Some(Some(n))
        }
        _ => {
            let has = match cx.followups {
                0 => "the case has no scripted follow-up".to_string(),
                1 => "the case has 1 scripted follow-up: write `asked 1` or `asked`".to_string(),
                n => format!("the case has {n} scripted follow-ups: write a number from 1 to {n}"),
            };
            diags.push(
                Diagnostic::new(
                    codes::BAD_ARGUMENTS,
                    "`asked` names no scripted follow-up of the case",
                )
                .primary(
                    statement.span,
                    "expected `asked`, or `asked N` for the case's Nth follow-up",
                )
                .help(has),
            );
            None
        }
    }
}

/// `reply OP "text"` or `reply number N [within T]`.
fn reply(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<ReplyTest> {
    let usage = "reply contains \"…\"` (or `lacks`, `is`, `has_word`, `matches`), or `reply number N [within T]";
    let bad = |diags: &mut Vec<Diagnostic>| {
        diags.push(
            Diagnostic::new(codes::BAD_ARGUMENTS, "`reply` is not written as expected")
                .primary(
                    statement.span,
                    "expected an operator and a text, or `number` and a number",
                )
                .help(format!("write it as `{usage}`")),
        );
        None
    };
    if statement.block.is_some() {
        return bad(diags);
    }
    let number = |v: &Value| match &v.kind {
        ValueKind::Number(n) => n.parse::<serde_json::Number>().ok(),
        _ => None,
    };
    match statement.values.as_slice() {
        [word, value] if word.as_ident() == Some("number") => match number(value) {
            Some(value) => Some(ReplyTest::Number {
                value,
                within: None,
            }),
            None => bad(diags),
        },
        [word, value, within, tolerance]
            if word.as_ident() == Some("number") && within.as_ident() == Some("within") =>
        {
            match (number(value), number(tolerance)) {
                (Some(value), Some(t)) if t.as_f64().is_some_and(|t| t >= 0.0) => {
                    Some(ReplyTest::Number {
                        value,
                        within: Some(t),
                    })
                }
                _ => bad(diags),
            }
        }
        [op_word, text] => {
            let op = op_word.as_ident().and_then(Op::written);
            if let Some(op) = op.filter(|op| !ReplyTest::TEXT_OPS.contains(op)) {
                let ops: Vec<&str> = ReplyTest::TEXT_OPS.iter().map(|op| op.as_str()).collect();
                diags.push(
                    Diagnostic::new(
                        codes::BAD_ARGUMENTS,
                        format!("`{}` does not apply to a reply", op.as_str()),
                    )
                    .primary(op_word.span, "a reply is text")
                    .help(format!(
                        "test the reply with {}, or look for a number: `reply number N within T`",
                        ops.join(", ")
                    )),
                );
                return None;
            }
            let (Some(op), Some(written)) = (op, text.as_str()) else {
                return bad(diags);
            };
            if op == Op::Matches {
                if let Err(why) = crate::model::expect::pattern(written) {
                    diags.push(filters::bad_pattern(text.span, &why));
                    return None;
                }
            }
            Some(ReplyTest::Text {
                op,
                text: values::text_of(text),
            })
        }
        _ => bad(diags),
    }
}

/// `file "PATH" { … }`: PATH in the suite's file store (the collection its `files.*`
/// tools work on).
fn file(
    statement: &Statement,
    cx: &ExpectCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<FileExpectation> {
    let usage = "file \"PATH\" { contains \"…\"; csv { … } }";
    let v = values::args_with_block(statement, &[ValueType::Str], usage, diags)?;
    let path = values::text_of(&v[0]);
    let store = match crate::model::tool::file_store(cx.tools) {
        Some(Ok(store)) => store,
        Some(Err((a, b))) => {
            diags.push(
                Diagnostic::new(
                    codes::BAD_ARGUMENTS,
                    "the suite's file tools keep files in two places",
                )
                .primary(path.span, "which file store holds this path is unclear")
                .secondary(a.span, "one store")
                .secondary(b.span, "another")
                .help("bind every `files.*` tool to one collection, path field and content field"),
            );
            return None;
        }
        None => {
            diags.push(
                Diagnostic::new(codes::BAD_ARGUMENTS, "the suite has no file store")
                    .primary(statement.key.span, "`file` looks for a file the run leaves")
                    .help("declare a tool bound to `service files.read`, `files.write` or `files.list` over a collection of files"),
            );
            return None;
        }
    };
    let block = body(statement);
    check_keys(
        block,
        &[FILE_KEYS],
        "a file expectation",
        statement.key.span,
        diags,
    );
    let before = diags.len();
    let contains = block
        .iter()
        .filter(|s| s.name() == "contains")
        .filter_map(|s| values::text(s, diags))
        .collect();
    let mut csv = None;
    for s in block.iter().filter(|s| s.name() == "csv") {
        let Some(inner) = values::block_only(s, diags) else {
            continue;
        };
        csv = Some(csv_expectation(&inner.statements, s, diags));
    }
    let mut json = None;
    for s in block.iter().filter(|s| s.name() == "json") {
        let Some(inner) = values::block_only(s, diags) else {
            continue;
        };
        let points: Vec<JsonPoint> = inner
            .statements
            .iter()
            .filter_map(|p| json_point(p, diags))
            .collect();
        json.get_or_insert_with(Vec::new).extend(points);
    }
    let mut sheets = Vec::new();
    for s in block.iter().filter(|s| s.name() == "xlsx") {
        if let Some(inner) = values::block_only(s, diags) {
            sheets.extend(workbook(&inner.statements, s, diags));
        }
    }
    let mut document = Vec::new();
    let mut document_type = None;
    for s in block.iter().filter(|s| s.name() == "document") {
        if let Some(inner) = values::block_only(s, diags) {
            check_keys(
                &inner.statements,
                &[DOCUMENT_KEYS],
                "a document expectation",
                s.key.span,
                diags,
            );
            for statement in &inner.statements {
                match statement.name() {
                    "type" => document_type = document_kind(statement, diags).or(document_type),
                    _ => document.extend(values::text(statement, diags)),
                }
            }
        }
    }
    let image = match block.iter().find(|s| s.name() == "image") {
        Some(s) => Some(image(s, diags)?),
        None => None,
    };
    (diags.len() == before).then_some(FileExpectation {
        store,
        path,
        contains,
        csv,
        json,
        sheets,
        document,
        document_type,
        image,
    })
}

/// `type NAME` of a document expectation: one of [`DOCUMENT_TYPES`].
fn document_kind(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Name> {
    let kind = values::name(statement, diags)?;
    if DOCUMENT_TYPES.contains(&kind.as_str()) {
        return Some(kind);
    }
    diags.push(
        Diagnostic::new(
            codes::BAD_ARGUMENTS,
            format!("`{}` is no document format", kind.as_str()),
        )
        .primary(kind.span, "not a format a document's bytes can be read as")
        .help(format!("write one of: {}", DOCUMENT_TYPES.join(", "))),
    );
    None
}

/// `image { type NAME; width N; height N }`.
fn image(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<ImageExpectation> {
    let block = values::block_only(statement, diags)?;
    check_keys(
        &block.statements,
        &[IMAGE_KEYS],
        "an image expectation",
        statement.key.span,
        diags,
    );
    let mut out = ImageExpectation::default();
    for s in &block.statements {
        match s.name() {
            "type" => {
                let kind = values::name(s, diags)?;
                if !IMAGE_TYPES.contains(&kind.as_str()) {
                    diags.push(
                        Diagnostic::new(
                            codes::BAD_ARGUMENTS,
                            format!("`{}` is no image format", kind.as_str()),
                        )
                        .primary(kind.span, "not a format an image's header names")
                        .help(format!("write one of: {}", IMAGE_TYPES.join(", "))),
                    );
                    return None;
                }
                out.kind = Some(kind);
            }
            "width" | "height" => {
                let number = values::number(s, diags)?;
                let Some(pixels) = number.value.as_u64().filter(|n| *n > 0) else {
                    diags.push(
                        Diagnostic::new(
                            codes::BAD_ARGUMENTS,
                            format!("`{}` is a number of pixels", s.name()),
                        )
                        .primary(number.span, "expected a whole number from 1")
                        .help(format!("write it as `{} 800`", s.name())),
                    );
                    return None;
                };
                if s.name() == "width" {
                    out.width = Some(pixels);
                } else {
                    out.height = Some(pixels);
                }
            }
            _ => {}
        }
    }
    Some(out)
}

/// The sheets an `xlsx { … }` block expects: its `sheet "NAME" { … }` blocks, and the
/// first sheet when table statements are written straight in it.
fn workbook(
    block: &[Statement],
    owner: &Statement,
    diags: &mut Vec<Diagnostic>,
) -> Vec<SheetExpectation> {
    check_keys(
        block,
        &[XLSX_KEYS, CSV_KEYS, CELL_KEYS],
        "an xlsx expectation",
        owner.key.span,
        diags,
    );
    let mut sheets = Vec::new();
    let first: Vec<Statement> = block
        .iter()
        .filter(|s| s.name() != "sheet")
        .cloned()
        .collect();
    if !first.is_empty() {
        sheets.push(sheet(None, &first, diags));
    }
    for s in block.iter().filter(|s| s.name() == "sheet") {
        let usage = "sheet \"NAME\" { … }";
        let Some(v) = values::args_with_block(s, &[ValueType::Str], usage, diags) else {
            continue;
        };
        let name = values::text_of(&v[0]);
        check_keys(
            body(s),
            &[CSV_KEYS, CELL_KEYS],
            "a sheet expectation",
            s.key.span,
            diags,
        );
        sheets.push(sheet(Some(name), body(s), diags));
    }
    sheets
}

/// One sheet: its table (`columns`, `rows`, `row`) and its `cell`s.
fn sheet(name: Option<Text>, block: &[Statement], diags: &mut Vec<Diagnostic>) -> SheetExpectation {
    let table: Vec<Statement> = block
        .iter()
        .filter(|s| s.name() != "cell")
        .cloned()
        .collect();
    let table = table_expectation(&table, diags);
    let cells = block
        .iter()
        .filter(|s| s.name() == "cell")
        .filter_map(|s| cell(s, diags))
        .collect();
    SheetExpectation { name, table, cells }
}

/// `cell B2 VALUE [within T]`.
fn cell(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<CellExpectation> {
    let bad = |diags: &mut Vec<Diagnostic>, label: &str| {
        diags.push(
            Diagnostic::new(codes::BAD_ARGUMENTS, "`cell` is not written as expected")
                .primary(statement.span, label.to_string())
                .help("write it as `cell B2 VALUE [within T]`: a column's letters and a row's number, then the value"),
        );
        None
    };
    let (reference, value, within) = match statement.values.as_slice() {
        [r, v] => (r, v, None),
        [r, v, w, t] if w.as_ident() == Some("within") => (r, v, Some(t)),
        _ => return bad(diags, "expected a cell reference and a value"),
    };
    let reference = values::name_of(reference);
    if cell_position(reference.as_str()).is_none() {
        return bad(
            diags,
            "a cell reference is letters then a row number: `B2`, `AA10`",
        );
    }
    let within = match within.map(|t| match &t.kind {
        ValueKind::Number(n) => n.parse::<f64>().ok().filter(|f| f.is_finite() && *f >= 0.0),
        _ => None,
    }) {
        Some(None) => return bad(diags, "`within` takes a number, 0 or more"),
        Some(within) => within,
        None => None,
    };
    let value = match &value.kind {
        ValueKind::Str { text, .. } | ValueKind::Ident(text) | ValueKind::Number(text) => {
            Text::new(text.as_str(), value.span)
        }
        ValueKind::List(_) => return bad(diags, "a cell holds one value"),
    };
    Some(CellExpectation {
        column: reference,
        value,
        within,
    })
}

/// `"/POINTER" VALUE [within T]` or `"/POINTER" count N` in a `json` block.
fn json_point(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<JsonPoint> {
    let usage = "\"/POINTER\" VALUE [within T]` or `\"/POINTER\" count N";
    let pointer = Text::new(statement.name(), statement.key.span);
    if !(pointer.as_str().is_empty() || pointer.as_str().starts_with('/')) || !statement.key.quoted
    {
        diags.push(
            Diagnostic::new(codes::BAD_ARGUMENTS, format!("`{}` is not a JSON pointer", pointer.as_str()))
                .primary(statement.key.span, "a pointer is a quoted text starting with `/`")
                .help("write the path to the value as an RFC 6901 pointer: `\"/totals/north\" 801`, `\"/regions/0/name\" \"North\"`, `\"\"` for the whole document"),
        );
        return None;
    }
    let bad = |diags: &mut Vec<Diagnostic>| {
        diags.push(
            Diagnostic::new(
                codes::BAD_ARGUMENTS,
                format!("`{}` is not written as expected", pointer.as_str()),
            )
            .primary(
                statement.span,
                "expected a value (a number, a text, `true`, `false`, `null`) or `count N`",
            )
            .help(format!("write it as `{usage}`")),
        );
        None
    };
    let number = |v: &Value| match &v.kind {
        ValueKind::Number(n) => n.parse::<serde_json::Number>().ok(),
        _ => None,
    };
    let expected = match statement.values.as_slice() {
        [c, n] if c.as_ident() == Some("count") => match number(n).and_then(|n| n.as_u64()) {
            Some(n) => JsonExpected::Count(n),
            None => return bad(diags),
        },
        [v, w, t] if w.as_ident() == Some("within") => {
            match (
                number(v),
                number(t).and_then(|t| t.as_f64()).filter(|t| *t >= 0.0),
            ) {
                (Some(value), Some(within)) => JsonExpected::Value {
                    value: serde_json::Value::Number(value),
                    within: Some(within),
                },
                _ => return bad(diags),
            }
        }
        [v] => {
            let value = match &v.kind {
                ValueKind::Number(_) => number(v).map(serde_json::Value::Number),
                ValueKind::Str { text, .. } => Some(serde_json::Value::String(text.to_string())),
                ValueKind::Ident(word) => match word.as_str() {
                    "true" => Some(serde_json::Value::Bool(true)),
                    "false" => Some(serde_json::Value::Bool(false)),
                    "null" => Some(serde_json::Value::Null),
                    _ => None,
                },
                ValueKind::List(_) => None,
            };
            match value {
                Some(value) => JsonExpected::Value {
                    value,
                    within: None,
                },
                None => return bad(diags),
            }
        }
        _ => return bad(diags),
    };
    Some(JsonPoint { pointer, expected })
}

fn csv_expectation(
    block: &[Statement],
    owner: &Statement,
    diags: &mut Vec<Diagnostic>,
) -> CsvExpectation {
    check_keys(
        block,
        &[CSV_KEYS],
        "a csv expectation",
        owner.key.span,
        diags,
    );
    table_expectation(block, diags)
}

/// A table's `columns`, `rows` and `row`s (its keys checked by the caller).
fn table_expectation(block: &[Statement], diags: &mut Vec<Diagnostic>) -> CsvExpectation {
    let mut out = CsvExpectation::default();
    for s in block {
        match s.name() {
            "columns" => out.columns = values::words(s, diags).unwrap_or_default(),
            "rows" => {
                let usage = "rows [at_least|at_most] N";
                match count_of(&s.values, s, usage, diags) {
                    Some(Some(count)) => out.rows = Some(count),
                    Some(None) => diags.push(
                        Diagnostic::new(codes::BAD_ARGUMENTS, "`rows` has no number")
                            .primary(s.span, "expected how many data rows")
                            .help(format!("write it as `{usage}`")),
                    ),
                    None => {}
                }
            }
            "row" => {
                if let Some(cells) = row(s, &out.columns, diags) {
                    out.rows_with.push(cells);
                }
            }
            _ => {}
        }
    }
    out
}

/// `row { COLUMN VALUE [within TOLERANCE] … }`.
fn row(
    statement: &Statement,
    columns: &[Name],
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<CellExpectation>> {
    let block = values::block_only(statement, diags)?;
    let before = diags.len();
    let mut cells = Vec::new();
    for cell in &block.statements {
        let bad = |diags: &mut Vec<Diagnostic>, label: &str| {
            diags.push(
                Diagnostic::new(
                    codes::BAD_ARGUMENTS,
                    format!("cell `{}` is not written as expected", cell.name()),
                )
                .primary(cell.span, label.to_string())
                .help(format!(
                    "write it as `{} VALUE [within TOLERANCE]`",
                    cell.name()
                )),
            );
        };
        let number = |v: &Value| match &v.kind {
            ValueKind::Number(n) => n.parse::<f64>().ok(),
            _ => None,
        };
        let (value, within) = match cell.values.as_slice() {
            [value] => (value, None),
            [value, word, tolerance] if word.as_ident() == Some("within") => {
                match number(tolerance) {
                    Some(t) if t >= 0.0 => (value, Some(t)),
                    _ => {
                        bad(diags, "the tolerance is a number of zero or more");
                        continue;
                    }
                }
            }
            _ => {
                bad(
                    diags,
                    "expected a value, then optionally `within` and a tolerance",
                );
                continue;
            }
        };
        if within.is_some() && number(value).is_none() {
            bad(diags, "a tolerance compares numbers: the value must be one");
            continue;
        }
        let column = Name::new(cell.name(), cell.key.span);
        if !columns.is_empty() && !columns.iter().any(|c| c.as_str() == column.as_str()) {
            let d = Diagnostic::new(
                codes::BAD_ARGUMENTS,
                format!("`{}` is not one of the columns", column.as_str()),
            )
            .primary(column.span, "not in `columns`");
            diags.push(
                match suggest(column.as_str(), columns.iter().map(|c| c.as_str())) {
                    Some(near) => d.help(format!("did you mean `{near}`?")),
                    None => d.help(format!(
                        "the columns: {}",
                        columns
                            .iter()
                            .map(|c| c.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                },
            );
            continue;
        }
        let written = match &value.kind {
            ValueKind::Number(n) => Text::new(n.as_str(), value.span),
            _ => values::text_of(value),
        };
        cells.push(CellExpectation {
            column,
            value: written,
            within,
        });
    }
    (diags.len() == before).then_some(cells)
}
