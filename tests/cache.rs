//! The cache (`--cache DIR`) never changes an output: after any sequence of changes to a home
//! between runs, a run with the cache writes the same bytes as a run without it (rows,
//! sessions, inventory, report, `usage --json`); an entry of another version or a damaged one
//! is ignored with its diagnostic. Nor does it touch the home: it is never kept in a folder the
//! run reads, never follows a link, and a cache that cannot be written is said once.

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

/// Copilot CLI's logs of the home made longer than three times the ends a key hashes (64 KiB
/// each), with lines of their own: an edit in their middle is in neither end.
fn lengthen_cli_logs(home: &Path) {
    for log in logs(home).iter().filter(|path| path.ends_with("events.jsonl")) {
        let mut bytes = fs::read(log).unwrap();
        let padding = |n: usize| {
            let content = format!("padding line {n}, {}", "lorem ipsum ".repeat(20));
            let line = serde_json::json!({"type": "user.message", "id": format!("padding-{n}"),
                "data": {"content": content}, "timestamp": "2026-11-30T04:00:00.000Z"});
            format!("{line}\n")
        };
        let mut n = 0;
        while bytes.len() < 3 * (64 << 10) + 1000 {
            bytes.extend_from_slice(padding(n).as_bytes());
            n += 1;
        }
        fs::write(log, bytes).unwrap();
        set_time(log, SystemTime::UNIX_EPOCH + Duration::from_millis(common::FIXED_MTIME_MS));
    }
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
    /// A byte in the log's middle changed, its size kept (a secret blanked out in a live
    /// session's log), then lines appended.
    EditThenAppend {
        log: usize,
        at: u8,
        from: u8,
    },
    /// A byte in the log's middle changed, its size and modification time put back.
    RewriteTimePutBack {
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
    // The changes that only a whole hash or the change time tells, twice as likely.
    prop_oneof![
        1 => (0..8usize, any::<u8>()).prop_map(|(log, from)| Change::Append { log, from }),
        1 => (0..8usize, any::<u8>()).prop_map(|(log, keep)| Change::Truncate { log, keep }),
        1 => (0..8usize, any::<u8>()).prop_map(|(log, at)| Change::RewriteSameSize { log, at }),
        2 => (0..8usize, any::<u8>(), any::<u8>()).prop_map(|(log, at, from)| Change::EditThenAppend { log, at, from }),
        2 => (0..8usize, any::<u8>()).prop_map(|(log, at)| Change::RewriteTimePutBack { log, at }),
        1 => (0..8usize).prop_map(|log| Change::Delete { log }),
        1 => any::<u8>().prop_map(|name| Change::Add { name }),
        1 => (0..8usize).prop_map(|log| Change::Touch { log }),
        1 => Just(Change::GrowWal),
        1 => Just(Change::CompactChatLog),
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

/// `bytes` with its lines from a share of them (`from`) appended.
fn appended(bytes: &[u8], from: u8) -> Vec<u8> {
    let start = share(bytes.len(), from);
    let start = bytes[..start].iter().rposition(|&b| b == b'\n').map_or(0, |at| at + 1);
    let mut grown = bytes.to_vec();
    if !grown.ends_with(b"\n") {
        grown.push(b'\n');
    }
    grown.extend_from_slice(&bytes[start..]);
    grown
}

/// Changes the first lowercase letter from a share of `bytes` (`at`), if there is one.
fn edit_letter(bytes: &mut [u8], at: u8) -> bool {
    let found = (share(bytes.len(), at)..bytes.len()).find(|&i| bytes[i].is_ascii_lowercase());
    if let Some(letter) = found {
        bytes[letter] = if bytes[letter] == b'z' { b'a' } else { bytes[letter] + 1 };
    }
    found.is_some()
}

fn apply(home: &Path, change: &Change, step: u64) {
    let logs = logs(home);
    let pick = |log: usize| logs.get(log % logs.len().max(1)).cloned();
    match change {
        Change::Append { log, from } => {
            let Some(path) = pick(*log) else { return };
            fs::write(&path, appended(&fs::read(&path).unwrap(), *from)).unwrap();
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
            if edit_letter(&mut bytes, *at) {
                fs::write(&path, bytes).unwrap();
                bump_time(&path, step);
            }
        }
        Change::EditThenAppend { log, at, from } => {
            let Some(path) = pick(*log) else { return };
            let mut bytes = fs::read(&path).unwrap();
            edit_letter(&mut bytes, *at);
            fs::write(&path, appended(&bytes, *from)).unwrap();
            bump_time(&path, step);
        }
        Change::RewriteTimePutBack { log, at } => {
            if let Some(path) = pick(*log) {
                rewrite_keeping_size_and_time(&path, *at);
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
        lengthen_cli_logs(&scratch.path().join("home"));
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

/// A letter of the file from a share of it (`at`) changed, its size and time kept.
fn rewrite_keeping_size_and_time(path: &Path, at: u8) {
    let time = fs::metadata(path).unwrap().modified().unwrap();
    let mut bytes = fs::read(path).unwrap();
    if edit_letter(&mut bytes, at) {
        fs::write(path, bytes).unwrap();
        set_time(path, time);
    }
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
    rewrite_keeping_size_and_time(recent, 128);
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

/// An entry's file spoilt by `spoil`, which changes its bytes.
fn bytes_spoilt(spoil: impl Fn(&mut Vec<u8>)) -> impl Fn(&Path) {
    move |path| {
        let mut bytes = fs::read(path).unwrap();
        spoil(&mut bytes);
        fs::write(path, bytes).unwrap();
    }
}

/// Runs analyze with the cache after `spoil` changed every entry's file; the outputs but the
/// report are a cold run's, the report names each log's entry as ignored, and the next run is
/// clean.
fn ignored_entries(spoil: impl Fn(&Path)) -> Vec<(String, String)> {
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
    spoilt.iter().for_each(|path| spoil(path));
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
    let ignored = ignored_entries(bytes_spoilt(|bytes| {
        let last = bytes.len() - 1;
        bytes[last] ^= 0x20;
    }));
    for (file, message) in ignored {
        let again =
            if file.ends_with("session-store.db") { "the store was read again" } else { "the log was parsed again" };
        assert_eq!(message, format!("the cache's entry is damaged (its checksum differs): ignored, {again}"), "{file}");
    }
}

#[test]
fn an_entry_of_another_version_is_ignored_with_its_diagnostic_and_the_outputs_are_right() {
    let version = env!("CARGO_PKG_VERSION").as_bytes();
    let ignored = ignored_entries(bytes_spoilt(|bytes| {
        let at = bytes.windows(version.len()).position(|window| window == version).unwrap();
        bytes[at..at + version.len()].copy_from_slice(&b"9.9.9999"[..version.len()]);
    }));
    for (file, message) in ignored {
        assert!(message.starts_with("the cache's entry was written by copilot-lens 9.9."), "{file}: {message}");
        let again =
            if file.ends_with("session-store.db") { "the store was read again" } else { "the log was parsed again" };
        assert!(message.ends_with(&format!(": ignored, {again}")), "{file}: {message}");
    }
}

/// What is said again where the report names an ignored entry.
fn said_again(file: &str) -> &'static str {
    if file.ends_with("session-store.db") { "the store was read again" } else { "the log was parsed again" }
}

#[test]
fn an_entry_padded_to_gigabytes_is_ignored_as_damaged_and_never_read_whole() {
    // A sparse file: 68 GB long, none of it on disk; a run that read it whole would abort.
    let ignored =
        ignored_entries(|path| fs::File::options().append(true).open(path).unwrap().set_len(68 << 30).unwrap());
    for (file, message) in ignored {
        let again = said_again(&file);
        assert_eq!(message, format!("the cache's entry is damaged (its length is not its header's): ignored, {again}"));
    }
}

/// Every entry file of a cache folder whose name says it is a log's (analyze) entry.
fn log_entries(cache: &Path) -> Vec<PathBuf> {
    entries(cache).into_iter().filter(|path| entry_kind(path) == "log").collect()
}

#[cfg(unix)]
#[test]
fn an_entry_replaced_by_a_link_to_a_log_of_the_home_is_not_followed_and_the_log_is_untouched() {
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    make_home(&home);
    let cache = ["--cache", "cache"];
    let cold = outputs(scratch.path(), &["--no-cache"], "cold");
    outputs(scratch.path(), &cache, "cached");
    let log = &logs(&home)[0];
    let (bytes, time) = (fs::read(log).unwrap(), fs::metadata(log).unwrap().modified().unwrap());
    for entry in log_entries(&scratch.path().join("cache")) {
        fs::remove_file(&entry).unwrap();
        std::os::unix::fs::symlink(log, &entry).unwrap();
    }
    assert_same(&outputs(scratch.path(), &cache, "cached"), &cold, "entries replaced by links");
    assert_eq!(fs::metadata(log).unwrap().modified().unwrap(), time, "the log's time is as it was");
    assert!(fs::read(log).unwrap() == bytes, "the log's bytes are as they were");
    for entry in log_entries(&scratch.path().join("cache")) {
        assert!(fs::symlink_metadata(&entry).unwrap().is_file(), "{}: made anew", entry.display());
    }
}

#[test]
fn a_log_edited_in_its_middle_then_appended_to_is_parsed_whole() {
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    make_home(&home);
    let log = home.join(".copilot/session-state/16389f9e-9896-4928-b559-7fadd9312083/events.jsonl");
    // A secret pasted into a live session, then more lines, so that it is in neither end the
    // key hashes (64 KiB each).
    lengthen_cli_logs(&home);
    let secret = "my password is hunter2hunter2";
    let mut text = fs::read_to_string(&log).unwrap();
    let middle = text[..text.len() / 2].rfind('\n').unwrap() + 1;
    let pasted = serde_json::json!({"type": "user.message", "id": "pasted", "data": {"content": secret},
        "timestamp": "2026-11-30T04:00:00.000Z"});
    text.insert_str(middle, &format!("{pasted}\n"));
    fs::write(&log, &text).unwrap();
    let at = text.find(secret).unwrap();
    assert!(64 << 10 < at && at < text.len() - (64 << 10), "{at} of {}", text.len());
    analyzed_cache_line(scratch.path());
    // Blanked out, its length kept, and the session goes on.
    let blanked = text.replacen(secret, &"x".repeat(secret.len()), 1);
    let lines: Vec<&str> = text.lines().collect();
    fs::write(&log, format!("{blanked}{}\n", lines[1])).unwrap();
    bump_time(&log, 1);
    let said = analyzed_cache_line(scratch.path());
    assert!(said.starts_with("copilot-lens: cache: 1 file parsed, ") && !said.contains("grown"), "{said}");
    let cached = outputs(scratch.path(), &["--cache", "cache"], "cached");
    assert!(!String::from_utf8_lossy(&cached[0].1).contains("hunter2"), "the secret's row is gone");
    assert_same(&cached, &outputs(scratch.path(), &["--no-cache"], "cold"), "an edit in the middle, then an append");
}

#[test]
fn a_log_rewritten_with_its_size_and_time_put_back_is_parsed_again() {
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    make_home(&home);
    analyzed_cache_line(scratch.path());
    assert_eq!(
        analyzed_cache_line(scratch.path()),
        "copilot-lens: cache: 0 files parsed, 6 from the cache (0 MB; 5 logs not opened)",
        "every log's time is weeks before the run: not opened"
    );
    rewrite_keeping_size_and_time(&logs(&home)[0], 128);
    let said = analyzed_cache_line(scratch.path());
    assert!(said.starts_with("copilot-lens: cache: 1 file parsed, "), "told by its change time: {said}");
    assert_same(
        &outputs(scratch.path(), &["--cache", "cache"], "cached"),
        &outputs(scratch.path(), &["--no-cache"], "cold"),
        "a rewrite with the size and time put back",
    );
}

/// Runs copilot-lens in `dir` with `COPILOT_LENS_CACHE` and the user's cache folder as given.
fn run_with_env(dir: &Path, args: &[&str], cache_env: Option<&str>, xdg_cache: &Path) -> std::process::Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_copilot-lens"));
    command.current_dir(dir).env("XDG_CACHE_HOME", xdg_cache).env_remove("COPILOT_LENS_CACHE").args(args);
    if let Some(value) = cache_env {
        command.env("COPILOT_LENS_CACHE", value);
    }
    command.output().unwrap()
}

#[test]
fn a_cache_inside_a_folder_the_run_reads_is_refused_links_resolved() {
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    make_home(&home);
    let elsewhere = scratch.path().join("user-cache");
    #[cfg(unix)]
    std::os::unix::fs::symlink(home.join(".copilot"), scratch.path().join("link")).unwrap();
    let mut cases: Vec<(Vec<&str>, Option<&str>, PathBuf)> = vec![
        (vec!["--cache", "home/.copilot/lens"], None, elsewhere.clone()),
        (vec!["--cache", "home/.copilot/not/yet/../there"], None, elsewhere.clone()),
        (vec![], Some("home/.copilot/lens"), elsewhere.clone()),
    ];
    #[cfg(unix)]
    {
        cases.push((vec!["--cache", "link/lens"], None, elsewhere.clone()));
        // A folder a link in the Copilot folder leads to, which the walk follows.
        fs::create_dir(scratch.path().join("sessions-elsewhere")).unwrap();
        std::os::unix::fs::symlink(scratch.path().join("sessions-elsewhere"), home.join(".copilot/linked")).unwrap();
        cases.push((vec!["--cache", "sessions-elsewhere/lens"], None, elsewhere.clone()));
    }
    // The user's cache folder (XDG's on Linux) inside the home's Copilot folder.
    #[cfg(target_os = "linux")]
    cases.push((vec![], None, home.join(".copilot/cache")));
    for (root, command) in [("home", "analyze"), ("home", "usage"), ("home/.copilot", "analyze")] {
        for (flags, cache_env, xdg_cache) in &cases {
            let args =
                [&[command, root][..], if command == "analyze" { &["--out", "out"][..] } else { &[] }, flags].concat();
            let output = run_with_env(scratch.path(), &args, *cache_env, xdg_cache);
            let stderr = String::from_utf8_lossy(&output.stderr);
            let case = format!("{args:?} with COPILOT_LENS_CACHE={cache_env:?}");
            assert_eq!(output.status.code(), Some(2), "{case}: {stderr}");
            assert!(stderr.contains("copilot-lens never writes into the data it reads"), "{case}: {stderr}");
        }
    }
    let never_made = ["lens", "not", "there", "cache"].map(|name| home.join(".copilot").join(name));
    for path in never_made.iter().chain([&scratch.path().join("sessions-elsewhere/lens")]) {
        assert!(!path.exists(), "{} was made", path.display());
    }
    // Beside the home's own folders, which a run never reads, a cache is kept.
    let output =
        run_with_env(scratch.path(), &["analyze", "home", "--out", "out", "--cache", "home/lens"], None, &elsewhere);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(!entries(&home.join("lens")).is_empty());
    assert!(!read(&scratch.path().join("out/report.json")).contains("home/lens"), "it is not read");
}

/// An analyze and a usage run with `cache`: what each said on stderr, and their outputs.
fn runs_saying(scratch: &Path, cache: &[&str]) -> (Vec<String>, Vec<(String, Vec<u8>)>) {
    let said = [&["analyze", "home", "--out", "said"][..], &["usage", "home", "--json"]]
        .map(|args| String::from_utf8(run(scratch, &[args, cache].concat()).stderr).unwrap());
    fs::remove_dir_all(scratch.join("said")).unwrap();
    (said.to_vec(), outputs(scratch, cache, "cached"))
}

#[test]
fn a_cache_that_cannot_be_written_is_said_once_and_the_run_is_a_cold_one() {
    let scratch = tempfile::tempdir().unwrap();
    make_home(&scratch.path().join("home"));
    let cold = outputs(scratch.path(), &["--no-cache"], "cold");
    // Permissions do not stop a run as root: a folder under a file, or entries that are
    // folders, stop it whoever runs it.
    fs::write(scratch.path().join("a-file"), b"not a folder").unwrap();
    let (said, outputs_under_a_file) = runs_saying(scratch.path(), &["--cache", "a-file/cache"]);
    assert_same(&outputs_under_a_file, &cold, "a cache folder under a file");
    for stderr in said {
        assert_eq!(stderr.matches("nothing will be cached: ").count(), 1, "{stderr}");
        assert!(stderr.contains("nothing will be cached: a-file/cache: "), "{stderr}");
    }

    let cache = ["--cache", "cache"];
    outputs(scratch.path(), &cache, "cached");
    for entry in entries(&scratch.path().join("cache")) {
        fs::remove_file(&entry).unwrap();
        fs::create_dir_all(entry.join("in the way")).unwrap();
    }
    let (said, outputs_in_the_way) = runs_saying(scratch.path(), &cache);
    assert_same(&outputs_in_the_way, &cold, "every entry's name taken by a folder");
    for stderr in said {
        assert_eq!(stderr.matches("nothing will be cached: ").count(), 1, "{stderr}");
    }

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let read_only = scratch.path().join("read-only");
        fs::create_dir(&read_only).unwrap();
        fs::set_permissions(&read_only, fs::Permissions::from_mode(0o555)).unwrap();
        // Run as root, a folder's permissions stop no write: nothing to see then.
        if fs::write(read_only.join("probe"), b"").is_err() {
            let (said, outputs_read_only) = runs_saying(scratch.path(), &["--cache", "read-only"]);
            assert_same(&outputs_read_only, &cold, "a read-only cache folder");
            for stderr in said {
                assert_eq!(stderr.matches("nothing will be cached: read-only: ").count(), 1, "{stderr}");
            }
        }
    }
}

/// A debug log's rows are its chat's while the chat is given (`Copies::RowsHeldBy`): through
/// the cache, the run after the chat is deleted gives them, and the run after it comes back
/// leaves them out again, each as a cold run does.
#[test]
fn a_debug_logs_rows_follow_its_chat_through_the_cache() {
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("vscode/17-debug-logs"), &scratch.path().join("home"));
    let storage = scratch.path().join("home/.config/Code/User/workspaceStorage/31a48cab78dd5c79eec300bddf13c4c1");
    let (chats, aside) = (storage.join("chatSessions"), scratch.path().join("chats-aside"));
    let cache = ["--cache", "cache"];
    let from_debug_logs =
        |outputs: &[(String, Vec<u8>)]| String::from_utf8_lossy(&outputs[0].1).matches("/debug-logs/").count();
    let with_chat = outputs(scratch.path(), &cache, "cached");
    assert_same(&with_chat, &outputs(scratch.path(), &["--no-cache"], "cold"), "the first run");
    fs::rename(&chats, &aside).unwrap();
    let without_chat = outputs(scratch.path(), &cache, "cached");
    assert_same(&without_chat, &outputs(scratch.path(), &["--no-cache"], "cold"), "the chat deleted");
    fs::rename(&aside, &chats).unwrap();
    assert_same(&outputs(scratch.path(), &cache, "cached"), &with_chat, "the chat back");
    assert_eq!((from_debug_logs(&with_chat), from_debug_logs(&without_chat)), (6, 13));
}
