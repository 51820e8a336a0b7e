//! Conditions on records and on tool calls: the blocks of `count`, `record`, `called`
//! and an override's `when`.
//!
//! A condition is `PATH VALUE` (equality) or `PATH OP VALUE`; `any { … }` holds when
//! one of its conditions does. On records a path is a field, followed through
//! references (`booking.status`) and into datetimes (`at.time`, `at.date`). On calls a
//! path is an argument of the tool's contract, or `fields.NAME` for the record fields a
//! call carries, typed by the collection the same block names.

use crate::diag::{codes, suggest, Diagnostic};
use crate::model::tool::{ArgType, Argument, Tool};
use crate::model::Name;
use crate::source::Span;
use crate::syntax::ast::{Statement, Value, ValueKind};

use crate::model::expect::{pattern, Condition, Op, Operand};
use crate::model::expr::{comparable, Arith, Expr, Paths};
use crate::model::time;
use crate::model::value::{FieldValue, IdIndex};
use crate::model::world::{id_letters, Collection, FieldType, WorldSchema};

use super::records::{known_collection, unknown_field};
use super::value::{self, TypeCx};

/// Where a call filter is written, which decides what it reports: an override that can
/// never match says so; an expectation names the unknown thing.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum FilterPlace {
    Expectation,
    Override,
    /// A tool's own declaration (its refusals and responses).
    Behavior,
}

/// What conditions are read against.
pub struct FilterCx<'a> {
    pub schema: &'a WorldSchema,
    pub zone: Option<chrono_tz::Tz>,
    /// Every record id of the case, existing or new; `None` where no case is in scope
    /// (a tool's own declaration).
    pub ids: Option<&'a IdIndex>,
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
    crate::resolve::values::read_each(statements, |s| match s.name() {
        "any" => {
            let block = crate::resolve::values::block_only(s, diags)?;
            Some(Condition::Any(conditions(&block.statements, diags, test)))
        }
        _ => test(s, diags),
    })
}

fn record_test(
    statement: &Statement,
    collection: &Collection,
    cx: &FilterCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<Condition> {
    if statement.key.quoted {
        return computed_test(statement, Place::Record(collection), cx, diags);
    }
    let (op, value) = split_test(statement, diags)?;
    let path = statement.name();
    let ty = path_type(path, statement.key.span, collection, cx.schema, diags)?;
    if let Some(number) = number_operand(op, value, path, diags)? {
        return text_only_test(&ty, path, op, value, number, diags);
    }
    // `start before booking.start`: a dotted name whose first part is a field is another
    // path of the record.
    if let Some(other) = path_operand(value, |first| collection.field(first).is_some()) {
        let right = path_type(other, value.span, collection, cx.schema, diags)?;
        if !comparable(&ty, &right, op) {
            diags.push(incomparable(path, other, op, value.span));
            return None;
        }
        return Some(Condition::Test {
            path: path.to_string(),
            op,
            value: Operand::Path(other.to_string()),
        });
    }
    let operand = value_operand(&ty, op, value, path, cx, Place::Record(collection), diags)?;
    Some(Condition::Test {
        path: path.to_string(),
        op,
        value: operand,
    })
}

/// The value a condition on a path of type `ty` compares with: a computed value, `now`
/// moved by a duration, or a literal of the type, in that order of reading.
fn value_operand(
    ty: &FieldType,
    op: Op,
    value: &Value,
    path: &str,
    cx: &FilterCx,
    place: Place,
    diags: &mut Vec<Diagnostic>,
) -> Option<Operand> {
    if let Some(computed) = computed_operand(ty, op, value, path, cx, place, diags)? {
        return Some(computed);
    }
    if let Some(now) = now_operand(ty, op, value, path, diags)? {
        return Some(now);
    }
    typed_operand(ty, op, value, path, cx, diags).map(Operand::Typed)
}

/// Where a computed value is written: what its paths start from.
#[derive(Clone, Copy)]
pub enum Place<'a> {
    /// A record condition: the record's fields.
    Record(&'a Collection),
    /// A call condition or a declared effect: the tool's arguments (`block` the
    /// conditions around, which type a `fields` argument).
    Call {
        tool: &'a Tool,
        block: &'a [Statement],
    },
}

impl Place<'_> {
    /// Whether a path of the place may start with `first`.
    fn is_root(&self, first: &str) -> bool {
        match self {
            Place::Record(collection) => collection.field(first).is_some(),
            Place::Call { tool, .. } => tool.argument(first).is_some(),
        }
    }
}

