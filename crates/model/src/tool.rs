//! Tools as data: a tool's typed arguments and what a call does in the sandbox.
//!
//! A tool is declared once (in a world schema or in a suite) and everything else comes
//! from that one declaration: the contract the model reads, the MCP `inputSchema`, the
//! validation of a call's arguments, the typing of conditions on its calls, and its
//! behaviour. The behaviour is a [`Binding`]: a built-in [`Service`] whose parameters name
//! the suite's own collections, fields and arguments; effects declared over the world
//! ([`Behavior`]); or an external command ([`Adapter`]). Readers are in
//! `resolve::tools`, the runtime in `runtime::tools`.

use std::time::Duration;

use strum::{EnumString, IntoStaticStr, VariantArray};

use crate::expect::Condition;
use crate::source::Span;
use crate::value::FieldValue;
use crate::world::FieldType;
use crate::{Name, Text};

#[derive(Clone, Debug)]
pub struct Tool {
    pub name: Name,
    /// The contract the model is told (`behavior "…"`).
    pub behavior: Text,
    pub arguments: Vec<Argument>,
    pub binding: Binding,
    /// The `tool` statement's header.
    pub span: Span,
}

impl Tool {
    /// The built-in service the tool is bound to, if it is bound to one.
    pub fn service(&self) -> Option<&Service> {
        match &self.binding {
            Binding::Service(bound) => Some(&bound.service),
            _ => None,
        }
    }

    /// The tool's `http` binding, if it has one.
    pub fn http(&self) -> Option<&Http> {
        match self.service()? {
            Service::Http(h) => Some(h),
            _ => None,
        }
    }

    /// The tool's `commands.run` binding, if it has one.
    pub fn commands(&self) -> Option<&Commands> {
        match self.service()? {
            Service::Commands(c) => Some(c),
            _ => None,
        }
    }

    pub fn argument(&self, name: &str) -> Option<&Argument> {
        self.arguments.iter().find(|a| a.name.as_str() == name)
    }

    /// The collections this tool changes through a binding of its own (not the generic
    /// record writer): a booking service's slots and bookings, a file store's files.
    pub fn managed_collections(&self) -> Vec<&str> {
        match &self.binding {
            Binding::Service(bound) => bound.service.managed_collections(),
            Binding::Declared(behavior) => behavior
                .effects
                .iter()
                .filter(|e| !matches!(e, Effect::Read(_)))
                .map(|e| e.collection().as_str())
                .collect(),
            Binding::Adapter(adapter) => adapter.writes.iter().map(|c| c.as_str()).collect(),
            Binding::None => Vec::new(),
        }
    }

