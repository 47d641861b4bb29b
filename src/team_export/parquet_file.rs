//! The team export as Parquet, through the `parquet` crate's column writers (no arrow): one row
//! group, Snappy, `day` a DATE, counts INT64, credits DOUBLE, the columns of `COLUMNS` in order.

use std::io::Write;
use std::sync::Arc;

use chrono::NaiveDate;
use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
use parquet::errors::{ParquetError, Result};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::{SerializedColumnWriter, SerializedFileWriter};
use parquet::schema::parser::parse_message_type;

use super::{COLUMNS, TeamRow};
use crate::usage::TokenColumns;

/// The file's schema: each column of `COLUMNS` typed as `write_column` writes it.
fn schema() -> String {
    let mut schema = String::from("message team_usage {\n");
    for name in COLUMNS {
        let column = match name {
            "day" => format!("required int32 {name} (DATE)"),
            name if TokenColumns::NAMES.contains(&name) => format!("required int64 {name}"),
            "recorded_nano_aiu" | "cost_usd_micros" => format!("optional int64 {name}"),
            "credits" | "premium_requests" => format!("optional double {name}"),
            text => format!("required binary {text} (STRING)"),
        };
        schema.push_str(&format!("    {column};\n"));
    }
    schema.push('}');
    schema
}

/// Writes the rows as one Parquet file.
pub fn write<W: Write + Send>(rows: &[TeamRow], out: W) -> Result<()> {
    let schema = Arc::new(parse_message_type(&schema())?);
    let properties = Arc::new(WriterProperties::builder().set_compression(Compression::SNAPPY).build());
    let mut writer = SerializedFileWriter::new(out, schema, properties)?;
    let mut group = writer.next_row_group()?;
    let mut names = COLUMNS.iter();
    while let Some(mut column) = group.next_column()? {
        let name = names.next().ok_or_else(|| ParquetError::General("more columns than named".into()))?;
        write_column(&mut column, name, rows)?;
        column.close()?;
    }
    group.close()?;
    writer.close()?;
    Ok(())
}

fn write_column(column: &mut SerializedColumnWriter<'_>, name: &str, rows: &[TeamRow]) -> Result<()> {
    match name {
        "day" => {
            let days: Vec<i32> = rows.iter().map(|row| days_since_epoch(&row.day)).collect();
            column.typed::<Int32Type>().write_batch(&days, None, None)?;
        }
        name if TokenColumns::NAMES.contains(&name) => {
            let counts: Vec<i64> = rows.iter().map(|row| signed(row.tokens.get(name).unwrap_or_default())).collect();
            column.typed::<Int64Type>().write_batch(&counts, None, None)?;
        }
        "recorded_nano_aiu" | "cost_usd_micros" => {
            let values = rows.iter().map(|row| {
                if name == "recorded_nano_aiu" { row.recorded_nano_aiu } else { row.cost_usd_micros }.map(signed)
            });
            let (present, levels) = optional(values);
            column.typed::<Int64Type>().write_batch(&present, Some(&levels), None)?;
        }
        "credits" | "premium_requests" => {
            let values = rows.iter().map(|row| if name == "credits" { row.credits } else { row.premium_requests });
            let (present, levels) = optional(values);
            column.typed::<DoubleType>().write_batch(&present, Some(&levels), None)?;
        }
        text => {
            let texts: Vec<ByteArray> = rows.iter().map(|row| ByteArray::from(text_of(row, text))).collect();
            column.typed::<ByteArrayType>().write_batch(&texts, None, None)?;
        }
    }
    Ok(())
}

/// The values present, and each row's definition level (1 present, 0 null).
fn optional<T>(values: impl Iterator<Item = Option<T>>) -> (Vec<T>, Vec<i16>) {
    let mut present = Vec::new();
    let levels = values
        .map(|value| match value {
            Some(value) => {
                present.push(value);
                1
            }
            None => 0,
        })
        .collect();
    (present, levels)
}

fn text_of<'a>(row: &'a TeamRow, name: &str) -> &'a str {
    match name {
        "key" => &row.key,
        "user" => &row.user,
        "machine" => &row.machine,
        "agent" => row.agent,
        "model" => &row.model,
        "project" => &row.project,
        "kind" => row.kind,
        "credits_from" => row.credits_from,
        "flags" => &row.flags,
        "exported_at" => &row.exported_at,
        _ => row.tool_version,
    }
}

/// Counts are far below `i64::MAX`; one that is not is held at it rather than wrapped.
fn signed(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

fn days_since_epoch(day: &str) -> i32 {
    let day = day.parse::<NaiveDate>().unwrap_or_default();
    (day - NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default()).num_days() as i32
}

#[cfg(test)]
mod tests {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::Field;

    use super::*;

    #[test]
    fn the_file_holds_the_columns_in_order_with_their_values_and_nulls() {
        let row = |day: &str, credits: Option<f64>| TeamRow {
            key: format!("key-{day}"),
            user: "mona".into(),
            machine: "laptop".into(),
            day: day.into(),
            agent: "copilot-cli",
            model: "gpt-5.4".into(),
            project: String::new(),
            kind: "counted",
            tokens: TokenColumns {
                requests: 1,
                input: 2,
                cache_read: 3,
                cache_write: 4,
                output: 5,
                reasoning: 6,
                total: 14,
            },
            credits,
            credits_from: "estimated",
            recorded_nano_aiu: None,
            premium_requests: Some(1.5),
            cost_usd_micros: Some(u64::MAX),
            flags: String::new(),
            exported_at: "2026-12-02T00:00:00Z".into(),
            tool_version: "0.1.0",
        };
        let mut file = tempfile::tempfile().unwrap();
        write(&[row("1970-01-02", Some(0.25)), row("2026-11-02", None)], &mut file).unwrap();
        let reader = SerializedFileReader::new(file).unwrap();
        let rows: Vec<_> = reader.get_row_iter(None).unwrap().map(Result::unwrap).collect();
        let names: Vec<&str> = rows[0].get_column_iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, COLUMNS);
        let field = |row: usize, name: &str| rows[row].get_column_iter().find(|(n, _)| *n == name).unwrap().1.clone();
        assert_eq!((field(0, "day"), field(1, "day")), (Field::Date(1), Field::Date(20_759)));
        assert_eq!((field(0, "credits"), field(1, "credits")), (Field::Double(0.25), Field::Null));
        assert_eq!(field(0, "recorded_nano_aiu"), Field::Null);
        assert_eq!(field(0, "cost_usd_micros"), Field::Long(i64::MAX), "held at the most, never wrapped");
        assert_eq!(field(1, "key"), Field::Str("key-2026-11-02".into()));
        assert_eq!(field(1, "tool_version"), Field::Str("0.1.0".into()));
        assert_eq!(field(1, "total"), Field::Long(14));
    }
}
