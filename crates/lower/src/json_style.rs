//! The master JSON style: compact, one space inside non-empty braces and brackets,
//! `", "` between items, `": "` after keys, raw UTF-8, no trailing newline:
//! `{ "a": [ 1, 2 ], "b": {} }`.
//!
//! A value rendered in this style ahead of time ([`Rendered`]) is copied out as it is:
//! serde's bytes are this formatter's pre-rendered JSON, since the master holds no
//! byte arrays.

use std::io;

use serde::Serialize;
use serde_json::ser::Formatter;
use serde_json::Serializer;

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

/// A value already rendered in the master style, for [`write_master`] to copy out
/// unchanged (a large master's cases are rendered on every core, then written in
/// order). Only for a serializer of [`MasterFormatter`]: any other would write the
/// bytes as an array of numbers.
pub struct Rendered(pub Vec<u8>);

impl Serialize for Rendered {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl Formatter for MasterFormatter {
    /// Bytes are JSON rendered by this formatter ([`Rendered`]): copied as they are.
    fn write_byte_array<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        value: &[u8],
    ) -> io::Result<()> {
        writer.write_all(value)
    }

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
    let mut serializer = Serializer::with_formatter(writer, MasterFormatter::default());
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
    fn rendered_values_are_copied_as_they_are() {
        let inner = to_master_string(&json!({ "x": [1, "é\n"] }));
        let outer = [
            Rendered(inner.clone().into_bytes()),
            Rendered(b"{}".to_vec()),
        ];
        let mut out = Vec::new();
        write_master(&outer, &mut out).expect("writes to memory");
        let written = String::from_utf8(out).expect("UTF-8");
        assert_eq!(written, format!("[ {inner}, {{}} ]"));
        assert_eq!(written, to_master_string(&json!([{ "x": [1, "é\n"] }, {}])));
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
