//! `service NAME { PARAMETER name… }`: binding a tool to a built-in service.
//!
//! [`SERVICES`] is the registry: every service with its parameters and what each must
//! name (an argument of the tool of a fitting type, a collection of the world schema, a
//! field of one of those collections, an enum value of such a field). The reader checks
//! each name against the tool and the schema, so a binding that reads clean can run:
//! the runtime trusts it. The services' behaviour is documented in docs/tools.md.
//!
//! A service's parameters are declared once, in its module, by `parameters!`: each is
//! a constant named by its word in the language, which the reader passes to the
//! [`Binder`] and which names the model's field that holds what it was bound to
//! (`booking`'s `slots_collection` is `Booking::slots_collection`).

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
    pub params: &'static [Param],
    /// Whether the service works over collections of a world schema.
    pub needs_schema: bool,
    read: fn(&mut Binder) -> Option<Service>,
}

/// A parameter of a service: its word in the language, whether it must be written, and
/// what it names. Each is declared once, by `parameters!`, as a constant named by its
/// word, which the service's reader reads and the model's field of the same name holds.
type Param = KeySpec<'static>;

/// Declares the parameters of one service: a constant per parameter, named by its word
/// (`slots_collection`), and `ALL`, every one in the order written (the order
/// `check_keys` lists them and the sandbox JSON writes them).
macro_rules! parameters {
    ($($word:ident: $presence:ident $doc:literal,)*) => {
        $(
            #[allow(non_upper_case_globals)]
            pub const $word: Param = Param::$presence(stringify!($word), $doc);
        )*
        pub const ALL: &[Param] = &[$($word),*];
    };
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
        params: search::ALL,
        needs_schema: true,
        read: search::read,
    },
    ServiceSpec {
        name: "records.get",
        doc: "One record by its id, or by the request id a write was made under.",
        params: get::ALL,
        needs_schema: true,
        read: get::read,
    },
    ServiceSpec {
        name: "records.write",
        doc: "Create, update, delete or skip an occurrence of a record, with typed fields and audit history.",
        params: write::ALL,
        needs_schema: true,
        read: write::read,
    },
    ServiceSpec {
        name: "booking",
        doc: "Book explicitly offered slots, reschedule atomically, cancel, look bookings up.",
        params: booking::ALL,
        needs_schema: true,
        read: booking::read,
    },
    ServiceSpec {
        name: "device_tracker",
        doc: "Locate or ring an item tracker the world supplies; offline trackers report their last sighting.",
        params: tracker::ALL,
        needs_schema: true,
        read: tracker::read,
    },
    ServiceSpec {
        name: "files.read",
        doc: "The content of the file at a path.",
        params: files::ALL,
        needs_schema: true,
        read: |b| files::read(b, FileOp::Read),
    },
    ServiceSpec {
        name: "files.write",
        doc: "Write a file at a path: create it, or overwrite it keeping its history.",
        params: files::ALL,
        needs_schema: true,
        read: |b| files::read(b, FileOp::Write),
    },
    ServiceSpec {
        name: "files.list",
        doc: "The paths of the files under a folder, sorted.",
        params: files::ALL,
        needs_schema: true,
        read: |b| files::read(b, FileOp::List),
    },
    ServiceSpec {
        name: "commands.run",
        doc: "Run a shell command in the case's workspace: a real folder seeded with the file store's files, isolated; the files it leaves become the store's, and its programs reach the world's endpoints over HTTP.",
        params: commands::ALL,
        needs_schema: true,
        read: commands::read,
    },
    ServiceSpec {
        name: "http",
        doc: "HTTP requests answered from the world's endpoint records; an unknown URL answers 404.",
        params: http::ALL,
        needs_schema: true,
        read: http::read,
    },
];

mod search {
    use super::*;

    parameters! {
        collection_argument: optional "The argument naming the collection (absent: every collection).",
        query_argument: optional "The argument holding the query (absent or empty: every record).",
    }

    pub fn read(b: &mut Binder) -> Option<Service> {
        Some(Service::Search(Search {
            collection_argument: b.argument(&collection_argument, is_collection)?,
            query_argument: b.argument(&query_argument, is_text)?,
        }))
    }
}

mod get {
    use super::*;

    parameters! {
        collection_argument: optional "The argument naming the collection the record must be in.",
        id_argument: required "The argument holding the record id or request id.",
    }

    pub fn read(b: &mut Binder) -> Option<Service> {
        Some(Service::Get(Get {
            collection_argument: b.argument(&collection_argument, is_collection)?,
            id_argument: b.required_argument(&id_argument, is_id)?,
        }))
    }
}

mod write {
    use super::*;

