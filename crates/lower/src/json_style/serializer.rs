//! The serializer of the master style: serde_json's, call for call, with a string
//! escape that skips eight bytes at a time.
//!
//! Strings are most of a master (a 10,000-case master is 40 MB of texts, ids and
//! keys), and serde_json escapes them a byte at a time: half of the time its workers
//! spent rendering cases. This serializer makes the calls serde_json's makes on the
//! same [`Formatter`], so the bytes are the same (a test holds it to serde_json's on
//! any JSON value); only the search for the next byte to escape differs.

use std::io;

use serde::ser::{self, Impossible, Serialize};
use serde_json::ser::{CharEscape, Formatter};
use serde_json::Error;

type Result<T = ()> = std::result::Result<T, Error>;

/// Writes values in a [`Formatter`]'s style into `writer`.
pub struct Serializer<W, F> {
    writer: W,
    formatter: F,
}

impl<W: io::Write, F: Formatter> Serializer<W, F> {
    pub fn with_formatter(writer: W, formatter: F) -> Self {
        Serializer { writer, formatter }
    }

    fn string(&mut self, value: &str) -> Result {
        let (w, f) = (&mut self.writer, &mut self.formatter);
        f.begin_string(w)
            .and_then(|()| escaped(w, f, value))
            .and_then(|()| f.end_string(w))
            .map_err(Error::io)
    }

    /// A value the formatter writes in one call, such as a number.
    fn with(&mut self, write: impl FnOnce(&mut F, &mut W) -> io::Result<()>) -> Result {
        write(&mut self.formatter, &mut self.writer).map_err(Error::io)
    }

    /// A value written as a string, as serde_json writes a map key that is not one.
    fn quoted(&mut self, write: impl FnOnce(&mut F, &mut W) -> io::Result<()>) -> Result {
        let (w, f) = (&mut self.writer, &mut self.formatter);
        f.begin_string(w)
            .and_then(|()| write(f, w))
            .and_then(|()| f.end_string(w))
            .map_err(Error::io)
    }
}

/// The contents of a JSON string: runs of bytes that need no escape written whole,
/// each other byte escaped as serde_json escapes it.
fn escaped<W: io::Write, F: Formatter>(w: &mut W, f: &mut F, value: &str) -> io::Result<()> {
    let bytes = value.as_bytes();
    let mut start = 0;
    loop {
        let at = next_escape(bytes, start);
        if at > start {
            // A run ends before an ASCII byte or at the end: it is whole characters.
            f.write_string_fragment(w, &value[start..at])?;
        }
        let Some(&byte) = bytes.get(at) else {
            return Ok(());
        };
        f.write_char_escape(w, char_escape(byte))?;
        start = at + 1;
    }
}

/// The escape of a byte [`needs_escape`] says needs one.
fn char_escape(byte: u8) -> CharEscape {
    match byte {
        b'"' => CharEscape::Quote,
        b'\\' => CharEscape::ReverseSolidus,
        b'\x08' => CharEscape::Backspace,
        b'\x0c' => CharEscape::FormFeed,
        b'\n' => CharEscape::LineFeed,
        b'\r' => CharEscape::CarriageReturn,
        b'\t' => CharEscape::Tab,
        control => CharEscape::AsciiControl(control),
    }
}

/// What JSON escapes: a quote, a backslash, a control character below U+0020.
fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// The first byte at or after `from` that needs an escape, or the length.
fn next_escape(bytes: &[u8], from: usize) -> usize {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // A word's high bits where it holds a zero byte, or a byte below 0x20: exact
    // for whether there is one, which is all that is asked (the byte is then found
    // one at a time); stray bits above a hit do not matter.
    let zeros = |x: u64| x.wrapping_sub(ONES) & !x;
    let below_space = |x: u64| x.wrapping_sub(ONES * 0x20) & !x;
    let mut at = from;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_ne_bytes(word);
        let hits = zeros(x ^ (ONES * u64::from(b'"')))
            | zeros(x ^ (ONES * u64::from(b'\\')))
            | below_space(x);
        if hits & HIGHS != 0 {
            break;
        }
        at += 8;
    }
    bytes[at..]
        .iter()
        .position(|&b| needs_escape(b))
        .map_or(bytes.len(), |i| at + i)
}

