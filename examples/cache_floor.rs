//! The least a cached `analyze` run does, with nothing else: list the home (an unchanged
//! event log's size and time are its whole check: it is not opened), read every other file
//! whole, read every cache entry whole, and write as many bytes as the run's outputs (the
//! best of three writes). `scripts/bench-cache.sh` prints it beside the cached runs: the part
//! of their time no cache can take away.
//!
//!   cargo run --release --example cache_floor -- HOME CACHE_DIR OUTPUT_BYTES OUT_FILE

use std::fs::{self, File};
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn walk(dir: &Path, files: &mut Vec<(PathBuf, u64)>) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let metadata = entry.metadata()?;
        if metadata.is_dir() {
            walk(&entry.path(), files)?;
        } else {
            metadata.modified()?;
            files.push((entry.path(), metadata.len()));
        }
    }
    Ok(())
}

/// Times the outputs' bytes are written, the best one counted.
const WRITES: usize = 3;

fn write_bytes(out: &str, bytes: u64) -> std::io::Result<()> {
    let mut writer = BufWriter::with_capacity(1 << 20, File::create(out)?);
    let chunk = vec![b'.'; 1 << 20];
    let mut left = bytes;
    while left > 0 {
        let part = left.min(chunk.len() as u64) as usize;
        writer.write_all(&chunk[..part])?;
        left -= part as u64;
    }
    writer.flush()
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [home, cache, output_bytes, out] = args.as_slice() else {
        eprintln!("usage: cache_floor HOME CACHE_DIR OUTPUT_BYTES OUT_FILE");
        std::process::exit(2);
    };
    let started = Instant::now();
    let mut files = Vec::new();
    walk(Path::new(home), &mut files)?;
    let listed = started.elapsed().as_secs_f64();

    let mut whole = Vec::new();
    for (path, _) in files.iter().filter(|(path, _)| !path.ends_with("events.jsonl")) {
        whole.clear();
        File::open(path)?.read_to_end(&mut whole)?;
    }
    let read = started.elapsed().as_secs_f64();

    let mut entries = Vec::new();
    walk(Path::new(cache), &mut entries)?;
    for (path, _) in &entries {
        whole.clear();
        File::open(path)?.read_to_end(&mut whole)?;
    }
    let cached = started.elapsed().as_secs_f64();

    let output_bytes: u64 = output_bytes.parse().expect("OUTPUT_BYTES is a number");
    // The best of a few writes: a VM's disk now and then stalls a write of this size for a
    // second (dd alike), which is the machine's, not the least a run does.
    let mut writing = f64::INFINITY;
    for _ in 0..WRITES {
        let write_started = Instant::now();
        write_bytes(out, output_bytes)?;
        writing = writing.min(write_started.elapsed().as_secs_f64());
        fs::remove_file(out)?;
    }
    let written = cached + writing;
    println!(
        "{written:.2} s: {} files listed {listed:.2} s, the other files read {:.2} s, {} entries read {:.2} s, {} MB written {:.2} s",
        files.len(),
        read - listed,
        entries.len(),
        cached - read,
        output_bytes / 1_000_000,
        written - cached
    );
    Ok(())
}
