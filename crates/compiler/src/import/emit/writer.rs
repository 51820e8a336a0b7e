//! Indented `.case` text in the canonical layout of `casec fmt`.

use crate::syntax::strings::{foldable, quote, wrap};

/// Lines longer than this get a text block, when the text folds back unchanged.
const WIDTH: usize = 100;

/// Builds indented source text.
pub(super) struct Writer {
    pub(super) out: String,
    pub(super) indent: usize,
}

impl Writer {
    pub(super) fn new() -> Writer {
        Writer {
            out: String::new(),
            indent: 0,
        }
    }

    pub(super) fn line(&mut self, text: &str) {
        if !text.is_empty() {
            self.out.push_str(&"  ".repeat(self.indent));
            self.out.push_str(text);
        }
        self.out.push('\n');
    }

    pub(super) fn blank(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with("\n\n") && !self.out.ends_with("{\n") {
            self.out.push('\n');
        }
    }

    pub(super) fn open(&mut self, header: &str) {
        self.line(&format!("{header} {{"));
        self.indent += 1;
    }

    pub(super) fn close(&mut self) {
        self.indent -= 1;
        self.line("}");
    }

    /// `key "text"`, or a text block when the line would be too long and the text
    /// folds back unchanged.
    pub(super) fn text(&mut self, key: &str, text: &str) {
        let quoted = quote(text);
        let width = self.indent * 2 + key.len() + 1 + quoted.chars().count();
        let available = WIDTH.saturating_sub(self.indent * 2 + 2).max(20);
        let lines = wrap(text, available);
        if width <= WIDTH || !foldable(text) || lines.len() < 2 {
            self.line(&format!("{key} {quoted}"));
            return;
        }
        self.line(&format!("{key} \"\"\""));
        self.indent += 1;
        for line in lines {
            self.line(line);
        }
        self.indent -= 1;
        self.line("\"\"\"");
    }
}

/// A name as written: bare when it is a valid identifier, else quoted.
pub(super) fn word(text: &str) -> String {
    if is_ident(text) {
        text.to_string()
    } else {
        quote(text)
    }
}

/// Whether `text` can be written as a bare name (the grammar's `ident`).
pub fn is_ident(text: &str) -> bool {
    let mut chars = text.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
}