/// The integer methods of a serializer, each writing its number with the formatter
/// through `self.$write` (`with`: as it is; `quoted`: quoted, as a map key).
macro_rules! numbers {
    ($write:ident) => {
        numbers!(@ $write
            serialize_i8 write_i8 i8, serialize_i16 write_i16 i16,
            serialize_i32 write_i32 i32, serialize_i64 write_i64 i64,
            serialize_i128 write_i128 i128, serialize_u8 write_u8 u8,
            serialize_u16 write_u16 u16, serialize_u32 write_u32 u32,
            serialize_u64 write_u64 u64, serialize_u128 write_u128 u128);
    };
    (@ $write:ident $($method:ident $format:ident $ty:ty),*) => {$(
        fn $method(self, v: $ty) -> Result {
            self.$write(|f, w| f.$format(w, v))
        }
    )*};
}

impl<'a, W: io::Write, F: Formatter> ser::Serializer for &'a mut Serializer<W, F> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, W, F>;
    type SerializeTuple = Compound<'a, W, F>;
    type SerializeTupleStruct = Compound<'a, W, F>;
    type SerializeTupleVariant = Compound<'a, W, F>;
    type SerializeMap = Compound<'a, W, F>;
    type SerializeStruct = Compound<'a, W, F>;
    type SerializeStructVariant = Compound<'a, W, F>;

    fn serialize_bool(self, v: bool) -> Result {
        self.with(|f, w| f.write_bool(w, v))
    }
    numbers!(with);
    /// As serde_json: a number that is not finite is `null`.
    fn serialize_f32(self, v: f32) -> Result {
        match v.is_finite() {
            true => self.with(|f, w| f.write_f32(w, v)),
            false => self.serialize_unit(),
        }
    }
    fn serialize_f64(self, v: f64) -> Result {
        match v.is_finite() {
            true => self.with(|f, w| f.write_f64(w, v)),
            false => self.serialize_unit(),
        }
    }
    fn serialize_char(self, v: char) -> Result {
        self.string(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result {
        self.string(v)
    }
    /// The formatter's byte arrays: the master's are pre-rendered JSON
    /// ([`super::Rendered`]).
    fn serialize_bytes(self, v: &[u8]) -> Result {
        self.with(|f, w| f.write_byte_array(w, v))
    }
    fn serialize_none(self) -> Result {
        self.serialize_unit()
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result {
        self.with(|f, w| f.write_null(w))
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _name: &'static str, _i: u32, variant: &'static str) -> Result {
        self.string(variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result {
        value.serialize(self)
    }
    /// `{ "variant": value }`.
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        value: &T,
    ) -> Result {
        let mut map = self.serialize_map(Some(1))?;
        ser::SerializeMap::serialize_entry(&mut map, variant, value)?;
        ser::SerializeMap::end(map)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'a, W, F>> {
        self.with(|f, w| f.begin_array(w))?;
        Ok(Compound::new(self, Close::Array))
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, W, F>> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a, W, F>> {
        self.serialize_seq(Some(len))
    }
    /// `{ "variant": [ … ] }`.
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, W, F>> {
        self.variant(variant, Close::ArrayInVariant)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'a, W, F>> {
        self.with(|f, w| f.begin_object(w))?;
        Ok(Compound::new(self, Close::Object))
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a, W, F>> {
        self.serialize_map(Some(len))
    }
    /// `{ "variant": { … } }`.
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _i: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'a, W, F>> {
        self.variant(variant, Close::ObjectInVariant)
    }
}

impl<W: io::Write, F: Formatter> Serializer<W, F> {
    /// Opens `{ "variant": ` and the array or object of a variant's fields.
    fn variant(&mut self, variant: &str, close: Close) -> Result<Compound<'_, W, F>> {
        self.with(|f, w| f.begin_object(w).and_then(|()| f.begin_object_key(w, true)))?;
        self.string(variant)?;
        self.with(|f, w| {
            f.end_object_key(w)?;
            f.begin_object_value(w)?;
            match close {
                Close::ArrayInVariant => f.begin_array(w),
                _ => f.begin_object(w),
            }
        })?;
        Ok(Compound::new(self, close))
    }
}

/// What closes a compound value.
#[derive(Clone, Copy, PartialEq)]
enum Close {
    Array,
    Object,
    /// An array, then the object of its variant.
    ArrayInVariant,
    /// An object, then the object of its variant.
    ObjectInVariant,
}

/// An array or object being written.
pub struct Compound<'a, W, F> {
    ser: &'a mut Serializer<W, F>,
    close: Close,
    first: bool,
}

impl<'a, W: io::Write, F: Formatter> Compound<'a, W, F> {
    fn new(ser: &'a mut Serializer<W, F>, close: Close) -> Self {
        Compound {
            ser,
            close,
            first: true,
        }
    }

    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
        let first = std::mem::replace(&mut self.first, false);
        self.ser.with(|f, w| f.begin_array_value(w, first))?;
        value.serialize(&mut *self.ser)?;
        self.ser.with(|f, w| f.end_array_value(w))
    }

    fn key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result {
        let first = std::mem::replace(&mut self.first, false);
        self.ser.with(|f, w| f.begin_object_key(w, first))?;
        key.serialize(MapKey {
            ser: &mut *self.ser,
        })?;
        self.ser.with(|f, w| f.end_object_key(w))
    }

    fn value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
        self.ser.with(|f, w| f.begin_object_value(w))?;
        value.serialize(&mut *self.ser)?;
        self.ser.with(|f, w| f.end_object_value(w))
    }

    fn end(self) -> Result {
        let close = self.close;
        self.ser.with(|f, w| match close {
            Close::Array => f.end_array(w),
            Close::Object => f.end_object(w),
            Close::ArrayInVariant => f
                .end_array(w)
                .and_then(|()| f.end_object_value(w))
                .and_then(|()| f.end_object(w)),
            Close::ObjectInVariant => f
                .end_object(w)
                .and_then(|()| f.end_object_value(w))
                .and_then(|()| f.end_object(w)),
        })
    }
}

