//! The native tool end to end: roots in every form give the same rows, input bytes never
//! change, and unusable input is a clear error with exit status 2.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use common::{copy_tree, fixture, read, run, zip_tree};

/// Every file below `root` with its bytes and modification time.
fn snapshot_tree(root: &Path) -> BTreeMap<PathBuf, (Vec<u8>, std::time::SystemTime)> {
    common::files_below(root)
        .into_iter()
        .map(|path| {
            let modified = fs::metadata(&path).unwrap().modified().unwrap();
            let bytes = fs::read(&path).unwrap();
            (path, (bytes, modified))
        })
        .collect()
}

fn rows_of(scratch: &Path, root: &str, out: &str) -> String {
    let output = run(scratch, &["analyze", root, "--out", out]);
    assert!(output.status.success(), "{root}: {}", String::from_utf8_lossy(&output.stderr));
    read(&scratch.join(out).join("rows.jsonl"))
}

#[test]
fn input_bytes_are_never_changed() {
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    copy_tree(&fixture("spec-sample"), &home);
    copy_tree(&fixture("real-cli-1.0.102"), &scratch.path().join("real"));
    let before = (snapshot_tree(&home), snapshot_tree(&scratch.path().join("real")));
    rows_of(scratch.path(), "home", "out1");
    rows_of(scratch.path(), "home/.copilot", "out2");
    rows_of(scratch.path(), "real", "out3");
    let after = (snapshot_tree(&home), snapshot_tree(&scratch.path().join("real")));
    assert_eq!(before.0.keys().collect::<Vec<_>>(), after.0.keys().collect::<Vec<_>>(), "files were added or removed");
    assert!(before == after, "a file's bytes or modification time changed");
}

#[test]
fn a_home_its_copilot_folder_and_zips_of_either_give_the_same_rows() {
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    copy_tree(&fixture("spec-sample"), &home);
    zip_tree(&home, &scratch.path().join("home.zip"), "mona", "/");
    zip_tree(&home.join(".copilot"), &scratch.path().join("copilot.zip"), "whatever-it-is-called", "/");
    zip_tree(&home, &scratch.path().join("windows.zip"), r"Users\mona", r"\");
    let expected = rows_of(scratch.path(), "home", "out-home");
    assert!(expected.contains("\"source\":\".copilot/session-store.db\""));
    assert!(rows_of(scratch.path(), "home/.copilot", "out-dir") == expected, ".copilot gives other rows");
    for zip in ["home.zip", "copilot.zip", "windows.zip"] {
        assert!(rows_of(scratch.path(), zip, &format!("out-{zip}")) == expected, "{zip} gives other rows");
    }
}

#[test]
fn xdg_era_folders_are_read_too() {
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("spec-sample/.copilot"), &scratch.path().join("home/.local/state/.copilot"));
    let rows = rows_of(scratch.path(), "home", "out");
    assert!(rows.contains(
        "\"source\":\".local/state/.copilot/session-state/5e55a0a1-0000-4000-8000-000000000001/events.jsonl\""
    ));
}

