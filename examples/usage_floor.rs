//! The least a cold `usage` run does, with nothing else: list the homes, then read every event
//! log, VS Code debug log and session store (with its WAL) whole, on every core, a megabyte at
//! a time into one buffer per thread, and search it (`memmem`, one needle for every file: the
//! cost is the search's), parsing nothing. Timed from outside, as `usage` is, it is the part of
//! `usage`'s time that no parser can take away (issue 49's goal sets `usage` against ccusage's
//! time; issue 53's, `usage` with debug logs against `usage` without).
//!
//!   cargo run --release --example usage_floor -- [--threads N] HOME...

use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(&entry.path(), files)?;
        } else {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let debug_log = name.ends_with(".jsonl") && dir.components().any(|part| part.as_os_str() == "debug-logs");
            if name == "events.jsonl" || name.starts_with("session-store.db") || debug_log {
                files.push(entry.path());
            }
        }
    }
    Ok(())
}

/// Reads `path` whole into `buffer`, a chunk at a time, counting the chunks' counter names
/// (a name cut by a chunk's end is missed: the count only keeps the search from being
/// optimized away).
fn read_and_search(path: &Path, buffer: &mut [u8], finder: &memchr::memmem::Finder<'_>) -> std::io::Result<usize> {
    let mut file = File::open(path)?;
    let mut hits = 0;
    loop {
        let read = file.read(buffer)?;
        if read == 0 {
            return Ok(hits);
        }
        hits += finder.find_iter(&buffer[..read]).count();
    }
}

fn main() -> std::io::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if args.first().is_some_and(|first| first == "--threads") && args.len() > 1 {
        threads = args[1].parse().expect("--threads takes a number");
        args.drain(..2);
    }
    if args.is_empty() {
        eprintln!("usage: usage_floor [--threads N] HOME...");
        std::process::exit(2);
    }
    let mut files = Vec::new();
    for home in &args {
        walk(Path::new(home), &mut files)?;
    }
    let next = Mutex::new(files.iter());
    let hits = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let finder = memchr::memmem::Finder::new(b"session.");
                    let mut buffer = vec![0u8; 1 << 20];
                    let mut hits = 0;
                    loop {
                        // Taken in a statement of its own: the lock is not held while reading.
                        let Some(path) = next.lock().expect("no worker panics").next() else { break };
                        hits += read_and_search(path, &mut buffer, &finder).unwrap_or(0);
                    }
                    hits
                })
            })
            .collect();
        workers.into_iter().map(|worker| worker.join().expect("no worker panics")).sum::<usize>()
    });
    println!("{} files, {hits} lines naming a session type, {threads} threads", files.len());
    Ok(())
}
