//! Every CSV the project writes (`usage.csv`, `rows.csv`, `team.csv`) writes its text cells
//! through [`text`], so that no name read from the data opens in a spreadsheet as a formula
//! (CSV injection: a model, project or branch named `=HYPERLINK(…)`).
//!
//! The rule is OWASP's (the CSV Injection page) and ASVS 5's (V1.2.10): a text cell whose first
//! character a spreadsheet reads as the start of a formula gets a `'` before it, which the
//! spreadsheet takes as "this is text". Numbers the project writes are not text cells and stay
//! as they are (a negative figure stays a number). The fields are quoted as RFC 4180 says (the
//! `csv` crate's: every field holding a comma, a quote or a line break), so that no cell's text
//! can end its field and start another; the crate quotes per file, not per field, and a field
//! reads the same quoted or not, so a cell given a `'` is quoted only where RFC 4180 asks.

use std::borrow::Cow;

use serde::ser::{self, Serialize, Serializer};

/// What a spreadsheet reads as a formula's start when a cell begins with it: OWASP's `=`, `+`,
/// `-`, `@`, tab and carriage return, and ASVS's NUL.
const FORMULA_STARTS: [char; 7] = ['=', '+', '-', '@', '\t', '\r', '\0'];

/// A text cell as a spreadsheet must show it: with `'` before it when it begins as a formula.
pub fn text(cell: &str) -> Cow<'_, str> {
    match cell.starts_with(FORMULA_STARTS) {
        true => Cow::Owned(format!("'{cell}")),
        false => Cow::Borrowed(cell),
    }
}

/// A record (a struct of texts and numbers, as `csv::Writer::serialize` takes it) whose every
/// text is written as [`text`] makes it, its numbers as they are.
pub struct TextCells<'a, T: ?Sized>(pub &'a T);

impl<T: Serialize + ?Sized> Serialize for TextCells<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(Cells(serializer))
    }
}

/// A serializer that hands every string on as [`text`] makes it, and the rest as it is.
struct Cells<S>(S);

/// A struct's fields, each a record's cell.
struct Fields<S>(S);

impl<S: ser::SerializeStruct> ser::SerializeStruct for Fields<S> {
    type Ok = S::Ok;
    type Error = S::Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), S::Error> {
        self.0.serialize_field(key, &TextCells(value))
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), S::Error> {
        self.0.skip_field(key)
    }

    fn end(self) -> Result<S::Ok, S::Error> {
        self.0.end()
    }
}

/// The serializer's methods that hand a value on unchanged.
macro_rules! forward {
    ($($method:ident($($arg:ident: $type:ty),*) -> $out:ty;)*) => {
        $(fn $method(self, $($arg: $type),*) -> Result<$out, S::Error> {
            self.0.$method($($arg),*)
        })*
    };
}

impl<S: Serializer> Serializer for Cells<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    // A record's cells are a struct's fields; a CSV record holds no nested sequence or map, so
    // those are handed on as they are.
    type SerializeSeq = S::SerializeSeq;
    type SerializeTuple = S::SerializeTuple;
    type SerializeTupleStruct = S::SerializeTupleStruct;
    type SerializeTupleVariant = S::SerializeTupleVariant;
    type SerializeMap = S::SerializeMap;
    type SerializeStruct = Fields<S::SerializeStruct>;
    type SerializeStructVariant = S::SerializeStructVariant;

    fn serialize_str(self, value: &str) -> Result<S::Ok, S::Error> {
        self.0.serialize_str(&text(value))
    }

    fn serialize_char(self, value: char) -> Result<S::Ok, S::Error> {
        self.serialize_str(value.encode_utf8(&mut [0; 4]))
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.0.serialize_some(&TextCells(value))
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, name: &'static str, value: &T) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_struct(name, &TextCells(value))
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_variant(name, index, variant, &TextCells(value))
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Self::SerializeStruct, S::Error> {
        self.0.serialize_struct(name, len).map(Fields)
    }

    forward! {
        serialize_bool(value: bool) -> S::Ok;
        serialize_i8(value: i8) -> S::Ok;
        serialize_i16(value: i16) -> S::Ok;
        serialize_i32(value: i32) -> S::Ok;
        serialize_i64(value: i64) -> S::Ok;
        serialize_i128(value: i128) -> S::Ok;
        serialize_u8(value: u8) -> S::Ok;
        serialize_u16(value: u16) -> S::Ok;
        serialize_u32(value: u32) -> S::Ok;
        serialize_u64(value: u64) -> S::Ok;
        serialize_u128(value: u128) -> S::Ok;
        serialize_f32(value: f32) -> S::Ok;
        serialize_f64(value: f64) -> S::Ok;
        serialize_bytes(value: &[u8]) -> S::Ok;
        serialize_none() -> S::Ok;
        serialize_unit() -> S::Ok;
        serialize_unit_struct(name: &'static str) -> S::Ok;
        // A variant's name is the project's own word (`turn_type`'s `user`), never the data's.
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str) -> S::Ok;
        serialize_seq(len: Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(len: usize) -> Self::SerializeTuple;
        serialize_tuple_struct(name: &'static str, len: usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(name: &'static str, index: u32, variant: &'static str, len: usize)
            -> Self::SerializeTupleVariant;
        serialize_map(len: Option<usize>) -> Self::SerializeMap;
        serialize_struct_variant(name: &'static str, index: u32, variant: &'static str, len: usize)
            -> Self::SerializeStructVariant;
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_that_starts_as_a_formula_is_text() {
        for (cell, written) in [
            ("=HYPERLINK(\"http://x\",\"y\")", "'=HYPERLINK(\"http://x\",\"y\")"),
            ("+1", "'+1"),
            ("-2", "'-2"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tx", "'\tx"),
            ("\rx", "'\rx"),
            ("\0x", "'\0x"),
            ("gpt-5.4", "gpt-5.4"),
            ("a=b", "a=b"),
            ("'quoted", "'quoted"),
            ("", ""),
        ] {
            assert_eq!(text(cell), written, "{cell:?}");
        }
    }

    #[derive(serde::Serialize)]
    struct Record<'a> {
        name: &'a str,
        owned: String,
        count: i64,
        figure: Option<f64>,
        none: Option<String>,
        maybe: Option<&'a str>,
    }

    /// A record written as the CSV writers write theirs.
    fn written(record: &Record<'_>) -> String {
        let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
        writer.serialize(TextCells(record)).unwrap();
        String::from_utf8(writer.into_inner().unwrap()).unwrap()
    }

    #[test]
    fn a_record_gets_the_rule_in_its_texts_only() {
        let record =
            Record { name: "=1+2", owned: "-x".into(), count: -5, figure: Some(-1.5), none: None, maybe: Some("@a") };
        assert_eq!(written(&record), "'=1+2,'-x,-5,-1.5,,'@a\n");
        let plain = Record { name: "a", owned: "b".into(), count: 1, figure: None, none: None, maybe: None };
        let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
        writer.serialize(&plain).unwrap();
        assert_eq!(written(&plain).into_bytes(), writer.into_inner().unwrap(), "nothing else changes");
        // A quote in the text: the field is quoted and the quote doubled, the cell text still.
        let quoted = Record { name: "=\"a\",b", ..plain };
        let line = written(&quoted);
        assert_eq!(line, "\"'=\"\"a\"\",b\",b,1,,,\n");
        let read: Vec<String> = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(line.as_bytes())
            .records()
            .next()
            .unwrap()
            .unwrap()
            .iter()
            .map(str::to_string)
            .collect();
        assert_eq!(read[0], "'=\"a\",b");
    }
}
