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
