//! `service NAME { PARAMETER name… }`: binding a tool to a built-in service.
//!
//! [`SERVICES`] is the registry: every service with its parameters and what each must
//! name (an argument of the tool of a fitting type, a collection of the world schema, a
//! field of one of those collections, an enum value of such a field). The reader checks
//! each name against the tool and the schema, so a binding that reads clean can run:
//! the runtime trusts it. The services' behaviour is documented in docs/tools.md.

use strum::VariantArray;

use crate::diag::{codes, suggest, Diagnostic};
use crate::model::tool::{
    ArgType, Booking, BookingOp, Bound, BoundService, CommandLimits, Commands, Fault, FileOp,
    Files, Get, Http, Search, Service, Tool, Tracker, TrackerOp, Write, WriteOp, DEFAULT_IMAGE,
};
use crate::model::world::{Collection, FieldType, WorldSchema};
use crate::model::Name;
use crate::syntax::ast::Statement;

use super::super::keys::{self, body, first, KeySpec};
use super::super::values;
use super::ToolCx;

/// A built-in service: its name, what it does and its parameters.
pub struct ServiceSpec {
    pub name: &'static str,
    pub doc: &'static str,
    pub params: &'static [KeySpec<'static>],
    /// Whether the service works over collections of a world schema.
    pub needs_schema: bool,
    read: fn(&mut Binder) -> Option<Service>,
}

