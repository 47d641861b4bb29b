//! Several homes at once, and the same data given twice: the trees are made here from the
//! fixture homes (two machines in one folder, a home beside its own zip and its `.copilot`, a
//! session copied onto two machines with one copy cut short), and their outputs checked against
//! reviewed golden files and against the runs of each home alone.

mod common;

use std::fs;
use std::path::Path;

use common::{copy_tree, files_below, fixture, read, run, zip_tree};

fn snapshot(name: &str, value: &str) {
    insta::with_settings!({ snapshot_path => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/homes"), prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(name, value);
    });
}

/// Runs `analyze` on `roots` (relative to `dir`) into `dir/out`; returns the output folder.
fn analyze(dir: &Path, out: &str, roots: &[&str]) -> std::path::PathBuf {
    let mut args = vec!["analyze", "--out", out];
    args.extend_from_slice(roots);
    let output = run(dir, &args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    dir.join(out)
}

/// The session records without the homes that hold them, which differ by design.
fn sessions_without_homes(out: &Path) -> Vec<serde_json::Value> {
    read(&out.join("sessions.jsonl"))
        .lines()
        .map(|line| {
            let mut record: serde_json::Value = serde_json::from_str(line).unwrap();
            record.as_object_mut().unwrap().remove("homes");
            if let Some(flags) = record.pointer_mut("/usage/flags").and_then(|flags| flags.as_array_mut()) {
                flags.retain(|flag| flag != "several_logs_most_complete_counted");
            }
            record
        })
        .collect()
}

fn diagnostics(out: &Path) -> String {
    let report: serde_json::Value = serde_json::from_str(&read(&out.join("report.json"))).unwrap();
    let pretty = |value: &serde_json::Value| serde_json::to_string_pretty(value).unwrap();
    format!("homes: {}\ndiagnostics: {}", pretty(&report["homes"]), pretty(&report["diagnostics"]))
}

/// `machineA/.copilot` and `machineB/.copilot` in one folder: both are read, each under its
/// own label, and usage, sessions and the inventory say which home holds what.
#[test]
fn two_machines_in_one_folder_are_both_read() {
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("spec-sample"), &scratch.path().join("collected/machineA"));
    copy_tree(&fixture("real-cli-1.0.102"), &scratch.path().join("collected/machineB"));
    let out = analyze(scratch.path(), "out", &["collected"]);
    let report: serde_json::Value = serde_json::from_str(&read(&out.join("report.json"))).unwrap();
    snapshot("two-machines__homes.json", &serde_json::to_string_pretty(&report["homes"]).unwrap());
    snapshot("two-machines__inventory.json", &read(&out.join("inventory.json")));
    snapshot("two-machines__sessions.jsonl", &read(&out.join("sessions.jsonl")));

    // Every row of each machine alone, and nothing else.
    let alone_a = analyze(scratch.path(), "alone-a", &["collected/machineA"]);
    let alone_b = analyze(scratch.path(), "alone-b", &["collected/machineB"]);
    let rows = read(&out.join("rows.jsonl"));
    assert_eq!(
        rows.lines().count(),
        read(&alone_a.join("rows.jsonl")).lines().count() + read(&alone_b.join("rows.jsonl")).lines().count()
    );

    // `usage` finds both homes one level down, and breaks the figures down by home.
    for args in [&["usage", "collected", "--by", "home"][..], &["usage", "collected", "--by", "home", "--json"][..]] {
        let output = run(scratch.path(), args);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let name = if args.len() == 5 { "two-machines__usage-by-home.json" } else { "two-machines__usage-by-home.txt" };
        snapshot(name, &String::from_utf8(output.stdout).unwrap());
    }
}

