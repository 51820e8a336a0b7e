//! Behaviour declared over the world, for tools no built-in service fits:
//!
//! ```case
//! tool subscriptions_cancel {
//!   behavior "Cancel one of the user's subscriptions."
//!   argument subscription ref subscriptions
//!   argument request_id text optional
//!   refuse NOT_ACTIVE "only an active subscription can be cancelled" {
//!     subscription.status not active
//!   }
//!   update subscriptions {
//!     record subscription
//!     set status cancelled
//!     reason "cancelled by the assistant"
//!   }
//!   idempotent request_id
//! }
//! ```
//!
//! Every name is checked: collections against the world schema, fields against their
//! collection, `from ARG` against the tool's arguments with a type that fits the field,
//! literal values against the field's type.

use crate::diag::{codes, suggest, Diagnostic};
use crate::model::expect::Op;
use crate::model::expr::Expr;
use crate::model::tool::{
    Answer, ArgType, Behavior, Create, Delete, Effect, Filter, Read, RecordRef, Refusal, Response,
    Set, SetValue, Tool, Update,
};
use crate::model::world::{id_letters, Collection, FieldType, WorldSchema};
use crate::model::Name;
use crate::source::Span;
use crate::syntax::ast::{Statement, ValueKind};

use super::super::keys::{self, all, body, first, KeySpec};
use super::super::values::{self, ValueType};
use super::super::world::filters::{self, FilterCx, FilterPlace};
use super::super::world::value::{self as typed, TypeCx};
use super::services::known_collection;
use super::ToolCx;

pub const READ_KEYS: &[KeySpec<'static>] = &[
    KeySpec::optional(
        "match",
        "`match ARG`: the argument holding a free-text query.",
    ),
    KeySpec::repeated(
        "where",
        "`where FIELD [OP] ARG`: a field compared with an argument, when given.",
    ),
    KeySpec::optional(
        "show",
        "`show FIELD…`: the fields a result shows (default: all).",
    ),
    KeySpec::optional(
        "order_by",
        "`order_by FIELD [descending]`: the records in this field's order (default: world order).",
    ),
    KeySpec::optional("limit", "`limit N`: at most the first N records."),
];

pub const WRITE_KEYS: &[KeySpec<'static>] = &[
    KeySpec::optional(
        "record",
        "`record ARG`: the argument naming the record to change (or `record ID`: that one record).",
    ),
    KeySpec::repeated(
        "set",
        "`set FIELD from ARG`, `set FIELD VALUE` or `set FIELD now`.",
    ),
    KeySpec::optional(
        "reason",
        "The reason written into the record's audit history.",
    ),
    KeySpec::optional(
        "show",
        "`show FIELD…`: the fields the result shows of the created or changed record (default: all).",
    ),
];

pub const RESPOND_KEYS: &[KeySpec<'static>] = &[
    KeySpec::optional(
        "when",
        "`when { argument value }`: the calls it answers (default: all).",
    ),
    KeySpec::optional(
        "after",
        "`after N`: only from the call after the Nth matching call on.",
    ),
    KeySpec::optional("data", "`data { key value }`: data merged into the result."),
    KeySpec::optional(
        "record",
        "`record COLLECTION { where FIELD ARG }`: the first matching record, as `record`.",
    ),
];

/// The declared behaviour of `tool`: its refusals, effects and responses.
pub fn read_behavior(
    statements: &[Statement],
    tool: &Tool,
    cx: ToolCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<Behavior> {
    let Some(schema) = cx.schema else {
        let at = statements.first().map_or(tool.name.span, |s| s.key.span);
        diags.push(
            Diagnostic::new(
                codes::TOOL_DEFINITION,
                format!(
                    "tool `{}` declares effects but no world schema is in scope",
                    tool.name.as_str()
                ),
            )
            .primary(at, "effects work over the collections of a world schema")
            .help(
                "declare the tool in a world schema, or add `world_schema NAME` to the suite block",
            ),
        );
        return None;
    };
    let before = diags.len();
    let filter_cx = FilterCx {
        schema,
        zone: None,
        ids: None,
        requests: &[],
    };
    let reader = Reader {
        tool,
        schema,
        filter_cx: &filter_cx,
    };
    let mut behavior = Behavior::default();
    for statement in statements {
        match statement.name() {
            "refuse" => behavior.refusals.extend(reader.refusal(statement, diags)),
            "read" => behavior
                .effects
                .extend(reader.read(statement, diags).map(Effect::Read)),
            "create" => behavior
                .effects
                .extend(reader.create(statement, diags).map(Effect::Create)),
            "update" => behavior
                .effects
                .extend(reader.update(statement, diags).map(Effect::Update)),
            "delete" => behavior
                .effects
                .extend(reader.delete(statement, diags).map(Effect::Delete)),
            "respond" => behavior.responses.extend(reader.response(statement, diags)),
            "idempotent" => behavior.idempotent = reader.idempotent(statement, diags),
            _ => {}
        }
    }
    (diags.len() == before).then_some(behavior)
}

struct Reader<'a> {
    tool: &'a Tool,
    schema: &'a WorldSchema,
    filter_cx: &'a FilterCx<'a>,
}