/// Every built-in service.
pub const SERVICES: &[ServiceSpec] = &[
    ServiceSpec {
        name: "clock",
        doc: "The case clock: `current_time` (RFC 3339) and `timezone`, never the real date.",
        params: &[],
        needs_schema: false,
        read: |_| Some(Service::Clock),
    },
    ServiceSpec {
        name: "records.search",
        doc: "Records whose text matches a free-text query, in one collection or all.",
        params: &[
            KeySpec::optional("collection_argument", "The argument naming the collection (absent: every collection)."),
            KeySpec::optional("query_argument", "The argument holding the query (absent or empty: every record)."),
        ],
        needs_schema: true,
        read: |b| {
            Some(Service::Search(Search {
                collection: b.argument("collection_argument", collection_argument)?,
                query: b.argument("query_argument", text_argument)?,
            }))
        },
    },
    ServiceSpec {
        name: "records.get",
        doc: "One record by its id, or by the request id a write was made under.",
        params: &[
            KeySpec::optional("collection_argument", "The argument naming the collection the record must be in."),
            KeySpec::required("id_argument", "The argument holding the record id or request id."),
        ],
        needs_schema: true,
        read: |b| {
            Some(Service::Get(Get {
                collection: b.argument("collection_argument", collection_argument)?,
                id: b.required_argument("id_argument", id_argument)?,
            }))
        },
    },
    ServiceSpec {
        name: "records.write",
        doc: "Create, update, delete or skip an occurrence of a record, with typed fields and audit history.",
        params: &[
            KeySpec::required("collection_argument", "The argument naming the collection."),
            KeySpec::required("operation_argument", "The enum argument whose values name the operations: create, update, delete, skip_occurrence."),
            KeySpec::optional("record_argument", "The argument holding the id of the record to change."),
            KeySpec::required("fields_argument", "The argument holding the record's fields (type `fields COLLECTION_ARGUMENT`)."),
            KeySpec::optional("request_argument", "The argument holding a request id: a repeated one writes nothing."),
        ],
        needs_schema: true,
        read: |b| {
            let collection = b.required_argument("collection_argument", collection_argument)?;
            let operation = b.operation("operation_argument", &words::<WriteOp>())?;
            let record = b.argument("record_argument", id_argument)?;
            let fields = b.required_argument("fields_argument", |ty| matches!(ty, ArgType::Fields(_)))?;
            let request = b.argument("request_argument", text_argument)?;
            b.fields_follow(&fields, &collection)?;
            Some(Service::Write(Write {
                collection,
                operation,
                record,
                fields,
                request,
            }))
        },
    },
    ServiceSpec {
        name: "booking",
        doc: "Book explicitly offered slots, reschedule atomically, cancel, look bookings up.",
        params: &[
            KeySpec::required("slots_collection", "The collection of offered slots."),
            KeySpec::required("bookings_collection", "The collection of confirmed bookings."),
            KeySpec::required("operation_argument", "The enum argument whose values name the operations: create, reschedule, cancel, lookup."),
            KeySpec::required("target_argument", "The argument naming a booking (reschedule, cancel, lookup) or a provider."),
            KeySpec::required("slot_argument", "The argument naming the slot: its id, or a time equal to its start."),
            KeySpec::optional("request_argument", "The argument holding a request id."),
            KeySpec::required("slot_field", "The bookings' reference to their slot."),
            KeySpec::required("provider_field", "The provider reference of slots and bookings."),
            KeySpec::required("start_field", "The slots' start datetime."),
            KeySpec::required("status_field", "The bookings' status enum."),
            KeySpec::required("confirmed_value", "The status value of a confirmed booking."),
            KeySpec::required("cancelled_value", "The status value of a cancelled booking."),
            KeySpec::optional("copied_fields", "Fields a new booking takes from its slot."),
        ],
        needs_schema: true,
        read: read_booking,
    },
    ServiceSpec {
        name: "device_tracker",
        doc: "Locate or ring an item tracker the world supplies; offline trackers report their last sighting.",
        params: &[
            KeySpec::required("trackers_collection", "The collection of trackers."),
            KeySpec::required("operation_argument", "The enum argument whose values name the operations: locate, ring."),
            KeySpec::required("id_argument", "The argument naming the tracker."),
            KeySpec::required("status_field", "The trackers' status enum."),
            KeySpec::required("offline_value", "The status value of an offline tracker."),
            KeySpec::optional("supports_field", "A list of the operations a tracker supports."),
            KeySpec::optional("reported_fields", "Fields a locate (or an offline answer) reports."),
        ],
        needs_schema: true,
        read: read_tracker,
    },
    ServiceSpec {
        name: "files.read",
        doc: "The content of the file at a path.",
        params: FILE_PARAMS,
        needs_schema: true,
        read: |b| read_files(b, FileOp::Read),
    },
    ServiceSpec {
        name: "files.write",
        doc: "Write a file at a path: create it, or overwrite it keeping its history.",
        params: FILE_PARAMS,
        needs_schema: true,
        read: |b| read_files(b, FileOp::Write),
    },
    ServiceSpec {
        name: "files.list",
        doc: "The paths of the files under a folder, sorted.",
        params: FILE_PARAMS,
        needs_schema: true,
        read: |b| read_files(b, FileOp::List),
    },
    ServiceSpec {
        name: "commands.run",
        doc: "Run a shell command in the case's workspace: a real folder seeded with the file store's files, isolated; the files it leaves become the store's, and its programs reach the world's endpoints over HTTP.",
        params: &[
            KeySpec::required("command_argument", "The argument holding the shell command line (run by `/bin/sh -c`)."),
            KeySpec::optional("directory_argument", "The argument holding the working directory (absent or empty: `/`)."),
            KeySpec::optional("timeout_seconds", "How long a command may run before it is killed (default 60, at most 3600)."),
            KeySpec::optional("memory_mib", "The address space a command's processes may use, in MiB (default 2048)."),
            KeySpec::optional("output_kib", "How much of each of stdout and stderr the result keeps, in KiB (default 64)."),
            KeySpec::optional("image", "The container image a containerised sandbox (Inspect's docker or Kubernetes) runs commands in (default \"python:3.12-slim\"): glibc-based, with what the tasks' commands need."),
        ],
        needs_schema: true,
        read: read_commands,
    },
    ServiceSpec {
        name: "http",
        doc: "HTTP requests answered from the world's endpoint records; an unknown URL answers 404.",
        params: &[
            KeySpec::required("endpoints_collection", "The collection of endpoints."),
            KeySpec::required("url_field", "The endpoints' URL."),
            KeySpec::optional("method_field", "The endpoints' method (absent: any method)."),
            KeySpec::required("status_field", "The endpoints' status code (a number)."),
            KeySpec::required("body_field", "The endpoints' response body."),
            KeySpec::required("url_argument", "The argument holding the URL."),
            KeySpec::optional("method_argument", "The argument holding the method (absent: GET)."),
            KeySpec::optional("failures_field", "The endpoints' count of first requests that fail (a number; absent: none fails)."),
            KeySpec::optional("fault_field", "How an endpoint's failing requests fail: an enum of `reset`, `timeout`, `status` (absent: reset)."),
            KeySpec::optional("failure_status_field", "The status a `status` fault answers (a number; absent: 503)."),
            KeySpec::optional("latency_field", "Milliseconds an endpoint waits before each answer (a number)."),
        ],
        needs_schema: true,
        read: read_http,
    },
];

