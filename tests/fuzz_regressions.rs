//! Every input a fuzz target found failing (fixtures/fuzz/<target>/) replayed through the whole
//! analysis, as the file of the target's kind in a folder root and in a zip root (the zip
//! targets' inputs are the root themselves; bill_report's are GitHub's usage report, given to
//! `usage --bill`). The run must end normally or with a clear error, never a panic, and the file
//! must be accounted for in report.json. A cache entry's input is replayed as the fuzz target
//! reads it, and as every entry of a run's cache.

mod common;

#[path = "../fuzz/fuzz_targets/cache_check.rs"]
mod cache_check;

use std::fs;
use std::io::Write;
use std::path::Path;

use common::{copy_tree, fixture, read, run};

/// How a target's input is replayed.
enum Replay {
    /// As this file of a `.copilot` tree.
    InTree(&'static str),
    /// As a zip root.
    Zip,
    /// As GitHub's usage report, reconciled with fixtures/bills/home.
    Bill,
    /// As a cache entry (`replay_cache_entry`).
    CacheEntry,
}

fn replay_of(target: &str) -> Replay {
    match target {
        "event_lines" => Replay::InTree(".copilot/session-state/fuzz/events.jsonl"),
        "chat_session_log" => Replay::InTree(".config/Code/User/workspaceStorage/fuzz/chatSessions/fuzz.jsonl"),
        "workspace_yaml" => Replay::InTree(".copilot/session-state/fuzz/workspace.yaml"),
        "settings_jsonc" => Replay::InTree(".copilot/settings.json"),
        "customization_files" => Replay::InTree(".copilot/mcp-config.json"),
        "wal_replay" => Replay::InTree(".copilot/session-store.db-wal"),
        "database_image" => Replay::InTree(".copilot/session-store.db"),
        "zip_reading" | "analysis_from_zip" => Replay::Zip,
        "bill_report" => Replay::Bill,
        "cache_entry" => Replay::CacheEntry,
        other => panic!("fixtures/fuzz/{other}: no fuzz target of that name"),
    }
}

/// Reconciles `report` with fixtures/bills/home: it ends normally or refuses the report (exit 2).
fn reconcile(report: &Path, case: &str) {
    let output = run(&fixture("bills"), &["usage", "home", "--bill", report.to_str().unwrap(), "--user", "mona"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{case}: {stderr}");
    assert!(matches!(output.status.code(), Some(0 | 2)), "{case}: exit status {:?}: {stderr}", output.status.code());
}

fn zip_of(path: &str, bytes: &[u8], to: &Path) {
    let mut writer = zip::ZipWriter::new(fs::File::create(to).unwrap());
    writer.start_file(path, zip::write::SimpleFileOptions::default()).unwrap();
    writer.write_all(bytes).unwrap();
    writer.finish().unwrap();
}

/// Analyses `root` in `dir`; returns report.json when the run succeeded.
fn analyse(dir: &Path, root: &str, case: &str) -> Option<String> {
    let output = run(dir, &["analyze", root, "--out", "out"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{case}: {stderr}");
    match output.status.code() {
        Some(0) => Some(read(&dir.join("out/report.json"))),
        Some(2) => None,
        other => panic!("{case}: exit status {other:?}: {stderr}"),
    }
}

#[test]
fn inputs_the_fuzzers_found_are_analysed_without_a_panic() {
    let mut replayed = 0;
    for target in fs::read_dir(fixture("fuzz")).unwrap() {
        let target = target.unwrap();
        let target_name = target.file_name().into_string().unwrap();
        for input in fs::read_dir(target.path()).unwrap() {
            let input = input.unwrap().path();
            let bytes = fs::read(&input).unwrap();
            let case = format!("{target_name}/{}", input.file_name().unwrap().to_string_lossy());
            let scratch = tempfile::tempdir().unwrap();
            match replay_of(&target_name) {
                Replay::InTree(path) => {
                    let in_folder = scratch.path().join("home").join(path);
                    fs::create_dir_all(in_folder.parent().unwrap()).unwrap();
                    fs::write(&in_folder, &bytes).unwrap();
                    zip_of(path, &bytes, &scratch.path().join("home.zip"));
                    for root in ["home", "home.zip"] {
                        let report = analyse(scratch.path(), root, &format!("{case} in {root}"))
                            .unwrap_or_else(|| panic!("{case} in {root}: the root itself was refused"));
                        assert!(
                            report.contains(&format!("\"{path}\"")),
                            "{case} in {root}: {path} missing from report.json"
                        );
                    }
                }
                Replay::CacheEntry => replay_cache_entry(scratch.path(), &bytes, &case),
                Replay::Zip => {
                    fs::write(scratch.path().join("input.zip"), &bytes).unwrap();
                    analyse(scratch.path(), "input.zip", &case);
                }
                Replay::Bill => {
                    fs::write(scratch.path().join("input.csv"), &bytes).unwrap();
                    reconcile(&scratch.path().join("input.csv"), &case);
                }
            }
            replayed += 1;
        }
    }
    assert!(replayed > 0, "fixtures/fuzz holds no inputs");
}

/// A cache entry's input read as the fuzz target reads it, then as every entry of a cached
/// run's cache: the run ends normally with a cold run's rows.
fn replay_cache_entry(scratch: &Path, bytes: &[u8], case: &str) {
    cache_check::reads_any_entry(bytes);
    copy_tree(&fixture("spec-sample"), &scratch.join("home"));
    let cached = |out: &str| {
        let output = run(scratch, &["analyze", "home", "--out", out, "--cache", "cache"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success() && !stderr.contains("panicked"), "{case}: {stderr}");
        read(&scratch.join(out).join("rows.jsonl"))
    };
    let cold = cached("cold");
    for entry in fs::read_dir(scratch.join("cache")).unwrap() {
        fs::write(entry.unwrap().path(), bytes).unwrap();
    }
    assert!(cached("replayed") == cold, "{case}: the rows are a cold run's");
}
