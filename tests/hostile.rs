//! Broken and hostile input (fixtures/hostile/, made by scripts/make-hostile-fixtures.py):
//! each case's diagnostics against a reviewed golden file, and the large cases built here.
//! Nothing may panic, stop the analysis, or hang.

mod common;

use std::fs;
use std::path::Path;

use common::{copy_tree, fixture, read, run};

fn snapshot(name: &str, value: &str) {
    insta::with_settings!({ snapshot_path => Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/hostile"), prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(name, value);
    });
}

/// Runs a fixture root and returns (report.json, rows.jsonl).
fn analyse(case: &str) -> (String, String) {
    let scratch = tempfile::tempdir().unwrap();
    let source = fixture(&format!("hostile/{case}"));
    let name = Path::new(case).file_name().unwrap().to_str().unwrap();
    let root = scratch.path().join(name);
    if source.is_dir() {
        copy_tree(&source, &root);
    } else {
        fs::copy(&source, &root).unwrap();
    }
    let output = run(scratch.path(), &["analyze", name, "--out", "out"]);
    assert!(output.status.success(), "{case}: {}", String::from_utf8_lossy(&output.stderr));
    (read(&scratch.path().join("out/report.json")), read(&scratch.path().join("out/rows.jsonl")))
}

#[test]
fn broken_lines_are_rows_that_say_so() {
    let (report, rows) = analyse("lines");
    snapshot("lines__report.json", &report);
    snapshot("lines__rows.jsonl", &rows);
}

#[test]
fn damaged_stores_are_diagnostics_and_the_rest_is_read() {
    for case in [
        "wal-bad-checksum-middle",
        "wal-torn-tail",
        "wal-old-salt",
        "wal-without-db",
        "wal-without-db-pages",
        "wal-foreign-page-size",
        "wal-empty",
        "wal-torn-header",
        "db-without-wal",
        "db-truncated",
        "not-sqlite",
    ] {
        let (report, rows) = analyse(case);
        snapshot(&format!("{case}__report.json"), &report);
        snapshot(&format!("{case}__rows.jsonl"), &rows);
    }
}

#[test]
fn hostile_zips_are_read_safely() {
    let cases = [
        "bomb.zip",
        "unsafe-names.zip",
        "duplicates.zip",
        "encrypted.zip",
        "zip64.zip",
        "wrong-checksum.zip",
        "absolute-windows.zip",
        "absolute-posix.zip",
        "absolute-unc.zip",
        "zip-in-zip.zip",
    ];
    for case in cases {
        let (report, rows) = analyse(&format!("zips/{case}"));
        snapshot(&format!("{case}__report.json"), &report);
        snapshot(&format!("{case}__rows.jsonl"), &rows);
    }
}

/// What `analyze` says (it must fail with status 2) of each fixture file given as a root.
fn refusals(cases: impl IntoIterator<Item = std::path::PathBuf>) -> String {
    let scratch = tempfile::tempdir().unwrap();
    let mut said = String::new();
    for source in cases {
        let name = source.file_name().unwrap().to_str().unwrap().to_string();
        fs::copy(&source, scratch.path().join(&name)).unwrap();
        let output = run(scratch.path(), &["analyze", &name, "--out", "out"]);
        assert_eq!(output.status.code(), Some(2), "{name}");
        assert!(!scratch.path().join("out").exists(), "{name}: nothing is written");
        said.push_str(&String::from_utf8_lossy(&output.stderr));
    }
    said
}

#[test]
fn a_truncated_zip_is_a_clear_error() {
    snapshot("truncated.zip__stderr", &refusals([fixture("hostile/zips/truncated.zip")]));
}

#[test]
fn a_file_that_is_not_a_zip_is_named_for_what_it_is() {
    let mut cases: Vec<_> =
        fs::read_dir(fixture("hostile/not-zips")).unwrap().map(|entry| entry.unwrap().path()).collect();
    cases.sort();
    snapshot("not-zips__stderr", &refusals(cases));
}

#[test]
fn a_zip_nested_deeper_or_not_a_zip_inside_a_zip_is_a_clear_error() {
    let cases = ["zip-in-zip-in-zip.zip", "tar-gz-in-zip.zip"].map(|case| fixture(&format!("hostile/zips/{case}")));
    snapshot("nested-zips__stderr", &refusals(cases));
}

