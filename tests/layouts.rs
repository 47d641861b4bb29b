//! The layouts older Copilot CLI versions left in `~/.copilot`, from the fixtures in
//! `fixtures/layouts/` (built from the shapes the CLI's own code writes, `@github/copilot` on
//! npm): `history-session-state/session_<id>_<ms>.json` (sessions from before event logs, CLI
//! 0.0.340), `logs/session-<id>.log` (a process log per session), `session-state/<id>.jsonl`
//! (one flat log, 0.0.365 to 0.0.38x, which may carry a history session it imported), a session
//! folder under another name, a loose `<id>.jsonl`,
//! and CLI 1.0.14's `workspace.yaml` `summary:` titles and a model that never answered. Whole
//! outputs are reviewed golden files in `tests/golden/layouts/`; the figures below were computed
//! by hand from the fixtures (rates from src/usage/default-rates.json).

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{copy_tree, fixture, read, run};
use serde_json::Value;

fn snapshot(name: &str, value: &str) {
    insta::with_settings!({ snapshot_path => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/layouts"), prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(name, value);
    });
}

/// Runs `analyze <root>` in `dir`; returns the output folder.
fn analyze(dir: &Path, root: &str) -> PathBuf {
    let output = run(dir, &["analyze", root, "--out", "out"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    dir.join("out")
}

fn sessions(out: &Path) -> Vec<Value> {
    read(&out.join("sessions.jsonl")).lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

fn session<'a>(sessions: &'a [Value], id: &str) -> &'a Value {
    sessions.iter().find(|record| record["session_id"] == id).unwrap_or_else(|| panic!("no session {id}"))
}

/// `usage <root>`: stdout and the problems stderr names (its last line has timings).
fn usage(dir: &Path, root: &str) -> (String, Vec<String>) {
    let output = run(dir, &["usage", root]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stderr = String::from_utf8(output.stderr).unwrap();
    let named = stderr.lines().filter(|line| !line.contains(" counter lines read, ")).map(str::to_string).collect();
    (String::from_utf8(output.stdout).unwrap(), named)
}

const HISTORY: &str = "aaaaaaaa-0000-4000-8000-000000000001";
const FLAT: &str = "aaaaaaaa-0000-4000-8000-000000000002";
const RENAMED: &str = "aaaaaaaa-0000-4000-8000-000000000003";
const MIGRATED: &str = "aaaaaaaa-0000-4000-8000-000000000004";
const IMPORTED: &str = "aaaaaaaa-0000-4000-8000-000000000008";

/// A home with only older layouts: every one is read, and `usage` counts what holds counters
/// and names what it found that holds none.
#[test]
fn older_layouts_are_read() {
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("layouts/older-cli"), &scratch.path().join("home"));
    let out = analyze(scratch.path(), "home");
    let records = sessions(&out);
    assert_eq!(records.len(), 5, "{records:#?}");

    // The history session: its 9 timeline entries are its rows (2 prompts, 1 reply, 2 calls
    // and their 2 results, an info and an error), its version from logs/session-<id>.log.
    let history = session(&records, HISTORY);
    assert_eq!(history["found_in"], serde_json::json!(["history-session-state", "process log"]));
    assert_eq!((&history["prompts"], &history["replies"], &history["tool_calls"]), (&2.into(), &1.into(), &2.into()));
    assert_eq!(history["copilot_version"], "0.0.340");
    assert_eq!(history["models"], serde_json::json!(["claude-sonnet-4.5"]));
    assert_eq!(history["created_at"], "2025-10-01T09:00:00.000Z");
    assert_eq!(
        (&history["first_event"], &history["last_event"]),
        (&"2025-10-01T09:00:00.500Z".into(), &"2025-10-01T09:01:04.100Z".into())
    );
    assert_eq!(history["usage"], Value::Null, "no counters: no usage");

    // The flat 0.0.365 log: its replies name no model, so the one chosen at its start answered.
    let flat = session(&records, FLAT);
    assert_eq!((&flat["events_log"], &flat["copilot_version"]), (&true.into(), &"0.0.365".into()));
    assert_eq!(flat["models"], serde_json::json!(["gpt-5"]));
    assert_eq!(flat["models_never_used"], Value::Null);

    // The session folder under another name is read under the id its log names, and says so.
    let report: Value = serde_json::from_str(&read(&out.join("report.json"))).unwrap();
    let diagnostics = report["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    assert_eq!(diagnostics[0]["file"], ".copilot/session-state/backup-of-3/events.jsonl");
    assert_eq!(diagnostics[0]["kind"], "unexpected_place");
    // 1.0.7's shutdown: 2 requests, 30,000 input of which 20,000 cache reads, 600 output:
    // claude-sonnet-4.5 at 3.00 / 0.30 / 15.00 per million is 0.030 + 0.006 + 0.009 USD.
    let renamed = &session(&records, RENAMED)["usage"];
    let counts =
        ["requests", "input", "cache_read", "output", "total", "cost_usd_micros"].map(|key| renamed[key].clone());
    assert_eq!(counts, [2, 10_000, 20_000, 600, 30_600, 45_000].map(Value::from));

    // A flat log and its folder copy (a migration cut short): the folder's, one line longer, is read.
    let files = report["files"].as_array().unwrap();
    let status = |path: &str| files.iter().find(|file| file["path"] == path).map(|file| file["status"].clone());
    assert_eq!(status(&format!(".copilot/session-state/{MIGRATED}.jsonl")), Some("superseded".into()));
    assert_eq!(session(&records, MIGRATED)["replies"], 1);

    // A history session a 0.0.365 log imported (`session.import_legacy`) while its file stayed:
    // the log gives its 2 timeline rows at their own times, the file's 2 copies are dropped.
    let file = |path: &str| files.iter().find(|file| file["path"] == path).unwrap().clone();
    let history_file = file(&format!(".copilot/history-session-state/session_{IMPORTED}_1759676400000.json"));
    assert_eq!((&history_file["rows"], &history_file["rows_deduplicated"]), (&0.into(), &2.into()));
    assert_eq!(file(&format!(".copilot/session-state/{IMPORTED}.jsonl"))["rows"], 7);
    let imported = session(&records, IMPORTED);
    assert_eq!((&imported["prompts"], &imported["replies"]), (&2.into(), &2.into()));
    assert_eq!(imported["first_event"], "2025-10-05T15:00:04.000Z");
    assert_eq!(imported["models"], serde_json::json!(["claude-sonnet-4"]));

    snapshot("older-cli__sessions.jsonl", &read(&out.join("sessions.jsonl")));
    snapshot("older-cli__rows.jsonl", &read(&out.join("rows.jsonl")));
    snapshot("older-cli__files.json", &serde_json::to_string_pretty(&report["files"]).unwrap());
    let (table, named) = usage(scratch.path(), "home");
    snapshot("older-cli__usage.txt", &table);
    assert_eq!(
        named,
        [".copilot/history-session-state: 2 history_session files: sessions with no usage counters, not counted"
            .to_string()]
        .map(|line| format!("copilot-lens: {line}"))
    );
}

/// A home holding only sessions from before event logs: `usage` no longer calls it empty, it
/// says what it found.
#[test]
fn a_home_of_history_sessions_alone_is_named_by_usage() {
    let scratch = tempfile::tempdir().unwrap();
    let history = ".copilot/history-session-state";
    copy_tree(&fixture("layouts/older-cli").join(history), &scratch.path().join("home").join(history));
    let (table, named) = usage(scratch.path(), "home");
    assert!(!table.contains("empty"), "{table}");
    assert_eq!(named.len(), 1, "{named:?}");
    assert!(named[0].contains("2 history_session files: sessions with no usage counters"), "{named:?}");
    let out = analyze(scratch.path(), "home");
    let ids: Vec<Value> = sessions(&out).iter().map(|record| record["session_id"].clone()).collect();
    assert_eq!(ids, [HISTORY, IMPORTED]);
    // 9 timeline entries and 2, none dropped: no log repeats them here.
    assert_eq!(read(&out.join("rows.jsonl")).lines().count(), 11);
}

/// A flat `<id>.jsonl` dropped alone is read as that session.
#[test]
fn a_loose_flat_log_is_read_as_its_session() {
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("layouts/loose-flat-log"), &scratch.path().join("loose"));
    let out = analyze(scratch.path(), "loose");
    let records = sessions(&out);
    assert_eq!(records.len(), 1, "{records:#?}");
    let record = &records[0];
    assert_eq!(record["session_id"], "aaaaaaaa-0000-4000-8000-000000000007");
    assert_eq!(
        (&record["prompts"], &record["replies"], &record["copilot_version"]),
        (&1.into(), &1.into(), &"0.0.372".into())
    );
    let report: Value = serde_json::from_str(&read(&out.join("report.json"))).unwrap();
    assert_eq!(report["homes"][0]["layout"], "loose_logs");
    assert_eq!(read(&out.join("rows.jsonl")).lines().count(), 3);
}

/// CLI 1.0.14: the title in `workspace.yaml` `summary:` (a `|-` block scalar, or plain), and a
/// session whose chosen model the provider refused (HTTP 404): no call answered, its usage is
/// zero, and its record names the chosen model as never used.
#[test]
fn cli_1_0_14_titles_and_a_model_that_never_answered() {
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("layouts/cli-1.0.14"), &scratch.path().join("home"));
    let out = analyze(scratch.path(), "home");
    let records = sessions(&out);
    let answered = session(&records, "aaaaaaaa-0000-4000-8000-000000000005");
    assert_eq!(answered["name"], "Fix: cart total off by one");
    assert_eq!(answered["models"], serde_json::json!(["claude-sonnet-4.5"]));
    assert_eq!(answered["models_never_used"], Value::Null);
    // 1 request, 12,000 input of which 8,000 cache reads, 400 output: 4,000 x 3.00 + 8,000 x 0.30
    // + 400 x 15.00 per million = 0.0204 USD.
    let usage = &answered["usage"];
    let counts =
        ["requests", "input", "cache_read", "output", "total", "cost_usd_micros"].map(|key| usage[key].clone());
    assert_eq!(counts, [1, 4_000, 8_000, 400, 12_400, 20_400].map(Value::from));
    let refused = session(&records, "aaaaaaaa-0000-4000-8000-000000000006");
    assert_eq!(refused["name"], "Try the new model");
    assert_eq!(refused["models"], serde_json::json!([]));
    assert_eq!(refused["models_never_used"], serde_json::json!(["claude-opus-4.6"]));
    snapshot("cli-1.0.14__sessions.jsonl", &read(&out.join("sessions.jsonl")));
    snapshot("cli-1.0.14__rows.jsonl", &read(&out.join("rows.jsonl")));
}

/// A folder of older layouts dropped as `~/.copilot` itself (no home around it) is found by its
/// `history-session-state/`.
#[test]
fn a_copilot_folder_of_history_sessions_is_found() {
    let scratch = tempfile::tempdir().unwrap();
    let history = fixture("layouts/older-cli").join(".copilot/history-session-state");
    copy_tree(&history, &scratch.path().join("my-copilot/history-session-state"));
    fs::write(scratch.path().join("my-copilot/notes.txt"), "not a session").unwrap();
    let out = analyze(scratch.path(), "my-copilot");
    assert_eq!(sessions(&out).len(), 2);
}