    /// The collections a call of this tool can show or change: what its world must hold
    /// for the tool to have anything to work on.
    pub fn worked_collections(&self) -> Vec<&str> {
        match &self.binding {
            // A service shows and changes the same collections.
            Binding::Service(bound) => bound.service.managed_collections(),
            Binding::Declared(behavior) => behavior
                .effects
                .iter()
                .filter(|e| !matches!(e, Effect::Create(_)))
                .map(|e| e.collection().as_str())
                .collect(),
            Binding::Adapter(_) | Binding::None => Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Argument {
    pub name: Name,
    pub ty: ArgType,
    pub required: bool,
    pub doc: Option<Text>,
    /// `default VALUE` of an optional argument: what a call that leaves it out (or
    /// gives `null`) runs with, as JSON.
    pub default: Option<serde_json::Value>,
}

/// The type of a tool argument: a world field type, or one of the types only calls have.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgType {
    Field(FieldType),
    /// The name of a collection of the world schema.
    Collection,
    /// A record id of any collection, or a request id.
    Id,
    /// An object holding fields of a record of the collection that the argument named
    /// here gives (`fields collection`).
    Fields(String),
    /// An object with declared members.
    Object(Vec<Argument>),
}

impl ArgType {
    /// How the type is written in a declaration, e.g. `enum create update`.
    pub fn describe(&self) -> String {
        match self {
            ArgType::Field(ty) => ty.describe(),
            ArgType::Collection => "collection".into(),
            ArgType::Id => "id".into(),
            ArgType::Fields(of) => format!("fields {of}"),
            ArgType::Object(_) => "object".into(),
        }
    }
}

/// What a call of the tool does.
#[derive(Clone, Debug)]
pub enum Binding {
    /// Boxed: a booking's bindings are many names, and tools are kept by the dozen.
    Service(Box<BoundService>),
    Declared(Behavior),
    Adapter(Adapter),
    /// Prose only: nothing in the sandbox can run it (`tool_without_behavior`).
    None,
}

/// A tool bound to a built-in service: what the service does with the suite's names
/// ([`Service`], for the sandbox), and every parameter the service declares with what the
/// suite bound it to, in the service's order (for the outputs, which so need no list of
/// the parameters' names of their own).
#[derive(Clone, Debug)]
pub struct BoundService {
    /// The service's name in the language (`records.search`).
    pub name: &'static str,
    pub service: Service,
    pub parameters: Vec<(&'static str, Bound)>,
}

/// What a service's parameter is bound to.
#[derive(Clone, Debug)]
pub enum Bound {
    /// Not written (an optional parameter).
    Absent,
    /// One name: an argument, a collection, a field or an enum value.
    Name(Name),
    /// A list of names (fields), empty when not written.
    Names(Vec<Name>),
    /// A whole number (a limit).
    Number(u64),
    /// A text (an image).
    Text(Text),
}

/// The built-in services, each with the suite's names bound to its parameters. Every
/// name here (argument, collection, field, enum value) comes from the suite's
/// declaration; the meaning of each parameter is documented in docs/tools.md.
#[derive(Clone, Debug)]
pub enum Service {
    Clock,
    Search(Search),
    Get(Get),
    Write(Write),
    Booking(Booking),
    Tracker(Tracker),
    Files(Files),
    Http(Http),
    Commands(Commands),
}

/// The file store the tools' `files.*` services work on, when they agree on one:
/// `Some(Err(..))` names two that differ.
pub fn file_store(tools: &[Tool]) -> Option<Result<crate::expect::FileStore, (Name, Name)>> {
    let mut found: Option<(&Tool, crate::expect::FileStore)> = None;
    for tool in tools {
        let Binding::Service(bound) = &tool.binding else {
            continue;
        };
        let Service::Files(f) = &bound.service else {
            continue;
        };
        let store = crate::expect::FileStore {
            collection: f.files_collection.clone(),
            path_field: f.path_field.clone(),
            content_field: f.content_field.clone(),
        };
        // The same store written in several tools: names compare by their text.
        let same = |a: &crate::expect::FileStore, b: &crate::expect::FileStore| {
            a.collection.as_str() == b.collection.as_str()
                && a.path_field.as_str() == b.path_field.as_str()
                && a.content_field.as_str() == b.content_field.as_str()
        };
        match &found {
            None => found = Some((tool, store)),
            Some((first, known)) if !same(known, &store) => {
                return Some(Err((first.name.clone(), tool.name.clone())));
            }
            Some(_) => {}
        }
    }
    found.map(|(_, store)| Ok(store))
}

impl Service {
    /// The collections the service works on (it both shows and changes them).
    fn managed_collections(&self) -> Vec<&str> {
        match self {
            Service::Booking(b) => {
                vec![b.slots_collection.as_str(), b.bookings_collection.as_str()]
            }
            Service::Tracker(t) => vec![t.trackers_collection.as_str()],
            Service::Files(f) => vec![f.files_collection.as_str()],
            Service::Http(h) => vec![h.endpoints_collection.as_str()],
            Service::Commands(_)
            | Service::Clock
            | Service::Search(_)
            | Service::Get(_)
            | Service::Write(_) => Vec::new(),
        }
    }
}

/// `records.search`: records matching a free-text query, in one collection or all.
#[derive(Clone, Debug)]
pub struct Search {
    /// The argument naming the collection (absent: every collection).
    pub collection_argument: Option<Name>,
    /// The argument holding the query (absent or empty: every record).
    pub query_argument: Option<Name>,
}

/// `records.get`: one record by its id, or by the request id it was written under.
#[derive(Clone, Debug)]
pub struct Get {
    pub collection_argument: Option<Name>,
    pub id_argument: Name,
}

/// `records.write`: create, update, delete or skip an occurrence of a record of the
/// collection a call names, with typed fields.
#[derive(Clone, Debug)]
pub struct Write {
    pub collection_argument: Name,
    /// The enum argument whose value picks the operation.
    pub operation_argument: Name,
    pub record_argument: Option<Name>,
    pub fields_argument: Name,
    pub request_argument: Option<Name>,
}

/// The operations of `records.write`, named by the values of its operation argument
/// (their names in snake case).
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum WriteOp {
    Create,
    Update,
    Delete,
    SkipOccurrence,
}

/// `booking`: book offered slots, reschedule atomically, cancel, look bookings up.
#[derive(Clone, Debug)]
pub struct Booking {
    pub slots_collection: Name,
    pub bookings_collection: Name,
    pub operation_argument: Name,
    /// The argument naming a booking (reschedule, cancel, lookup) or a provider.
    pub target_argument: Name,
    /// The argument naming the slot: its id, or a time equal to its start.
    pub slot_argument: Name,
    pub request_argument: Option<Name>,
    /// The bookings' reference to their slot.
    pub slot_field: Name,
    /// The provider reference slots and bookings share.
    pub provider_field: Name,
    /// The slots' start datetime.
    pub start_field: Name,
    /// The bookings' status enum and its two values.
    pub status_field: Name,
    pub confirmed_value: String,
    pub cancelled_value: String,
    /// Fields a booking takes from its slot.
    pub copied_fields: Vec<Name>,
}

/// The operations of `booking`, named by the values of its operation argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum BookingOp {
    Create,
    Reschedule,
    Cancel,
    Lookup,
}

/// `tracker`: locate or ring an item tracker of the world.
#[derive(Clone, Debug)]
pub struct Tracker {
    pub trackers_collection: Name,
    pub operation_argument: Name,
    pub id_argument: Name,
    /// The trackers' status enum and the value that means offline.
    pub status_field: Name,
    pub offline_value: String,
    /// A list of the operations a tracker supports (absent: every one).
    pub supports_field: Option<Name>,
    /// Fields a locate reports.
    pub reported_fields: Vec<Name>,
}

/// The operations of `tracker`, named by the values of its operation argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, IntoStaticStr, EnumString, VariantArray)]
#[strum(serialize_all = "snake_case")]
pub enum TrackerOp {
    Locate,
    Ring,
}

/// `files.read`, `files.write`, `files.list`: a store of text files keyed by path.
#[derive(Clone, Debug)]
pub struct Files {
    pub op: FileOp,
    pub files_collection: Name,
    pub path_field: Name,
    pub content_field: Name,
    /// The argument with the path (read, write) or the folder prefix (list).
    pub path_argument: Option<Name>,
    pub content_argument: Option<Name>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileOp {
    Read,
    Write,
    List,
}

/// `http`: requests answered from endpoint records of the world.
#[derive(Clone, Debug)]
pub struct Http {
    pub endpoints_collection: Name,
    pub url_field: Name,
    pub method_field: Option<Name>,
    pub status_field: Name,
    pub body_field: Name,
    pub url_argument: Name,
    pub method_argument: Option<Name>,
    /// The endpoints' declared faults (docs/tools.md): how many first requests fail,
    /// how (an enum of `reset`, `timeout`, `status`), with which status, and a latency
    /// in milliseconds before every answer.
    pub failures_field: Option<Name>,
    pub fault_field: Option<Name>,
    pub failure_status_field: Option<Name>,
    pub latency_field: Option<Name>,
}

/// `commands.run`: a shell command run in the case's workspace, a real folder that
/// holds the tools' file store (`files.*`) and reaches the endpoints of their `http`
/// binding; the runtime runs it (`runtime::commands`).
#[derive(Clone, Debug)]
pub struct Commands {
    /// The argument holding the command line.
    pub command_argument: Name,
    /// The argument holding the working directory.
    pub directory_argument: Option<Name>,
    pub limits: CommandLimits,
    /// The container image a containerised sandbox runs the commands in.
    pub image: String,
}

/// The folders a workspace never holds: the system's, which the isolation mounts over
/// it from the machine, and the private ones.
pub const SYSTEM_FOLDERS: &[&str] = &[
    "bin", "boot", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "run", "sbin", "sys",
    "tmp", "usr", "var",
];

/// The path under the workspace root of a store path: absolute, without `.` or `..`,
/// outside the system folders; `None` for any other (it is not written).
pub fn workspace_path(path: &str) -> Option<std::path::PathBuf> {
    use std::path::{Component, Path};
    let path = Path::new(path);
    let mut parts = Vec::new();
    for (i, component) in path.components().enumerate() {
        match component {
            Component::RootDir if i == 0 => {}
            Component::Normal(part) => parts.push(part),
            _ => return None,
        }
    }
    let top = parts.first()?.to_str()?;
    if !path.has_root() || SYSTEM_FOLDERS.contains(&top) {
        return None;
    }
    Some(parts.iter().collect())
}

/// The image of a `commands.run` binding that names none: Debian with Python.
pub const DEFAULT_IMAGE: &str = "python:3.12-slim";

/// What one command may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CommandLimits {
    pub timeout_seconds: u64,
    /// The address space of each of its processes.
    pub memory_mib: u64,
    /// How much of each output stream a result keeps.
    pub output_kib: u64,
}

impl Default for CommandLimits {
    fn default() -> CommandLimits {
        CommandLimits {
            timeout_seconds: 60,
            memory_mib: 2048,
            output_kib: 64,
        }
    }
}

/// How an endpoint's failing requests fail (`fault_field` of `http`: an enum of these
/// words); the runtime's `web` serves them.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    IntoStaticStr,
    EnumString,
    VariantArray,
    serde::Serialize,
    serde::Deserialize,
)]
#[strum(serialize_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// The connection is closed without an answer.
    Reset,
    /// The connection is held open without an answer until the requester gives up.
    Timeout,
    /// The endpoint's failure status is answered, with an empty body.
    Status,
}

