//! Helpers shared by the integration tests: fixture trees copied to a scratch folder with
//! fixed modification times, and runs of the real binary.

#![allow(dead_code)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

/// 2026-10-01T09:05:00Z: every copied file gets this modification time, so that rows
/// stamped with a file's mtime (permission settings, sync markers) are reproducible.
pub const FIXED_MTIME_MS: u64 = 1_790_845_500_000;

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(name)
}

/// Copies a fixture tree into `to`, setting every file's modification time to the fixed one.
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
            let file = fs::File::options().write(true).open(&target).unwrap();
            file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_millis(FIXED_MTIME_MS)).unwrap();
        }
    }
}

/// Runs the copilot-lens binary in `dir`.
pub fn run(dir: &Path, args: &[&str]) -> Output {
    // Hermetic: no user's cache is read or written (tests/cache.rs passes --cache itself).
    Command::new(env!("CARGO_BIN_EXE_copilot-lens"))
        .current_dir(dir)
        .env("COPILOT_LENS_CACHE", "off")
        .args(args)
        .output()
        .unwrap()
}

pub fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// Every file below `dir`, in path order.
pub fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                pending.push(entry.path());
            } else {
                files.push(entry.path());
            }
        }
    }
    files.sort();
    files
}

/// A fixture tree as a memory root, every file with the fixed modification time.
pub fn memory_root(name: &str) -> copilot_lens::input::memory::MemoryRoot {
    memory_root_of(&fixture(name), name)
}

/// The files below `base` in memory, each dated alike.
pub fn memory_root_of(base: &Path, label: &str) -> copilot_lens::input::memory::MemoryRoot {
    let mut root = copilot_lens::input::memory::MemoryRoot::new(label);
    for path in files_below(base) {
        let relative = path.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
        root.insert(&relative, fs::read(&path).unwrap(), Some(FIXED_MTIME_MS as i64));
    }
    root
}

/// Zips `dir` with entry names under `top` (none when empty), joined with `separator` (`\` as
/// Windows tools do), each entry dated by its file's modification time.
pub fn zip_tree(dir: &Path, zip_path: &Path, top: &str, separator: &str) {
    let mut writer = zip::ZipWriter::new(fs::File::create(zip_path).unwrap());
    for path in files_below(dir) {
        let (bytes, modified) = (fs::read(&path).unwrap(), fs::metadata(&path).unwrap().modified().unwrap());
        let modified = chrono::DateTime::<chrono::Utc>::from(modified).naive_utc();
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .last_modified_time(zip_time(modified));
        let relative = path.strip_prefix(dir).unwrap();
        let parts: Vec<String> = relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        let name =
            if top.is_empty() { parts.join(separator) } else { format!("{top}{separator}{}", parts.join(separator)) };
        writer.start_file(name, options).unwrap();
        writer.write_all(&bytes).unwrap();
    }
    writer.finish().unwrap();
}

fn zip_time(time: chrono::NaiveDateTime) -> zip::DateTime {
    use chrono::{Datelike, Timelike};
    let part = |value: u32| value as u8;
    zip::DateTime::from_date_and_time(
        time.year() as u16,
        part(time.month()),
        part(time.day()),
        part(time.hour()),
        part(time.minute()),
        part(time.second()),
    )
    .unwrap()
}

/// Writes `events.jsonl` into a session folder: the `lines` as events, each given an id, no
/// parent and a time a second after the one before (from 2026-11-10T09:00:00Z).
pub fn write_events_log(session: &Path, lines: &[serde_json::Value]) {
    let log: String = lines
        .iter()
        .enumerate()
        .map(|(index, line)| {
            let mut line = line.clone();
            line["id"] = serde_json::Value::String(format!("e{index}"));
            line["timestamp"] = serde_json::Value::String(format!("2026-11-10T09:00:{index:02}.000Z"));
            line["parentId"] = serde_json::Value::Null;
            format!("{line}\n")
        })
        .collect();
    fs::write(session.join("events.jsonl"), log).unwrap();
}

/// The secrets of fixtures/inventory/SECRETS.txt: every line but blank ones and `#` comments.
pub fn planted_secrets() -> Vec<String> {
    read(&fixture("inventory/SECRETS.txt"))
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// The secret, and every 12-character piece of it: a tool that cut or re-encoded a secret
/// would still show a piece of it.
pub fn pieces(secret: &str) -> Vec<String> {
    let chars: Vec<char> = secret.chars().collect();
    let mut pieces = vec![secret.to_string()];
    pieces.extend(chars.windows(12).map(|window| window.iter().collect::<String>()));
    pieces
}