/// The compound traits that write elements, by the name of their method.
macro_rules! elements {
    ($($tr:ident::$method:ident),*) => {$(
        impl<W: io::Write, F: Formatter> ser::$tr for Compound<'_, W, F> {
            type Ok = ();
            type Error = Error;
            fn $method<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
                self.element(value)
            }
            fn end(self) -> Result {
                Compound::end(self)
            }
        }
    )*};
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl<W: io::Write, F: Formatter> ser::SerializeMap for Compound<'_, W, F> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result {
        self.key(key)
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result {
        self.value(value)
    }
    fn end(self) -> Result {
        Compound::end(self)
    }
}

/// The compound traits that write named fields.
macro_rules! fields {
    ($($tr:ident),*) => {$(
        impl<W: io::Write, F: Formatter> ser::$tr for Compound<'_, W, F> {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result {
                self.key(key)?;
                self.value(value)
            }
            fn end(self) -> Result {
                Compound::end(self)
            }
        }
    )*};
}

fields!(SerializeStruct, SerializeStructVariant);

/// A map key, as serde_json writes one: a string as it is; a finite number, a boolean
/// or a character quoted; what an option holds; anything else an error.
struct MapKey<'a, W, F> {
    ser: &'a mut Serializer<W, F>,
}

impl<W: io::Write, F: Formatter> MapKey<'_, W, F> {
    fn quoted(self, write: impl FnOnce(&mut F, &mut W) -> io::Result<()>) -> Result {
        self.ser.quoted(write)
    }
}

fn key_must_be_a_string() -> Error {
    ser::Error::custom("key must be a string")
}

fn float_key_must_be_finite() -> Error {
    ser::Error::custom("float key must be finite (got NaN or +/-inf)")
}