const FILE_PARAMS: &[KeySpec<'static>] = &[
    KeySpec::required("files_collection", "The collection of files."),
    KeySpec::required(
        "path_field",
        "The files' path (text): the key of the store.",
    ),
    KeySpec::required("content_field", "The files' content (`bytes`, or `text`)."),
    KeySpec::optional(
        "path_argument",
        "The argument holding the path (read, write) or the folder (list).",
    ),
    KeySpec::optional(
        "content_argument",
        "The argument holding the content to write.",
    ),
];

fn read_booking(b: &mut Binder) -> Option<Service> {
    let slots = b.collection("slots_collection")?;
    let bookings = b.collection("bookings_collection")?;
    let operation = b.operation("operation_argument", &words::<BookingOp>())?;
    let target = b.required_argument("target_argument", id_argument)?;
    let slot = b.required_argument("slot_argument", |ty| {
        id_argument(ty) || datetime_argument(ty)
    })?;
    let request = b.argument("request_argument", text_argument)?;
    let slot_field = b.field("slot_field", bookings, |ty| refers_to(ty, slots))?;
    let provider_field = b.field("provider_field", slots, |ty| {
        matches!(ty, FieldType::Ref(_))
    })?;
    b.same_field(&provider_field, "provider_field", slots, bookings)?;
    let start_field = b.field("start_field", slots, |ty| *ty == FieldType::DateTime)?;
    let status_field = b.field("status_field", bookings, |ty| {
        matches!(ty, FieldType::Enum(_))
    })?;
    let confirmed = b.enum_value("confirmed_value", bookings, &status_field)?;
    let cancelled = b.enum_value("cancelled_value", bookings, &status_field)?;
    let copy = b.fields_in_both("copied_fields", slots, bookings)?;
    Some(Service::Booking(Booking {
        slots: slots.name.clone(),
        bookings: bookings.name.clone(),
        operation,
        target,
        slot,
        request,
        slot_field,
        provider_field,
        start_field,
        status_field,
        confirmed,
        cancelled,
        copy,
    }))
}

fn read_tracker(b: &mut Binder) -> Option<Service> {
    let trackers = b.collection("trackers_collection")?;
    let operation = b.operation("operation_argument", &words::<TrackerOp>())?;
    let id = b.required_argument("id_argument", id_argument)?;
    let status_field = b.field("status_field", trackers, |ty| {
        matches!(ty, FieldType::Enum(_))
    })?;
    let offline = b.enum_value("offline_value", trackers, &status_field)?;
    let supports_field = match b.has("supports_field") {
        true => Some(b.field(
            "supports_field",
            trackers,
            |ty| matches!(ty, FieldType::List(item) if matches!(**item, FieldType::Enum(_))),
        )?),
        false => None,
    };
    let report = b.fields_of("reported_fields", trackers)?;
    Some(Service::Tracker(Tracker {
        trackers: trackers.name.clone(),
        operation,
        id,
        status_field,
        offline,
        supports_field,
        report,
    }))
}

fn read_files(b: &mut Binder, op: FileOp) -> Option<Service> {
    let files = b.collection("files_collection")?;
    let path_field = b.field("path_field", files, |ty| *ty == FieldType::Text)?;
    let content_field = b.field("content_field", files, |ty| {
        matches!(ty, FieldType::Bytes | FieldType::Text)
    })?;
    let path = match op {
        FileOp::List => b.argument("path_argument", text_argument)?,
        FileOp::Read | FileOp::Write => Some(b.required_argument("path_argument", text_argument)?),
    };
    let content = match op {
        FileOp::Write => Some(b.required_argument("content_argument", text_argument)?),
        FileOp::Read | FileOp::List => b.unused("content_argument")?,
    };
    Some(Service::Files(Files {
        op,
        files: files.name.clone(),
        path_field,
        content_field,
        path,
        content,
    }))
}