/// Effects declared over the world, in order, after the refusals.
#[derive(Clone, Debug, Default)]
pub struct Behavior {
    pub refusals: Vec<Refusal>,
    pub effects: Vec<Effect>,
    pub responses: Vec<Response>,
    /// The argument whose value, once a write succeeded under it, makes a repeated call
    /// return the first result and write nothing.
    pub idempotent: Option<Name>,
}

/// `refuse CODE "message" { condition… }`: the call fails when every condition holds.
#[derive(Clone, Debug)]
pub struct Refusal {
    pub code: Name,
    pub message: Text,
    pub conditions: Vec<Condition>,
}

#[derive(Clone, Debug)]
pub enum Effect {
    Read(Read),
    Create(Create),
    Update(Update),
    Delete(Delete),
}

impl Effect {
    pub fn collection(&self) -> &Name {
        match self {
            Effect::Read(r) => &r.collection,
            Effect::Create(c) => &c.collection,
            Effect::Update(u) => &u.collection,
            Effect::Delete(d) => &d.collection,
        }
    }
}

/// `read COLLECTION { match ARG; where FIELD [OP] ARG; show FIELD… }`.
#[derive(Clone, Debug)]
pub struct Read {
    pub collection: Name,
    /// The argument holding a free-text query, matched as `records.search` does.
    pub query: Option<Name>,
    pub filters: Vec<Filter>,
    /// The fields a result shows (absent: every field).
    pub show: Option<Vec<Name>>,
    /// `order_by FIELD [descending]`: the records in this field's order (records
    /// without it last), ties in world order; absent: world order.
    pub order_by: Option<(Name, bool)>,
    /// `limit N`: at most the first N records.
    pub limit: Option<usize>,
}

