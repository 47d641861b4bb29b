//! The cache (`--cache DIR`) never changes an output: after any sequence of changes to a home
//! between runs, a run with the cache writes the same bytes as a run without it (rows,
//! sessions, inventory, report, `usage --json`); an entry of another version or a damaged one
//! is ignored with its diagnostic.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use common::{copy_tree, fixture, read, run};
use proptest::prelude::*;

/// A home with Copilot CLI logs, the session store with its WAL, and a VS Code chat log.
fn make_home(home: &Path) {
    copy_tree(&fixture("real-cli-1.0.102"), home);
    copy_tree(&fixture("spec-sample/.copilot/session-state"), &home.join(".copilot/session-state"));
    copy_tree(&fixture("vscode/beside-cli/.config"), &home.join(".config"));
}

/// The home's session logs (Copilot CLI's and VS Code's), in path order.
fn logs(home: &Path) -> Vec<PathBuf> {
    common::files_below(home)
        .into_iter()
        .filter(|path| path.ends_with("events.jsonl") || path.extension().is_some_and(|e| e == "jsonl"))
        .collect()
}

/// One change to the home between two runs.
#[derive(Clone, Debug)]
enum Change {
    /// Lines of the log (from `from`, a share of its lines) appended to it.
    Append {
        log: usize,
        from: u8,
    },
    /// The log cut to a share of its bytes (maybe mid-line).
    Truncate {
        log: usize,
        keep: u8,
    },
    /// A byte in the log's middle changed, its size kept.
    RewriteSameSize {
        log: usize,
        at: u8,
    },
    Delete {
        log: usize,
    },
    /// A session's log added (a new session folder).
    Add {
        name: u8,
    },
    /// Only the modification time changed.
    Touch {
        log: usize,
    },
    /// Bytes appended to the store's write-ahead log (a frame cut short).
    GrowWal,
    /// A VS Code chat log rewritten as its first line: the session's state as one snapshot.
    CompactChatLog,
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        (0..8usize, any::<u8>()).prop_map(|(log, from)| Change::Append { log, from }),
        (0..8usize, any::<u8>()).prop_map(|(log, keep)| Change::Truncate { log, keep }),
        (0..8usize, any::<u8>()).prop_map(|(log, at)| Change::RewriteSameSize { log, at }),
        (0..8usize).prop_map(|log| Change::Delete { log }),
        any::<u8>().prop_map(|name| Change::Add { name }),
        (0..8usize).prop_map(|log| Change::Touch { log }),
        Just(Change::GrowWal),
        Just(Change::CompactChatLog),
    ]
}

/// A share of `len` by a byte: 0..=len.
fn share(len: usize, by: u8) -> usize {
    len * by as usize / 255
}

/// Sets a file's modification time a little later than any before (the listing's times are
/// milliseconds: a change within one must still show in the time or the bytes).
fn bump_time(path: &Path, step: u64) {
    let time = SystemTime::UNIX_EPOCH + Duration::from_millis(common::FIXED_MTIME_MS + 1000 * step);
    fs::File::options().append(true).open(path).unwrap().set_modified(time).unwrap();
}

fn apply(home: &Path, change: &Change, step: u64) {
    let logs = logs(home);
    let pick = |log: usize| logs.get(log % logs.len().max(1)).cloned();
    match change {
        Change::Append { log, from } => {
            let Some(path) = pick(*log) else { return };
            let bytes = fs::read(&path).unwrap();
            let start = share(bytes.len(), *from);
            let start = bytes[..start].iter().rposition(|&b| b == b'\n').map_or(0, |at| at + 1);
            let mut grown = bytes.clone();
            if !grown.ends_with(b"\n") {
                grown.push(b'\n');
            }
            grown.extend_from_slice(&bytes[start..]);
            fs::write(&path, grown).unwrap();
            bump_time(&path, step);
        }
        Change::Truncate { log, keep } => {
            let Some(path) = pick(*log) else { return };
            let bytes = fs::read(&path).unwrap();
            fs::write(&path, &bytes[..share(bytes.len(), *keep)]).unwrap();
            bump_time(&path, step);
        }
        Change::RewriteSameSize { log, at } => {
            let Some(path) = pick(*log) else { return };
            let mut bytes = fs::read(&path).unwrap();
            if let Some(letter) = (share(bytes.len(), *at)..bytes.len()).find(|&i| bytes[i].is_ascii_lowercase()) {
                bytes[letter] = if bytes[letter] == b'z' { b'a' } else { bytes[letter] + 1 };
                fs::write(&path, bytes).unwrap();
                bump_time(&path, step);
            }
        }
        Change::Delete { log } => {
            if let Some(path) = pick(*log) {
                fs::remove_file(path).unwrap();
            }
        }
        Change::Add { name } => {
            let folder = home.join(format!(".copilot/session-state/aaaaaaaa-0000-4000-8000-0000000000{name:02x}"));
            fs::create_dir_all(&folder).unwrap();
            let spare = fixture("vscode/beside-cli/.copilot/session-state/ffffffff-0000-4000-8000-000000000007");
            fs::copy(spare.join("events.jsonl"), folder.join("events.jsonl")).unwrap();
            bump_time(&folder.join("events.jsonl"), step);
        }
        Change::Touch { log } => {
            if let Some(path) = pick(*log) {
                bump_time(&path, step);
            }
        }
        Change::GrowWal => {
            let wal = home.join(".copilot/session-store.db-wal");
            let mut bytes = fs::read(&wal).unwrap();
            let frame = bytes[32..bytes.len().min(32 + 24 + 100)].to_vec();
            bytes.extend_from_slice(&frame);
            fs::write(&wal, bytes).unwrap();
            bump_time(&wal, step);
        }
        Change::CompactChatLog => {
            for path in logs.iter().filter(|path| !path.ends_with("events.jsonl")) {
                let text = read(path);
                let first = text.split_inclusive('\n').next().unwrap_or_default().to_string();
                fs::write(path, first).unwrap();
                bump_time(path, step);
            }
        }
    }
}