fn read_commands(b: &mut Binder) -> Option<Service> {
    let defaults = CommandLimits::default();
    Some(Service::Commands(Commands {
        command: b.required_argument("command_argument", text_argument)?,
        directory: b.argument("directory_argument", text_argument)?,
        limits: CommandLimits {
            timeout_seconds: b.limit("timeout_seconds", defaults.timeout_seconds, 1..=3600)?,
            memory_mib: b.limit("memory_mib", defaults.memory_mib, 64..=1 << 20)?,
            output_kib: b.limit("output_kib", defaults.output_kib, 1..=1 << 16)?,
        },
        image: b
            .text("image")?
            .map_or_else(|| DEFAULT_IMAGE.to_string(), |t| t.as_str().to_string()),
    }))
}

fn read_http(b: &mut Binder) -> Option<Service> {
    let endpoints = b.collection("endpoints_collection")?;
    let url_field = b.field("url_field", endpoints, |ty| *ty == FieldType::Text)?;
    let method_field = match b.has("method_field") {
        true => Some(b.field("method_field", endpoints, |ty| {
            matches!(ty, FieldType::Text | FieldType::Enum(_))
        })?),
        false => None,
    };
    let status_field = b.field("status_field", endpoints, |ty| {
        matches!(ty, FieldType::Number | FieldType::Integer)
    })?;
    let body_field = b.field("body_field", endpoints, |ty| *ty == FieldType::Text)?;
    Some(Service::Http(Http {
        endpoints: endpoints.name.clone(),
        url_field,
        method_field,
        status_field,
        body_field,
        url: b.required_argument("url_argument", text_argument)?,
        method: b.argument("method_argument", |ty| {
            text_argument(ty) || matches!(ty, ArgType::Field(FieldType::Enum(_)))
        })?,
        failures_field: b.optional_field("failures_field", endpoints, number_field)?,
        fault_field: b.optional_field("fault_field", endpoints, |ty| {
            matches!(ty, FieldType::Enum(values) if values.iter().all(|v| words::<Fault>().contains(&v.as_str())))
        })?,
        failure_status_field: b.optional_field("failure_status_field", endpoints, number_field)?,
        latency_field: b.optional_field("latency_field", endpoints, number_field)?,
    }))
}

fn number_field(ty: &FieldType) -> bool {
    matches!(ty, FieldType::Number | FieldType::Integer)
}

/// The words of a service's operations, in order: the values its operation argument
/// may take.
fn words<Op: VariantArray + Copy + Into<&'static str>>() -> Vec<&'static str> {
    Op::VARIANTS.iter().map(|&op| op.into()).collect()
}

fn collection_argument(ty: &ArgType) -> bool {
    *ty == ArgType::Collection
}

fn text_argument(ty: &ArgType) -> bool {
    *ty == ArgType::Field(FieldType::Text)
}

/// Arguments that can hold a record id.
fn id_argument(ty: &ArgType) -> bool {
    matches!(
        ty,
        ArgType::Id | ArgType::Field(FieldType::Text | FieldType::Ref(_))
    )
}

fn datetime_argument(ty: &ArgType) -> bool {
    *ty == ArgType::Field(FieldType::DateTime)
}

fn refers_to(ty: &FieldType, target: &Collection) -> bool {
    matches!(ty, FieldType::Ref(targets) if targets.iter().any(|t| t == target.name.as_str()))
}