#[test]
fn unusable_input_is_a_clear_error_with_status_2() {
    let scratch = tempfile::tempdir().unwrap();
    fs::create_dir(scratch.path().join("empty")).unwrap();
    fs::create_dir_all(scratch.path().join("photos")).unwrap();
    fs::write(scratch.path().join("photos/cat.jpg"), b"meow").unwrap();
    fs::write(scratch.path().join("broken.zip"), b"PK\x03\x04 not really").unwrap();
    let mut cases = vec![
        ("missing", "No such file or directory"),
        ("empty", "empty"),
        (
            "photos",
            "photos: no Copilot data here: looked for Copilot CLI's .copilot folder (holding session-state, \
             history-session-state, session-store.db, session-store.db-wal, command-history-state.json, \
             permissions-config.json, sidebar-sessions-state) and VS Code's User folder (holding workspaceStorage, \
             globalStorage/emptyWindowChatSessions), or a home folder holding either (or a zip of any of them)",
        ),
        ("broken.zip", "broken.zip: this zip archive is cut short"),
    ];
    #[cfg(unix)]
    {
        // Opening a named pipe given as a root would wait for a writer.
        assert!(std::process::Command::new("mkfifo").arg(scratch.path().join("pipe")).status().unwrap().success());
        cases.push(("pipe", "pipe: a named pipe (FIFO), not a folder or a zip file"));
    }
    for (root, message) in cases {
        let output = run(scratch.path(), &["analyze", root, "--out", "out"]);
        assert_eq!(output.status.code(), Some(2), "{root}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{root}: {stderr}");
    }
    copy_tree(&fixture("spec-sample"), &scratch.path().join("home"));
    let output = run(scratch.path(), &["analyze", "home", "--out", "home/.copilot/out"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(!scratch.path().join("home/.copilot/out").exists());
}

#[test]
fn output_does_not_depend_on_listing_order() {
    use copilot_lens::analysis::{Options, analyze};
    use copilot_lens::input::memory::{MemoryRoot, MemoryRoots};
    use copilot_lens::model::JsonlRowWriter;

    let mut root = MemoryRoot::new("home");
    for (path, (bytes, _)) in snapshot_tree(&fixture("spec-sample")) {
        let relative = path.strip_prefix(fixture("spec-sample")).unwrap().to_string_lossy().into_owned();
        root.insert(&relative, bytes, Some(common::FIXED_MTIME_MS as i64));
    }
    let mut outputs = Vec::new();
    for reverse in [false, true] {
        let mut roots = MemoryRoots(vec![root.clone()]);
        let mut listings = roots.listings();
        if reverse {
            listings[0].files.reverse();
        }
        let mut rows = JsonlRowWriter::new(Vec::new());
        let result = analyze(listings, &mut roots, Options::default(), &mut rows).unwrap();
        let report = serde_json::to_string(&result.report).unwrap();
        outputs.push((rows.finish().unwrap(), report));
    }
    assert!(outputs[0] == outputs[1]);
}

#[test]
fn threads_are_capped_at_a_few_per_core() {
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("spec-sample"), &scratch.path().join("home"));
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let cores_here = if cores == 1 { "1 core".to_string() } else { format!("{cores} cores") };
    let capped =
        format!("copilot-lens: --threads 100000 is more than 4 per core ({cores_here} here): using {}\n", 4 * cores);
    for command in [&["analyze", "home", "--out", "out"][..], &["usage", "home"]] {
        let output = run(scratch.path(), &[command, &["--threads", "100000"]].concat());
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.starts_with(&capped), "{stderr}");
        assert!(stderr.contains(&format!("{} threads)", 4 * cores)), "{stderr}");
    }
    let output = run(scratch.path(), &["usage", "home", "--threads", "3"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("more than") && stderr.contains(" 3 threads)"), "{stderr}");
}

#[test]
fn a_since_after_the_until_is_an_error() {
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("spec-sample"), &scratch.path().join("home"));
    let output = run(scratch.path(), &["usage", "home", "--since", "2026-10-05", "--until", "2026-10-01"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty(), "no table");
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "copilot-lens: --since 2026-10-05 is after --until 2026-10-01: no day is in that range; give the earlier day \
         first\n"
    );
    let output = run(scratch.path(), &["usage", "home", "--since", "2026-10-01", "--until", "2026-10-01"]);
    assert!(output.status.success(), "one day is a range");
}

#[test]
fn usage_by_agent_splits_what_the_other_groupings_add_up() {
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("usage/two-models"), &scratch.path().join("home"));
    let json = |args: &[&str]| -> serde_json::Value {
        let output = run(scratch.path(), &[&["usage", "home", "--json"], args].concat());
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let by_day = json(&[]);
    let by_agent = json(&["--by", "agent"]);
    let of_cli = json(&["--agent", "copilot-cli"]);
    assert!(!by_day["rows"].as_array().unwrap().is_empty());
    assert_eq!(by_agent["totals"], by_day["totals"], "split or added up, the same totals");
    assert_eq!(of_cli, by_day, "all of it is Copilot CLI's");
    let rows = by_agent["rows"].as_array().unwrap();
    assert!(rows.iter().all(|row| row["agent"] == "copilot-cli" && row.get("day").is_none()), "{rows:?}");

    let text = run(scratch.path(), &["usage", "home", "--by", "agent"]);
    let text = String::from_utf8(text.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("credits used: ") && lines[1].is_empty(), "the headline first: {text}");
    assert!(lines[2].starts_with("agent ") && lines[3].starts_with("copilot-cli "), "{text}");

    let unknown = run(scratch.path(), &["usage", "home", "--agent", "nobody"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("the agents are copilot-cli"));
}
