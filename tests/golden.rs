//! The whole output of each fixture tree against its reviewed golden files
//! (`tests/golden/*.snap`; `INSTA_UPDATE=always cargo test --test golden` rewrites them).

mod common;

use std::path::Path;

use common::{copy_tree, fixture, read, run};

fn check_fixture(name: &str, extra_args: &[&str]) {
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture(name), &scratch.path().join("home"));
    let mut args = vec!["analyze", "home", "--out", "out"];
    args.extend_from_slice(extra_args);
    let output = run(scratch.path(), &args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let out = scratch.path().join("out");
    insta::with_settings!({ snapshot_path => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden"), prepend_module_to_snapshot => false, omit_expression => true }, {
        for file in ["rows.jsonl", "sessions.jsonl", "inventory.json", "report.json", "usage.jsonl", "usage.csv"] {
            insta::assert_snapshot!(format!("{name}__{file}"), read(&out.join(file)));
        }
    });
}

/// The format specification's own fixture ("Fixtures"): its expected rows, the six secondary
/// copies that drop and the four that stay.
#[test]
fn spec_sample() {
    check_fixture("spec-sample", &["--include-thinking"]);
}

/// A real ~/.copilot written by Copilot CLI 1.0.102.
#[test]
fn real_cli_1_0_102() {
    check_fixture("real-cli-1.0.102", &[]);
}

/// Sessions VS Code's Copilot Chat ran (vscode.metadata.json): one in a folder, whose log names
/// no working directory (VS Code's repository and branch are the fallback); one in a git worktree
/// VS Code made (a scratch directory); one whose file was cut short (a diagnostic).
#[test]
fn vscode_metadata() {
    check_fixture("vscode-metadata", &[]);
}
