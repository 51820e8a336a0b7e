//! Source files and positions.
//!
//! Every phase refers to text through a [`Span`]: a file id plus a byte range. The
//! [`SourceDb`] owns the text of every file of a run (suite files, stdlib, in-memory
//! sources) and a [`LineIndex`] per file, made the first time a position in it is asked
//! for, so turning a byte offset into a line and column is a binary search rather than a
//! rescan of the file.

use std::ops::Range;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Identifies one file inside a [`SourceDb`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A byte range in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

/// A set of spans. Spans are hashed often (each text of each case, to see it once) and
/// come from the sources, not from an adversary: a fast hash, not a DoS-resistant one.
pub type SpanSet = std::collections::HashSet<Span, foldhash::fast::FixedState>;

/// The lines of `text` that are not blank, each with its span in `file` (up to its last
/// character that is not a space): how line-by-line inputs (traces, overrides) are read.
pub fn nonblank_lines(file: FileId, text: &str) -> impl Iterator<Item = (Span, &str)> + '_ {
    let mut offset = 0;
    text.split_inclusive('\n').filter_map(move |line| {
        let span = Span::new(file, offset..offset + line.trim_end().len());
        offset += line.len();
        (!line.trim().is_empty()).then_some((span, line))
    })
}

impl Span {
    /// The first line of this span in `text` (its file's): where a message about a whole
    /// multi-line value (a JSON record) points.
    pub fn first_line(self, text: &str) -> Span {
        let end = text
            .get(self.start as usize..self.end as usize)
            .and_then(|t| t.find('\n'))
            .map_or(self.end as usize, |n| self.start as usize + n);
        Span::new(self.file, self.start as usize..end)
    }

    pub fn new(file: FileId, range: Range<usize>) -> Span {
        Span {
            file,
            start: range.start as u32,
            end: range.end as u32,
        }
    }

    pub fn range(&self) -> Range<usize> {
        self.start as usize..self.end as usize
    }

    /// The smallest span covering both (same file assumed).
    pub fn to(&self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// One-based line and column; the column counts Unicode scalar values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

/// Start offsets of every line of a text, built once per file.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        // Sized exactly: a suite of many small files keeps one index per file.
        let lines = 1 + text.bytes().filter(|&b| b == b'\n').count();
        let mut line_starts = Vec::with_capacity(lines);
        line_starts.push(0);
        // Lines are short: a plain scan beats a search call per line.
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { line_starts }
    }

    /// Zero-based line number containing `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next - 1,
        }
    }

    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts[line]
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// One-based line and column of a byte offset; offsets inside a multi-byte
    /// character or past the end are clamped.
    pub fn line_col(&self, text: &str, offset: usize) -> LineCol {
        let (line, before) = self.before(text, offset);
        LineCol {
            line: line + 1,
            column: before.chars().count() + 1,
        }
    }

    /// Zero-based line and UTF-16 column, as the Language Server Protocol counts.
    pub fn line_utf16(&self, text: &str, offset: usize) -> (usize, usize) {
        let (line, before) = self.before(text, offset);
        (line, before.encode_utf16().count())
    }

    /// The zero-based line of `offset` and the text of that line before it. A byte
    /// order mark opening the file is not counted: editors do not show it, and the text
    /// a language client sends leaves it out.
    fn before<'t>(&self, text: &'t str, offset: usize) -> (usize, &'t str) {
        let offset = clamp_to_char_boundary(text, offset);
        let line = self.line_of(offset);
        let start = self.line_starts[line];
        let before = &text[start..offset];
        match line {
            0 => (line, before.strip_prefix('\u{FEFF}').unwrap_or(before)),
            _ => (line, before),
        }
    }
}

fn clamp_to_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// A file's display name, text and line index.
#[derive(Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: Arc<str>,
    /// Made the first time a position in the file is asked for: a build without
    /// diagnostics never needs one, and a large suite has one per file.
    lines: OnceLock<LineIndex>,
    pub origin: Origin,
    /// The file on disk the text was read from, when it was.
    pub disk: Option<DiskId>,
}