/// The paths of a place, typed against the schema, each mistake a diagnostic at `span`
/// (the string the value is written in).
pub struct PlacePaths<'a, 'd> {
    pub place: Place<'a>,
    pub cx: &'a FilterCx<'a>,
    pub span: Span,
    pub diags: &'d mut Vec<Diagnostic>,
}

impl Paths for PlacePaths<'_, '_> {
    fn path(&mut self, path: &str) -> Option<FieldType> {
        match self.place {
            Place::Record(collection) => {
                path_type(path, self.span, collection, self.cx.schema, self.diags)
            }
            Place::Call { tool, block } => {
                call_path_type(path, self.span, tool, block, self.cx, self.diags)
            }
        }
    }

    fn is_root(&self, first: &str) -> bool {
        self.place.is_root(first)
    }

    fn is_collection(&self, name: &str) -> bool {
        self.cx.schema.collection(name).is_some()
    }

    fn record_path(&mut self, collection: &str, path: &str) -> Option<FieldType> {
        let collection = self.cx.schema.collection(collection)?;
        path_type(path, self.span, collection, self.cx.schema, self.diags)
    }
}

/// A computed value's type at `place`, its mistakes reported as `bad_computed` (for a
/// `misfit`) or by the path that cannot be followed.
pub fn computed_type(
    expr: &mut Expr,
    place: Place,
    cx: &FilterCx,
    span: Span,
    misfit: &dyn Fn(&str) -> Diagnostic,
    diags: &mut Vec<Diagnostic>,
) -> Option<FieldType> {
    let mut found = Vec::new();
    let typed = expr.type_of(&mut PlacePaths {
        place,
        cx,
        span,
        diags: &mut found,
    });
    diags.extend(found);
    match typed {
        Ok(t) => Some(t),
        Err(None) => None,
        Err(Some(why)) => {
            diags.push(misfit(&why));
            None
        }
    }
}

/// A string that computes the value a condition compares with (`"new_flight.price -
/// reservation.flight.price"`, `"100 * reservation.passengers"`), its paths typed by
/// the place: `Some(None)` for any other value (a literal of the path's type, `now`
/// moved by a duration), which keeps its own reading; `None` once a diagnostic says why
/// the computed value does not fit.
fn computed_operand(
    ty: &FieldType,
    op: Op,
    value: &Value,
    path: &str,
    cx: &FilterCx,
    place: Place,
    diags: &mut Vec<Diagnostic>,
) -> Option<Option<Operand>> {
    let ValueKind::Str { text, .. } = &value.kind else {
        return Some(None);
    };
    let literal = match op {
        Op::In => return Some(None),
        _ => value::read(value, ty, &cx.type_cx(), path).is_ok(),
    };
    if literal || ty == &FieldType::Text {
        return Some(None);
    }
    let mut expr = match computable(text) {
        Some(Ok(expr)) if !is_now_moved(&expr) => expr,
        Some(Err(why)) => {
            diags.push(bad_computed(value.span, path, ty, &why));
            return None;
        }
        _ => return Some(None),
    };
    let misfit = |why: &str| bad_computed(value.span, path, ty, why);
    let computed_type = computed_type(&mut expr, place, cx, value.span, &misfit, diags)?;
    if !comparable(ty, &computed_type, op) {
        let why = format!(
            "`{}` is {}, which `{}` does not compare with {}",
            expr.written(),
            computed_type.with_article(),
            op.as_str(),
            ty.with_article()
        );
        diags.push(bad_computed(value.span, path, ty, &why));
        return None;
    }
    Some(Some(Operand::Computed(Box::new(expr))))
}

