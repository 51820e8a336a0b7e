//! Reading lines of a stream with a cap on their length, so that a peer that never
//! sends a line break (or sends gigabytes before one) costs a bounded amount of memory
//! instead of growing a buffer until the process aborts. A line over the cap is skipped
//! to its end, a buffer at a time, and reported, so the reader can answer it and go on.

use std::io::{self, BufRead};

/// What [`read_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line of at most the cap's length is in the buffer, with its `\n` when it had
    /// one (the last line of the input may have none).
    Read,
    /// A line longer than the cap: it was read to its `\n` (or the end of the input)
    /// and dropped; the buffer is empty.
    TooLong,
    /// The input ended before any byte of a new line.
    End,
}

/// Reads the next line of `input` into `line` (cleared first), keeping at most `max`
/// bytes of it, its `\n` included.
pub fn read_line(input: &mut impl BufRead, max: usize, line: &mut Vec<u8>) -> io::Result<Line> {
    line.clear();
    let mut length = 0usize;
    loop {
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(match length {
                0 => Line::End,
                n if n > max => Line::TooLong,
                _ => Line::Read,
            });
        }
        let (taken, ended) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        length = length.saturating_add(taken);
        if length <= max {
            line.extend_from_slice(&available[..taken]);
        } else {
            line.clear();
        }
        input.consume(taken);
        if ended {
            return Ok(if length > max {
                Line::TooLong
            } else {
                Line::Read
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every read of `input` with cap `max`: the kind, and the line's text.
    fn lines(input: &[u8], max: usize) -> Vec<(Line, String)> {
        // A small buffer, so that lines span several fills.
        let mut reader = io::BufReader::with_capacity(3, input);
        let mut line = Vec::new();
        let mut out = Vec::new();
        loop {
            let kind = read_line(&mut reader, max, &mut line).expect("a slice reads");
            let end = kind == Line::End;
            out.push((kind, String::from_utf8_lossy(&line).into_owned()));
            if end {
                return out;
            }
        }
    }

    #[test]
    fn lines_within_the_cap_are_read_whole() {
        assert_eq!(
            lines(b"ab\n\ncdef\nlast", 5),
            [
                (Line::Read, "ab\n".into()),
                (Line::Read, "\n".into()),
                (Line::Read, "cdef\n".into()),
                (Line::Read, "last".into()),
                (Line::End, String::new()),
            ]
        );
    }

    #[test]
    fn a_line_over_the_cap_is_skipped_and_the_next_is_read() {
        assert_eq!(
            lines(b"abcdef\nok\nendless without a break", 5),
            [
                (Line::TooLong, String::new()),
                (Line::Read, "ok\n".into()),
                (Line::TooLong, String::new()),
                (Line::End, String::new()),
            ]
        );
    }

    #[test]
    fn the_cap_counts_the_line_break() {
        assert_eq!(lines(b"abcd\n", 5)[0], (Line::Read, "abcd\n".into()));
        assert_eq!(lines(b"abcde\n", 5)[0], (Line::TooLong, String::new()));
    }
}