/// Which file on disk a source was read from: its device and inode, taken from the
/// open file as it was read (no other system call), so that a command can refuse an
/// output that is one of its inputs without a `stat` of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiskId {
    pub device: u64,
    pub inode: u64,
}

impl DiskId {
    /// The identity of an open file's metadata (none where the platform gives none).
    pub fn of(metadata: &std::fs::Metadata) -> Option<DiskId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(DiskId {
                device: metadata.dev(),
                inode: metadata.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = metadata;
            None
        }
    }
}

impl SourceFile {
    /// The file's line index.
    pub fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }
}

/// What a file is to its suite (set when it is loaded, read when it is resolved).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `suite.case`: the only place for `suite`, `tool` and `category`.
    SuiteFile,
    /// Any other file of the suite folder.
    Member,
    /// An embedded stdlib file: profiles only, named `std.<name>`.
    Stdlib,
}

/// Where a file came from: the user's files or the embedded standard library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    User,
    Stdlib,
}

/// All files of one compilation.
#[derive(Debug, Default)]
pub struct SourceDb {
    files: Vec<SourceFile>,
}

impl SourceDb {
    pub fn new() -> SourceDb {
        SourceDb::default()
    }

    pub fn add(
        &mut self,
        name: impl Into<String>,
        text: impl Into<Arc<str>>,
        origin: Origin,
    ) -> FileId {
        self.add_read(name, text, origin, None)
    }

    /// [`SourceDb::add`], for a text read from the file `disk`.
    pub fn add_read(
        &mut self,
        name: impl Into<String>,
        text: impl Into<Arc<str>>,
        origin: Origin,
        disk: Option<DiskId>,
    ) -> FileId {
        let text = text.into();
        let id = FileId(self.files.len() as u32);
        self.files.push(SourceFile {
            name: name.into(),
            lines: OnceLock::new(),
            text,
            origin,
            disk,
        });
        id
    }

    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    pub fn slice(&self, span: Span) -> &str {
        let text = &self.file(span.file).text;
        text.get(span.range()).unwrap_or("")
    }

    pub fn line_col(&self, file: FileId, offset: usize) -> LineCol {
        let f = self.file(file);
        f.lines().line_col(&f.text, offset)
    }
}

/// `path` (absolute) with `.` and `..` resolved by its text, as written: no link is
/// followed, so the answer does not depend on the disk.
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters_from_one() {
        let text = "ab\ncé\n\nx";
        let index = LineIndex::new(text);
        assert_eq!(index.line_col(text, 0), LineCol { line: 1, column: 1 });
        assert_eq!(index.line_col(text, 3), LineCol { line: 2, column: 1 });
        assert_eq!(index.line_col(text, 6), LineCol { line: 2, column: 3 });
        assert_eq!(index.line_col(text, 7), LineCol { line: 3, column: 1 });
        assert_eq!(index.line_col(text, 8), LineCol { line: 4, column: 1 });
        assert_eq!(index.line_col(text, 99), LineCol { line: 4, column: 2 });
    }

    #[test]
    fn offsets_inside_a_character_are_clamped() {
        let text = "é";
        let index = LineIndex::new(text);
        assert_eq!(index.line_col(text, 1), LineCol { line: 1, column: 1 });
    }

    #[test]
    fn a_byte_order_mark_takes_no_column() {
        let text = "\u{FEFF}case X\nb";
        let index = LineIndex::new(text);
        assert_eq!(index.line_col(text, 3), LineCol { line: 1, column: 1 });
        assert_eq!(index.line_col(text, 8), LineCol { line: 1, column: 6 });
        assert_eq!(index.line_utf16(text, 8), (0, 5));
        assert_eq!(index.line_col(text, 10), LineCol { line: 2, column: 1 });
    }

    #[test]
    fn utf16_columns_count_surrogate_pairs() {
        let text = "a😀b";
        let index = LineIndex::new(text);
        assert_eq!(index.line_utf16(text, 5), (0, 3));
    }
}
