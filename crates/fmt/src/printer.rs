//! The tree walk that writes canonical text (the rules are listed in `mod.rs`).
//!
//! Statements, block bodies and multi-line lists are all *sequences*: entries on lines
//! of their own, each preceded by the comments written above it and followed by the
//! comment written after it on its line. One routine lays out every sequence, so
//! comments and blank lines follow the same rules wherever they appear.

use std::ops::Range;

use super::text_block::{body_lines, BodyLine};
use super::trivia::Trivia;
use crate::syntax::ast::{Block, File, ListItem, Statement, StringStyle, Value, ValueKind};

const INDENT: &str = "  ";

pub(super) struct Printer<'a> {
    trivia: Trivia<'a>,
    out: String,
    /// Indentation level of the line being written.
    indent: usize,
}

/// One entry of a sequence: a statement of a file or block, or an item of a list.
#[derive(Clone, Copy)]
enum Entry<'t> {
    Statement(&'t Statement),
    Item(&'t ListItem),
}

impl Entry<'_> {
    fn start(&self) -> usize {
        match self {
            Entry::Statement(s) => s.span.range().start,
            Entry::Item(ListItem::Value(v)) => v.span.range().start,
            Entry::Item(ListItem::Block(b)) => b.span.range().start,
        }
    }

    /// Where the entry's own text ends. A statement's span may run on over a comment
    /// that trails it, so its end is that of its last part.
    fn end(&self) -> usize {
        match self {
            Entry::Statement(s) => {
                s.block
                    .as_ref()
                    .map(|b| b.span)
                    .or_else(|| s.values.last().map(|v| v.span))
                    .unwrap_or(s.key.span)
                    .range()
                    .end
            }
            Entry::Item(ListItem::Value(v)) => v.span.range().end,
            Entry::Item(ListItem::Block(b)) => b.span.range().end,
        }
    }

    /// A statement with a block (top-level blank lines depend on it).
    fn has_block(&self) -> bool {
        matches!(self, Entry::Statement(s) if s.block.is_some())
    }
}

/// Where a sequence lies in the source.
struct Bounds {
    /// Just after the `{` or `[` that opens it; none for a whole file.
    opener_end: Option<usize>,
    /// The `}` or `]` that closes it, or the end of the file.
    closer_start: usize,
    /// Top-level statements: blocks are always set apart by a blank line.
    top_level: bool,
}

/// Progress through one sequence, for deciding where blank lines go.
struct Cursor {
    /// End of the last thing written from the source (entry, comment or opener).
    prev_end: usize,
    /// Nothing has been written on a line of its own yet: no blank line may follow the
    /// opener.
    at_start: bool,
    /// The next line must be preceded by a blank line.
    force_blank: bool,
}

/// How a block is laid out.
#[derive(Clone, Copy)]
enum BlockStyle {
    /// `{`, one statement per line, `}`.
    Expanded,
    /// `{ a 1; b 2 }` on the line of its list.
    Inline,
}

