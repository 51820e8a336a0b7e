//! `casec lsp`: the compiler in the editor, as a Language Server Protocol server over
//! standard input and output.
//!
//! Built on the library like the command line: a document is checked with the suite it
//! belongs to ([`workspace`]), and every feature reads the last check: diagnostics
//! (with codes, related locations, help), completion, hover, go to definition,
//! document symbols, formatting and quick fixes. The design is synchronous
//! ([`server`]): one message is handled to the end before the next is read, which a
//! compiler that re-checks a suite in a millisecond can afford. Messages are those of
//! the `lsp-server` crate, with types from `lsp-types`; the framing is this module's
//! own ([`transport`]) so that no malformed input can end a session.
//!
//! Positions are exchanged in UTF-16 code units, the protocol's default encoding
//! ([`convert`]).

// Module headers link to the private items of their crate: they are read by
// contributors, with `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

// The layers below, under the names the modules of this crate use for them.
use casec_base::{capped_lines, diag, source};
use casec_compiler::{incremental, resolve, Compilation, Config, Depth, Recheck, Sources};
use casec_fmt as fmt;
use casec_load as load;
use casec_model as model;
use casec_syntax as syntax;

mod completion;
mod convert;
mod cursor;
mod definition;
mod edits;
mod hover;
mod index;
mod names;
mod server;
mod stdlib;
mod symbols;
mod transport;
mod view;
mod workspace;

use std::io;

pub use server::{Options, Server};
pub use stdlib::default_cache_dir;

/// Runs the server on standard input and output until the client says `exit`;
/// returns the process exit code (0 after an orderly `shutdown`, else 1).
pub fn stdio() -> u8 {
    let mut server = Server::new(Options {
        cache_dir: default_cache_dir(),
    });
    transport::serve(
        &mut io::stdin().lock(),
        &mut io::stdout().lock(),
        &mut server,
    )
}