    parameters! {
        collection_argument: required "The argument naming the collection.",
        operation_argument: required "The enum argument whose values name the operations: create, update, delete, skip_occurrence.",
        record_argument: optional "The argument holding the id of the record to change.",
        fields_argument: required "The argument holding the record's fields (type `fields COLLECTION_ARGUMENT`).",
        request_argument: optional "The argument holding a request id: a repeated one writes nothing.",
    }

    pub fn read(b: &mut Binder) -> Option<Service> {
        let write = Write {
            collection_argument: b.required_argument(&collection_argument, is_collection)?,
            operation_argument: b.operation(&operation_argument, &words::<WriteOp>())?,
            record_argument: b.argument(&record_argument, is_id)?,
            fields_argument: b
                .required_argument(&fields_argument, |ty| matches!(ty, ArgType::Fields(_)))?,
            request_argument: b.argument(&request_argument, is_text)?,
        };
        b.fields_follow(&write.fields_argument, &write.collection_argument)?;
        Some(Service::Write(write))
    }
}

mod booking {
    use super::*;

    parameters! {
        slots_collection: required "The collection of offered slots.",
        bookings_collection: required "The collection of confirmed bookings.",
        operation_argument: required "The enum argument whose values name the operations: create, reschedule, cancel, lookup.",
        target_argument: required "The argument naming a booking (reschedule, cancel, lookup) or a provider.",
        slot_argument: required "The argument naming the slot: its id, or a time equal to its start.",
        request_argument: optional "The argument holding a request id.",
        slot_field: required "The bookings' reference to their slot.",
        provider_field: required "The provider reference of slots and bookings.",
        start_field: required "The slots' start datetime.",
        status_field: required "The bookings' status enum.",
        confirmed_value: required "The status value of a confirmed booking.",
        cancelled_value: required "The status value of a cancelled booking.",
        copied_fields: optional "Fields a new booking takes from its slot.",
    }

    pub fn read(b: &mut Binder) -> Option<Service> {
        let slots = b.collection(&slots_collection)?;
        let bookings = b.collection(&bookings_collection)?;
        let operation = b.operation(&operation_argument, &words::<BookingOp>())?;
        let target = b.required_argument(&target_argument, is_id)?;
        let slot = b.required_argument(&slot_argument, |ty| is_id(ty) || is_datetime(ty))?;
        let request = b.argument(&request_argument, is_text)?;
        let slot_reference = b.field(&slot_field, bookings, |ty| refers_to(ty, slots))?;
        let provider = b.field(&provider_field, slots, |ty| matches!(ty, FieldType::Ref(_)))?;
        b.same_field(&provider, &provider_field, slots, bookings)?;
        let start = b.field(&start_field, slots, |ty| *ty == FieldType::DateTime)?;
        let status = b.field(&status_field, bookings, |ty| {
            matches!(ty, FieldType::Enum(_))
        })?;
        Some(Service::Booking(Booking {
            slots_collection: slots.name.clone(),
            bookings_collection: bookings.name.clone(),
            operation_argument: operation,
            target_argument: target,
            slot_argument: slot,
            request_argument: request,
            slot_field: slot_reference,
            provider_field: provider,
            start_field: start,
            confirmed_value: b.enum_value(&confirmed_value, bookings, &status)?,
            cancelled_value: b.enum_value(&cancelled_value, bookings, &status)?,
            status_field: status,
            copied_fields: b.fields_in_both(&copied_fields, slots, bookings)?,
        }))
    }
}

mod tracker {
    use super::*;

    parameters! {
        trackers_collection: required "The collection of trackers.",
        operation_argument: required "The enum argument whose values name the operations: locate, ring.",
        id_argument: required "The argument naming the tracker.",
        status_field: required "The trackers' status enum.",
        offline_value: required "The status value of an offline tracker.",
        supports_field: optional "A list of the operations a tracker supports.",
        reported_fields: optional "Fields a locate (or an offline answer) reports.",
    }

    pub fn read(b: &mut Binder) -> Option<Service> {
        let trackers = b.collection(&trackers_collection)?;
        let operation = b.operation(&operation_argument, &words::<TrackerOp>())?;
        let id = b.required_argument(&id_argument, is_id)?;
        let status = b.field(&status_field, trackers, |ty| {
            matches!(ty, FieldType::Enum(_))
        })?;
        Some(Service::Tracker(Tracker {
            trackers_collection: trackers.name.clone(),
            operation_argument: operation,
            id_argument: id,
            offline_value: b.enum_value(&offline_value, trackers, &status)?,
            status_field: status,
            supports_field: b.optional_field(
                &supports_field,
                trackers,
                |ty| matches!(ty, FieldType::List(item) if matches!(**item, FieldType::Enum(_))),
            )?,
            reported_fields: b.fields_of(&reported_fields, trackers)?,
        }))
    }
}

