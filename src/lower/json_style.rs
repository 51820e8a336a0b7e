//! The master JSON style: compact, one space inside non-empty braces and brackets,
//! `", "` between items, `": "` after keys, raw UTF-8, no trailing newline:
//! `{ "a": [ 1, 2 ], "b": {} }`.

use std::io;

use serde::Serialize;
use serde_json::ser::Formatter;

/// A serde_json formatter writing the master style.
#[derive(Default)]
pub struct MasterFormatter {
    /// For each open container, whether it has an element yet.
    open: Vec<bool>,
}

impl MasterFormatter {
    fn begin<W: ?Sized + io::Write>(&mut self, writer: &mut W, open: &[u8]) -> io::Result<()> {
        self.open.push(false);
        writer.write_all(open)
    }

    fn end<W: ?Sized + io::Write>(&mut self, writer: &mut W, close: &[u8]) -> io::Result<()> {
        if self.open.pop().unwrap_or(false) {
            writer.write_all(b" ")?;
        }
        writer.write_all(close)
    }

    fn element<W: ?Sized + io::Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        if let Some(has) = self.open.last_mut() {
            *has = true;
        }
        writer.write_all(if first { b" " } else { b", " })
    }
}

impl Formatter for MasterFormatter {
    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.begin(writer, b"[")
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.end(writer, b"]")
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.element(writer, first)
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.begin(writer, b"{")
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.end(writer, b"}")
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.element(writer, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }
}

/// Serializes any value in the master style.
pub fn to_master_string<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::with_capacity(4096);
    // Serializing plain data into a Vec cannot fail.
    if write_master(value, &mut out).is_err() {
        out.clear();
    }
    String::from_utf8(out).unwrap_or_default()
}

/// Writes any value in the master style to `writer`.
pub fn write_master<T: Serialize + ?Sized>(value: &T, writer: impl io::Write) -> io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(writer, MasterFormatter::default());
    value.serialize(&mut serializer).map_err(io::Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn writes_the_contract_example() {
        let v = json!({ "a": [1, 2], "b": {} });
        assert_eq!(to_master_string(&v), r#"{ "a": [ 1, 2 ], "b": {} }"#);
    }

    #[test]
    fn nested_and_empty_containers() {
        let v = json!([[], {}, [{}], { "x": [] }, "é\n\"", null, true]);
        assert_eq!(
            to_master_string(&v),
            r#"[ [], {}, [ {} ], { "x": [] }, "é\n\"", null, true ]"#
        );
    }
}
