//! `copilot-lens search` end to end: the rows whose texts hold a word, found in any case in the
//! texts as shown (secrets scrubbed), printed safe for a terminal.

mod common;

use std::path::Path;

use common::{copy_tree, fixture, run};

fn search(home: &Path, args: &[&str]) -> String {
    let output = run(home, &[&["search"], args].concat());
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

fn golden(name: &str, value: &str) {
    insta::with_settings!({ snapshot_path => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/search"), prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(name, value);
    });
}

#[test]
fn rows_holding_the_word_are_printed_scrubbed_with_their_session_and_time() {
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("inventory/home"), scratch.path());
    let token = search(scratch.path(), &["TOKEN", "."]);
    golden("token", &token);
    assert!(!token.contains("ghp_"), "no secret is printed");
    golden("redacted", &search(scratch.path(), &["[Redacted]", "."]));
    golden("redacted.jsonl", &search(scratch.path(), &["[redacted]", ".", "--json"]));
    let secret = search(scratch.path(), &["ghp_96ipbNClShVP4wY4for9duMl7JRU7BT4dK4b", "."]);
    assert_eq!(secret, "", "a secret is not found: the texts searched are scrubbed");
    assert_eq!(search(scratch.path(), &["zqxjvbnmw", "."]), "");
}

#[test]
fn an_empty_word_is_refused() {
    let output = run(Path::new("."), &["search", "", "."]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("empty"));
}

/// The time, session, type and text of each row of JSON lines `jsonl` from a log whose text
/// holds `word` in any case (all of them when `word` is empty).
fn log_rows_holding(jsonl: &str, word: &str) -> Vec<(String, String, String, String)> {
    let mut rows: Vec<_> = jsonl
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|row| {
            let source = row["source"].as_str().unwrap();
            source.ends_with("events.jsonl") || source.contains("/chatSessions/") || source.contains("/debug-logs/")
        })
        .filter(|row| row["text"].as_str().unwrap().to_lowercase().contains(&word.to_lowercase()))
        .map(|row| {
            ["timestamp_utc", "session_id", "turn_type", "text"].map(|key| row[key].as_str().unwrap().to_string())
        })
        .map(|[time, session, turn_type, text]| (time, session, turn_type, text))
        .collect();
    rows.sort();
    rows
}

#[test]
fn the_rows_found_are_those_of_the_analysis_from_the_logs_whose_text_holds_the_word() {
    // VS Code's debug logs beside their chats: the rows a chat holds are found once.
    for name in ["inventory/home", "spec-sample", "real-cli-1.0.102", "vscode/17-debug-logs"] {
        let scratch = tempfile::tempdir().unwrap();
        copy_tree(&fixture(name), &scratch.path().join("home"));
        let analyzed = run(scratch.path(), &["analyze", "home", "--out", "out"]);
        assert!(analyzed.status.success());
        let rows = common::read(&scratch.path().join("out/rows.jsonl"));
        for word in ["token", "TEST", "error", "the", "src/", "\"", "json", "Tool", "zqxjvbnmw"] {
            let found = log_rows_holding(&search(scratch.path(), &[word, "home", "--json"]), "");
            assert_eq!(found, log_rows_holding(&rows, word), "{name}: {word:?}");
        }
    }
}