mod files {
    use super::*;

    parameters! {
        files_collection: required "The collection of files.",
        path_field: required "The files' path (text): the key of the store.",
        content_field: required "The files' content (`bytes`, or `text`).",
        path_argument: optional "The argument holding the path (read, write) or the folder (list).",
        content_argument: optional "The argument holding the content to write.",
    }

    pub fn read(b: &mut Binder, op: FileOp) -> Option<Service> {
        let files = b.collection(&files_collection)?;
        let path = b.field(&path_field, files, |ty| *ty == FieldType::Text)?;
        let content = b.field(&content_field, files, |ty| {
            matches!(ty, FieldType::Bytes | FieldType::Text)
        })?;
        let path_given = match op {
            FileOp::List => b.argument(&path_argument, is_text)?,
            FileOp::Read | FileOp::Write => Some(b.required_argument(&path_argument, is_text)?),
        };
        let content_given = match op {
            FileOp::Write => Some(b.required_argument(&content_argument, is_text)?),
            FileOp::Read | FileOp::List => b.unused(&content_argument)?,
        };
        Some(Service::Files(Files {
            op,
            files_collection: files.name.clone(),
            path_field: path,
            content_field: content,
            path_argument: path_given,
            content_argument: content_given,
        }))
    }
}

mod commands {
    use super::*;

    parameters! {
        command_argument: required "The argument holding the shell command line (run by `/bin/sh -c`).",
        directory_argument: optional "The argument holding the working directory (absent or empty: `/`).",
        timeout_seconds: optional "How long a command may run before it is killed (default 60, at most 3600).",
        memory_mib: optional "The address space a command's processes may use, in MiB (default 2048).",
        output_kib: optional "How much of each of stdout and stderr the result keeps, in KiB (default 64).",
        image: optional "The container image a containerised sandbox (Inspect's docker or Kubernetes) runs commands in (default \"python:3.12-slim\"): glibc-based, with what the tasks' commands need.",
    }

    pub fn read(b: &mut Binder) -> Option<Service> {
        let defaults = CommandLimits::default();
        Some(Service::Commands(Commands {
            command_argument: b.required_argument(&command_argument, is_text)?,
            directory_argument: b.argument(&directory_argument, is_text)?,
            limits: CommandLimits {
                timeout_seconds: b.limit(&timeout_seconds, defaults.timeout_seconds, 1..=3600)?,
                memory_mib: b.limit(&memory_mib, defaults.memory_mib, 64..=1 << 20)?,
                output_kib: b.limit(&output_kib, defaults.output_kib, 1..=1 << 16)?,
            },
            image: b
                .text(&image)?
                .map_or_else(|| DEFAULT_IMAGE.to_string(), |t| t.as_str().to_string()),
        }))
    }
}

mod http {
    use super::*;

    parameters! {
        endpoints_collection: required "The collection of endpoints.",
        url_field: required "The endpoints' URL.",
        method_field: optional "The endpoints' method (absent: any method).",
        status_field: required "The endpoints' status code (a number).",
        body_field: required "The endpoints' response body.",
        url_argument: required "The argument holding the URL.",
        method_argument: optional "The argument holding the method (absent: GET).",
        failures_field: optional "The endpoints' count of first requests that fail (a number; absent: none fails).",
        fault_field: optional "How an endpoint's failing requests fail: an enum of `reset`, `timeout`, `status` (absent: reset).",
        failure_status_field: optional "The status a `status` fault answers (a number; absent: 503).",
        latency_field: optional "Milliseconds an endpoint waits before each answer (a number).",
    }

    pub fn read(b: &mut Binder) -> Option<Service> {
        let endpoints = b.collection(&endpoints_collection)?;
        Some(Service::Http(Http {
            endpoints_collection: endpoints.name.clone(),
            url_field: b.field(&url_field, endpoints, |ty| *ty == FieldType::Text)?,
            method_field: b.optional_field(&method_field, endpoints, |ty| {
                matches!(ty, FieldType::Text | FieldType::Enum(_))
            })?,
            status_field: b.field(&status_field, endpoints, is_number)?,
            body_field: b.field(&body_field, endpoints, |ty| *ty == FieldType::Text)?,
            url_argument: b.required_argument(&url_argument, is_text)?,
            method_argument: b.argument(&method_argument, |ty| {
                is_text(ty) || matches!(ty, ArgType::Field(FieldType::Enum(_)))
            })?,
            failures_field: b.optional_field(&failures_field, endpoints, is_number)?,
            fault_field: b.optional_field(&fault_field, endpoints, |ty| {
                matches!(ty, FieldType::Enum(values) if values.iter().all(|v| words::<Fault>().contains(&v.as_str())))
            })?,
            failure_status_field: b.optional_field(&failure_status_field, endpoints, is_number)?,
            latency_field: b.optional_field(&latency_field, endpoints, is_number)?,
        }))
    }
}