/// `where FIELD [OP] ARG`: a record field compared with an argument; skipped when the
/// call does not give the argument.
#[derive(Clone, Debug)]
pub struct Filter {
    pub field: Name,
    pub op: crate::expect::Op,
    pub argument: Name,
}

/// `create COLLECTION { set FIELD …}`.
#[derive(Clone, Debug)]
pub struct Create {
    pub collection: Name,
    pub sets: Vec<Set>,
    /// `show FIELD…`: the fields the result shows of the created record (absent: all).
    pub show: Option<Vec<Name>>,
}

/// `update COLLECTION { record ARG; set FIELD …; reason "…" }`.
#[derive(Clone, Debug)]
pub struct Update {
    pub collection: Name,
    pub record: RecordRef,
    pub sets: Vec<Set>,
    pub reason: Option<Text>,
    /// `show FIELD…`: the fields the result shows of the changed record (absent: all).
    pub show: Option<Vec<Name>>,
}

/// `delete COLLECTION { record ARG }`.
#[derive(Clone, Debug)]
pub struct Delete {
    pub collection: Name,
    pub record: RecordRef,
}

/// The record an update or delete changes: the one an argument names (`record ARG`),
/// or one record of the world whatever the call says (`record A1`: the account).
#[derive(Clone, Debug)]
pub enum RecordRef {
    Argument(Name),
    Fixed(Name),
}

