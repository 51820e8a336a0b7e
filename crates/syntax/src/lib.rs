//! Parsing: source text to a syntax tree.
//!
//! The grammar is `grammar/case.pest`. A file it matches is parsed by hand, rule for
//! rule, straight into the [`ast`] (`direct.rs`, several times faster than pest); a file
//! that parser gives up on is parsed by pest, whose pairs this module turns into the
//! same tree and whose error into a located [`Diagnostic`]. Both unescape strings and
//! fold text blocks with [`strings`]. A file stops at its first
//! syntax error (there is then no tree); escape and text-block mistakes are reported
//! without losing the tree. Parsing never panics, whatever the input, and a file that
//! nests deeper than every consumer of the tree can safely walk is refused before pest
//! reads it ([`nesting`]; the direct parser stops at the same depth).

// Module headers link to the private items of their crate: they are read by
// contributors, with `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

// The layers below, under the names the modules of this crate use for them.
use casec_base::{diag, parallel, source, unicode};

pub mod ast;
mod direct;
mod errors;
pub mod lexer;
pub mod nesting;
pub mod strings;

use compact_str::CompactString;
use pest::iterators::Pair;
use pest::Parser;

use crate::diag::Diagnostic;
use crate::source::{FileId, Span};
use ast::*;

#[derive(pest_derive::Parser)]
#[grammar = "../../../grammar/case.pest"]
pub(crate) struct CaseParser;

/// The tree of one file (absent after a syntax error) and the diagnostics found.
#[derive(Debug)]
pub struct Parsed {
    pub file: Option<File>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Parsed {
    /// Whether the file declares nothing but cases (a file that did not parse declares
    /// nothing): then no other file's cases depend on it, so it is not part of the
    /// context that re-checks key their reuse on (the compiler's `incremental::Scope`,
    /// the check cache).
    pub fn declares_only_cases(&self) -> bool {
        self.file
            .as_ref()
            .is_none_or(|f| f.statements.iter().all(|s| s.name() == "case"))
    }
}

pub fn parse(id: FileId, text: &str) -> Parsed {
    // The direct parser stops at the nesting limit itself; the scan for a file nested
    // too deep is for the files it gives up on, before pest recurses into them.
    if let Some((file, diagnostics)) = direct::parse(id, text) {
        return Parsed {
            file: Some(file),
            diagnostics,
        };
    }
    if let Some(too_deep) = nesting::too_deep(id, text) {
        return Parsed {
            file: None,
            diagnostics: vec![too_deep],
        };
    }
    parse_with_pest(id, text)
}

/// The tree by pest's generated parser: for the files [`direct`] gives up on, so that a
/// syntax error is reported with what pest expected there.
fn parse_with_pest(id: FileId, text: &str) -> Parsed {
    match CaseParser::parse(Rule::file, text) {
        Ok(mut pairs) => {
            let mut builder = Builder {
                id,
                comments: Vec::new(),
                diagnostics: Vec::new(),
            };
            let statements = pairs
                .next()
                .map(|file| builder.statements(file))
                .unwrap_or_default();
            Parsed {
                file: Some(File {
                    id,
                    statements,
                    comments: builder.comments,
                }),
                diagnostics: builder.diagnostics,
            }
        }
        Err(error) => Parsed {
            file: None,
            diagnostics: vec![errors::syntax_error(id, text, &error)],
        },
    }
}

/// Suites with less source than this are parsed on the calling thread: below it,
/// starting threads costs more than it saves.
const PARALLEL_FROM_BYTES: usize = 1 << 20;

/// Parses several files, spread over the machine's cores when there is enough text;
/// results in the order of `files`.
pub fn parse_all(files: &[(FileId, &str)]) -> Vec<Parsed> {
    let total: usize = files.iter().map(|(_, text)| text.len()).sum();
    crate::parallel::map(files, total >= PARALLEL_FROM_BYTES, |(id, text)| {
        parse(*id, text)
    })
}

struct Builder {
    id: FileId,
    comments: Vec<Span>,
    diagnostics: Vec<Diagnostic>,
}

impl Builder {
    fn span(&self, pair: &Pair<Rule>) -> Span {
        let s = pair.as_span();
        Span::new(self.id, s.start()..s.end())
    }

    /// Statements among the children of `parent`; comments are set aside.
    fn statements(&mut self, parent: Pair<Rule>) -> Vec<Statement> {
        let mut statements = Vec::new();
        for pair in parent.into_inner() {
            match pair.as_rule() {
                Rule::statement => statements.push(self.statement(pair)),
                Rule::COMMENT => self.comments.push(self.span(&pair)),
                _ => {}
            }
        }
        // The trees of every file of a suite are alive at once during resolution:
        // spare capacity from growing these vectors was a third of a large build's peak.
        statements.shrink_to_fit();
        statements
    }

    fn statement(&mut self, pair: Pair<Rule>) -> Statement {
        let span = self.span(&pair);
        let mut children = pair.into_inner();
        let key = children.next().map(|first| self.key(first));
        let mut values = Vec::new();
        let mut block = None;
        for child in children {
            match child.as_rule() {
                Rule::block => block = Some(self.block(child)),
                Rule::COMMENT => self.comments.push(self.span(&child)),
                _ => values.push(self.value(child)),
            }
        }
        values.shrink_to_fit();
        Statement {
            key: key.unwrap_or_else(|| Key {
                name: CompactString::default(),
                quoted: false,
                span,
            }),
            values,
            block,
            span,
        }
    }

    /// A statement's key: its first child, a name or a quoted string.
    fn key(&mut self, pair: Pair<Rule>) -> Key {
        let span = self.span(&pair);
        let quoted = pair.as_rule() == Rule::string;
        let name = if quoted {
            self.string(pair).into()
        } else {
            pair.as_str().into()
        };
        Key { name, quoted, span }
    }

    fn block(&mut self, pair: Pair<Rule>) -> Block {
        let span = self.span(&pair);
        Block {
            statements: self.statements(pair),
            span,
        }
    }

    fn value(&mut self, pair: Pair<Rule>) -> Value {
        let span = self.span(&pair);
        let kind = match pair.as_rule() {
            Rule::string => ValueKind::Str {
                text: self.string(pair).into(),
                style: StringStyle::Quoted,
            },
            Rule::text_block => ValueKind::Str {
                text: self.text_block(pair).into(),
                style: StringStyle::TextBlock,
            },
            Rule::number => ValueKind::Number(pair.as_str().into()),
            Rule::list => ValueKind::List(self.list(pair)),
            _ => ValueKind::Ident(pair.as_str().into()),
        };
        Value { kind, span }
    }

    fn list(&mut self, pair: Pair<Rule>) -> Vec<ListItem> {
        let mut items = Vec::new();
        for child in pair.into_inner() {
            match child.as_rule() {
                Rule::COMMENT => self.comments.push(self.span(&child)),
                Rule::block => items.push(ListItem::Block(self.block(child))),
                _ => items.push(ListItem::Value(self.value(child))),
            }
        }
        items.shrink_to_fit();
        items
    }

    fn string(&mut self, pair: Pair<Rule>) -> String {
        let body = pair.into_inner().next();
        let Some(body) = body else {
            return String::new();
        };
        let offset = body.as_span().start();
        strings::unescape(body.as_str(), self.id, offset, &mut self.diagnostics)
    }

    fn text_block(&mut self, pair: Pair<Rule>) -> String {
        let start = pair.as_span().start();
        strings::fold_text_block(pair.as_str(), self.id, start, &mut self.diagnostics)
    }
}

#[cfg(test)]
mod tests;