/// Every output of a run: analyze's files and `usage --json`'s stdout.
fn outputs(scratch: &Path, cache: &[&str], out: &str) -> Vec<(String, Vec<u8>)> {
    let analyzed = run(scratch, &[&["analyze", "home", "--out", out], cache].concat());
    assert!(analyzed.status.success(), "{}", String::from_utf8_lossy(&analyzed.stderr));
    let mut outputs: Vec<(String, Vec<u8>)> = ["rows.jsonl", "sessions.jsonl", "inventory.json", "report.json"]
        .iter()
        .map(|name| (name.to_string(), fs::read(scratch.join(out).join(name)).unwrap()))
        .collect();
    let usage = run(scratch, &[&["usage", "home", "--json"], cache].concat());
    outputs.push(("usage --json".to_string(), usage.stdout));
    fs::remove_dir_all(scratch.join(out)).unwrap();
    outputs
}

fn assert_same(cached: &[(String, Vec<u8>)], cold: &[(String, Vec<u8>)], after: &str) {
    for ((name, cached), (_, cold)) in cached.iter().zip(cold) {
        assert!(
            cached == cold,
            "{name} differs from a cold run's after {after}:\ncached: {}\ncold:   {}",
            String::from_utf8_lossy(cached),
            String::from_utf8_lossy(cold)
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn a_cached_run_equals_a_cold_run_after_any_changes(changes in prop::collection::vec(change(), 1..5)) {
        let scratch = tempfile::tempdir().unwrap();
        make_home(&scratch.path().join("home"));
        let cache = ["--cache", "cache"];
        let first = outputs(scratch.path(), &cache, "cached");
        assert_same(&first, &outputs(scratch.path(), &["--no-cache"], "cold"), "the first run");
        assert_same(&outputs(scratch.path(), &cache, "cached"), &first, "no change");
        for (step, change) in changes.iter().enumerate() {
            apply(&scratch.path().join("home"), change, step as u64 + 1);
            let cached = outputs(scratch.path(), &cache, "cached");
            assert_same(&cached, &outputs(scratch.path(), &["--no-cache"], "cold"), &format!("{changes:?}"));
        }
    }
}

/// The line `analyze` writes of what the cache did.
fn cache_line(scratch: &Path) -> String {
    let analyzed = run(scratch, &["analyze", "home", "--out", "lines", "--cache", "cache"]);
    assert!(analyzed.status.success(), "{}", String::from_utf8_lossy(&analyzed.stderr));
    fs::remove_dir_all(scratch.join("lines")).unwrap();
    let stderr = String::from_utf8(analyzed.stderr).unwrap();
    stderr.lines().find(|line| line.starts_with("copilot-lens: cache: ")).expect("a cache line").to_string()
}

#[test]
fn a_log_appended_to_is_parsed_from_where_its_entry_ended_and_the_outputs_are_a_cold_runs() {
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    make_home(&home);
    cache_line(scratch.path());
    // A session's only copy (its entry keeps rows as rows.jsonl writes them): lines of its own
    // appended, a tool call's request among them, its result in the next append.
    let log = home.join(".copilot/session-state/16389f9e-9896-4928-b559-7fadd9312083/events.jsonl");
    let before = fs::read_to_string(&log).unwrap();
    assert!(before.ends_with('\n'));
    let lines: Vec<&str> = before.lines().collect();
    fs::write(&log, format!("{before}{}\n{}\n", lines[1], lines[6])).unwrap();
    bump_time(&log, 1);
    let said = cache_line(scratch.path());
    assert!(said.contains(", 1 grown log parsed from where it ended (0 MB new)"), "{said}");
    assert!(said.starts_with("copilot-lens: cache: 0 files parsed, "), "{said}");
    let grown = fs::read_to_string(&log).unwrap();
    fs::write(&log, format!("{grown}{}\n", lines[7])).unwrap();
    bump_time(&log, 2);
    assert!(
        cache_line(scratch.path()).contains(", 1 grown log parsed from where it ended"),
        "again, from the new entry"
    );
    assert_same(
        &outputs(scratch.path(), &["--cache", "cache"], "cached"),
        &outputs(scratch.path(), &["--no-cache"], "cold"),
        "two appends",
    );
}

/// The entries of a cache folder.
fn entries(cache: &Path) -> Vec<PathBuf> {
    common::files_below(cache).into_iter().filter(|path| path.extension().is_some_and(|e| e == "entry")).collect()
}

/// The report's diagnostics of one kind, as (file, message).
fn diagnostics_of(report: &str, kind: &str) -> Vec<(String, String)> {
    let report: serde_json::Value = serde_json::from_str(report).unwrap();
    let listed = report["diagnostics"].as_array().unwrap();
    listed
        .iter()
        .filter(|diagnostic| diagnostic["kind"] == kind)
        .map(|diagnostic| {
            (diagnostic["file"].as_str().unwrap().to_string(), diagnostic["message"].as_str().unwrap().to_string())
        })
        .collect()
}

/// Runs analyze with the cache after `spoil` changed every entry; the outputs but the report
/// are a cold run's, the report names each log's entry as ignored, and the next run is clean.
fn ignored_entries(spoil: impl Fn(&mut Vec<u8>)) -> Vec<(String, String)> {
    let scratch = tempfile::tempdir().unwrap();
    make_home(&scratch.path().join("home"));
    let cache = ["--cache", "cache"];
    let cold = outputs(scratch.path(), &["--no-cache"], "cold");
    outputs(scratch.path(), &cache, "cached");
    let spoilt = entries(&scratch.path().join("cache"));
    // One analyze entry per session log (VS Code's `.json` ones too), one usage entry per log
    // with counters.
    let analyzed = spoilt.iter().filter(|path| path.file_name().unwrap().to_string_lossy().starts_with("log-")).count();
    assert_eq!(analyzed, 5);
    assert!(spoilt.len() > analyzed, "usage entries too: {spoilt:?}");
    for path in &spoilt {
        let mut bytes = fs::read(path).unwrap();
        spoil(&mut bytes);
        fs::write(path, bytes).unwrap();
    }
    let cached = outputs(scratch.path(), &cache, "cached");
    for ((name, cached), (_, cold)) in cached.iter().zip(&cold) {
        if name != "report.json" {
            assert!(cached == cold, "{name} differs from a cold run's");
        }
    }
    let report = String::from_utf8(cached[3].1.clone()).unwrap();
    let ignored = diagnostics_of(&report, "cache_ignored");
    let mut files: Vec<String> = ignored.iter().map(|(file, _)| file.clone()).collect();
    files.dedup();
    assert_eq!(files.len(), analyzed, "one diagnostic per log: {ignored:?}");
    assert_same(&outputs(scratch.path(), &cache, "cached"), &cold, "the entries were written again");
    ignored
}

#[test]
fn a_damaged_entry_is_ignored_with_its_diagnostic_and_the_outputs_are_right() {
    let ignored = ignored_entries(|bytes| {
        let last = bytes.len() - 1;
        bytes[last] ^= 0x20;
    });
    for (file, message) in ignored {
        assert_eq!(
            message, "the cache's entry is damaged (its checksum differs): ignored, the log was parsed again",
            "{file}"
        );
    }
}

#[test]
fn an_entry_of_another_version_is_ignored_with_its_diagnostic_and_the_outputs_are_right() {
    let version = env!("CARGO_PKG_VERSION").as_bytes();
    let ignored = ignored_entries(|bytes| {
        let at = bytes.windows(version.len()).position(|window| window == version).unwrap();
        bytes[at..at + version.len()].copy_from_slice(&b"9.9.9999"[..version.len()]);
    });
    for (file, message) in ignored {
        assert!(message.starts_with("the cache's entry was written by copilot-lens 9.9."), "{file}: {message}");
        assert!(message.ends_with(": ignored, the log was parsed again"), "{file}: {message}");
    }
}