impl<'a> Printer<'a> {
    pub(super) fn new(trivia: Trivia<'a>) -> Printer<'a> {
        Printer {
            trivia,
            out: String::new(),
            indent: 0,
        }
    }

    pub(super) fn file(mut self, file: &File, text_len: usize) -> String {
        let entries: Vec<Entry> = file.statements.iter().map(Entry::Statement).collect();
        let bounds = Bounds {
            opener_end: None,
            closer_start: text_len,
            top_level: true,
        };
        self.sequence(&entries, &bounds);
        self.out
    }

    fn sequence(&mut self, entries: &[Entry], bounds: &Bounds) {
        let mut cursor = Cursor {
            prev_end: bounds.opener_end.unwrap_or(0),
            at_start: true,
            force_blank: false,
        };
        if let Some(opener_end) = bounds.opener_end {
            let first = entries.first().map_or(bounds.closer_start, Entry::start);
            if let Some(end) = self.trailing_comment(opener_end, first) {
                cursor.prev_end = end;
            }
            self.out.push('\n');
        }
        for (i, entry) in entries.iter().enumerate() {
            cursor.force_blank =
                bounds.top_level && i > 0 && (entry.has_block() || entries[i - 1].has_block());
            self.own_line_comments(&mut cursor, entry.start());
            self.separate(&mut cursor, entry.start());
            self.begin_line();
            self.entry(entry);
            let limit = entries.get(i + 1).map_or(bounds.closer_start, Entry::start);
            cursor.prev_end = self
                .trailing_comment(entry.end(), limit)
                .unwrap_or(entry.end());
            self.out.push('\n');
        }
        self.own_line_comments(&mut cursor, bounds.closer_start);
    }

    /// Writes the comments before `limit`, each on a line of its own.
    fn own_line_comments(&mut self, cursor: &mut Cursor, limit: usize) {
        while let Some(comment) = self.trivia.take_before(limit) {
            self.separate(cursor, comment.start);
            self.begin_line();
            self.out.push_str(self.trivia.comment_text(&comment));
            self.out.push('\n');
            cursor.prev_end = comment.end;
        }
    }

    /// Writes a blank line before the line starting at `next_start` when one is due.
    fn separate(&mut self, cursor: &mut Cursor, next_start: usize) {
        let wanted = cursor.force_blank || self.trivia.blank_between(cursor.prev_end, next_start);
        if wanted && !cursor.at_start {
            self.out.push('\n');
        }
        cursor.at_start = false;
        cursor.force_blank = false;
    }

    /// Writes the comment that follows `end` on its line, if any; returns its end.
    fn trailing_comment(&mut self, end: usize, limit: usize) -> Option<usize> {
        let comment = self.trivia.take_same_line(end, limit)?;
        self.out.push(' ');
        self.out.push_str(self.trivia.comment_text(&comment));
        Some(comment.end)
    }

    fn begin_line(&mut self) {
        for _ in 0..self.indent {
            self.out.push_str(INDENT);
        }
    }

    fn entry(&mut self, entry: &Entry) {
        match entry {
            Entry::Statement(statement) => self.statement(statement, BlockStyle::Expanded),
            Entry::Item(item) => {
                self.list_item(item);
                self.out.push(',');
            }
        }
    }

    fn statement(&mut self, statement: &Statement, style: BlockStyle) {
        self.out
            .push_str(self.trivia.raw(statement.key.span.range()));
        for value in &statement.values {
            self.out.push(' ');
            self.value(value);
        }
        if let Some(block) = &statement.block {
            self.out.push(' ');
            self.block(block, style);
        }
    }

    fn block(&mut self, block: &Block, style: BlockStyle) {
        let span = block.span.range();
        let closer = span.end.saturating_sub(1);
        let empty = block.statements.is_empty() && !self.trivia.has_comment_before(closer);
        match style {
            _ if empty => self.out.push_str("{}"),
            BlockStyle::Inline => self.inline_block(block),
            BlockStyle::Expanded => {
                let entries: Vec<Entry> = block.statements.iter().map(Entry::Statement).collect();
                self.out.push('{');
                self.nested(&entries, span, '}');
            }
        }
    }

    fn inline_block(&mut self, block: &Block) {
        self.out.push_str("{ ");
        for (i, statement) in block.statements.iter().enumerate() {
            if i > 0 {
                self.out.push_str("; ");
            }
            self.statement(statement, BlockStyle::Inline);
        }
        self.out.push_str(" }");
    }

    /// The entries of a multi-line block or list, one level deeper, then its closer
    /// on a line of its own.
    fn nested(&mut self, entries: &[Entry], span: Range<usize>, closer: char) {
        let bounds = Bounds {
            opener_end: Some(span.start + 1),
            closer_start: span.end.saturating_sub(1),
            top_level: false,
        };
        self.indent += 1;
        self.sequence(entries, &bounds);
        self.indent -= 1;
        self.begin_line();
        self.out.push(closer);
    }

    fn value(&mut self, value: &Value) {
        match &value.kind {
            ValueKind::Str {
                style: StringStyle::TextBlock,
                ..
            } => self.text_block(value.span.range()),
            ValueKind::List(items) => self.list(items, value.span.range()),
            _ => self.out.push_str(self.trivia.raw(value.span.range())),
        }
    }

    /// A list keeps the author's choice of one line or several: on one line it cannot
    /// hold comments or text blocks, so joining or splitting is never needed.
    fn list(&mut self, items: &[ListItem], span: Range<usize>) {
        let closer = span.end.saturating_sub(1);
        if !self.trivia.is_multiline(span.clone()) {
            self.out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.list_item(item);
            }
            self.out.push(']');
        } else if items.is_empty() && !self.trivia.has_comment_before(closer) {
            self.out.push_str("[]");
        } else {
            let entries: Vec<Entry> = items.iter().map(Entry::Item).collect();
            self.out.push('[');
            self.nested(&entries, span, ']');
        }
    }

    fn list_item(&mut self, item: &ListItem) {
        match item {
            ListItem::Value(value) => self.value(value),
            ListItem::Block(block) => {
                let style = if self.trivia.is_multiline(block.span.range()) {
                    BlockStyle::Expanded
                } else {
                    BlockStyle::Inline
                };
                self.block(block, style);
            }
        }
    }

    /// Content one level deeper than the line the text block opens on, closing quotes
    /// at that line's level.
    fn text_block(&mut self, span: Range<usize>) {
        self.out.push_str("\"\"\"\n");
        for line in body_lines(self.trivia.raw(span)) {
            if let BodyLine::Text(text) = line {
                self.indent += 1;
                self.begin_line();
                self.indent -= 1;
                self.out.push_str(text);
            }
            self.out.push('\n');
        }
        self.begin_line();
        self.out.push_str("\"\"\"");
    }
}