/// A home given three times (the folder, its `.copilot`, and a zip of it) counts once.
#[test]
fn a_home_given_again_counts_once() {
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("real-cli-1.0.102"), &scratch.path().join("home"));
    zip_tree(&scratch.path().join("home"), &scratch.path().join("home.zip"), "", "/");
    let alone = analyze(scratch.path(), "alone", &["home"]);
    let thrice = analyze(scratch.path(), "thrice", &["home", "home/.copilot", "home.zip"]);
    assert_eq!(read(&thrice.join("rows.jsonl")), read(&alone.join("rows.jsonl")));
    assert_eq!(read(&thrice.join("usage.jsonl")), read(&alone.join("usage.jsonl")));
    assert_eq!(sessions_without_homes(&thrice), sessions_without_homes(&alone));
    snapshot("home-thrice__report.txt", &diagnostics(&thrice));
}

/// One session on two machines, the first machine's copy cut short (it was copied while the
/// session went on): the longer copy wins, and every row is shown once.
#[test]
fn a_session_copied_onto_two_machines_counts_once() {
    let scratch = tempfile::tempdir().unwrap();
    let (first, second) = (scratch.path().join("machines/a"), scratch.path().join("machines/b"));
    copy_tree(&fixture("spec-sample"), &first);
    copy_tree(&fixture("spec-sample"), &second);
    let log = files_below(&first).into_iter().find(|path| path.ends_with("events.jsonl")).unwrap();
    let whole = fs::read_to_string(&log).unwrap();
    let half: String = whole.split_inclusive('\n').take(whole.lines().count() / 2).collect();
    fs::write(&log, half).unwrap();

    let alone = analyze(scratch.path(), "alone", &["machines/b"]);
    let both = analyze(scratch.path(), "both", &["machines"]);
    let sorted_rows = |out: &Path| {
        let mut rows: Vec<serde_json::Value> = read(&out.join("rows.jsonl"))
            .lines()
            .map(|line| {
                let mut row: serde_json::Value = serde_json::from_str(line).unwrap();
                row.as_object_mut().unwrap().remove("source_line");
                row
            })
            .collect();
        rows.sort_by_key(|row| row.to_string());
        rows
    };
    assert_eq!(sorted_rows(&both), sorted_rows(&alone));
    assert_eq!(read(&both.join("usage.jsonl")), read(&alone.join("usage.jsonl")));
    assert_eq!(sessions_without_homes(&both), sessions_without_homes(&alone));
    snapshot("copied-session__report.txt", &diagnostics(&both));
}

/// A session's log given alone (no home around it) is read as that session, under the id the
/// log names, with its usage.
#[test]
fn a_log_given_alone_is_read_as_its_session() {
    let scratch = tempfile::tempdir().unwrap();
    let session = "16389f9e-9896-4928-b559-7fadd9312083";
    let log = fixture("real-cli-1.0.102").join(format!(".copilot/session-state/{session}/events.jsonl"));
    fs::create_dir(scratch.path().join("loose")).unwrap();
    fs::copy(&log, scratch.path().join("loose/events.jsonl")).unwrap();
    let out = analyze(scratch.path(), "out", &["loose"]);
    let sessions = read(&out.join("sessions.jsonl"));
    assert!(sessions.contains(&format!("\"session_id\":\"{session}\"")), "{sessions}");
    snapshot("loose-log__sessions.jsonl", &sessions);
    snapshot("loose-log__rows.jsonl", &read(&out.join("rows.jsonl")));
    let usage = run(scratch.path(), &["usage", "loose"]);
    assert!(usage.status.success(), "{}", String::from_utf8_lossy(&usage.stderr));
    let table = String::from_utf8(usage.stdout).unwrap();
    // A session on the person's own key only: no Copilot charge, said so rather than $0.00.
    assert_eq!(table.lines().next().unwrap(), "credits used: 3,072 tokens on your own key, no Copilot charge");
    assert_eq!(
        table.lines().nth(3).unwrap(),
        "2026-11-30  gpt-4.1         3  2,706         300            0      66         15  3,072     0.00  byok"
    );
    // A range with no usage in it has no total row, only the words.
    let none = run(scratch.path(), &["usage", "loose", "--since", "2030-01-01"]);
    let none = String::from_utf8(none.stdout).unwrap();
    assert!(none.contains("\nno usage in this range\n"), "{none}");
    assert!(!none.lines().any(|line| line.starts_with("total")), "{none}");
}