impl<W: io::Write, F: Formatter> ser::Serializer for MapKey<'_, W, F> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result {
        self.ser.string(v)
    }
    fn serialize_char(self, v: char) -> Result {
        self.ser.string(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_unit_variant(self, _name: &'static str, _i: u32, variant: &'static str) -> Result {
        self.ser.string(variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result {
        value.serialize(self)
    }
    fn serialize_bool(self, v: bool) -> Result {
        self.quoted(|f, w| f.write_bool(w, v))
    }
    numbers!(quoted);
    fn serialize_f32(self, v: f32) -> Result {
        match v.is_finite() {
            true => self.quoted(|f, w| f.write_f32(w, v)),
            false => Err(float_key_must_be_finite()),
        }
    }
    fn serialize_f64(self, v: f64) -> Result {
        match v.is_finite() {
            true => self.quoted(|f, w| f.write_f64(w, v)),
            false => Err(float_key_must_be_finite()),
        }
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_none(self) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _name: &'static str,
        _i: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Impossible<(), Error>> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Impossible<(), Error>> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Impossible<(), Error>> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _i: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Impossible<(), Error>> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Impossible<(), Error>> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Impossible<(), Error>> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _i: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Impossible<(), Error>> {
        Err(key_must_be_a_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_style::MasterFormatter;
    use proptest::prelude::*;
    use serde_json::Value;

    fn ours<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        value.serialize(&mut Serializer::with_formatter(
            &mut out,
            MasterFormatter::default(),
        ))?;
        Ok(out)
    }

    fn serde_jsons<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut ser = serde_json::Serializer::with_formatter(&mut out, MasterFormatter::default());
        value.serialize(&mut ser)?;
        Ok(out)
    }

    /// Any JSON value, with strings of every kind of byte that escapes or not.
    fn json() -> impl Strategy<Value = Value> {
        let text = "[\\x00-\\x20\"\\\\/a-zé€😀\u{7f}\u{2028}]{0,40}";
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            text.prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 8, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::vec((text, inner), 0..8)
                    .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn writes_what_serde_json_writes(value in json()) {
            prop_assert_eq!(ours(&value).unwrap(), serde_jsons(&value).unwrap());
        }

        #[test]
        fn finds_each_byte_to_escape(bytes in prop::collection::vec(any::<u8>(), 0..64), from in 0usize..64) {
            let bytes = bytes.as_slice();
            let from = from.min(bytes.len());
            let expected = bytes[from..]
                .iter()
                .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
                .map_or(bytes.len(), |i| from + i);
            prop_assert_eq!(next_escape(bytes, from), expected);
        }
    }

    #[derive(serde::Serialize)]
    enum Variants {
        Unit,
        Newtype(u8),
        Tuple(u8, &'static str),
        Struct { a: Option<u8>, b: char },
    }

    #[derive(serde::Serialize)]
    struct Record<'a> {
        name: &'a str,
        unit: (),
        list: Vec<Variants>,
        keys: std::collections::BTreeMap<i32, bool>,
        flags: std::collections::BTreeMap<bool, f32>,
        bytes: crate::json_style::Rendered,
    }

    #[test]
    fn writes_what_serde_json_writes_for_every_serde_type() {
        let record = Record {
            name: "a\u{1}b\"",
            unit: (),
            list: vec![
                Variants::Unit,
                Variants::Newtype(7),
                Variants::Tuple(1, "x"),
                Variants::Struct { a: None, b: '\n' },
            ],
            keys: [(-1, true), (2, false)].into_iter().collect(),
            flags: [(true, f32::NAN)].into_iter().collect(),
            bytes: crate::json_style::Rendered(b"[ 1 ]".to_vec()),
        };
        assert_eq!(ours(&record).unwrap(), serde_jsons(&record).unwrap());
    }

    /// A key that serializes as a float that is not a number.
    #[derive(PartialEq, Eq, Hash)]
    struct OrderedNan;

    impl Serialize for OrderedNan {
        fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            s.serialize_f64(f64::NAN)
        }
    }

    #[test]
    fn refuses_the_keys_serde_json_refuses() {
        let keyed_by_list: std::collections::BTreeMap<Vec<u8>, u8> =
            [(vec![1], 1)].into_iter().collect();
        assert!(ours(&keyed_by_list).is_err() && serde_jsons(&keyed_by_list).is_err());
        let keyed_by_option: std::collections::BTreeMap<Option<u8>, u8> =
            [(Some(1), 1)].into_iter().collect();
        assert_eq!(
            ours(&keyed_by_option).unwrap(),
            serde_jsons(&keyed_by_option).unwrap()
        );
        let keyed_by_nan = std::collections::HashMap::from([(OrderedNan, 1)]);
        assert!(ours(&keyed_by_nan).is_err() && serde_jsons(&keyed_by_nan).is_err());
    }
}