/// `set FIELD from ARG`, `set FIELD VALUE`, `set FIELD now`, `set FIELD "EXPR"`.
#[derive(Clone, Debug)]
pub struct Set {
    pub field: Name,
    pub value: SetValue,
}

#[derive(Clone, Debug)]
pub enum SetValue {
    /// The argument's value: nothing is set when the call leaves it out, nor, with
    /// `unless_empty`, when it gives `""`, `false` or `[]`.
    Argument {
        name: Name,
        unless_empty: bool,
    },
    Value(FieldValue),
    /// The case clock: a datetime, or its date for a date field.
    Now,
    /// `set FIELD "EXPR"`: a value computed from the call's arguments and the records
    /// they reach (`"payment.balance - amount"`).
    Computed(crate::expr::Expr),
}

/// `respond { when { … }; after N; data { … } }` or `… record COLLECTION { where … }`:
/// what a matching call answers besides its effects.
#[derive(Clone, Debug)]
pub struct Response {
    pub when: Vec<Condition>,
    /// Matching calls before this many have happened are not answered.
    pub after: Option<u64>,
    pub answer: Answer,
}

#[derive(Clone, Debug)]
pub enum Answer {
    /// Declared data, merged into the result.
    Data(serde_json::Value),
    /// The first record of the collection whose fields match, shown as `record`.
    Record {
        collection: Name,
        filters: Vec<Filter>,
    },
}

/// `adapter "COMMAND" "ARG"… { reads COLL…; writes COLL…; env "NAME"… }`: a program
/// speaking the adapter protocol (docs/tools.md) on standard input and output. It runs
/// only with the user's consent, with a cleared environment (docs/security.md).
#[derive(Clone, Debug)]
pub struct Adapter {
    pub command: Vec<Text>,
    /// The collections the adapter is sent (absent: every collection).
    pub reads: Option<Vec<Name>>,
    /// The collections its changes may touch.
    pub writes: Vec<Name>,
    /// The environment variables passed to the program besides `PATH` (none of them
    /// [`secret_variable`]).
    pub env: Vec<Name>,
    /// How long casec waits for the answer to one call (`timeout_seconds`).
    pub timeout: Duration,
    /// The `adapter` statement.
    pub span: Span,
}

impl Adapter {
    /// How long casec waits for an answer unless the adapter says.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
    /// The longest wait an adapter may ask for: an hour.
    pub const MAX_TIMEOUT: Duration = Duration::from_secs(3600);
}

/// Words that mark an environment variable as a credential: its value is never passed
/// to a suite's program, whatever the suite declares. Matched in the upper-cased name,
/// so `OPENAI_API_KEY` (the judge's key by default), `GITHUB_TOKEN`,
/// `AWS_SECRET_ACCESS_KEY`, `PGPASSWORD`, `SSH_AUTH_SOCK` (the SSH agent) and
/// `*_CREDENTIALS` are all refused.
const SECRET_WORDS: &[&str] = &[
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "CREDENTIAL",
    "AUTH",
    "COOKIE",
];

/// Whether the environment variable `name` looks like a credential (see
/// [`SECRET_WORDS`]): an adapter may not ask for it.
pub fn secret_variable(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_WORDS.iter().any(|w| upper.contains(w))
}

/// Whether `name` can name an environment variable: ASCII letters, digits and `_`, not
/// starting with a digit (what a shell can export).
pub fn variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words<Op: VariantArray + Copy + Into<&'static str>>() -> Vec<&'static str> {
        Op::VARIANTS.iter().map(|&op| op.into()).collect()
    }

    /// The words are the values of the services' operation arguments in suites: renaming
    /// a variant must not change one.
    #[test]
    fn service_operations_keep_their_words_in_order() {
        let write = ["create", "update", "delete", "skip_occurrence"];
        assert_eq!(words::<WriteOp>(), write);
        assert_eq!(
            words::<BookingOp>(),
            ["create", "reschedule", "cancel", "lookup"]
        );
        assert_eq!(words::<TrackerOp>(), ["locate", "ring"]);
        assert_eq!("skip_occurrence".parse(), Ok(WriteOp::SkipOccurrence));
        assert!("SkipOccurrence".parse::<WriteOp>().is_err());
    }
}