#[test]
fn utf16_logs_and_byte_order_marks_are_read() {
    let (report, rows) = analyse("encodings");
    snapshot("encodings__report.json", &report);
    snapshot("encodings__rows.jsonl", &rows);
    // The usage-only reading finds the same counters.
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("hostile/encodings"), &scratch.path().join("encodings"));
    let output = run(scratch.path(), &["usage", "encodings", "--by", "session", "--json"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    snapshot("encodings__usage.json", &String::from_utf8_lossy(&output.stdout));
}

#[test]
fn a_100_mb_line_keeps_its_length_and_a_prefix() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("home/.copilot/session-state/0badf00d-0000-4000-8000-000000000002");
    fs::create_dir_all(&dir).unwrap();
    let mut log = br#"{"type":"user.message","data":{"content":"before"}}"#.to_vec();
    log.extend_from_slice(b"\n{\"type\":\"user.message\",\"data\":{\"content\":\"");
    log.resize(log.len() + 100_000_000, b'x');
    log.extend_from_slice(b"\"}}\n{\"type\":\"user.message\",\"data\":{\"content\":\"after\"}}\n");
    fs::write(dir.join("events.jsonl"), &log).unwrap();
    let output = run(scratch.path(), &["analyze", "home", "--out", "out"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let rows = read(&scratch.path().join("out/rows.jsonl"));
    let texts: Vec<String> = rows
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(texts.len(), 3);
    assert_eq!((texts[0].as_str(), texts[2].as_str()), ("before", "after"));
    // The 100 MB line is over the 64 MiB line limit: a bad-line row with a prefix and the length.
    assert!(
        texts[1]
            .starts_with("parser: unparseable line (line of 100000045 bytes is longer than the 67108864 byte limit)"),
        "{}",
        &texts[1][..200]
    );
    assert!(texts[1].ends_with("[... 100000045 bytes in all]") && texts[1].len() < 70_000);
}

#[test]
fn a_hundred_thousand_tiny_files_are_listed_not_read() {
    let scratch = tempfile::tempdir().unwrap();
    let session = scratch.path().join("home/.copilot/session-state/0badf00d-0000-4000-8000-000000000003");
    fs::create_dir_all(session.join("files")).unwrap();
    for index in 0..100_000 {
        fs::write(session.join(format!("files/{index}.txt")), b"x").unwrap();
    }
    fs::write(session.join("events.jsonl"), br#"{"type":"user.message","data":{"content":"among many files"}}"#)
        .unwrap();
    let output = run(scratch.path(), &["analyze", "home", "--out", "out"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_str(&read(&scratch.path().join("out/report.json"))).unwrap();
    assert_eq!(report["totals"]["files_found"], 100_001);
    assert_eq!(report["totals"]["rows"], 1);
}

#[cfg(unix)]
#[test]
fn special_files_are_listed_as_not_read() {
    let scratch = tempfile::tempdir().unwrap();
    let sessions = scratch.path().join("home/.copilot/session-state");
    let (session, piped) =
        (sessions.join("0badf00d-0000-4000-8000-000000000001"), sessions.join("0badf00d-0000-4000-8000-000000000002"));
    fs::create_dir_all(&session).unwrap();
    fs::create_dir_all(&piped).unwrap();
    fs::write(session.join("events.jsonl"), br#"{"type":"user.message","data":{"content":"beside a pipe"}}"#).unwrap();
    // A named pipe where a log would be: opening it would wait for a writer for ever.
    let made = std::process::Command::new("mkfifo").arg(piped.join("events.jsonl")).status().unwrap();
    assert!(made.success());
    let _socket = std::os::unix::net::UnixListener::bind(scratch.path().join("home/.copilot/ide.sock")).unwrap();
    let output = run(scratch.path(), &["analyze", "home", "--out", "out"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    snapshot("special-files__report.json", &read(&scratch.path().join("out/report.json")));
    let output = run(scratch.path(), &["usage", "home"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

#[cfg(unix)]
#[test]
fn symbolic_link_loops_do_not_hang_the_walk() {
    let scratch = tempfile::tempdir().unwrap();
    let copilot = scratch.path().join("home/.copilot");
    copy_tree(&fixture("spec-sample/.copilot"), &copilot);
    std::os::unix::fs::symlink("..", copilot.join("session-state/loop")).unwrap();
    std::os::unix::fs::symlink(&copilot, copilot.join("logs/self")).unwrap();
    let output = run(scratch.path(), &["analyze", "home", "--out", "out"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_str(&read(&scratch.path().join("out/report.json"))).unwrap();
    let problems = report["roots"][0]["problems"].to_string();
    assert!(
        problems.contains("session-state/loop")
            && problems.contains("logs/self")
            && problems.contains("symbolic link, not followed"),
        "{problems}"
    );
}

#[test]
fn a_chat_log_index_past_an_arrays_end_is_a_bad_line_and_the_replay_goes_on() {
    // Pushes with `i` of 10^12, 2*10^8 and 5*10^7 once asked for 32 TB, overflowed, or took 1.5 GB.
    let (report, rows) = analyse("chat-push-past-end");
    snapshot("chat-push-past-end__report.json", &report);
    snapshot("chat-push-past-end__rows.jsonl", &rows);
    let bad_lines: Vec<&str> = rows.lines().filter(|row| row.contains("parser: unparseable line")).collect();
    assert_eq!(bad_lines.len(), 7, "{rows}");
    for question in ["first question", "second question"] {
        assert!(rows.contains(&format!("\"text\":\"{question}\"")), "{question}: {rows}");
    }
    assert!(!rows.contains("lost to a huge cut") || bad_lines.iter().any(|row| row.contains("lost to a huge cut")));
}

#[test]
fn lone_surrogate_escapes_read_as_replacement_characters_and_nothing_is_lost() {
    let (report, rows) = analyse("lone-surrogates");
    snapshot("lone-surrogates__report.json", &report);
    snapshot("lone-surrogates__rows.jsonl", &rows);
    assert!(!rows.contains("unparseable") && !report.contains("no initial entry"), "{report}\n{rows}");
    for text in [
        "producer=copilot-agent \u{fffd} cwd=/home/mona/git/octo-lib",
        "ship it \u{fffd}",
        "\u{fffd} shipped, and the rest of the line is kept",
        "session end: error cut \u{fffd} files modified: notes \u{fffd}.md",
        "first question \u{fffd}",
        "\u{fffd}second question",
        "snapshot question \u{fffd}",
    ] {
        assert!(rows.contains(text), "{text}: {rows}");
    }
    // The usage-only scan reads the same counter lines.
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("hostile/lone-surrogates"), &scratch.path().join("home"));
    let usage = run(scratch.path(), &["usage", "home", "--json"]);
    let usage = String::from_utf8_lossy(&usage.stdout);
    for (agent, figures) in [("copilot-cli", "\"input\": 2000,"), ("copilot-vscode", "\"input\": 3000,")] {
        let row = usage.split("\"agent\": ").find(|row| row.starts_with(&format!("\"{agent}\""))).unwrap_or_default();
        assert!(row.contains(figures), "{agent}: {usage}");
    }
}

/// Runs `analyze` on a copy of `home` and returns inventory.json.
fn inventory_of(home: &Path) -> String {
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(home, &scratch.path().join("home"));
    let output = run(scratch.path(), &["analyze", "home", "--out", "out"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    read(&scratch.path().join("out/inventory.json"))
}

#[test]
fn descriptions_are_cut_and_say_so_and_yaml_aliases_are_read() {
    let inventory = inventory_of(&fixture("hostile/front-matter-limits"));
    snapshot("front-matter-limits__inventory.json", &inventory);
    let value: serde_json::Value = serde_json::from_str(&inventory).unwrap();
    let files = |list: &str| value["homes"][0]["agents"][0][list].as_array().cloned().unwrap_or_default();
    let skill = files("skills").into_iter().find(|skill| skill["name"] == "long-winded").expect("the skill");
    let description = skill["description"].as_str().unwrap();
    assert_eq!((description.chars().count(), description.ends_with('…')), (501, true));
    assert_eq!(skill["description_cut"], true);
    let agents = files("custom_agents");
    let description_of =
        |name: &str| agents.iter().find(|agent| agent["name"] == name).map(|agent| agent["description"].clone());
    assert_eq!(description_of("aliased"), Some("Reviews pull requests for style.".into()));
    assert_eq!(description_of("listed"), Some("".into()), "an alias of a list is no text");
}

#[test]
fn a_50_mb_description_costs_500_characters_of_inventory() {
    let scratch = tempfile::tempdir().unwrap();
    let skill = scratch.path().join("home/.copilot/skills/huge/SKILL.md");
    fs::create_dir_all(skill.parent().unwrap()).unwrap();
    let description = "word ".repeat(10 << 20);
    fs::write(&skill, format!("---\nname: huge\ndescription: {description}\n---\nBody.\n")).unwrap();
    let inventory = inventory_of(&scratch.path().join("home"));
    assert!(inventory.len() < 20_000, "inventory.json is {} bytes", inventory.len());
    assert!(inventory.contains("\"description_cut\": true"), "{inventory}");
}

#[test]
fn remote_and_unc_folders_are_their_paths_with_their_machine_named() {
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("hostile/remote-folders"), &scratch.path().join("home"));
    let output = run(scratch.path(), &["analyze", "home", "--out", "out"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let out = scratch.path().join("out");
    let sessions = read(&out.join("sessions.jsonl"));
    let places: Vec<(String, String, String)> = sessions
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .map(|s| {
            let text = |key: &str| s[key].as_str().unwrap_or_default().to_string();
            (text("session_id")[..8].to_string(), text("project_path"), text("remote"))
        })
        .collect();
    let expected = [
        // The CLI's session, from VS Code's metadata: a codespace.
        ("4ea50000", "/workspaces/app", "codespaces+fuzzy-space-a1b2"),
        // workspace.json: SSH, UNC, a dev container (its host folder hex-encoded), SSH with the
        // host hex-encoded as JSON; an empty window's request in WSL (URI components).
        ("c0de2205", "/home/me/app", "ssh-remote+mybox"),
        ("c0de2205", "//server/share/app", ""),
        ("c0de2205", "/workspaces/app", "dev-container+/home/me/app"),
        ("c0de2205", "/srv/app", "ssh-remote+my box"),
        ("c0de2205", "/home/me/wsl-app", "wsl+Ubuntu"),
    ];
    let expected: Vec<(String, String, String)> =
        expected.iter().map(|(id, path, remote)| (id.to_string(), path.to_string(), remote.to_string())).collect();
    assert_eq!(places, expected);
    let mut row_projects: Vec<String> = read(&out.join("rows.jsonl"))
        .lines()
        .map(|line| {
            serde_json::from_str::<serde_json::Value>(line).unwrap()["project_path"].as_str().unwrap().to_string()
        })
        .collect();
    row_projects.sort();
    row_projects.dedup();
    assert_eq!(row_projects, ["//server/share/app", "/home/me/app", "/home/me/wsl-app", "/srv/app", "/workspaces/app"]);
    // The inventory's projects name their machine: the same path on two machines is two projects.
    let inventory: serde_json::Value = serde_json::from_str(&read(&out.join("inventory.json"))).unwrap();
    let projects: Vec<&serde_json::Value> = inventory["homes"][0]["agents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|agent| agent["projects"].as_array().unwrap())
        .collect();
    // `usage --by project` keeps each machine's project apart.
    let by_project = run(scratch.path(), &["usage", "home", "--by", "project", "--json"]);
    let by_project: serde_json::Value = serde_json::from_slice(&by_project.stdout).unwrap();
    let labels: Vec<&str> =
        by_project["rows"].as_array().unwrap().iter().map(|row| row["project_path"].as_str().unwrap()).collect();
    assert_eq!(
        labels,
        [
            "//server/share/app",
            "dev-container+/home/me/app:/workspaces/app",
            "ssh-remote+my box:/srv/app",
            "ssh-remote+mybox:/home/me/app",
            "wsl+Ubuntu:/home/me/wsl-app"
        ]
    );
    snapshot("remote-folders__sessions.jsonl", &sessions);
    snapshot("remote-folders__projects.json", &serde_json::to_string_pretty(&projects).unwrap());
}

#[test]
fn a_chat_log_line_whose_path_does_not_exist_or_whose_value_is_of_another_type_is_diagnosed() {
    let (report, rows) = analyse("chat-paths-and-types");
    snapshot("chat-paths-and-types__report.json", &report);
    snapshot("chat-paths-and-types__rows.jsonl", &rows);
    // Every bad line and every line with a part left out, by its number.
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    let lines: Vec<u64> = report["diagnostics"].as_array().unwrap().iter().filter_map(|d| d["line"].as_u64()).collect();
    assert_eq!(lines, [1, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    // The good requests (0, 2, 3 and 5) are counted, whole, by both runs.
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("hostile/chat-paths-and-types"), &scratch.path().join("home"));
    let usage = run(scratch.path(), &["usage", "home", "--json"]);
    assert!(usage.status.success(), "{}", String::from_utf8_lossy(&usage.stderr));
    let usage: serde_json::Value = serde_json::from_slice(&usage.stdout).unwrap();
    let counted = &usage["totals"]["counted"];
    assert_eq!((counted["requests"].as_u64(), counted["input"].as_u64()), (Some(4), Some(11_000)), "{usage}");
    let stderr = String::from_utf8(run(scratch.path(), &["usage", "home"]).stderr).unwrap();
    for line in [1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] {
        assert!(stderr.contains(&format!(".jsonl:{line}: ")), "line {line}: {stderr}");
    }
    for question in ["question 0", "question 2", "question 3", "question 5"] {
        assert!(rows.contains(&format!("\"text\":\"{question}\"")), "{question}: {rows}");
    }
}

#[test]
fn a_session_copied_onto_another_machine_counts_each_day_on_the_machine_whose_copy_holds_it() {
    // The laptop's copy holds Nov 2 and 3, the desktop's (signed in as another login) the same
    // and Nov 4, which it alone holds.
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("hostile/copied-session"), scratch.path());
    let exported = run(
        scratch.path(),
        &["usage", "mona-laptop", "mona-desktop", "--export", "team.csv", "--exported-at", "2026-12-02T09:30:00Z"],
    );
    assert!(exported.status.success(), "{}", String::from_utf8_lossy(&exported.stderr));
    let csv = read(&scratch.path().join("team.csv"));
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let rows: Vec<(String, String, String, String, String)> = reader
        .deserialize::<std::collections::HashMap<String, String>>()
        .map(|row| {
            let row = row.unwrap();
            let take = |column: &str| row[column].clone();
            (take("user"), take("machine"), take("day"), take("requests"), take("input"))
        })
        .collect();
    let expected = [
        ("mona", "mona-laptop", "2026-11-02", "1", "1000"),
        ("mona", "mona-laptop", "2026-11-03", "1", "2000"),
        ("mona-at-work", "mona-desktop", "2026-11-04", "1", "3000"),
    ];
    let expected: Vec<(String, String, String, String, String)> = expected
        .iter()
        .map(|(a, b, c, d, e)| (a.to_string(), b.to_string(), c.to_string(), d.to_string(), e.to_string()))
        .collect();
    assert_eq!(rows, expected, "{csv}");
    // `--by home` (a usage-only run, which scans the copies in any order) says the same.
    let by_home = run(scratch.path(), &["usage", "mona-laptop", "mona-desktop", "--by", "home", "--json"]);
    let by_home: serde_json::Value = serde_json::from_slice(&by_home.stdout).unwrap();
    let homes: Vec<(&str, u64)> = by_home["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| (row["home"].as_str().unwrap(), row["input"].as_u64().unwrap()))
        .collect();
    assert_eq!(homes, [("mona-desktop", 3000), ("mona-laptop", 3000)]);
}

#[test]
fn kinds_of_event_a_newer_copilot_wrote_are_named_per_version_with_no_content() {
    let scratch = tempfile::tempdir().unwrap();
    copy_tree(&fixture("hostile/format-drift"), &scratch.path().join("home"));
    let output = run(scratch.path(), &["analyze", "home", "--out", "out"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_str(&read(&scratch.path().join("out/report.json"))).unwrap();
    snapshot("format-drift__format_drift.json", &serde_json::to_string_pretty(&report["format_drift"]).unwrap());
    let said = String::from_utf8(output.stderr).unwrap();
    assert!(
        said.contains("copilot-lens: Copilot CLI 1.0.119 wrote 3 kinds of event copilot-lens 0.1.0 does not read (report.json's format_drift names them)"),
        "{said}"
    );
    // A kind named by a token is named scrubbed: the token is in no output.
    for file in common::files_below(&scratch.path().join("out")) {
        assert!(!read(&file).contains("A1b2C3d4A1b2"), "{}", file.display());
    }
}