/// A text that is not a literal of its place, read as a computed value: `None` when it
/// computes nothing (a plain number or name) or fails to parse without being written as
/// arithmetic, so that it is reported as the literal it was meant to be.
pub fn computable(text: &str) -> Option<Result<Expr, String>> {
    match Expr::parse(text) {
        Ok(expr) => expr.computes().then_some(Ok(expr)),
        Err(why) if text.contains(['+', '*', '/', '(', ')']) || text.contains(" - ") => {
            Some(Err(why))
        }
        Err(_) => None,
    }
}

/// `"EXPR" OP VALUE`: a computed value compared with a value read with its type (a
/// literal, `now` moved by a duration, or another computed value).
fn computed_test(
    statement: &Statement,
    place: Place,
    cx: &FilterCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<Condition> {
    let (op, value) = split_test(statement, diags)?;
    let written = statement.name();
    let span = statement.key.span;
    let mut left = match Expr::parse(written) {
        Ok(left) if left.computes() => left,
        Ok(_) => {
            diags.push(bad_subject(
                span,
                "it is a plain path or value: write it without quotes",
            ));
            return None;
        }
        Err(why) => {
            diags.push(bad_subject(span, &why));
            return None;
        }
    };
    let misfit = |why: &str| bad_subject(span, why);
    let ty = computed_type(&mut left, place, cx, span, &misfit, diags)?;
    // `"…" after reservation.bags`: a dotted name of the place is that path.
    if let Some(other) = path_operand(value, |first| place.is_root(first)) {
        let mut found = Vec::new();
        let right = PlacePaths {
            place,
            cx,
            span: value.span,
            diags: &mut found,
        }
        .path(other);
        diags.extend(found);
        if !comparable(&ty, &right?, op) {
            diags.push(incomparable(written, other, op, value.span));
            return None;
        }
        return Some(Condition::Compare {
            left: Box::new(left),
            op,
            value: Operand::Path(other.to_string()),
        });
    }
    let operand = value_operand(&ty, op, value, written, cx, place, diags)?;
    Some(Condition::Compare {
        left: Box::new(left),
        op,
        value: operand,
    })
}

/// A quoted condition key that is no computed value, or one that cannot be computed.
fn bad_subject(span: Span, why: &str) -> Diagnostic {
    Diagnostic::new(
        codes::RECORD_FIELD_TYPE,
        format!("this quoted condition cannot be computed: {why}"),
    )
    .primary(span, "a computed value to compare")
    .help("quote a computed value to compare it, e.g. `\"count(transactions where to_iban = recipient)\" after 2`; see docs/expressions.md")
}

/// `now`, or `now` moved by a written duration: the condition's `now` operand, which the
/// sandbox JSON writes as `"now-PT1440M"`.
fn is_now_moved(expr: &Expr) -> bool {
    match expr {
        Expr::Now => true,
        Expr::Arith {
            op: Arith::Add | Arith::Sub,
            left,
            right,
        } => **left == Expr::Now && matches!(**right, Expr::Literal(FieldValue::Duration(_))),
        _ => false,
    }
}

pub fn bad_computed(span: Span, path: &str, ty: &FieldType, why: &str) -> Diagnostic {
    computed_misfit(span, &format!("compared with `{path}`"), path, ty, why)
}

/// A computed value a `set` cannot give its field.
pub fn bad_set_value(span: Span, field: &str, ty: &FieldType, why: &str) -> Diagnostic {
    computed_misfit(span, &format!("set to `{field}`"), field, ty, why)
}

fn computed_misfit(span: Span, fate: &str, path: &str, ty: &FieldType, why: &str) -> Diagnostic {
    Diagnostic::new(
        codes::RECORD_FIELD_TYPE,
        format!("this computed value cannot be {fate}: {why}"),
    )
    .primary(span, format!("`{path}` is {}", ty.describe()))
    .help("a computed value is arithmetic (`+ - * /`, parentheses) on numbers, durations and datetimes, paths of the same record or call, `now`, and aggregates of a list (`sum(items.price)`, `count`, `min`, `max`, `first`, `last`); see docs/expressions.md")
}

/// The path a condition's value names, when it is a dotted name whose first part
/// `starts` a path of the place (an argument of the call, a field of the record).
fn path_operand(value: &Value, starts: impl Fn(&str) -> bool) -> Option<&str> {
    match &value.kind {
        ValueKind::Ident(name) if name.contains('.') => {
            let first = name.split('.').next().unwrap_or_default();
            starts(first).then_some(name.as_str())
        }
        _ => None,
    }
}

fn incomparable(path: &str, other: &str, op: Op, span: Span) -> Diagnostic {
    Diagnostic::new(
        codes::RECORD_FIELD_TYPE,
        format!("`{path}` cannot be compared with `{other}` by `{}`", op.as_str()),
    )
    .primary(span, "another path of this value's type is expected")
    .help("two paths compare when they hold the same type: equal (or `not`) for any, `before`/`after` for dates, times, datetimes, durations and numbers")
}

/// For a datetime compared with `before` or `after`: `now`, `"now - 24h"` or
/// `"now + 2h"`, the case's clock moved by a duration, as an operand (`Some(None)` for
/// any other value, which is read as a datetime).
fn now_operand(
    ty: &FieldType,
    op: Op,
    value: &Value,
    path: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Option<Operand>> {
    let written = match &value.kind {
        ValueKind::Ident(word) if word == "now" => "now",
        ValueKind::Str { text, .. } if text.trim_start().starts_with("now") => text.trim(),
        _ => return Some(None),
    };
    if *ty != FieldType::DateTime {
        return Some(None);
    }
    let bad = |message: String, diags: &mut Vec<Diagnostic>| {
        diags.push(
            Diagnostic::new(codes::RECORD_FIELD_TYPE, message)
                .primary(value.span, format!("`{path}` is a datetime"))
                .help("write `PATH before now`, or `PATH after \"now - 24h\"` (a duration in d, h and m after `+` or `-`)"),
        );
        None
    };
    if !matches!(op, Op::Before | Op::After) {
        return bad(
            format!(
                "`now` is compared with `before` or `after`, not `{}`",
                op.as_str()
            ),
            diags,
        );
    }
    let rest = written["now".len()..].trim();
    let minutes = match rest.chars().next() {
        None => 0,
        Some(sign @ ('+' | '-')) => match time::parse_duration(rest[1..].trim()) {
            Ok(m) => {
                let m = i64::try_from(m).unwrap_or(i64::MAX);
                if sign == '-' {
                    -m
                } else {
                    m
                }
            }
            Err(why) => {
                return bad(
                    format!("`{written}` is not the clock moved by a duration: {why}"),
                    diags,
                )
            }
        },
        Some(_) => {
            return bad(
                format!("`{written}` is not `now` moved by a duration"),
                diags,
            )
        }
    };
    Some(Some(Operand::Now { minutes }))
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
            Op::written_words().collect::<Vec<_>>().join(", ")
        )
    };
    let bad = |label: &str| {
        Diagnostic::new(
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
        [op, value] => match op.as_ident().and_then(Op::written) {
            Some(op) => Some((op, value)),
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

/// For `has_number`, the number its value must be, as text (`Some(None)` for another
/// operator; `None` once a diagnostic says the value is no number).
fn number_operand(
    op: Op,
    value: &Value,
    path: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Option<String>> {
    if op != Op::HasNumber {
        return Some(None);
    }
    let written = match &value.kind {
        ValueKind::Number(n) => Some(n.to_string()),
        ValueKind::Str { text, .. } => Some(text.trim().to_string()),
        _ => None,
    };
    match written.filter(|n| n.parse::<f64>().is_ok_and(f64::is_finite)) {
        Some(number) => Some(Some(number)),
        None => {
            diags.push(
                Diagnostic::new(
                    codes::RECORD_FIELD_TYPE,
                    format!("`has_number` compares `{path}` with a number"),
                )
                .primary(value.span, "not a number")
                .help("write the number the text must hold, e.g. `has_number 1250.5`"),
            );
            None
        }
    }
}

/// A `has_number` test of a text path.
fn text_only_test(
    ty: &FieldType,
    path: &str,
    op: Op,
    value: &Value,
    number: String,
    diags: &mut Vec<Diagnostic>,
) -> Option<Condition> {
    if *ty != FieldType::Text {
        diags.push(
            Diagnostic::new(codes::RECORD_FIELD_TYPE, format!("`{}` does not apply to `{path}`", op.as_str()))
                .primary(value.span, format!("`{path}` is {}", ty.describe()))
                .help("`has_number` reads the numbers written in a text; compare a number field by equality, `before` or `after`"),
        );
        return None;
    }
    Some(Condition::Test {
        path: path.to_string(),
        op,
        value: Operand::Typed(FieldValue::Text(number)),
    })
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
        diags.push(unknown_field(&Name::new(first, span), collection));
        return None;
    };
    let rest: Vec<&str> = segments.collect();
    follow_type(spec.ty.clone(), &rest, span, path, schema, diags)
}

/// The type `segments` name from a value of type `ty`: a referenced record's field, a
/// datetime's `date` or `time`.
fn follow_type(
    mut ty: FieldType,
    segments: &[&str],
    span: Span,
    path: &str,
    schema: &WorldSchema,
    diags: &mut Vec<Diagnostic>,
) -> Option<FieldType> {
    for segment in segments.iter().copied() {
        ty = match (&ty, segment) {
            (FieldType::DateTime, "date") => FieldType::Date,
            (FieldType::DateTime, "time") => FieldType::Time,
            (FieldType::Ref(targets), field) => {
                ref_field_type(targets, field, span, schema, diags)?
            }
            // Through each item of a list: the list of what the items hold.
            (FieldType::List(item), field)
                if matches!(**item, FieldType::Ref(_) | FieldType::DateTime) =>
            {
                let item = follow_type((**item).clone(), &[field], span, path, schema, diags)?;
                FieldType::List(Box::new(item))
            }
            _ => {
                diags.push(
                    Diagnostic::new(
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
                Diagnostic::new(codes::UNKNOWN_RECORD_FIELD, format!("`{field}` has different types in {}", targets.join(", ")))
                    .primary(span, "this path is ambiguous")
                    .help("compare a field whose type is the same in every collection the reference may name"),
            );
            None
        }
        None => {
            let target = targets.first().and_then(|t| schema.collection(t))?;
            diags.push(unknown_field(&Name::new(field, span), target));
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
        (Op::Contains | Op::Lacks, FieldType::Text | FieldType::Bytes) => FieldType::Text,
        (Op::Contains | Op::Lacks, FieldType::List(item)) => (**item).clone(),
        (Op::Before | Op::After, FieldType::Date | FieldType::Time | FieldType::DateTime)
        | (Op::Before | Op::After, FieldType::Duration | FieldType::Number | FieldType::Integer) => {
            ty.clone()
        }
        (Op::In, _) => FieldType::List(Box::new(ty.clone())),
        (op, FieldType::Text) if op.text_only() => FieldType::Text,
        _ => {
            diags.push(
                Diagnostic::new(codes::RECORD_FIELD_TYPE, format!("`{}` does not apply to `{path}`", op.as_str()))
                    .primary(value.span, format!("`{path}` is {}", ty.describe()))
                    .help("`contains`/`lacks` apply to text and lists; `is`, `has_word` and `matches` to text; `before`/`after` to dates, times, durations and numbers"),
            );
            return None;
        }
    };
    if op == Op::Matches {
        if let ValueKind::Str { text, .. } = &value.kind {
            if let Err(why) = pattern(text) {
                diags.push(bad_pattern(value.span, &why));
                return None;
            }
        }
    }
    match value::read(value, &operand_type, &cx.type_cx(), path) {
        Ok(v) => Some(v),
        Err(d) => {
            diags.push(d);
            None
        }
    }
}

/// A `matches` operand that is no regular expression.
pub fn bad_pattern(span: Span, why: &str) -> Diagnostic {
    let why = why.lines().last().unwrap_or(why).trim();
    let why = why.strip_prefix("error: ").unwrap_or(why);
    Diagnostic::new(codes::RECORD_FIELD_TYPE, "this `matches` pattern is not a regular expression")
        .primary(span, why.to_string())
        .help("write a regular expression in Rust's `regex` syntax, e.g. `matches \"^[A-Z]{3}[0-9]{3}$\"`; `(?i)` at its start ignores case")
}

/// The conditions of a block on calls of `tool`.
pub fn call_conditions(
    statements: &[Statement],
    tool: &Tool,
    cx: &FilterCx,
    place: FilterPlace,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Condition> {
    conditions(statements, diags, &|s, d| {
        call_test(s, statements, tool, cx, place, d)
    })
}

/// What an argument path compares: a typed value, or a name compared as written (a
/// collection name or a record id).
enum ArgumentPath {
    Typed(FieldType),
    Collection,
    Id,
}

fn call_test(
    statement: &Statement,
    block: &[Statement],
    tool: &Tool,
    cx: &FilterCx,
    place: FilterPlace,
    diags: &mut Vec<Diagnostic>,
) -> Option<Condition> {
    if statement.key.quoted {
        let mut found = Vec::new();
        let test = computed_test(statement, Place::Call { tool, block }, cx, &mut found);
        diags.extend(found.into_iter().map(|d| recode(d, place)));
        return test;
    }
    let (op, value) = split_test(statement, diags)?;
    let path = statement.name();
    let found = call_argument_path(path, statement.key.span, tool, block, cx, place, diags)?;
    if let Some(number) = number_operand(op, value, path, diags)? {
        let ty = match found {
            ArgumentPath::Typed(ty) => ty,
            ArgumentPath::Collection | ArgumentPath::Id => FieldType::Text,
        };
        let mut found = Vec::new();
        let test = text_only_test(&ty, path, op, value, number, &mut found);
        diags.extend(found.into_iter().map(|d| recode(d, place)));
        return test;
    }
    // `bags before reservation.bags`: a dotted name whose first part is an argument is
    // another path of the call.
    if let Some(other) = path_operand(value, |first| tool.argument(first).is_some()) {
        let other_found = call_argument_path(other, value.span, tool, block, cx, place, diags)?;
        let (ArgumentPath::Typed(left), ArgumentPath::Typed(right)) = (&found, &other_found) else {
            diags.push(recode(incomparable(path, other, op, value.span), place));
            return None;
        };
        if !comparable(left, right, op) {
            diags.push(recode(incomparable(path, other, op, value.span), place));
            return None;
        }
        return Some(Condition::Test {
            path: path.to_string(),
            op,
            value: Operand::Path(other.to_string()),
        });
    }
    let operand = match found {
        // A call's text argument is often an id or a word: a bare name stands for it,
        // and one shaped like an id must name a record or request of the case.
        ArgumentPath::Typed(FieldType::Text)
            if !matches!(value.kind, ValueKind::Str { .. } | ValueKind::List(_)) =>
        {
            let text = plain_text(value, statement, diags)?;
            if !known_id(&text, cx) {
                diags.push(recode(unknown_id(&text, value.span), place));
                return None;
            }
            Operand::Typed(FieldValue::Text(text))
        }
        ArgumentPath::Typed(ty) => {
            let mut found = Vec::new();
            let at = Place::Call { tool, block };
            let operand = value_operand(&ty, op, value, path, cx, at, &mut found);
            diags.extend(found.into_iter().map(|d| recode(d, place)));
            operand?
        }
        ArgumentPath::Collection => {
            let text = plain_text(value, statement, diags)?;
            let mut found = Vec::new();
            let known =
                known_collection(&Name::new(text.as_str(), value.span), cx.schema, &mut found);
            diags.extend(found.into_iter().map(|d| recode(d, place)));
            known?;
            Operand::Plain(text)
        }
        ArgumentPath::Id => {
            let text = plain_text(value, statement, diags)?;
            if !known_id(&text, cx) {
                diags.push(recode(unknown_id(&text, value.span), place));
                return None;
            }
            Operand::Plain(text)
        }
    };
    if let (Op::Matches, Operand::Plain(text)) = (op, &operand) {
        if let Err(why) = pattern(text) {
            diags.push(recode(bad_pattern(value.span, &why), place));
            return None;
        }
    }
    Some(Condition::Test {
        path: path.to_string(),
        op,
        value: operand,
    })
}

/// The type of a path of a call that a computed value reads (an argument, then its
/// members, fields or references); ids and collection names are text. Its diagnostics
/// are the caller's to recode for its place.
pub fn call_path_type(
    path: &str,
    span: Span,
    tool: &Tool,
    block: &[Statement],
    cx: &FilterCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<FieldType> {
    let place = FilterPlace::Expectation;
    match call_argument_path(path, span, tool, block, cx, place, diags)? {
        ArgumentPath::Typed(ty) => Some(ty),
        ArgumentPath::Collection | ArgumentPath::Id => Some(FieldType::Text),
    }
}

/// What a dotted path of a call names: its first part an argument of `tool`, the rest
/// as [`argument_path`] follows it.
fn call_argument_path(
    path: &str,
    span: Span,
    tool: &Tool,
    block: &[Statement],
    cx: &FilterCx,
    place: FilterPlace,
    diags: &mut Vec<Diagnostic>,
) -> Option<ArgumentPath> {
    let mut segments = path.split('.');
    let first = segments.next().unwrap_or_default();
    let rest: Vec<&str> = segments.collect();
    let Some(argument) = tool.argument(first) else {
        diags.push(recode(unknown_argument(tool, first, span), place));
        return None;
    };
    argument_path(argument, &rest, block, cx, span, place, diags)
}

/// What `argument.rest…` names: into an object's members, a `fields` argument's
/// record (typed by the collection another condition of the block names), a
/// reference's record or a datetime's date and time.
fn argument_path(
    argument: &Argument,
    rest: &[&str],
    block: &[Statement],
    cx: &FilterCx,
    span: Span,
    place: FilterPlace,
    diags: &mut Vec<Diagnostic>,
) -> Option<ArgumentPath> {
    let name = argument.name.as_str();
    match (&argument.ty, rest) {
        (ArgType::Collection, []) => Some(ArgumentPath::Collection),
        (ArgType::Id, []) => Some(ArgumentPath::Id),
        (ArgType::Field(ty), rest) => {
            follow_type(ty.clone(), rest, span, name, cx.schema, diags).map(ArgumentPath::Typed)
        }
        (ArgType::Object(members), [member, rest @ ..]) => {
            let Some(member) = members.iter().find(|m| m.name.as_str() == *member) else {
                let known = members.iter().map(|m| m.name.as_str());
                let d = Diagnostic::new(
                    codes::UNKNOWN_ARGUMENT,
                    format!("`{name}` has no member `{member}`"),
                )
                .primary(span, "not a member of this object argument");
                diags.push(recode(
                    match suggest(member, known) {
                        Some(near) => d.help(format!("did you mean `{name}.{near}`?")),
                        None => d.help(format!(
                            "`{name}` has: {}",
                            members
                                .iter()
                                .map(|m| m.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )),
                    },
                    place,
                ));
                return None;
            };
            argument_path(member, rest, block, cx, span, place, diags)
        }
        (ArgType::Fields(of), [field, rest @ ..]) => {
            let Some(collection) = named_collection(block, of, cx) else {
                diags.push(
                    Diagnostic::new(
                        codes::BAD_ARGUMENTS,
                        format!("`{name}.{field}` needs the collection it belongs to"),
                    )
                    .primary(
                        span,
                        format!("no `{of}` condition in this block types this field"),
                    )
                    .help(format!("add `{of} NAME` to the same block")),
                );
                return None;
            };
            let mut path = vec![*field];
            path.extend(rest);
            path_type(&path.join("."), span, collection, cx.schema, diags).map(ArgumentPath::Typed)
        }
        (ty, _) => {
            let shape = match ty {
                ArgType::Object(_) | ArgType::Fields(_) => {
                    "compare one of its members: `ARG.MEMBER`"
                }
                _ => "a name is compared whole",
            };
            diags.push(
                Diagnostic::new(
                    codes::UNKNOWN_RECORD_FIELD,
                    format!("`{name}` ({}) cannot be compared so", ty.describe()),
                )
                .primary(span, shape)
                .help(format!("see the tool's declaration of `{name}`")),
            );
            None
        }
    }
}

/// The collection that a condition `of NAME` of the same block names.
fn named_collection<'a>(
    block: &[Statement],
    of: &str,
    cx: &FilterCx<'a>,
) -> Option<&'a Collection> {
    let statement = block.iter().find(|s| s.name() == of)?;
    let [value] = statement.values.as_slice() else {
        return None;
    };
    let name = value.as_ident().or(value.as_str())?;
    // An unknown name is reported by the condition that names it.
    known_collection(&Name::new(name, value.span), cx.schema, &mut Vec::new())
}

fn unknown_argument(tool: &Tool, argument: &str, span: Span) -> Diagnostic {
    let d = Diagnostic::new(
        codes::UNKNOWN_ARGUMENT,
        format!("{} takes no argument `{argument}`", tool.name.as_str()),
    )
    .primary(span, "not an argument of its declaration");
    let names = tool.arguments.iter().map(|a| a.name.as_str());
    match suggest(argument, names.clone()) {
        Some(near) => d.help(format!("did you mean `{near}`?")),
        None => d.help(format!(
            "{} takes: {}",
            tool.name.as_str(),
            names.collect::<Vec<_>>().join(", ")
        )),
    }
}

fn plain_text(value: &Value, statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<String> {
    match &value.kind {
        ValueKind::Str { text, .. } | ValueKind::Ident(text) | ValueKind::Number(text) => {
            Some(text.to_string())
        }
        ValueKind::List(_) => {
            diags.push(
                Diagnostic::new(
                    codes::BAD_ARGUMENTS,
                    format!("`{}` compares one value", statement.name()),
                )
                .primary(value.span, "a list is not a name")
                .help("write one name or id"),
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
    let Some(ids) = cx.ids else {
        // A tool's own declaration knows no case's world: any id may come.
        return true;
    };
    !is_id_shaped || ids.contains_key(text) || cx.requests.iter().any(|r| r.as_str() == text)
}

pub fn unknown_id(id: &str, span: Span) -> Diagnostic {
    Diagnostic::new(
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
fn recode(d: Diagnostic, place: FilterPlace) -> Diagnostic {
    match place {
        FilterPlace::Expectation | FilterPlace::Behavior => d,
        FilterPlace::Override => Diagnostic {
            code: codes::OVERRIDE_MATCHES_NOTHING,
            message: format!("this override matches nothing: {}", d.message),
            ..d
        },
    }
}