fn is_number(ty: &FieldType) -> bool {
    matches!(ty, FieldType::Number | FieldType::Integer)
}

/// The words of a service's operations, in order: the values its operation argument
/// may take.
fn words<Op: VariantArray + Copy + Into<&'static str>>() -> Vec<&'static str> {
    Op::VARIANTS.iter().map(|&op| op.into()).collect()
}

fn is_collection(ty: &ArgType) -> bool {
    *ty == ArgType::Collection
}

fn is_text(ty: &ArgType) -> bool {
    *ty == ArgType::Field(FieldType::Text)
}

/// Arguments that can hold a record id.
fn is_id(ty: &ArgType) -> bool {
    matches!(
        ty,
        ArgType::Id | ArgType::Field(FieldType::Text | FieldType::Ref(_))
    )
}

fn is_datetime(ty: &ArgType) -> bool {
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
    let name = values::name_of(value);
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
    fn has(&self, param: &Param) -> bool {
        first(self.statements, param.key).is_some()
    }

    /// The names a parameter is given (`None` when absent or not names).
    fn names(&mut self, param: &Param) -> Option<Vec<Name>> {
        let statement = first(self.statements, param.key)?;
        let names = values::names(statement, self.diags)?;
        self.bound
            .push((param.key.to_string(), Bound::Names(names.clone())));
        Some(names)
    }

    fn one_name(&mut self, param: &Param) -> Option<Name> {
        let statement = first(self.statements, param.key)?;
        let name = values::name(statement, self.diags)?;
        self.bound
            .push((param.key.to_string(), Bound::Name(name.clone())));
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
    fn argument(&mut self, param: &Param, fits: fn(&ArgType) -> bool) -> Option<Option<Name>> {
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

    fn required_argument(&mut self, param: &Param, fits: fn(&ArgType) -> bool) -> Option<Name> {
        self.argument(param, fits)?
    }

    /// A whole-number parameter within `range`: `default` when it is not written,
    /// `None` after an error.
    fn limit(
        &mut self,
        param: &Param,
        default: u64,
        range: std::ops::RangeInclusive<u64>,
    ) -> Option<u64> {
        let Some(statement) = first(self.statements, param.key) else {
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
        self.bound
            .push((param.key.to_string(), Bound::Number(value)));
        Some(value)
    }

    /// A text parameter (`image "…"`): `Some(None)` when it is not written, `None`
    /// after an error.
    fn text(&mut self, param: &Param) -> Option<Option<crate::model::Text>> {
        let Some(statement) = first(self.statements, param.key) else {
            return Some(None);
        };
        let text = values::text(statement, self.diags)?;
        self.bound
            .push((param.key.to_string(), Bound::Text(text.clone())));
        Some(Some(text))
    }

    /// A parameter this operation of the service does not use.
    fn unused(&mut self, param: &Param) -> Option<Option<Name>> {
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
    fn operation(&mut self, param: &Param, operations: &[&str]) -> Option<Name> {
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
    fn collection(&mut self, param: &Param) -> Option<&'a Collection> {
        let name = self.one_name(param)?;
        known_collection(&name, self.schema, self.diags)
    }

    /// A field for an optional parameter: `Some(None)` when it is not written.
    fn optional_field(
        &mut self,
        param: &Param,
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
        param: &Param,
        collection: &Collection,
        fits: impl Fn(&FieldType) -> bool,
    ) -> Option<Name> {
        let name = self.one_name(param)?;
        self.field_of(&name, param, collection, &fits)
    }

    fn field_of(
        &mut self,
        name: &Name,
        param: &Param,
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
    fn fields_of(&mut self, param: &Param, collection: &Collection) -> Option<Vec<Name>> {
        let Some(names) = self.names(param) else {
            // Not written: bound to no fields.
            let absent = !self.has(param);
            if absent {
                self.bound
                    .push((param.key.to_string(), Bound::Names(Vec::new())));
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
    fn fields_in_both(
        &mut self,
        param: &Param,
        a: &Collection,
        b: &Collection,
    ) -> Option<Vec<Name>> {
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
        param: &Param,
        a: &Collection,
        b: &Collection,
    ) -> Option<()> {
        let ty = a.field(name.as_str()).map(|f| f.ty.clone())?;
        self.field_of(name, param, b, &|t| *t == ty).map(|_| ())
    }

    /// A value of the enum field `field` of `collection`.
    fn enum_value(
        &mut self,
        param: &Param,
        collection: &Collection,
        field: &Name,
    ) -> Option<String> {
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
