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

/// The line a cached `analyze` of the scratch's home writes of what the cache did.
fn analyzed_cache_line(scratch: &Path) -> String {
    let analyzed = run(scratch, &["analyze", "home", "--out", "lines", "--cache", "cache"]);
    assert!(analyzed.status.success(), "{}", String::from_utf8_lossy(&analyzed.stderr));
    fs::remove_dir_all(scratch.join("lines")).unwrap();
    cache_line(&analyzed)
}

#[test]
fn a_log_appended_to_is_parsed_from_where_its_entry_ended_and_the_outputs_are_a_cold_runs() {
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    make_home(&home);
    analyzed_cache_line(scratch.path());
    // A session's only copy (its entry keeps rows as rows.jsonl writes them): lines of its own
    // appended, a tool call's request among them, its result in the next append.
    let log = home.join(".copilot/session-state/16389f9e-9896-4928-b559-7fadd9312083/events.jsonl");
    let before = fs::read_to_string(&log).unwrap();
    assert!(before.ends_with('\n'));
    let lines: Vec<&str> = before.lines().collect();
    fs::write(&log, format!("{before}{}\n{}\n", lines[1], lines[6])).unwrap();
    bump_time(&log, 1);
    let said = analyzed_cache_line(scratch.path());
    assert!(said.contains(", 1 grown log parsed from where it ended (0 MB new)"), "{said}");
    assert!(said.starts_with("copilot-lens: cache: 0 files parsed, "), "{said}");
    let grown = fs::read_to_string(&log).unwrap();
    fs::write(&log, format!("{grown}{}\n", lines[7])).unwrap();
    bump_time(&log, 2);
    assert!(
        analyzed_cache_line(scratch.path()).contains(", 1 grown log parsed from where it ended"),
        "again, from the new entry"
    );
    assert_same(
        &outputs(scratch.path(), &["--cache", "cache"], "cached"),
        &outputs(scratch.path(), &["--no-cache"], "cold"),
        "two appends",
    );
}

/// Sets a file's time to `time`.
fn set_time(path: &Path, time: SystemTime) {
    fs::File::options().append(true).open(path).unwrap().set_modified(time).unwrap();
}

/// A byte of the file's middle changed, its size and time kept.
fn rewrite_keeping_size_and_time(path: &Path) {
    let time = fs::metadata(path).unwrap().modified().unwrap();
    let mut bytes = fs::read(path).unwrap();
    let at = (bytes.len() / 2..bytes.len()).find(|&at| bytes[at].is_ascii_lowercase()).unwrap();
    bytes[at] = if bytes[at] == b'z' { b'a' } else { bytes[at] + 1 };
    fs::write(path, bytes).unwrap();
    set_time(path, time);
}

#[test]
fn a_log_whose_size_and_time_are_as_cached_is_not_opened_unless_its_time_was_recent_when_it_was_cached() {
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    make_home(&home);
    // Every log's time is weeks before the first run (common::FIXED_MTIME_MS), but one's is now.
    let recent = &logs(&home)[0];
    set_time(recent, SystemTime::now());
    // The logs and the store (its main file and log count as one).
    assert_eq!(analyzed_cache_line(scratch.path()), "copilot-lens: cache: 6 files parsed, 0 from the cache (0 MB)");
    assert_eq!(
        analyzed_cache_line(scratch.path()),
        "copilot-lens: cache: 0 files parsed, 6 from the cache (0 MB; 4 logs not opened)",
        "the log whose time was recent was opened, its ends hashed"
    );
    // Rewritten in the same second as it was read, its size and time kept: still told.
    rewrite_keeping_size_and_time(recent);
    let said = analyzed_cache_line(scratch.path());
    assert!(said.starts_with("copilot-lens: cache: 1 file parsed, "), "{said}");
    assert_same(
        &outputs(scratch.path(), &["--cache", "cache"], "cached"),
        &outputs(scratch.path(), &["--no-cache"], "cold"),
        "a rewrite that kept the size and a recent time",
    );
}

/// The line an analyze or usage run says what the cache did in.
fn cache_line(output: &std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let line = stderr.lines().find(|line| line.starts_with("copilot-lens: cache: "));
    line.unwrap_or_else(|| panic!("no cache line: {stderr}")).to_string()
}

/// Commits a turn to the home's store as Copilot CLI would: into its write-ahead log, which
/// grows, the main file left as it was (the log is copied back while the connection is open:
/// closing it would checkpoint).
fn commit_a_turn(home: &Path, text: &str, step: u64) {
    let store = home.join(".copilot/session-store.db");
    let wal = home.join(".copilot/session-store.db-wal");
    let work = tempfile::tempdir().unwrap();
    let (work_store, work_wal) = (work.path().join("s.db"), work.path().join("s.db-wal"));
    fs::copy(&store, &work_store).unwrap();
    fs::copy(&wal, &work_wal).unwrap();
    let before = fs::metadata(&wal).unwrap().len();
    let connection = rusqlite::Connection::open(&work_store).unwrap();
    connection.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    connection
        .execute(
            "insert into turns(session_id, turn_index, user_message, timestamp) \
             values(?1, (select max(turn_index) + 1 from turns), ?2, ?3)",
            ("b91a8a02-7efe-4edd-87a6-eb2e306bf3c7", text, "2026-11-30T03:31:00.000Z"),
        )
        .unwrap();
    assert!(fs::read(&work_store).unwrap() == fs::read(&store).unwrap(), "the main file is as it was");
    fs::copy(&work_wal, &wal).unwrap();
    drop(connection);
    assert!(fs::metadata(&wal).unwrap().len() > before, "the log grew");
    bump_time(&wal, step);
}

