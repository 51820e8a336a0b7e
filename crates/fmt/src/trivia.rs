//! What the syntax tree leaves out and the formatter must keep: comments, and where the
//! author left blank lines.
//!
//! Comments are handed out strictly in source order through one cursor, and every
//! request takes all comments before some position. Because the file's last request
//! takes everything before the end of the file, each comment is written exactly once.

use std::ops::Range;

use crate::syntax::ast::File;

pub(super) struct Trivia<'a> {
    text: &'a str,
    comments: Vec<Range<usize>>,
    next: usize,
}

impl<'a> Trivia<'a> {
    pub(super) fn new(text: &'a str, file: &File) -> Trivia<'a> {
        let mut comments: Vec<Range<usize>> = file.comments.iter().map(|c| c.range()).collect();
        comments.sort_by_key(|c| c.start);
        Trivia {
            text,
            comments,
            next: 0,
        }
    }

    /// The source text of `range` (empty if the range does not fit the text).
    pub(super) fn raw(&self, range: Range<usize>) -> &'a str {
        self.text.get(range).unwrap_or("")
    }

    /// A comment as written, without trailing spaces.
    pub(super) fn comment_text(&self, comment: &Range<usize>) -> &'a str {
        self.raw(comment.clone()).trim_end()
    }

    /// Takes the next comment if it starts before `limit`.
    pub(super) fn take_before(&mut self, limit: usize) -> Option<Range<usize>> {
        let comment = self.comments.get(self.next).filter(|c| c.start < limit)?;
        self.next += 1;
        Some(comment.clone())
    }

    /// Takes the next comment if it starts before `limit` on the line where `end` is.
    pub(super) fn take_same_line(&mut self, end: usize, limit: usize) -> Option<Range<usize>> {
        let comment = self.comments.get(self.next)?;
        if comment.start < end || comment.start >= limit || self.line_breaks(end, comment.start) > 0
        {
            return None;
        }
        self.take_before(limit)
    }

    /// Whether a comment remains before `limit`.
    pub(super) fn has_comment_before(&self, limit: usize) -> bool {
        self.comments
            .get(self.next)
            .is_some_and(|c| c.start < limit)
    }

    /// Whether the author left at least one blank line between `from` and `to`. Only
    /// separators lie between two elements, so two line breaks mean an empty line (a
    /// line holding nothing but `;` counts as empty).
    pub(super) fn blank_between(&self, from: usize, to: usize) -> bool {
        self.line_breaks(from, to) >= 2
    }

    /// Whether the source of `range` spans more than one line.
    pub(super) fn is_multiline(&self, range: Range<usize>) -> bool {
        self.line_breaks(range.start, range.end) > 0
    }

    fn line_breaks(&self, from: usize, to: usize) -> usize {
        self.text
            .get(from..to)
            .map_or(0, |gap| gap.bytes().filter(|&b| b == b'\n').count())
    }
}
