//! The server's state machine: one message in, the messages to send out.
//!
//! Synchronous by design: every message is handled to the end before the next one is
//! read, so replies always reflect every edit before them, and tests drive the server
//! in-process by calling [`Server::handle`]. Lifecycle follows the protocol: requests
//! before `initialize` get `ServerNotInitialized`, requests after `shutdown` get
//! `InvalidRequest`, `exit` ends the session (exit code 0 after `shutdown`, else 1).
//! A request with malformed parameters gets an `InvalidParams` error, an unknown one
//! `MethodNotFound`; a malformed notification is reported to the client's log.

use std::path::PathBuf;

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument, LogMessage, Notification as _,
};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest,
    Initialize, RegisterCapability, Request as _, Shutdown,
};
use lsp_types::{
    ClientCapabilities, CodeActionOrCommand, CodeActionProviderCapability, CompletionResponse,
    DidChangeTextDocumentParams, DidChangeWatchedFilesRegistrationOptions, DocumentSymbolResponse,
    FileSystemWatcher, GlobPattern, GotoDefinitionResponse, InitializeParams, InitializeResult,
    LogMessageParams, MessageType, OneOf, Registration, RegistrationParams, ServerCapabilities,
    ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, Url,
};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::source::LineIndex;

use super::view::View;
use super::workspace::Workspace;
use super::{completion, convert, definition, edits, hover, symbols};

/// How the server is set up by its host.
#[derive(Clone, Debug)]
pub struct Options {
    /// Where the stdlib files are written for "go to definition" (see `stdlib.rs`).
    pub cache_dir: PathBuf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Uninitialized,
    Running,
    ShuttingDown,
    Exited(u8),
}

pub struct Server {
    phase: Phase,
    options: Options,
    workspace: Workspace,
    /// Whether the client lets the server ask it to watch `.case` files.
    can_watch_files: bool,
}

/// The id of the one request the server sends: watching `.case` files.
const WATCH_REQUEST: &str = "casec/watch-case-files";

impl Server {
    pub fn new(options: Options) -> Server {
        Server {
            phase: Phase::Uninitialized,
            options,
            workspace: Workspace::default(),
            can_watch_files: false,
        }
    }

    /// The process exit code, once `exit` was received.
    pub fn exit_code(&self) -> Option<u8> {
        match self.phase {
            Phase::Exited(code) => Some(code),
            _ => None,
        }
    }

    /// Handles one message from the client; returns the messages to send back.
    pub fn handle(&mut self, message: Message) -> Vec<Message> {
        match message {
            Message::Request(request) => vec![Message::Response(self.request(request))],
            Message::Notification(notification) => self.notification(notification),
            // The only request the server sends is the file-watch registration; its
            // reply, success or not, changes nothing.
            Message::Response(_) => Vec::new(),
        }
    }

    fn request(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        match (self.phase, request.method.as_str()) {
            (Phase::Uninitialized, Initialize::METHOD) => self.initialize(request),
            (Phase::Uninitialized, _) => {
                error(id, ErrorCode::ServerNotInitialized, "initialize first")
            }
            (Phase::Running, Initialize::METHOD) => {
                error(id, ErrorCode::InvalidRequest, "already initialized")
            }
            (Phase::Running, _) => self.dispatch(request),
            (Phase::ShuttingDown | Phase::Exited(_), _) => {
                error(id, ErrorCode::InvalidRequest, "the server is shutting down")
            }
        }
    }

    fn initialize(&mut self, request: Request) -> Response {
        reply(request, |params: InitializeParams| {
            self.can_watch_files = watches_files(&params.capabilities);
            self.phase = Phase::Running;
            initialize_result()
        })
    }

    fn dispatch(&mut self, request: Request) -> Response {
        if request.method == Shutdown::METHOD {
            self.phase = Phase::ShuttingDown;
            return Response::new_ok(request.id, ());
        }
        self.answer(request)
    }

    /// Answers a request about an open document (`null` when it is not open).
    fn answer(&self, request: Request) -> Response {
        match request.method.as_str() {
            Completion::METHOD => reply(request, |p: lsp_types::CompletionParams| {
                let at = p.text_document_position;
                let view = self.view(&at.text_document.uri)?;
                Some(CompletionResponse::Array(completion::completion(
                    &view,
                    at.position,
                )))
            }),
            HoverRequest::METHOD => reply(request, |p: lsp_types::HoverParams| {
                let at = p.text_document_position_params;
                hover::hover(&self.view(&at.text_document.uri)?, at.position)
            }),
            GotoDefinition::METHOD => reply(request, |p: lsp_types::GotoDefinitionParams| {
                let at = p.text_document_position_params;
                let view = self.view(&at.text_document.uri)?;
                definition::definition(&view, at.position).map(GotoDefinitionResponse::Scalar)
            }),
            DocumentSymbolRequest::METHOD => {
                reply(request, |p: lsp_types::DocumentSymbolParams| {
                    let view = self.view(&p.text_document.uri)?;
                    symbols::outline(&view).map(DocumentSymbolResponse::Nested)
                })
            }
            Formatting::METHOD => reply(request, |p: lsp_types::DocumentFormattingParams| {
                edits::formatting(&self.view(&p.text_document.uri)?)
            }),
            CodeActionRequest::METHOD => reply(request, |p: lsp_types::CodeActionParams| {
                let view = self.view(&p.text_document.uri)?;
                let actions = edits::code_actions(&view, p.range);
                let actions: Vec<CodeActionOrCommand> = actions
                    .into_iter()
                    .map(CodeActionOrCommand::CodeAction)
                    .collect();
                Some(actions)
            }),
            _ => error(
                request.id,
                ErrorCode::MethodNotFound,
                &format!("casec does not handle `{}`", request.method),
            ),
        }
    }