/// Reads `service NAME { … }` for `tool`.
pub fn read_service(
    statement: &Statement,
    tool: &Tool,
    cx: ToolCx,
    diags: &mut Vec<Diagnostic>,
) -> Option<BoundService> {
    let [value] = statement.values.as_slice() else {
        diags.push(
            Diagnostic::new(codes::BAD_ARGUMENTS, "`service` is not written as expected")
                .primary(statement.span, "expected one service name")
                .help(
                    "write it as `service NAME { PARAMETER VALUE; … }`, e.g. `service records.search { collection_argument collection; query_argument query }`",
                ),
        );
        return None;
    };
    let name = values::text_of(value);
    let Some(spec) = SERVICES.iter().find(|s| s.name == name.as_str()) else {
        let d = Diagnostic::new(
            codes::TOOL_DEFINITION,
            format!("unknown service `{}`", name.as_str()),
        )
        .primary(name.span, "not a built-in service");
        diags.push(
            match suggest(name.as_str(), SERVICES.iter().map(|s| s.name)) {
                Some(near) => d.help(format!("did you mean `{near}`?")),
                None => d.help(format!(
                    "services: {}; or declare effects (`read`, `create`, …) or an `adapter`",
                    SERVICES
                        .iter()
                        .map(|s| s.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            },
        );
        return None;
    };
    let statements = body(statement);
    let before = diags.len();
    keys::check_keys(
        statements,
        &[spec.params],
        &format!("service `{}`", spec.name),
        name.span,
        diags,
    );
    if diags.len() > before {
        return None;
    }
    let schema = match (spec.needs_schema, cx.schema) {
        (true, None) => {
            diags.push(
                Diagnostic::new(
                    codes::TOOL_DEFINITION,
                    format!("service `{}` works over a world schema", spec.name),
                )
                .primary(name.span, "no world schema to bind its collections to")
                .help("declare the tool in a world schema, or add `world_schema NAME` to the suite block"),
            );
            return None;
        }
        (_, schema) => schema,
    };
    let mut binder = Binder {
        tool,
        schema,
        statements,
        service: spec.name,
        diags,
        bound: Vec::new(),
    };
    let service = (spec.read)(&mut binder)?;
    let mut bound = binder.bound;
    let parameters = spec
        .params
        .iter()
        .map(|param| {
            let at = bound.iter().position(|(key, _)| *key == param.key);
            (
                param.key,
                at.map_or(Bound::Absent, |at| bound.swap_remove(at).1),
            )
        })
        .collect();
    Some(BoundService {
        name: spec.name,
        service,
        parameters,
    })
}

/// Reads the parameters of one service statement, reporting every name that does not
/// fit as a `tool_definition` error at the name, and keeping what each parameter read
/// was bound to.
struct Binder<'a, 'd> {
    tool: &'a Tool,
    schema: Option<&'a WorldSchema>,
    statements: &'a [Statement],
    service: &'static str,
    diags: &'d mut Vec<Diagnostic>,
    /// The parameters read so far, with what they are bound to.
    bound: Vec<(String, Bound)>,
}

impl<'a> Binder<'a, '_> {
    fn has(&self, param: &str) -> bool {
        first(self.statements, param).is_some()
    }

    /// The names a parameter is given (`None` when absent or not names).
    fn names(&mut self, param: &str) -> Option<Vec<Name>> {
        let statement = first(self.statements, param)?;
        let names = values::names(statement, self.diags)?;
        self.bound
            .push((param.to_string(), Bound::Names(names.clone())));
        Some(names)
    }

    fn one_name(&mut self, param: &str) -> Option<Name> {
        let statement = first(self.statements, param)?;
        let name = values::name(statement, self.diags)?;
        self.bound
            .push((param.to_string(), Bound::Name(name.clone())));
        Some(name)
    }

    fn error(&mut self, at: &Name, message: String, help: String) {
        self.diags.push(
            Diagnostic::new(codes::TOOL_DEFINITION, message)
                .primary(at.span, format!("in `service {}`", self.service))
                .help(help),
        );
    }

    /// An optional parameter naming an argument whose type `fits`: `Some(None)` when the
    /// parameter is absent, `None` after an error.
    fn argument(&mut self, param: &str, fits: fn(&ArgType) -> bool) -> Option<Option<Name>> {
        if !self.has(param) {
            return Some(None);
        }
        let name = self.one_name(param)?;
        let Some(argument) = self.tool.argument(name.as_str()) else {
            let known: Vec<&str> = self
                .tool
                .arguments
                .iter()
                .map(|a| a.name.as_str())
                .collect();
            let help = match suggest(name.as_str(), known.iter().copied()) {
                Some(near) => format!("did you mean `{near}`?"),
                None => format!("the tool's arguments: {}", list(&known)),
            };
            self.error(
                &name,
                format!(
                    "`{param}` names `{}`, which is not an argument of `{}`",
                    name.as_str(),
                    self.tool.name.as_str()
                ),
                help,
            );
            return None;
        };
        if !fits(&argument.ty) {
            let ty = argument.ty.describe();
            self.error(
                &name,
                format!(
                    "argument `{}` ({ty}) cannot be the service's `{param}`",
                    name.as_str()
                ),
                format!(
                    "see docs/tools.md for what `{param}` of `{}` takes",
                    self.service
                ),
            );
            return None;
        }
        Some(Some(name))
    }

    fn required_argument(&mut self, param: &str, fits: fn(&ArgType) -> bool) -> Option<Name> {
        self.argument(param, fits)?
    }

    /// A whole-number parameter within `range`: `default` when it is not written,
    /// `None` after an error.
    fn limit(
        &mut self,
        param: &str,
        default: u64,
        range: std::ops::RangeInclusive<u64>,
    ) -> Option<u64> {
        let Some(statement) = first(self.statements, param) else {
            return Some(default);
        };
        let number = values::number(statement, self.diags)?;
        let value = number.value.as_u64().filter(|n| range.contains(n));
        let Some(value) = value else {
            self.diags.push(
                Diagnostic::new(
                    codes::TOOL_DEFINITION,
                    format!(
                        "`{param}` must be a whole number from {} to {}",
                        range.start(),
                        range.end()
                    ),
                )
                .primary(statement.span, format!("in `service {}`", self.service))
                .help(format!(
                    "write `{param} {default}` (the default), or leave it out"
                )),
            );
            return None;
        };
        self.bound.push((param.to_string(), Bound::Number(value)));
        Some(value)
    }

    /// A text parameter (`image "…"`): `Some(None)` when it is not written, `None`
    /// after an error.
    fn text(&mut self, param: &str) -> Option<Option<crate::model::Text>> {
        let Some(statement) = first(self.statements, param) else {
            return Some(None);
        };
        let text = values::text(statement, self.diags)?;
        self.bound
            .push((param.to_string(), Bound::Text(text.clone())));
        Some(Some(text))
    }

    /// A parameter this operation of the service does not use.
    fn unused(&mut self, param: &str) -> Option<Option<Name>> {
        if let Some(name) = self.one_name(param) {
            self.error(
                &name,
                format!("`service {}` takes no `{param}`", self.service),
                format!("remove `{param}`"),
            );
            return None;
        }
        Some(None)
    }

    /// The enum argument whose values name the service's operations.
    fn operation(&mut self, param: &str, operations: &[&str]) -> Option<Name> {
        let name =
            self.required_argument(param, |ty| matches!(ty, ArgType::Field(FieldType::Enum(_))))?;
        let Some(ArgType::Field(FieldType::Enum(values))) =
            self.tool.argument(name.as_str()).map(|a| a.ty.clone())
        else {
            return None;
        };
        let unknown: Vec<&str> = values
            .iter()
            .map(String::as_str)
            .filter(|v| !operations.contains(v))
            .collect();
        if !unknown.is_empty() {
            self.error(
                &name,
                format!(
                    "`{}` takes {}, which `service {}` cannot do",
                    name.as_str(),
                    list(&unknown),
                    self.service
                ),
                format!("its operations are: {}", list(operations)),
            );
            return None;
        }
        Some(name)
    }

    /// The collection a parameter names.
    fn collection(&mut self, param: &str) -> Option<&'a Collection> {
        let name = self.one_name(param)?;
        known_collection(&name, self.schema, self.diags)
    }

    /// A field for an optional parameter: `Some(None)` when it is not written.
    fn optional_field(
        &mut self,
        param: &str,
        collection: &Collection,
        fits: impl Fn(&FieldType) -> bool,
    ) -> Option<Option<Name>> {
        match self.has(param) {
            true => self.field(param, collection, fits).map(Some),
            false => Some(None),
        }
    }

    /// A field of `collection` whose type `fits`.
    fn field(
        &mut self,
        param: &str,
        collection: &Collection,
        fits: impl Fn(&FieldType) -> bool,
    ) -> Option<Name> {
        let name = self.one_name(param)?;
        self.field_of(&name, param, collection, &fits)
    }

    fn field_of(
        &mut self,
        name: &Name,
        param: &str,
        collection: &Collection,
        fits: &dyn Fn(&FieldType) -> bool,
    ) -> Option<Name> {
        match collection.field(name.as_str()) {
            Some(spec) if fits(&spec.ty) => Some(name.clone()),
            Some(spec) => {
                let ty = spec.ty.describe();
                self.error(
                    name,
                    format!(
                        "field `{}` ({ty}) of {} cannot be the service's `{param}`",
                        name.as_str(),
                        collection.name.as_str()
                    ),
                    format!(
                        "see docs/tools.md for what `{param}` of `{}` takes",
                        self.service
                    ),
                );
                None
            }
            None => {
                let known: Vec<&str> = collection.fields.iter().map(|f| f.name.as_str()).collect();
                self.error(
                    name,
                    format!(
                        "{} has no field `{}`",
                        collection.name.as_str(),
                        name.as_str()
                    ),
                    match suggest(name.as_str(), known.iter().copied()) {
                        Some(near) => format!("did you mean `{near}`?"),
                        None => format!("{} has: {}", collection.name.as_str(), list(&known)),
                    },
                );
                None
            }
        }
    }

    /// Fields of `collection`, any type (absent: none).
    fn fields_of(&mut self, param: &str, collection: &Collection) -> Option<Vec<Name>> {
        let Some(names) = self.names(param) else {
            // Not written: bound to no fields.
            let absent = !self.has(param);
            if absent {
                self.bound
                    .push((param.to_string(), Bound::Names(Vec::new())));
            }
            return absent.then(Vec::new);
        };
        let before = self.diags.len();
        for name in &names {
            self.field_of(name, param, collection, &|_| true);
        }
        (self.diags.len() == before).then_some(names)
    }

    /// Fields that `a` and `b` both have, with the same type.
    fn fields_in_both(&mut self, param: &str, a: &Collection, b: &Collection) -> Option<Vec<Name>> {
        let names = self.fields_of(param, a)?;
        let before = self.diags.len();
        for name in &names {
            self.same_field(name, param, a, b);
        }
        (self.diags.len() == before).then_some(names)
    }

    /// `b` has field `name` with the type it has in `a`.
    fn same_field(
        &mut self,
        name: &Name,
        param: &str,
        a: &Collection,
        b: &Collection,
    ) -> Option<()> {
        let ty = a.field(name.as_str()).map(|f| f.ty.clone())?;
        self.field_of(name, param, b, &|t| *t == ty).map(|_| ())
    }

    /// A value of the enum field `field` of `collection`.
    fn enum_value(&mut self, param: &str, collection: &Collection, field: &Name) -> Option<String> {
        let value = self.one_name(param)?;
        let Some(FieldType::Enum(values)) = collection.field(field.as_str()).map(|f| &f.ty) else {
            return None;
        };
        if values.iter().any(|v| v == value.as_str()) {
            return Some(value.as_str().to_string());
        }
        let help = format!("`{}` takes: {}", field.as_str(), values.join(", "));
        self.error(
            &value,
            format!(
                "`{}` is not a value of {}'s `{}`",
                value.as_str(),
                collection.name.as_str(),
                field.as_str()
            ),
            help,
        );
        None
    }

    /// The `fields` argument's record type must be the collection argument the service
    /// writes to.
    fn fields_follow(&mut self, fields: &Name, collection: &Name) -> Option<()> {
        let Some(ArgType::Fields(of)) = self.tool.argument(fields.as_str()).map(|a| &a.ty) else {
            return None;
        };
        if of == collection.as_str() {
            return Some(());
        }
        self.error(
            fields,
            format!(
                "`{}` holds fields of `{of}`, but the service writes to `{}`",
                fields.as_str(),
                collection.as_str()
            ),
            format!(
                "declare it `argument {} fields {}`",
                fields.as_str(),
                collection.as_str()
            ),
        );
        None
    }
}

/// The collection `name` names in `schema`, or a diagnostic.
pub fn known_collection<'a>(
    name: &Name,
    schema: Option<&'a WorldSchema>,
    diags: &mut Vec<Diagnostic>,
) -> Option<&'a Collection> {
    let Some(schema) = schema else {
        diags.push(
            Diagnostic::new(
                codes::TOOL_DEFINITION,
                format!("no world schema holds `{}`", name.as_str()),
            )
            .primary(name.span, "a collection, but no world schema is in scope")
            .help(
                "declare the tool in a world schema, or add `world_schema NAME` to the suite block",
            ),
        );
        return None;
    };
    crate::resolve::world::records::known_collection(name, schema, diags)
}

fn list(items: &[&str]) -> String {
    if items.is_empty() {
        "none".to_string()
    } else {
        items.join(", ")
    }
}
