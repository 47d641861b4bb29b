//! A zip of a home or of `~/.copilot` as a root, over any `Read + Seek` (a file natively, a
//! Blob in the browser's worker). Entries are listed from the central directory and inflated
//! one at a time, only when the analysis asks for them.

use std::collections::HashMap;
use std::io::{self, Read, Seek};

use zip::ZipArchive;

use super::layout::normalize_entry_name;
use super::{ListedFile, RootListing};

#[derive(Clone)]
pub struct ZipRoot<R> {
    archive: ZipArchive<R>,
    /// Entry index by listed path.
    entries: HashMap<String, usize>,
}

impl<R: Read + Seek> ZipRoot<R> {
    /// Reads the central directory. Entries with unsafe names, duplicates and encrypted
    /// entries are listed as problems, not as files.
    pub fn open(reader: R, label: &str) -> Result<(Self, RootListing), String> {
        let archive =
            ZipArchive::new(reader).map_err(|error| format!("{label}: not a readable zip archive: {error}"))?;
        let mut listing = RootListing { label: label.to_string(), ..RootListing::default() };
        let mut entries = HashMap::new();
        for index in 0..archive.len() {
            let entry = match archive.by_index_data(index) {
                Ok(entry) => entry,
                Err(error) => {
                    listing.problems.push((format!("entry {index}"), error.to_string()));
                    continue;
                }
            };
            let raw_name = String::from_utf8_lossy(entry.name_raw()).into_owned();
            if entry.is_dir() {
                continue;
            }
            let path = match normalize_entry_name(&raw_name) {
                Ok(path) => path,
                Err(reason) => {
                    listing.problems.push((raw_name, format!("{reason}; not read")));
                    continue;
                }
            };
            if entry.encrypted() {
                listing.problems.push((path, "encrypted entry; not read".into()));
                continue;
            }
            if entries.contains_key(&path) {
                listing.problems.push((path, "duplicate entry name; the first one is read".into()));
                continue;
            }
            let modified_ms = entry.last_modified().and_then(dos_time_millis);
            listing.files.push(ListedFile { path: path.clone(), size: entry.size(), modified_ms });
            entries.insert(path, index);
        }
        Ok((ZipRoot { archive, entries }, listing))
    }

    /// The inflated bytes of a listed entry, as a stream that stops at its declared size.
    pub fn open_entry(&mut self, path: &str) -> io::Result<Box<dyn Read + '_>> {
        let index = *self.entries.get(path).ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such entry"))?;
        let entry = self.archive.by_index(index).map_err(io::Error::other)?;
        let size = entry.size();
        Ok(Box::new(entry.take(size)))
    }
}

/// A zip's DOS time, which has no zone: read as UTC.
fn dos_time_millis(time: zip::DateTime) -> Option<i64> {
    let date = chrono::NaiveDate::from_ymd_opt(time.year().into(), time.month().into(), time.day().into())?;
    let moment = date.and_hms_opt(time.hour().into(), time.minute().into(), time.second().into())?;
    Some(moment.and_utc().timestamp_millis())
}