    fn view<'a>(&'a self, uri: &'a Url) -> Option<View<'a>> {
        View::new(&self.workspace, uri, &self.options.cache_dir)
    }

    fn notification(&mut self, notification: Notification) -> Vec<Message> {
        match (self.phase, notification.method.as_str()) {
            (Phase::ShuttingDown, "exit") => self.phase = Phase::Exited(0),
            (_, "exit") => self.phase = Phase::Exited(1),
            (Phase::Running, "initialized") => return self.watch_case_files(),
            (Phase::Running, _) => return self.document_notification(notification),
            _ => {}
        }
        Vec::new()
    }

    fn document_notification(&mut self, notification: Notification) -> Vec<Message> {
        let method = notification.method.clone();
        let workspace = &mut self.workspace;
        let handled = match method.as_str() {
            DidOpenTextDocument::METHOD => {
                params(notification, |p: lsp_types::DidOpenTextDocumentParams| {
                    let document = p.text_document;
                    workspace.open(document.uri, document.text, document.version)
                })
            }
            DidChangeTextDocument::METHOD => params(notification, |p| change(workspace, p)),
            DidCloseTextDocument::METHOD => {
                params(notification, |p: lsp_types::DidCloseTextDocumentParams| {
                    workspace.close(&p.text_document.uri)
                })
            }
            DidSaveTextDocument::METHOD => {
                params(notification, |_: lsp_types::DidSaveTextDocumentParams| {
                    workspace.refresh()
                })
            }
            DidChangeWatchedFiles::METHOD => {
                params(notification, |_: lsp_types::DidChangeWatchedFilesParams| {
                    workspace.refresh()
                })
            }
            // Anything else ($/cancelRequest, $/setTrace, …) needs nothing from a
            // server that answers every request before reading the next message.
            _ => Ok(Vec::new()),
        };
        handled.unwrap_or_else(|problem| {
            vec![log(format!(
                "casec: ignored a malformed `{method}` notification: {problem}"
            ))]
        })
    }

    fn watch_case_files(&self) -> Vec<Message> {
        if !self.can_watch_files {
            return Vec::new();
        }
        let options = DidChangeWatchedFilesRegistrationOptions {
            watchers: vec![FileSystemWatcher {
                glob_pattern: GlobPattern::String("**/*.case".to_string()),
                kind: None,
            }],
        };
        let registration = Registration {
            id: WATCH_REQUEST.to_string(),
            method: DidChangeWatchedFiles::METHOD.to_string(),
            register_options: serde_json::to_value(options).ok(),
        };
        vec![Message::Request(Request::new(
            RequestId::from(WATCH_REQUEST.to_string()),
            RegisterCapability::METHOD.to_string(),
            RegistrationParams {
                registrations: vec![registration],
            },
        ))]
    }
}

/// Applies a document's changes in order (each range is in the text the previous
/// change left) and re-checks its unit.
fn change(workspace: &mut Workspace, params: DidChangeTextDocumentParams) -> Vec<Message> {
    let uri = params.text_document.uri;
    let Some(document) = workspace.documents.get_mut(&uri) else {
        return Vec::new();
    };
    for change in params.content_changes {
        match change.range {
            Some(range) => {
                let lines = LineIndex::new(&document.text);
                let (start, end) = convert::byte_range(&document.text, &lines, range);
                document.text.replace_range(start..end, &change.text);
            }
            None => document.text = change.text,
        }
    }
    document.version = params.text_document.version;
    let unit = document.unit.clone();
    workspace.check(&unit, Some(&uri))
}

fn watches_files(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|w| w.dynamic_registration)
        .unwrap_or(false)
}

fn initialize_result() -> InitializeResult {
    InitializeResult {
        capabilities: ServerCapabilities {
            text_document_sync: Some(TextDocumentSyncCapability::Options(
                TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                    ..TextDocumentSyncOptions::default()
                },
            )),
            completion_provider: Some(lsp_types::CompletionOptions::default()),
            hover_provider: Some(lsp_types::HoverProviderCapability::Simple(true)),
            definition_provider: Some(OneOf::Left(true)),
            document_symbol_provider: Some(OneOf::Left(true)),
            document_formatting_provider: Some(OneOf::Left(true)),
            code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
            ..ServerCapabilities::default()
        },
        server_info: Some(ServerInfo {
            name: "casec".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    }
}

/// Reads a request's parameters and answers with `answer`'s result, or with an
/// `InvalidParams` error when they do not read.
fn reply<P: DeserializeOwned, R: Serialize>(
    request: Request,
    answer: impl FnOnce(P) -> R,
) -> Response {
    match serde_json::from_value::<P>(request.params) {
        Ok(params) => match serde_json::to_value(answer(params)) {
            Ok(result) => Response {
                id: request.id,
                response_result: Ok(result),
            },
            Err(e) => error(request.id, ErrorCode::InternalError, &e.to_string()),
        },
        Err(e) => error(request.id, ErrorCode::InvalidParams, &e.to_string()),
    }
}

fn params<P: DeserializeOwned>(
    notification: Notification,
    handle: impl FnOnce(P) -> Vec<Message>,
) -> Result<Vec<Message>, serde_json::Error> {
    serde_json::from_value::<P>(notification.params).map(handle)
}

fn error(id: RequestId, code: ErrorCode, message: &str) -> Response {
    Response::new_err(id, code as i32, message.to_string())
}

fn log(message: String) -> Message {
    Message::Notification(Notification::new(
        LogMessage::METHOD.to_string(),
        LogMessageParams {
            typ: MessageType::WARNING,
            message,
        },
    ))
}