#[test]
fn an_unchanged_store_comes_from_the_cache_and_one_whose_wal_grew_is_read_again_whole() {
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    make_home(&home);
    let analyze = |cache: &[&str]| {
        let analyzed = run(scratch.path(), &[&["analyze", "home", "--out", "out"], cache].concat());
        assert!(analyzed.status.success(), "{}", String::from_utf8_lossy(&analyzed.stderr));
        let rows = read(&scratch.path().join("out/rows.jsonl"));
        (analyzed, rows)
    };
    let cache = ["--cache", "cache"];
    // Five session logs and the store (its main file and log count as one).
    let (first, cold_rows) = analyze(&cache);
    assert_eq!(cache_line(&first), "copilot-lens: cache: 6 files parsed, 0 from the cache (0 MB)");
    let kept = entries(&scratch.path().join("cache"));
    assert_eq!(kept.iter().filter(|path| entry_kind(path) == "store").count(), 1, "the store's entry: {kept:?}");
    let (unchanged, rows) = analyze(&cache);
    assert_eq!(
        cache_line(&unchanged),
        "copilot-lens: cache: 0 files parsed, 6 from the cache (0 MB; 5 logs not opened)"
    );
    assert!(rows == cold_rows, "the same rows");

    let said = "one more turn, committed to the grown log";
    assert!(!cold_rows.contains(said));
    commit_a_turn(&home, said, 1);
    let (grown, rows) = analyze(&cache);
    assert_eq!(
        cache_line(&grown),
        "copilot-lens: cache: 1 file parsed, 5 from the cache (0 MB; 5 logs not opened)",
        "the store is read"
    );
    assert!(rows.contains(said), "the grown log's turn is a row");
    let (_, cold) = analyze(&["--no-cache"]);
    assert!(rows == cold, "the rows are a cold run's");
    let (again, rows) = analyze(&cache);
    assert_eq!(
        cache_line(&again),
        "copilot-lens: cache: 0 files parsed, 6 from the cache (0 MB; 5 logs not opened)",
        "its entry was made again"
    );
    assert!(rows == cold);

    // A usage-only run reads only the store's per-call rows: its entries are its own.
    let usage = |cache: &[&str]| run(scratch.path(), &[&["usage", "home", "--json"], cache].concat());
    let (filled, cold) = (usage(&cache), usage(&["--no-cache"]));
    assert_eq!(cache_line(&filled), "copilot-lens: cache: 6 files parsed, 0 from the cache (0 MB)");
    let cached = usage(&cache);
    assert_eq!(cache_line(&cached), "copilot-lens: cache: 0 files parsed, 6 from the cache (0 MB; 5 logs not opened)");
    assert!(filled.stdout == cold.stdout && cached.stdout == cold.stdout, "the usage is a cold run's");
    commit_a_turn(&home, "and one more", 2);
    let grown = usage(&cache);
    assert_eq!(cache_line(&grown), "copilot-lens: cache: 1 file parsed, 5 from the cache (0 MB; 5 logs not opened)");
    assert!(grown.stdout == usage(&["--no-cache"]).stdout);
}

/// The entries of a cache folder.
fn entries(cache: &Path) -> Vec<PathBuf> {
    common::files_below(cache).into_iter().filter(|path| path.extension().is_some_and(|e| e == "entry")).collect()
}

/// What an entry is for, by its name: `log`, `usage`, `store` or `store-usage`.
fn entry_kind(path: &Path) -> String {
    let name = path.file_stem().unwrap().to_string_lossy();
    name.rsplit_once('-').map_or(name.to_string(), |(kind, _)| kind.to_string())
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
    // One analyze entry per session log (VS Code's `.json` ones too) and the store's, one usage
    // entry per log with counters and the store's.
    let of_kind = |kind: &str| spoilt.iter().filter(|path| entry_kind(path) == kind).count();
    assert_eq!((of_kind("log"), of_kind("store"), of_kind("store-usage")), (5, 1, 1), "{spoilt:?}");
    let analyzed = of_kind("log") + of_kind("store");
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
    assert_eq!(files.len(), analyzed, "one diagnostic per log and store: {ignored:?}");
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
        let again =
            if file.ends_with("session-store.db") { "the store was read again" } else { "the log was parsed again" };
        assert_eq!(message, format!("the cache's entry is damaged (its checksum differs): ignored, {again}"), "{file}");
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
        let again =
            if file.ends_with("session-store.db") { "the store was read again" } else { "the log was parsed again" };
        assert!(message.ends_with(&format!(": ignored, {again}")), "{file}: {message}");
    }
}