impl Reader<'_> {
    fn collection(
        &self,
        statement: &Statement,
        usage: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<&Collection> {
        let v = values::args_with_block(statement, &[ValueType::Ident], usage, diags)?;
        known_collection(&values::name_of(&v[0]), Some(self.schema), diags)
    }

    /// `refuse CODE "message" { condition… }`
    fn refusal(&self, statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Refusal> {
        let v = values::args_with_block(
            statement,
            &[ValueType::Ident, ValueType::Str],
            "refuse CODE \"message\" { condition … }",
            diags,
        )?;
        let conditions = filters::call_conditions(
            body(statement),
            self.tool,
            self.filter_cx,
            FilterPlace::Behavior,
            diags,
        );
        if conditions.is_empty() {
            // A block whose conditions were all refused (each reported) is not empty.
            if body(statement).is_empty() {
                diags.push(
                    Diagnostic::new(codes::TOOL_DEFINITION, "this refusal has no condition")
                        .primary(statement.key.span, "it would refuse every call")
                        .help("add the conditions under which the call is refused, e.g. `{ subscription.status not active }`"),
                );
            }
            return None;
        }
        Some(Refusal {
            code: values::name_of(&v[0]),
            message: values::text_of(&v[1]),
            conditions,
        })
    }

    /// `read COLLECTION { match ARG; where …; show … }`
    fn read(&self, statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Read> {
        let collection = self.collection(
            statement,
            "read COLLECTION { match ARG; where FIELD ARG }",
            diags,
        )?;
        let statements = body(statement);
        keys::check_keys(
            statements,
            &[READ_KEYS],
            "a read block",
            statement.key.span,
            diags,
        );
        let query = match first(statements, "match") {
            Some(s) => Some(self.argument_of(
                s,
                |ty| *ty == ArgType::Field(FieldType::Text),
                "text",
                diags,
            )?),
            None => None,
        };
        let filters = self.filters(statements, collection, diags)?;
        let show = self.show(statements, collection, diags)?;
        let order_by = match first(statements, "order_by") {
            Some(s) => Some(self.order_by(s, collection, diags)?),
            None => None,
        };
        let limit = match first(statements, "limit") {
            Some(s) => Some(limit(s, diags)?),
            None => None,
        };
        Some(Read {
            collection: collection.name.clone(),
            query,
            filters,
            show,
            order_by,
            limit,
        })
    }

    /// `order_by FIELD [descending]`: a field whose values have an order.
    fn order_by(
        &self,
        statement: &Statement,
        collection: &Collection,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<(Name, bool)> {
        let usage = "order_by FIELD [descending]";
        let words = values::names(statement, diags)?;
        let (field, descending) = match words.as_slice() {
            [field] => (field, false),
            [field, word] if word.as_str() == "descending" => (field, true),
            _ => {
                diags.push(
                    Diagnostic::new(
                        codes::BAD_ARGUMENTS,
                        "`order_by` is not written as expected",
                    )
                    .primary(
                        statement.span,
                        "expected a field and an optional `descending`",
                    )
                    .help(format!("write it as `{usage}`")),
                );
                return None;
            }
        };
        let spec = self.field(field, collection, diags)?;
        let ordered = matches!(
            spec.ty,
            FieldType::Text
                | FieldType::Date
                | FieldType::Time
                | FieldType::DateTime
                | FieldType::Duration
                | FieldType::Number
                | FieldType::Integer
        );
        if !ordered {
            diags.push(
                Diagnostic::new(
                    codes::TOOL_DEFINITION,
                    format!("`{}` has no order to sort by", field.as_str()),
                )
                .primary(
                    field.span,
                    format!("a field of type {}", spec.ty.describe()),
                )
                .help("order by a text, date, time, datetime, duration, number or integer field"),
            );
            return None;
        }
        Some((field.clone(), descending))
    }

    fn filters(
        &self,
        statements: &[Statement],
        collection: &Collection,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Vec<Filter>> {
        let before = diags.len();
        let filters: Vec<Filter> = all(statements, "where")
            .filter_map(|s| self.filter(s, collection, diags))
            .collect();
        (diags.len() == before).then_some(filters)
    }

    /// `where FIELD [OP] ARG`
    fn filter(
        &self,
        statement: &Statement,
        collection: &Collection,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Filter> {
        let usage = "where FIELD [OP] ARG";
        let words: Vec<Name> = statement
            .values
            .iter()
            .filter(|v| matches!(v.kind, ValueKind::Ident(_)))
            .map(values::name_of)
            .collect();
        let (field, op, argument) = match words.as_slice() {
            [field, argument] if statement.values.len() == 2 => (field, Op::Eq, argument),
            [field, op, argument] if statement.values.len() == 3 => {
                let Some(op) = Op::written(op.as_str()) else {
                    diags.push(bad(statement, usage));
                    return None;
                };
                (field, op, argument)
            }
            _ => {
                diags.push(bad(statement, usage));
                return None;
            }
        };
        // `where id ARG`: the record the argument names (a collection's own field
        // named `id` is that field).
        if field.as_str() == "id" && collection.field("id").is_none() {
            let arg = self.argument(argument, diags)?;
            let names_a_record = matches!(
                arg.ty,
                ArgType::Id | ArgType::Field(FieldType::Text | FieldType::Ref(_))
            );
            if !names_a_record || !matches!(op, Op::Eq | Op::Not) {
                diags.push(
                    Diagnostic::new(
                        codes::TOOL_DEFINITION,
                        format!("`where id` compares a record's id with `{}`", argument.as_str()),
                    )
                    .primary(statement.span, "an id is equal, or `not`, to an id, ref or text argument")
                    .help("write `where id ARG` (or `where id not ARG`) with ARG an `id`, `ref` or `text` argument"),
                );
                return None;
            }
            return Some(Filter {
                field: field.clone(),
                op,
                argument: argument.clone(),
            });
        }
        let spec = self.field(field, collection, diags)?;
        let arg = self.argument(argument, diags)?;
        if !fits(&arg.ty, &spec.ty, op) {
            diags.push(mismatch(argument, &arg.ty, field, &spec.ty));
            return None;
        }
        Some(Filter {
            field: field.clone(),
            op,
            argument: argument.clone(),
        })
    }

    /// `create COLLECTION { set … }`
    fn create(&self, statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Create> {
        let collection =
            self.collection(statement, "create COLLECTION { set FIELD from ARG }", diags)?;
        let statements = body(statement);
        keys::check_keys(
            statements,
            &[WRITE_KEYS],
            "a create block",
            statement.key.span,
            diags,
        );
        if let Some(record) = first(statements, "record") {
            diags.push(
                Diagnostic::new(codes::TOOL_DEFINITION, "a create names no record")
                    .primary(record.key.span, "the sandbox gives a created record its id")
                    .help("remove `record`; use `update` to change an existing record"),
            );
            return None;
        }
        let sets = self.sets(statements, collection, diags)?;
        let missing: Vec<&str> = collection
            .fields
            .iter()
            .filter(|f| f.required && !sets.iter().any(|s| s.field.as_str() == f.name.as_str()))
            .map(|f| f.name.as_str())
            .collect();
        if !missing.is_empty() {
            diags.push(
                Diagnostic::new(
                    codes::TOOL_DEFINITION,
                    format!(
                        "this create never sets {} of {}",
                        missing.join(", "),
                        collection.name.as_str()
                    ),
                )
                .primary(
                    statement.key.span,
                    "every created record needs its required fields",
                )
                .help(format!("add `set {} from ARG` (or a value)", missing[0])),
            );
            return None;
        }
        let show = self.show(statements, collection, diags)?;
        Some(Create {
            collection: collection.name.clone(),
            sets,
            show,
        })
    }

    /// `update COLLECTION { record ARG; set …; reason "…" }`
    fn update(&self, statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Update> {
        let collection = self.collection(
            statement,
            "update COLLECTION { record ARG; set FIELD … }",
            diags,
        )?;
        let statements = body(statement);
        keys::check_keys(
            statements,
            &[WRITE_KEYS],
            "an update block",
            statement.key.span,
            diags,
        );
        let record = self.record(statement, statements, collection, diags)?;
        let sets = self.sets(statements, collection, diags)?;
        let reason = first(statements, "reason").and_then(|s| values::text(s, diags));
        let show = self.show(statements, collection, diags)?;
        Some(Update {
            collection: collection.name.clone(),
            record,
            sets,
            reason,
            show,
        })
    }

    /// `show FIELD…` of a block, when written: `Some(None)` when it is not.
    fn show(
        &self,
        statements: &[Statement],
        collection: &Collection,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Option<Vec<Name>>> {
        match first(statements, "show") {
            Some(s) => Some(Some(self.fields(s, collection, diags)?)),
            None => Some(None),
        }
    }

    /// `delete COLLECTION { record ARG }`
    fn delete(&self, statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Delete> {
        let collection = self.collection(statement, "delete COLLECTION { record ARG }", diags)?;
        let statements = body(statement);
        keys::check_keys(
            statements,
            &[WRITE_KEYS],
            "a delete block",
            statement.key.span,
            diags,
        );
        if let Some(set) = first(statements, "set") {
            diags.push(
                Diagnostic::new(codes::TOOL_DEFINITION, "a delete sets nothing")
                    .primary(set.key.span, "the record is removed")
                    .help("remove `set`"),
            );
            return None;
        }
        if let Some(show) = first(statements, "show") {
            diags.push(
                Diagnostic::new(codes::TOOL_DEFINITION, "a delete shows no record")
                    .primary(
                        show.key.span,
                        "the result names the removed record's id only",
                    )
                    .help("remove `show`"),
            );
            return None;
        }
        Some(Delete {
            collection: collection.name.clone(),
            record: self.record(statement, statements, collection, diags)?,
        })
    }

    /// The `record ARG` of an update or delete: an argument that holds a record id, or
    /// the id of one record of the collection (`record A1`), which no argument is named.
    fn record(
        &self,
        owner: &Statement,
        statements: &[Statement],
        collection: &Collection,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<RecordRef> {
        let Some(record) = first(statements, "record") else {
            diags.push(
                Diagnostic::new(
                    codes::TOOL_DEFINITION,
                    format!("this {} names no record", owner.name()),
                )
                .primary(owner.key.span, "which record does the call change?")
                .help("add `record ARG`: the argument holding the record's id"),
            );
            return None;
        };
        let fixed = match record.values.as_slice() {
            [v] => v.as_ident().filter(|word| {
                self.tool.argument(word).is_none()
                    && id_letters(word) == Some(collection.id_prefix.as_str())
            }),
            _ => None,
        };
        if let (Some(_), [v]) = (fixed, record.values.as_slice()) {
            return Some(RecordRef::Fixed(values::name_of(v)));
        }
        self.argument_of(
            record,
            |ty| {
                matches!(
                    ty,
                    ArgType::Id | ArgType::Field(FieldType::Ref(_) | FieldType::Text)
                )
            },
            "a record id (`id`, `ref …` or `text`)",
            diags,
        )
        .map(RecordRef::Argument)
    }

    fn sets(
        &self,
        statements: &[Statement],
        collection: &Collection,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Vec<Set>> {
        let before = diags.len();
        let mut sets: Vec<Set> = Vec::new();
        for statement in all(statements, "set") {
            let Some(set) = self.set(statement, collection, diags) else {
                continue;
            };
            if let Some(earlier) = sets.iter().find(|s| s.field.as_str() == set.field.as_str()) {
                diags.push(crate::resolve::duplicate(
                    "set of field",
                    &set.field,
                    earlier.field.span,
                ));
                continue;
            }
            sets.push(set);
        }
        (diags.len() == before).then_some(sets)
    }

    /// `set FIELD from ARG`, `set FIELD now`, `set FIELD VALUE`.
    fn set(
        &self,
        statement: &Statement,
        collection: &Collection,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Set> {
        let usage = "set FIELD from ARG [unless_empty]` or `set FIELD VALUE";
        let (field, rest) = match statement.values.split_first() {
            Some((f, rest)) if f.as_ident().is_some() && statement.block.is_none() => {
                (values::name_of(f), rest)
            }
            _ => {
                diags.push(bad(statement, usage));
                return None;
            }
        };
        let spec = self.field(&field, collection, diags)?;
        let value = match rest {
            [from, argument, ..]
                if from.as_ident() == Some("from")
                    && argument.as_ident().is_some()
                    && matches!(&rest[2..], [] | [_])
                    && rest
                        .get(2)
                        .is_none_or(|w| w.as_ident() == Some("unless_empty")) =>
            {
                let name = values::name_of(argument);
                let arg = self.argument(&name, diags)?;
                if !fits(&arg.ty, &spec.ty, Op::Eq) {
                    diags.push(mismatch(&name, &arg.ty, &field, &spec.ty));
                    return None;
                }
                SetValue::Argument {
                    name,
                    unless_empty: rest.len() == 3,
                }
            }
            [now]
                if now.as_ident() == Some("now")
                    && matches!(spec.ty, FieldType::DateTime | FieldType::Date) =>
            {
                SetValue::Now
            }
            [value] => {
                let cx = TypeCx {
                    zone: None,
                    ids: None,
                };
                match typed::read(value, &spec.ty, &cx, field.as_str()) {
                    Ok(v) => SetValue::Value(v),
                    Err(d) => match value.as_str().and_then(filters::computable) {
                        Some(expr) => SetValue::Computed(
                            self.computed(expr, value.span, &field, &spec.ty, diags)?,
                        ),
                        None => {
                            diags.push(d);
                            return None;
                        }
                    },
                }
            }
            _ => {
                diags.push(bad(statement, usage));
                return None;
            }
        };
        Some(Set { field, value })
    }

    /// A computed value for a field of type `ty`: its paths are the call's, its type
    /// must be one the field holds.
    fn computed(
        &self,
        expr: Result<Expr, String>,
        span: Span,
        field: &Name,
        ty: &FieldType,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Expr> {
        let mut expr = match expr {
            Ok(expr) => expr,
            Err(why) => {
                diags.push(filters::bad_set_value(span, field.as_str(), ty, &why));
                return None;
            }
        };
        let place = filters::Place::Call {
            tool: self.tool,
            block: &[],
        };
        let misfit = |why: &str| filters::bad_set_value(span, field.as_str(), ty, why);
        let computed =
            filters::computed_type(&mut expr, place, self.filter_cx, span, &misfit, diags)?;
        let fits = computed == *ty || (*ty == FieldType::Number && computed == FieldType::Integer);
        if !fits {
            let why = format!(
                "`{}` is {}, and the field holds {}",
                expr.written(),
                computed.with_article(),
                ty.with_article()
            );
            diags.push(filters::bad_set_value(span, field.as_str(), ty, &why));
            return None;
        }
        Some(expr)
    }

    /// `respond { when { … }; after N; data { … } | record COLLECTION { where … } }`
    fn response(&self, statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Response> {
        let block = values::block_only(statement, diags)?;
        let statements = &block.statements;
        keys::check_keys(
            statements,
            &[RESPOND_KEYS],
            "a respond block",
            statement.key.span,
            diags,
        );
        let when = match first(statements, "when") {
            Some(s) => {
                let block = values::block_only(s, diags)?;
                filters::call_conditions(
                    &block.statements,
                    self.tool,
                    self.filter_cx,
                    FilterPlace::Behavior,
                    diags,
                )
            }
            None => Vec::new(),
        };
        let after = match first(statements, "after") {
            Some(s) => Some(values::number(s, diags)?.value.as_u64().unwrap_or(0)),
            None => None,
        };
        let answer = match (first(statements, "data"), first(statements, "record")) {
            (Some(data), None) => Answer::Data(values::data(data, diags)?.value),
            (None, Some(record)) => {
                let collection =
                    self.collection(record, "record COLLECTION { where FIELD ARG }", diags)?;
                Answer::Record {
                    collection: collection.name.clone(),
                    filters: self.filters(body(record), collection, diags)?,
                }
            }
            _ => {
                diags.push(
                    Diagnostic::new(
                        codes::TOOL_DEFINITION,
                        "a response answers with data or a record",
                    )
                    .primary(
                        statement.key.span,
                        "expected one of `data { … }` and `record COLLECTION { … }`",
                    )
                    .help("write `respond { when { … }; data { reply \"…\" } }`"),
                );
                return None;
            }
        };
        Some(Response {
            when,
            after,
            answer,
        })
    }

    /// `idempotent ARG`
    fn idempotent(&self, statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<Name> {
        self.argument_of(
            statement,
            |ty| matches!(ty, ArgType::Field(FieldType::Text) | ArgType::Id),
            "text",
            diags,
        )
    }

    /// The argument a one-name statement names, with a type that `fits`.
    fn argument_of(
        &self,
        statement: &Statement,
        fits: fn(&ArgType) -> bool,
        expected: &str,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Name> {
        let name = values::name(statement, diags)?;
        let arg = self.argument(&name, diags)?;
        if fits(&arg.ty) {
            return Some(name);
        }
        diags.push(
            Diagnostic::new(
                codes::TOOL_DEFINITION,
                format!(
                    "argument `{}` is {}, not {expected}",
                    name.as_str(),
                    arg.ty.describe()
                ),
            )
            .primary(
                name.span,
                format!("`{}` needs {expected}", statement.name()),
            )
            .help(format!("name an argument of type {expected}")),
        );
        None
    }

    fn argument(
        &self,
        name: &Name,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<&crate::model::tool::Argument> {
        let found = self.tool.argument(name.as_str());
        if found.is_none() {
            let known = self.tool.arguments.iter().map(|a| a.name.as_str());
            let d = Diagnostic::new(
                codes::UNKNOWN_ARGUMENT,
                format!(
                    "{} takes no argument `{}`",
                    self.tool.name.as_str(),
                    name.as_str()
                ),
            )
            .primary(name.span, "not an argument of this tool");
            diags.push(match suggest(name.as_str(), known) {
                Some(near) => d.help(format!("did you mean `{near}`?")),
                None => d.help(format!("declare it: `argument {} TYPE`", name.as_str())),
            });
        }
        found
    }

    fn field<'c>(
        &self,
        name: &Name,
        collection: &'c Collection,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<&'c crate::model::world::FieldSpec> {
        let found = collection.field(name.as_str());
        if found.is_none() {
            diags.push(crate::resolve::world::records::unknown_field(
                name, collection,
            ));
        }
        found
    }

    fn fields(
        &self,
        statement: &Statement,
        collection: &Collection,
        diags: &mut Vec<Diagnostic>,
    ) -> Option<Vec<Name>> {
        let names = values::names(statement, diags)?;
        let before = diags.len();
        for name in &names {
            self.field(name, collection, diags);
        }
        (diags.len() == before).then_some(names)
    }
}

/// `limit N`: a whole number of records, at least 1.
fn limit(statement: &Statement, diags: &mut Vec<Diagnostic>) -> Option<usize> {
    let number = values::number(statement, diags)?;
    match number.value.as_u64().and_then(|n| usize::try_from(n).ok()) {
        Some(n) if n >= 1 => Some(n),
        _ => {
            diags.push(
                Diagnostic::new(codes::BAD_ARGUMENTS, "`limit` is not a number of records")
                    .primary(statement.span, "expected a whole number, at least 1")
                    .help("write `limit 1` for the first record only"),
            );
            None
        }
    }
}

/// Whether an argument of type `arg` can stand for a value of the field type `field`
/// under `op`: the same type, or an id-holding argument for a reference.
fn fits(arg: &ArgType, field: &FieldType, op: Op) -> bool {
    let compared = match (op, field) {
        (Op::Contains | Op::Lacks, FieldType::List(item)) => item.as_ref(),
        (Op::Contains | Op::Lacks, FieldType::Text) => &FieldType::Text,
        (op, FieldType::Text) if op.text_only() => &FieldType::Text,
        (op, _) if op.text_only() => return false,
        _ => field,
    };
    match (arg, compared) {
        (ArgType::Field(a), f) if a == f => true,
        (ArgType::Field(FieldType::Ref(a)), FieldType::Ref(f)) => a.iter().all(|t| f.contains(t)),
        (ArgType::Id | ArgType::Field(FieldType::Text), FieldType::Ref(_)) => true,
        (ArgType::Field(FieldType::Text), FieldType::Enum(_)) => true,
        _ => false,
    }
}

fn mismatch(argument: &Name, arg: &ArgType, field: &Name, ty: &FieldType) -> Diagnostic {
    Diagnostic::new(
        codes::TOOL_DEFINITION,
        format!(
            "argument `{}` ({}) cannot give field `{}` ({})",
            argument.as_str(),
            arg.describe(),
            field.as_str(),
            ty.describe()
        ),
    )
    .primary(argument.span, "its type does not fit the field")
    .help(format!(
        "declare the argument with the field's type: `{}`",
        ty.describe()
    ))
}

fn bad(statement: &Statement, usage: &str) -> Diagnostic {
    Diagnostic::new(
        codes::BAD_ARGUMENTS,
        format!("`{}` is not written as expected", statement.name()),
    )
    .primary(statement.span, "not in the expected form")
    .help(format!("write it as `{usage}`"))
}
